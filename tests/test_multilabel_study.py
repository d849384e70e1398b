"""Tests of the multi-label comparison study (python -m pystagedtrees.study multilabel)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED
from sklearn.datasets import make_multilabel_classification

import pystagedtrees
from pystagedtrees.multilabel.metrics import MULTILABEL_SCORES
from pystagedtrees.study.multilabel import compare, load_multilabel_csv

EMOTIONS = SHARED / "data" / "multilabel" / "emotions.csv"
METHOD_ROWS = {"BR": 1, "BNCC": 1, "ECC": 1, "CC-random": 4}  # mean, sd, min, max


def _small_data(n=90, n_labels=3, seed=0):
    X, Y = make_multilabel_classification(
        n_samples=n, n_features=6, n_classes=n_labels, random_state=seed
    )
    return X, Y


def test_study_command_runs_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    X, Y = _small_data(n=120, n_labels=4)
    data = pd.DataFrame(
        np.hstack([Y, X]), columns=[f"L{j}" for j in range(4)] + [f"x{i}" for i in range(6)]
    )
    csv = tmp_path / "small.csv"
    data.to_csv(csv, index=False)
    out = tmp_path / "out"
    package_root = Path(pystagedtrees.__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "pystagedtrees.study", "multilabel", "--data", str(csv),
         "--labels", "4", "--folds", "3", "--orders", "2", "--out", str(out)],
        cwd=package_root, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for word in ["Chain order:", *METHOD_ROWS, *MULTILABEL_SCORES]:
        assert word in done.stdout
    table = pd.read_csv(out / "multilabel_scores.csv")
    assert table.groupby("learner").size().to_dict() == {"logistic": 7, "naive_bayes": 7}
    assert table.groupby("method").size().to_dict() == {m: 2 * k for m, k in METHOD_ROWS.items()}
    assert (out / "label_network.png").read_bytes()[:4] == b"\x89PNG"


def test_study_command_requires_a_study():
    from pystagedtrees.study.__main__ import main

    with pytest.raises(SystemExit):
        main([])


def test_study_rejects_bad_settings(capsys):
    from pystagedtrees.study.__main__ import main

    with pytest.raises(SystemExit):
        main(["multilabel", "--data", "x.csv", "--labels", "3", "--folds", "1"])
    assert "--folds: must be at least 2" in capsys.readouterr().err
    X, Y = _small_data(n=20)
    with pytest.raises(ValueError, match="n_orders"):
        compare(X, Y, n_orders=0)
    with pytest.raises(ValueError, match="one row per sample"):
        compare(X, Y[:-1])


def test_one_order_ensemble_is_that_chain():
    # An ensemble of a single chain thresholds that chain's own probabilities,
    # which for logistic regression and naive Bayes gives its predictions.
    X, Y = _small_data()
    table = compare(X, Y, n_folds=3, n_orders=1)
    scores = list(MULTILABEL_SCORES)
    for _, rows in table.groupby("learner"):
        ecc = rows[rows.method == "ECC"][scores].to_numpy()
        chain = rows[(rows.method == "CC-random") & (rows.statistic == "mean")][scores].to_numpy()
        np.testing.assert_allclose(ecc, chain)


def test_load_multilabel_csv_labels_at_either_end(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("x,y,a,b\n0.5,1.5,1,0\n2.5,3.5,0,1\n")
    X, Y = load_multilabel_csv(csv, 2, labels_at="end")
    assert list(X.columns) == ["x", "y"] and list(Y.columns) == ["a", "b"]
    with pytest.raises(ValueError, match="n_labels"):
        load_multilabel_csv(csv, 4)
    with pytest.raises(ValueError, match="labels_at"):
        load_multilabel_csv(csv, 2, labels_at="middle")


@pytest.fixture(scope="module")
def emotions_table():
    if not EMOTIONS.exists():
        pytest.skip(f"emotions data not found at {EMOTIONS} (only in the project's workspace)")
    X, Y = load_multilabel_csv(EMOTIONS, 6)
    return compare(X, Y)  # the study's protocol: 10 folds, 10 random orders, seed 0


# Measured on emotions (593 rows, 6 labels), 10-fold CV with seed 0, pooled
# out-of-fold predictions; CC-random is the mean (sd) over 10 random orders:
#
#   learner      method     hamming loss      example F1
#   naive_bayes  BNCC       0.2237            0.6465
#   naive_bayes  CC-random  0.2257 (0.0017)   0.6462 (0.0025)
#   logistic     BNCC       0.2237            0.6098
#   logistic     CC-random  0.2121 (0.0068)   0.6270 (0.0127)
#
# With naive Bayes BNCC is no worse than the mean random order, by a thin
# margin that depends on the folds: against all 720 orders of the 6 labels
# (same folds) its hamming loss beats the mean for fold seed 0 (0.2237 vs
# 0.2253) but not for seeds 1 and 2 (0.2293 vs 0.2246, 0.2260 vs 0.2236).
# With logistic regression BNCC is worse: for seed 0, 98.8% of the 720 orders
# have a lower hamming loss and 95.7% a higher example F1.  The BN order
# (relaxing, amazed, sad, angry, happy, quiet on all rows) puts the labels
# with the lowest entropy last, since of two opposite arcs the one into the
# label with the lower entropy is the heavier (see label_dependence); the
# reversed order scores 0.2063 / 0.6347 with logistic regression.  That case
# is a strict expected failure, so a change that makes it pass shows up.
@pytest.mark.parametrize(
    "learner",
    [
        "naive_bayes",
        pytest.param(
            "logistic",
            marks=pytest.mark.xfail(
                strict=True,
                reason="with logistic regression the BN order is worse than a random one "
                "on emotions (see the numbers above)",
            ),
        ),
    ],
)
def test_bncc_no_worse_than_random_chains_on_emotions(emotions_table, learner):
    rows = emotions_table[emotions_table.learner == learner].set_index(["method", "statistic"])
    bncc = rows.loc[("BNCC", "value")]
    random_mean = rows.loc[("CC-random", "mean")]
    assert bncc["hamming_loss"] <= random_mean["hamming_loss"]
    assert bncc["example_f1"] >= random_mean["example_f1"]

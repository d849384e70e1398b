"""Tests of the multi-label comparison study (python -m pystagedtrees.study multilabel)."""
import itertools
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.linear_model import LogisticRegression

import pystagedtrees
from pystagedtrees.multilabel import BNClassifierChain, label_network
from pystagedtrees.multilabel.metrics import MULTILABEL_SCORES
from pystagedtrees.study.multilabel import (
    compare,
    compare_repeated,
    load_multilabel_csv,
    methods_table,
    network_orders,
    plot_methods,
    score_orders,
    split_labels,
    summarise_methods,
    summarise_repeats,
)

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
         "--labels", "4", "--folds", "3", "--orders", "2", "--network-orders", "3",
         "--repeats", "2", "--out", str(out)],
        cwd=package_root, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for word in ["Chain order:", "consistent with the label network", *METHOD_ROWS,
                 *MULTILABEL_SCORES]:
        assert word in done.stdout
    # progress over the folds, as the other studies show theirs
    for label in ("multilabel (seed 0)", "multilabel (seed 1)", "network orders"):
        assert label in done.stderr
    table = pd.read_csv(out / "multilabel_scores.csv")
    assert table.groupby("learner").size().to_dict() == {"logistic": 7, "naive_bayes": 7}
    assert table.groupby("method").size().to_dict() == {m: 2 * k for m, k in METHOD_ROWS.items()}
    assert (out / "label_network.png").read_bytes()[:4] == b"\x89PNG"
    orders = pd.read_csv(out / "network_order_scores.csv")
    assert 1 <= orders["order"].nunique() <= 3
    assert orders.groupby("learner").size().nunique() == 1
    assert "over 2 fold splits (seeds 0..1)" in done.stdout
    repeats = pd.read_csv(out / "multilabel_repeats.csv")
    assert repeats["seed"].value_counts().to_dict() == {0: 14, 1: 14}
    # the main table is the first repeat's
    pd.testing.assert_frame_equal(
        repeats[repeats.seed == 0].drop(columns="seed").reset_index(drop=True), table)
    # every method summarised over the repeats, drawn, and the run recorded
    pd.testing.assert_frame_equal(pd.read_csv(out / "multilabel_summary.csv"),
                                  summarise_methods(repeats), check_dtype=False)
    assert (out / "multilabel_methods.png").read_bytes()[:4] == b"\x89PNG"
    record = json.loads((out / "multilabel_run.json").read_text())
    assert record["command"].startswith("python -m pystagedtrees.study multilabel --data")
    assert record["settings"]["repeats"] == 2 and record["settings"]["folds"] == 3
    assert {"cpu", "cores", "os", "python", "numpy", "pystagedtrees"} <= set(record["machine"])
    assert str(out / "multilabel_summary.csv") in record["outputs"]


def test_study_command_requires_a_study():
    from pystagedtrees.study.__main__ import main

    with pytest.raises(SystemExit):
        main([])


def test_study_reports_bad_data_without_a_traceback(tmp_path, capsys):
    from pystagedtrees.study.__main__ import main

    with pytest.raises(SystemExit) as stop:
        main(["multilabel", "--data", str(tmp_path / "missing.csv"), "--labels", "2"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "multilabel: error:" in err and "missing.csv" in err and "Traceback" not in err


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
    with pytest.raises(ValueError, match="`Y` must hold only 0 and 1"):
        compare(X, 2 * Y - 1)  # -1/1 labels, as some Mulan exports have


def test_repeats_are_compare_with_successive_seeds():
    X, Y = _small_data(n=60)
    table = compare_repeated(X, Y, 2, n_folds=2, n_orders=2, random_state=5)
    for seed in (5, 6):
        pd.testing.assert_frame_equal(
            table[table.seed == seed].drop(columns="seed").reset_index(drop=True),
            compare(X, Y, n_folds=2, n_orders=2, random_state=seed))
    with pytest.raises(ValueError, match="n_repeats"):
        compare_repeated(X, Y, 0)


def test_summarise_repeats_pairs_bncc_with_each_repeats_random_mean():
    # two repeats written by hand: BNCC's hamming loss is 0.20 then 0.30
    # against random means 0.25 and 0.28; its example F1 0.60 then 0.50
    # against 0.55 and 0.52
    def rows(seed, bncc, random):
        scores = dict.fromkeys(MULTILABEL_SCORES, 0.5)
        return [
            {"seed": seed, "learner": "lr", "method": "BNCC", "statistic": "value",
             **scores, "hamming_loss": bncc[0], "example_f1": bncc[1]},
            {"seed": seed, "learner": "lr", "method": "CC-random", "statistic": "mean",
             **scores, "hamming_loss": random[0], "example_f1": random[1]},
            {"seed": seed, "learner": "lr", "method": "CC-random", "statistic": "sd",
             **scores, "hamming_loss": 9.0, "example_f1": 9.0},
        ]
    table = pd.DataFrame(rows(0, (0.20, 0.60), (0.25, 0.55)) + rows(1, (0.30, 0.50), (0.28, 0.52)))
    summary = summarise_repeats(table).set_index("score")
    hamming, f1 = summary.loc["hamming_loss"], summary.loc["example_f1"]
    assert hamming["bncc"] == pytest.approx(0.25) and hamming["cc_random"] == pytest.approx(0.265)
    # differences -0.05 and +0.02: mean -0.015, sd 0.07 / sqrt(2), se 0.035
    assert hamming["difference"] == pytest.approx(-0.015)
    assert hamming["se"] == pytest.approx(0.035)
    assert (hamming["no_worse"], hamming["repeats"]) == (1, 2)  # lower loss is better
    # differences +0.05 and -0.02: no worse in the first repeat only
    assert f1["difference"] == pytest.approx(0.015) and f1["no_worse"] == 1
    assert summary.loc["micro_f1", "no_worse"] == 2  # ties count as no worse
    with pytest.raises(ValueError, match="lacks"):
        summarise_repeats(table.drop(columns="seed"))


def _hand_table():
    """Two repeats of one learner written by hand (hamming loss; other scores 0.5)."""
    hamming = {0: {"BR": 0.30, "BNCC": 0.20, "ECC": 0.24, "CC-random": 0.25},
               1: {"BR": 0.34, "BNCC": 0.30, "ECC": 0.27, "CC-random": 0.28}}
    rows = []
    for seed, by_method in hamming.items():
        for method, value in by_method.items():
            statistic = "mean" if method == "CC-random" else "value"
            rows.append({"seed": seed, "learner": "lr", "method": method,
                         "statistic": statistic, **dict.fromkeys(MULTILABEL_SCORES, 0.5),
                         "hamming_loss": value})
        rows.append({"seed": seed, "learner": "lr", "method": "CC-random", "statistic": "sd",
                     **dict.fromkeys(MULTILABEL_SCORES, 9.0)})
    return pd.DataFrame(rows)


def test_summarise_methods_pairs_every_method_with_bncc():
    summary = summarise_methods(_hand_table()).set_index(["method", "score"])
    assert list(dict.fromkeys(summary.index.get_level_values("method"))) == [
        "BR", "CC-random", "ECC", "BNCC"]
    br = summary.loc[("BR", "hamming_loss")]
    # BR 0.30 and 0.34: mean 0.32, sd 0.04 / sqrt(2), se 0.02
    assert br["mean"] == pytest.approx(0.32) and br["se"] == pytest.approx(0.02)
    # BR minus BNCC: 0.10 and 0.04, mean 0.07, se 0.03; worse in both repeats
    assert br["minus_bncc"] == pytest.approx(0.07) and br["minus_bncc_se"] == pytest.approx(0.03)
    assert (br["no_worse_than_bncc"], br["repeats"]) == (0, 2)
    # ECC minus BNCC: +0.04 then -0.03, no worse once; the random chains
    # count with each repeat's mean, not its sd
    ecc, random = summary.loc[("ECC", "hamming_loss")], summary.loc[("CC-random", "hamming_loss")]
    assert ecc["minus_bncc"] == pytest.approx(0.005) and ecc["no_worse_than_bncc"] == 1
    assert random["mean"] == pytest.approx(0.265) and random["minus_bncc"] == pytest.approx(0.015)
    bncc = summary.loc[("BNCC", "hamming_loss")]
    assert np.isnan(bncc["minus_bncc"]) and np.isnan(bncc["minus_bncc_se"])
    assert summary.loc[("BR", "micro_f1"), "no_worse_than_bncc"] == 2  # ties are no worse
    with pytest.raises(ValueError, match=r"no \['BR'\] rows"):
        summarise_methods(_hand_table().query("method != 'BR'"))


def test_methods_table_and_plot_show_the_summary(tmp_path):
    pytest.importorskip("matplotlib")
    summary = summarise_methods(_hand_table())
    table = methods_table(summary, ["hamming_loss", "example_f1"])
    assert table.columns.tolist() == ["learner", "method", "hamming_loss", "example_f1"]
    assert table.method.tolist() == ["BR", "CC-random", "ECC", "BNCC"]
    assert table.loc[0, "hamming_loss"] == "0.3200 (0.0200)"
    assert table.loc[3, "example_f1"] == "0.5000 (0.0000)"
    with pytest.raises(ValueError, match="`scores`"):
        methods_table(summary, ["accuracy"])
    plot_methods(summary, tmp_path / "methods.png")
    assert (tmp_path / "methods.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="`scores`"):
        plot_methods(summary, tmp_path / "other.png", ["accuracy"])


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


def test_few_valued_features_do_not_warn_in_every_fold():
    # a 0/1 feature cannot fill 3 quantile bins: scikit-learn drops the empty
    # ones with a warning, which the study keeps out of its output
    X, Y = _small_data()
    X[:, 0] = X[:, 0] > np.median(X[:, 0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(X, Y, n_folds=3, n_orders=1)
    assert not [w for w in caught if "Bins whose width" in str(w.message)]


def test_fixed_order_scores_match_the_random_chain_with_that_order():
    # CC-random's chain r draws its order from the seed [random_state, r],
    # the same in every fold: scoring that order directly must agree.
    X, Y = _small_data()
    chain = BNClassifierChain(LogisticRegression(), order="random", random_state=[0, 0])
    order = chain.fit(X, Y).order_
    fixed = score_orders(X, Y, [order], n_folds=3).set_index("learner")
    table = compare(X, Y, n_folds=3, n_orders=1)
    chain = table[(table.method == "CC-random") & (table.statistic == "mean")]
    for learner, row in chain.set_index("learner").iterrows():
        for score in MULTILABEL_SCORES:
            assert fixed.loc[learner, score] == pytest.approx(row[score], abs=1e-12)
    assert fixed["order"].tolist() == [tuple(order)] * 2


def test_score_orders_rejects_bad_orders():
    X, Y = _small_data(n=20)
    with pytest.raises(ValueError, match="permutation of 0..2"):
        score_orders(X, Y, [[0, 1]])
    with pytest.raises(ValueError, match="permutation"):
        score_orders(X, Y, [[0, 1, 1]])
    with pytest.raises(TypeError, match="label indices"):
        score_orders(X, Y, [["a", "b", "c"]])
    with pytest.raises(ValueError, match="at least one order"):
        score_orders(X, Y, [])
    with pytest.raises(ValueError, match="n_folds"):
        score_orders(X, Y, [[0, 1, 2]], n_folds=1)


def test_network_orders_are_exactly_the_topological_orders():
    rng = np.random.default_rng(3)
    a = rng.random(400) < 0.5
    b = a ^ (rng.random(400) < 0.1)
    c = b ^ (rng.random(400) < 0.1)
    d = rng.random(400) < 0.4
    names = ["a", "b", "c", "d"]
    net = label_network(pd.DataFrame(np.column_stack([a, b, c, d]).astype(int), columns=names))
    arcs = [(names.index(u), names.index(v)) for u, v in net.edges]
    assert arcs  # the copies are found
    # independent count: all permutations that put every parent first
    expected = sorted(
        order for order in itertools.permutations(range(4))
        if all(order.index(u) < order.index(v) for u, v in arcs)
    )
    assert network_orders(net) == expected
    assert len(network_orders(net, limit=2)) == min(2, len(expected))
    with pytest.raises(ValueError, match="limit"):
        network_orders(net, limit=0)


@pytest.mark.parametrize("contents, options, message", [
    ("l1,l2,l3,f1\n1,0,1,0\n0,1,0,2\n", ["--labels", "4"],
     "--labels must be less than the 4 columns"),
    ("l1,l2,f1\n1,0,0.5\n0,1,1.5\n", ["--labels", "1", "--labels-at", "end"],
     r"label column 'f1' \(the last 1 columns are labels: `n_labels`\) must hold 0 and 1 only; "
     "found 0.5 in data row 1"),
    ("l1,l2,f1\n1,0,0.5\n,1,1.5\n", ["--labels", "2"],
     "label column 'l1' .* found a missing value in data row 2"),
    ("l1,l2,f1,f2\n1,0,0.5,abc\n0,1,1.5,2\n", ["--labels", "2"],
     "feature column 'f2' must be numeric; found 'abc'"),
    ("l1,l2,f1\n1,0,0.5\n0,1,1.5\n", ["--labels", "2", "--folds", "3"],
     "--folds must be at most the 2 rows"),
    ("l1,l2,f1\n1,0,0.5\n0,1,1.5\n", ["--labels", "2", "--out", "{file}"],
     "--out .* is a file, not a directory"),
    ("l1,l2,f1\n1,0,0.5\n0,1,1.5\n", ["--labels", "2", "--data", "{dir}"],
     "--data .* is a directory"),
])
def test_study_names_the_option_or_column_at_fault_before_working(tmp_path, capsys, contents,
                                                                  options, message):
    from pystagedtrees.study.__main__ import main

    csv = tmp_path / "d.csv"
    csv.write_text(contents)
    (tmp_path / "afile").write_text("")
    args = ["multilabel", "--data", str(csv)] + [
        o.format(file=tmp_path / "afile", dir=tmp_path) for o in options]
    with pytest.raises(SystemExit) as stop:
        main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert re.search(message, err), err


def test_study_refuses_a_negative_seed(capsys):
    from pystagedtrees.study.__main__ import main

    with pytest.raises(SystemExit):
        main(["multilabel", "--data", "x.csv", "--labels", "3", "--seed", "-5"])
    assert "--seed: must be at least 0" in capsys.readouterr().err


def test_load_multilabel_csv_labels_at_either_end(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("x,y,a,b\n0.5,1.5,1,0\n2.5,3.5,0,1\n")
    X, Y = load_multilabel_csv(csv, 2, labels_at="end")
    assert list(X.columns) == ["x", "y"] and list(Y.columns) == ["a", "b"]
    with pytest.raises(ValueError, match="n_labels"):
        load_multilabel_csv(csv, 4)
    with pytest.raises(ValueError, match="labels_at"):
        load_multilabel_csv(csv, 2, labels_at="middle")


def test_study_runs_on_the_shipped_emotions_by_default(tmp_path, capsys):
    from pystagedtrees.study.__main__ import main

    pytest.importorskip("matplotlib")
    assert main(["multilabel", "--folds", "2", "--orders", "1", "--out", str(tmp_path)]) == 0
    assert "emotions (shipped): 593 rows, 72 features, 6 labels" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["multilabel", "--labels", "3"])
    assert stop.value.code == 2 and "6 labels first" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["multilabel", "--data", "x.csv"])
    assert "--labels (the number of label columns) is needed with --data" in capsys.readouterr().err


@pytest.fixture(scope="module")
def emotions_repeats():
    X, Y = split_labels(pystagedtrees.datasets.load("emotions"), 6)
    # the study's protocol (10 folds, 10 random orders) over two fold splits
    return compare_repeated(X, Y, 2)


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
# Over fold seeds 0-9 (the study command with --repeats 10) BNCC is no worse
# in both scores in 3 of 10 seeds with either learner; on average it is worse
# by 0.0018 (se 0.0010) hamming / 0.0021 (se 0.0011) F1 with naive Bayes and
# by 0.0031 (se 0.0016) / 0.0057 (se 0.0027) with logistic regression.
# With logistic regression it is worse, and no tie rule of the topological
# sort could fix that: the network learned on all rows admits 19 orders, and
# every one of them, kept fixed in all folds, is worse than the mean of all
# 720 orders in both scores (hamming 0.2128-0.2195 vs 0.2119, example F1
# 0.6102-0.6245 vs 0.6264; fold seed 1: 0.2097-0.2139 vs 0.2096 and
# 0.6193-0.6279 vs 0.6312).  `--network-orders 100` of the study command
# prints these ranges.  The cause is the orientation the method prescribes:
# of two opposite arcs the one into the label with the lower entropy is the
# heavier (see label_dependence), so rare labels come last, and on emotions
# chains do better with them first (the reversed BN order: 0.2063 / 0.6347).
# Issue 30 withdrew the requirement that BNCC beat the random chains there:
# the paper's method stays the default as published, and the study reports
# where it stands against each method, with standard errors over the splits.
def test_emotions_summary_reports_every_method_against_bncc(emotions_repeats):
    summary = summarise_methods(emotions_repeats)
    assert sorted(summary.learner.unique()) == ["logistic", "naive_bayes"]
    assert summary.groupby("learner").method.unique().map(list).to_dict() == dict.fromkeys(
        ["logistic", "naive_bayes"], ["BR", "CC-random", "ECC", "BNCC"])
    assert (summary.repeats == 2).all() and summary["se"].notna().all()
    for learner, runs in emotions_repeats.groupby("learner"):
        rows = summary[summary.learner == learner].set_index(["method", "score"])
        for method, statistic in (("BR", "value"), ("ECC", "value"), ("CC-random", "mean")):
            per_seed = runs[(runs.method == method) & (runs.statistic == statistic)]
            bncc = runs[runs.method == "BNCC"]
            for score in MULTILABEL_SCORES:
                values = per_seed[score].to_numpy()
                difference = values - bncc[score].to_numpy()
                assert rows.loc[(method, score), "mean"] == pytest.approx(values.mean())
                assert rows.loc[(method, score), "se"] == pytest.approx(
                    values.std(ddof=1) / np.sqrt(2))
                assert rows.loc[(method, score), "minus_bncc"] == pytest.approx(
                    difference.mean())
    # the first split is the one measured above (seed 0)
    first = emotions_repeats[emotions_repeats.seed == 0].set_index(["learner", "method",
                                                                     "statistic"])
    measured = {("naive_bayes", "BNCC", "value"): 0.2237, ("logistic", "BNCC", "value"): 0.2237,
                ("naive_bayes", "CC-random", "mean"): 0.2257,
                ("logistic", "CC-random", "mean"): 0.2121}
    for key, hamming in measured.items():
        assert first.loc[key, "hamming_loss"] == pytest.approx(hamming, abs=5e-5)
    # against the random chains, the summary of all methods and BNCC's own agree
    versus_random = summarise_repeats(emotions_repeats).set_index(["learner", "score"])
    random_rows = summary[summary.method == "CC-random"].set_index(["learner", "score"])
    np.testing.assert_allclose(random_rows["minus_bncc"],
                               -versus_random.loc[random_rows.index, "difference"])
    np.testing.assert_allclose(random_rows["minus_bncc_se"],
                               versus_random.loc[random_rows.index, "se"])

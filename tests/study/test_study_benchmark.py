"""The benchmark and simulation studies (python -m pystagedtrees.study benchmark|simulate)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from r_reference import load_reference, load_wrapper_reference
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score, precision_score

import pystagedtrees
from pystagedtrees.study import benchmark, simulate
from pystagedtrees.study.benchmark import (
    COLUMNS,
    benchmark_task,
    classification_scores,
    run_benchmark,
    run_grid,
)

PACKAGE_ROOT = Path(pystagedtrees.__file__).resolve().parents[1]


def _write_small_datasets(folder, n=120, seed=0):
    """Two datasets (class ``answer`` first) and their split files (V1, V2)."""
    rng = np.random.default_rng(seed)
    data_dir, splits_dir = folder / "data", folder / "splits"
    data_dir.mkdir()
    splits_dir.mkdir()
    for name, n_features in (("small_a", 3), ("small_b", 4)):
        y = rng.choice(["no", "yes"], n)
        columns = {"answer": y}
        for j in range(n_features):
            noisy = rng.random(n) < 0.3
            columns[f"f{j}"] = np.where(noisy, rng.choice(["l", "m", "h"], n),
                                        np.where(y == "yes", "h", "l"))
        pd.DataFrame(columns).to_csv(data_dir / f"{name}.csv", index=False)
        ids = {f"V{s}": np.sort(rng.choice(n, n // 5, replace=False)) + 1 for s in (1, 2)}
        pd.DataFrame(ids).to_csv(splits_dir / f"{name}_test_ids.csv", index=False)
    return data_dir, splits_dir


def _run_study(*args):
    return subprocess.run([sys.executable, "-m", "pystagedtrees.study", *map(str, args)],
                          cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=300)


def test_benchmark_command_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    data_dir, splits_dir = _write_small_datasets(tmp_path)
    out = tmp_path / "results" / "bench.csv"
    args = ["benchmark", "--data-dir", data_dir, "--splits-dir", splits_dir,
            "--datasets", "small_a", "small_b", "--methods", "st_bhc_tan_cl", "bnc_tan_cl",
            "--splits", "1", "2", "--out", out, "--n-jobs", "1"]
    done = _run_study(*args)
    assert done.returncode == 0, done.stderr
    results = pd.read_csv(out, keep_default_na=False)
    assert list(results.columns) == list(COLUMNS)
    assert len(results) == 8 and (results["error"] == "").all()
    assert set(results["method"]) == {"st_bhc_tan_cl", "bnc_tan_cl"}
    assert results["n_test"].eq(24).all() and results["n_train"].eq(96).all()
    assert results["accuracy"].between(0, 1).all() and (results["fit_seconds"] > 0).all()
    assert "median accuracy over splits" in done.stdout and "st_bhc_tan_cl" in done.stdout
    for name in ("bench_accuracy_tan.png", "bench_scores_tan.png", "bench_accuracy_all.png",
                 "bench_time.png"):
        assert (out.parent / name).stat().st_size > 1000
    assert (out.parent / "bench_accuracy_median.csv").exists()
    # the run's record: the command, its settings, the machine, what it wrote
    record = json.loads((out.parent / "bench_run.json").read_text())
    assert record["study"] == "benchmark"
    assert record["command"] == "python -m pystagedtrees.study " + " ".join(map(str, args))
    assert record["settings"]["splits"] == [1, 2] and record["settings"]["out"] == str(out)
    assert record["machine"]["cores"] >= 1 and record["machine"]["python"]
    assert str(out.parent / "bench_time.png") in record["outputs"]
    # a second run finds everything done and appends nothing
    again = _run_study(*args, "--no-figures")
    assert again.returncode == 0, again.stderr
    assert len(pd.read_csv(out)) == 8


def test_benchmark_command_runs_on_the_shipped_data_by_default(tmp_path):
    out = tmp_path / "shipped.csv"
    done = _run_study("benchmark", "--datasets", "Asym", "--methods", "bnc_nb", "--splits", "3",
                      "--rng", "R", "--out", out, "--n-jobs", "1", "--no-figures")
    assert done.returncode == 0, done.stderr
    row = pd.read_csv(out, keep_default_na=False).iloc[0]
    train, test = pystagedtrees.datasets.train_test("Asym", repetition=3)
    assert (row["n_train"], row["n_test"], row["error"]) == (len(train), len(test), "")
    model = pystagedtrees.bnc.lp(pystagedtrees.bnc.nb("answer", train), train, smooth=1)
    labels = pystagedtrees.bnc.predict(model, test, rng="R", seed=2020)
    assert row["accuracy"] == pytest.approx(np.mean(labels == test["answer"].astype(str)))


def test_resume_runs_only_missing_and_failed_runs(tmp_path):
    data_dir, splits_dir = _write_small_datasets(tmp_path)
    out = tmp_path / "bench.csv"
    grid = dict(datasets=["small_a"], methods=["st_kmeans_cmi", "bnc_nb"], splits=[1, 2],
                backend="sequential")
    first = run_benchmark(data_dir, splits_dir, out, **grid)
    assert len(first) == 4
    rows = pd.read_csv(out, keep_default_na=False)
    failed = rows.iloc[[0]].assign(accuracy=np.nan, error="RuntimeError: interrupted")
    pd.concat([rows.iloc[1:-1], failed]).to_csv(out, index=False)  # one lost, one failed
    with open(out, "a") as fh:
        fh.write("small_a,2,bnc_n")  # killed while writing a row
    resumed = run_benchmark(data_dir, splits_dir, out, **grid)
    assert len(pd.read_csv(out)) == 2 + 1 + 2  # kept, the failed row, two re-runs
    assert len(resumed) == 4 and (resumed["error"].fillna("") == "").all()
    keys = ["split", "method"]
    pd.testing.assert_frame_equal(
        resumed.sort_values(keys)[keys + ["accuracy"]].reset_index(drop=True),
        first.sort_values(keys)[keys + ["accuracy"]].reset_index(drop=True))


def test_other_results_files_and_bad_options_are_refused(tmp_path):
    data_dir, splits_dir = _write_small_datasets(tmp_path)
    other = tmp_path / "other.csv"
    pd.DataFrame({"x": [1]}).to_csv(other, index=False)
    with pytest.raises(ValueError, match="columns"):
        run_benchmark(data_dir, splits_dir, other, datasets=["small_a"], splits=[1])
    with pytest.raises(ValueError, match="unknown method"):
        run_benchmark(data_dir, splits_dir, tmp_path / "r.csv", methods=["svm"])
    with pytest.raises(FileNotFoundError, match="none of the paper"):
        run_benchmark(data_dir, splits_dir, tmp_path / "r.csv")
    with pytest.raises(ValueError, match="go together"):
        run_benchmark(data_dir, None, tmp_path / "r.csv")
    with pytest.raises(ValueError, match=r"\['small_a'\] are not among the shipped data sets"):
        run_benchmark(None, None, tmp_path / "r.csv", datasets=["small_a"])
    with pytest.raises(ValueError, match="backend"):
        list(run_grid(abs, [1], backend="spark"))


def test_a_failing_run_is_recorded_not_fatal(tmp_path, monkeypatch):
    data_dir, splits_dir = _write_small_datasets(tmp_path)

    def broken_fit(train, class_, seed, rng):
        raise RuntimeError("no\nluck")

    _, predict_labels = benchmark._methods()["bnc_nb"]
    monkeypatch.setitem(benchmark._methods(), "bnc_nb", (broken_fit, predict_labels))
    results = run_benchmark(data_dir, splits_dir, tmp_path / "r.csv", datasets=["small_a"],
                            methods=["bnc_nb", "bnc_tan_cl"], splits=[1], backend="sequential")
    failed = results.set_index("method").loc["bnc_nb"]
    assert failed["error"] == "RuntimeError: no luck" and np.isnan(failed["accuracy"])
    assert results.set_index("method").loc["bnc_tan_cl", "accuracy"] > 0


def test_joblib_workers():
    assert sorted(run_grid(abs, [-3, 1, -2], n_jobs=2, backend="loky")) == [1, 2, 3]
    assert sorted(run_grid(abs, [-3, 1], n_jobs=2, backend="threading")) == [1, 3]


def test_dask_backend(tmp_path):
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="pip install 'dask\\[distributed\\]'"):
            list(run_grid(abs, [-1], backend="dask", scheduler="tcp://127.0.0.1:1"))
        return
    assert sorted(run_grid(abs, [-1, 2], backend="dask")) == [1, 2]


labels = hs.lists(hs.tuples(hs.sampled_from("ab"), hs.sampled_from("ab")), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(labels)
def test_scores_match_scikit_learn_on_two_classes(pairs):
    truth, predicted = map(list, zip(*pairs))
    scores = classification_scores(truth, predicted, "a")
    assert scores["accuracy"] == pytest.approx(accuracy_score(truth, predicted))
    assert scores["f1"] == pytest.approx(
        f1_score(truth, predicted, pos_label="a", zero_division=1.0))
    assert scores["precision"] == pytest.approx(
        precision_score(truth, predicted, pos_label="a", zero_division=1.0))
    if len(set(truth)) == 2:  # scikit-learn's has no convention for an absent class
        assert scores["balanced_accuracy"] == pytest.approx(
            balanced_accuracy_score(truth, predicted))


def test_scores_by_hand_with_three_classes():
    # positive "a": TP = 1, FP = 1 (a "c" said "a"), FN = 1 (an "a" said "b");
    # recall of the rest: of 3 non-"a" rows, "b"->"b" and "c"->"c" are right: 2/3
    s = classification_scores(list("aabcc"), list("abbac"), "a")
    assert s["accuracy"] == pytest.approx(3 / 5)
    assert s["balanced_accuracy"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert s["f1"] == pytest.approx(2 / (2 + 1 + 1))
    assert s["precision"] == pytest.approx(1 / 2)
    with pytest.raises(ValueError, match="equal length"):
        classification_scores(["a"], ["a", "b"], "a")


@pytest.mark.parametrize("name", ["Asym", "PhDArticles", "monks2"])
def test_r_replay_of_split_one_repeats_r(name):
    """With --rng R and seed 2020, split 1 repeats the R references' test accuracies."""
    wrappers = load_wrapper_reference(name)["learners"]
    expected = {
        "st_bhc_tan_cl": load_reference(name)["models"]["stages_bhc_tan_cl"]["test_accuracy"],
        "st_bhc_tan_hc": wrappers["tan_hc"]["refined"]["test_accuracy"],
        "st_bhc_3db": wrappers["kdb3"]["refined"]["test_accuracy"],
        "st_bhc_5db": wrappers["kdb5"]["refined"]["test_accuracy"],
    }
    for method, accuracy in expected.items():
        row = benchmark_task(dict(
            data_dir=None, splits_dir=None, class_column="answer", levels_dir=None, seed=2020,
            rng="R", dataset=name, split=1, method=method))
        assert row["error"] == ""
        assert row["accuracy"] == pytest.approx(accuracy, abs=1e-12)


def test_simulate_command_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "sim.csv"
    done = _run_study("simulate", "--out", out, "--p-values", 2, 3, "--repetitions", 1,
                      "--n-train", 200, "--n-test", 100, "--methods", "st_kmeans_cmi", "bnc_nb",
                      "--n-jobs", 1)
    assert done.returncode == 0, done.stderr
    results = pd.read_csv(out, keep_default_na=False)
    assert list(results.columns) == list(simulate.COLUMNS)
    assert len(results) == 3 * 2 * 1 * 2 and (results["error"] == "").all()
    assert set(results["process"]) == set(simulate.PROCESSES)
    assert (tmp_path / "sim.png").stat().st_size > 1000
    assert "median accuracy over repetitions" in done.stdout


@pytest.mark.parametrize("process", simulate.PROCESSES)
def test_simulated_data(process):
    train, test = simulate.simulate_data(process, 4, 300, 100, seed=5)
    again, _ = simulate.simulate_data(process, 4, 300, 100, seed=5)
    pd.testing.assert_frame_equal(train, again)
    assert list(train.columns) == ["answer", "X1", "X2", "X3", "X4"]
    assert len(train) == 300 and len(test) == 100
    assert train["answer"].nunique() == 2
    if process == "xor":
        # the class agrees with the parity of the features with probability 2.2/2.4
        parity = np.prod(train[["X1", "X2", "X3", "X4"]].astype(int).to_numpy(), axis=1)
        assert np.mean(train["answer"].astype(int).to_numpy() == parity) > 0.85
    with pytest.raises(ValueError, match="process"):
        simulate.simulate_data("gaussian", 2, 10, 10, seed=0)


def test_default_grid_is_the_papers():
    assert len(benchmark.DEFAULT_METHODS) == 8 and len(benchmark.PAPER_DATASETS) == 14
    assert set(benchmark.DEFAULT_METHODS) <= set(benchmark.METHODS)
    assert set(simulate.DEFAULT_METHODS) <= set(benchmark.METHODS)


def test_load_dataset_reads_missing_values_and_r_levels(tmp_path):
    (tmp_path / "d.csv").write_text("x,answer,y\nb,yes,NA\nNA,no,\nb,yes,v\n")
    (tmp_path / "levels").mkdir()
    (tmp_path / "levels" / "d.json").write_text(json.dumps(
        {"levels": {"y": ["w", "", "v"], "answer": ["yes", "no"]}}))
    data = benchmark.load_dataset(tmp_path, "d", levels_dir=tmp_path / "levels")
    assert list(data.columns) == ["answer", "x", "y"]
    # "NA" is missing; a blank in a column of strings is R's level ""
    assert data["y"].isna().tolist() == [True, False, False]
    assert list(data["y"].cat.categories) == ["w", "", "v"]  # R's levels, unused ones kept
    assert list(data["answer"].cat.categories) == ["yes", "no"]
    assert list(data["x"].cat.categories) == ["b"]  # no recorded levels: observed, sorted
    with pytest.raises(ValueError, match="`class_column` 'cls' is not a column"):
        benchmark.load_dataset(tmp_path, "d", class_column="cls")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "d.json").write_text(json.dumps({"levels": {"y": ["w", "v"]}}))
    with pytest.raises(ValueError, match="column 'y' has value '' that is not a level"):
        benchmark.load_dataset(tmp_path, "d", levels_dir=tmp_path / "other")


def test_load_dataset_types_columns_as_r_read_csv(tmp_path):
    # R 4.2.2, read.csv(stringsAsFactors = TRUE) of this file: answer and c
    # integer (levels 1 2 10; 2 7 10), a logical (FALSE TRUE), b a factor
    # with levels "" "x" "y", d all NA; blanks are NA except in b
    (tmp_path / "d.csv").write_text(
        "answer,a,b,c,d\n1,T,x,007,\n10,F,,2,\n2,TRUE,y,10,NA\n2,NA,x,,\n")
    data = benchmark.load_dataset(tmp_path, "d")
    assert {c: list(data[c].cat.categories) for c in data} == {
        "answer": ["1", "2", "10"], "a": ["FALSE", "TRUE"], "b": ["", "x", "y"],
        "c": ["2", "7", "10"], "d": []}
    assert data.isna().sum().tolist() == [0, 1, 0, 1, 4]
    assert data["c"].tolist()[:3] == ["7", "2", "10"]

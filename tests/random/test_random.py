"""Random staged trees and data: R-exact replay (live R), numpy reproducibility, convergence."""
import os
import shutil
import subprocess
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest

import pystagedtrees as st
from pystagedtrees.random import (
    generate_linear_dataset,
    generate_random_dataset,
    generate_xor_dataset,
    random_sevt,
    randomize_sevt,
    sample_from,
)
from pystagedtrees.rng import RRandom

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not on PATH")


def _run_r(script):
    # from a file: Rscript -e truncates long command lines
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(script)
    try:
        return subprocess.run(["Rscript", fh.name], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(fh.name)


def _r_numbers(values):
    """An R vector literal holding exactly these doubles (hexadecimal floats)."""
    return "c(" + ", ".join(float(v).hex() for v in np.ravel(values)) + ")"


def _hex_line(line):
    return np.array([float.fromhex(t) for t in line.split()])


def _sign_codes(frame, column):
    return frame[column].astype(float).to_numpy()


# -- golden values of the spec -------------------------------------------------------

def test_linear_dataset_defaults_replay_spec_values():
    # spec section 7 (rng_golden.R): set.seed(1); generate_linear_dataset(3, 6)
    data = generate_linear_dataset(3, 6, seed=1, rng="R")
    np.testing.assert_allclose(
        data.attrs["alpha"], [-1.396675987634808, -0.683315444737673, -2.919658001046628], rtol=1e-14
    )
    np.testing.assert_allclose(data.attrs["gamma"], 2.21814507432282, rtol=1e-14)


# -- live R: the generating processes of spec section 3.12 in base R ----------------------

@needs_r
def test_xor_dataset_replays_r():
    out = _run_r("""
set.seed(5); p <- 3; n <- 20; eps <- 1.2
X <- sapply(1:p, function(i) { pr <- runif(2); sample(c(-1, 1), n, TRUE, pr) })
C <- sapply(1:n, function(r) sign(prod(X[r, ]) + runif(1, -eps, eps)))
cat(C, "\\n"); for (i in 1:p) cat(X[, i], "\\n")
""").strip().splitlines()
    data = generate_xor_dataset(3, 20, seed=5, rng="R")
    assert list(data.columns) == ["C", "X1", "X2", "X3"]
    expected_c = np.array([float(x) for x in out[0].split()])
    got_c = _sign_codes(data, "C")
    np.testing.assert_array_equal(np.where(expected_c == 0, np.nan, expected_c), got_c)
    for j in range(3):
        np.testing.assert_array_equal(_sign_codes(data, f"X{j + 1}"), [float(x) for x in out[j + 1].split()])


@needs_r
def test_linear_and_random_datasets_replay_r():
    out = _run_r("""
set.seed(9); p <- 4; n <- 15; eps <- 1.2
X <- sapply(1:p, function(i) sample(c(-1, 1), n, TRUE, runif(2)))
alpha <- runif(p, -p, p); first <- runif(1, -eps, eps); gamma <- runif(1, -p, p)
noise <- c(first, sapply(2:n, function(r) runif(1, -eps, eps)))
C <- sign(as.vector(X %*% alpha) + noise + gamma); C[C == 0] <- 1
cat(C, "\\n"); cat(sprintf("%a", alpha), "\\n"); cat(sprintf("%a", gamma), "\\n")
for (i in 1:p) cat(X[, i], "\\n")
set.seed(10); R <- sapply(1:3, function(i) sample(c(-1, 1), 7, TRUE, runif(2)))
for (i in 1:3) cat(R[, i], "\\n")
""").strip().splitlines()
    data = generate_linear_dataset(4, 15, seed=9, rng="R")
    np.testing.assert_array_equal(_sign_codes(data, "C"), [float(x) for x in out[0].split()])
    np.testing.assert_array_equal(data.attrs["alpha"], _hex_line(out[1]))
    assert data.attrs["gamma"] == _hex_line(out[2])[0]
    for j in range(4):
        np.testing.assert_array_equal(_sign_codes(data, f"X{j + 1}"), [float(x) for x in out[3 + j].split()])
    rand = generate_random_dataset(3, 7, seed=10, rng="R")
    for j in range(3):
        np.testing.assert_array_equal(_sign_codes(rand, f"X{j + 1}"), [float(x) for x in out[7 + j].split()])


R_RANDOM_SEVT = """
set.seed(13); q <- 0.6
k <- c(3, 3, 2, 2)
st <- lapply(2:4, function(i) as.character(seq_len(prod(k[1:(i - 1)]))))
for (v in 1:3) {
  for (s in unique(st[[v]])) {
    if (runif(1) < q) st[[v]][st[[v]] == s] <- sample(unique(st[[v]]), size = 1)
  }
}
for (v in 1:3) cat(st[[v]], "\\n")
for (v in 1:3) for (s in unique(st[[v]])) { p <- rexp(k[v + 1]); cat(sprintf("%a", abs(p) / sum(p)), "\\n") }
p <- rexp(k[1]); cat(sprintf("%a", abs(p) / sum(p)), "\\n")
"""


@needs_r
def test_random_sevt_replays_r():
    # spec 3.12: stage joins over a snapshot of the unique stages, each with
    # probability q into a uniformly drawn current stage; then rexp weights
    # per stage (variables in order), the root's last.
    out = _run_r(R_RANDOM_SEVT).strip().splitlines()
    levels = {"A": ["a", "b", "c"], "B": ["1", "2", "3"], "C": ["x", "y"], "D": ["u", "v"]}
    model = random_sevt(levels, q=0.6, seed=13, rng="R")
    stages = st.stages(model)
    for line, v in zip(out[:3], ["B", "C", "D"]):
        assert stages[v] == line.split()
    prob_lines = iter(out[3:])
    for v in ["B", "C", "D"]:
        for label in dict.fromkeys(stages[v]):
            np.testing.assert_array_equal(model.stage_prob[v][label].to_numpy(), _hex_line(next(prob_lines)))
    np.testing.assert_array_equal(model.stage_prob["A"]["1"].to_numpy(), _hex_line(next(prob_lines)))


def _r_sample_from_script(model, size, seed):
    """Spec 3.12's sample_from in base R, over the model's stage ids and probabilities."""
    lines = [f"set.seed({seed}); size <- {size}"]
    k = [int(x) for x in model.n_levels]
    lines.append(f"k <- c({', '.join(map(str, k))}); p <- length(k)")
    root = _r_numbers(model.stage_probabilities(0)[0])
    lines.append(f"S <- matrix(NA, size, p); S[, 1] <- sample.int(k[1], size, TRUE, prob = {root})")
    lines.append("stage <- list(); P <- list(); ok <- list()")
    unobserved = set(model.name_unobserved or [])
    for i in range(1, len(k)):
        ids = model.stage_vector(i).dense() + 1
        labels = model.stage_labels(i).tolist()
        ok = ["FALSE" if lab in unobserved else "TRUE" for lab in labels]
        lines.append(f"stage[[{i + 1}]] <- c({', '.join(map(str, ids))})")
        lines.append(f"P[[{i + 1}]] <- matrix({_r_numbers(model.stage_probabilities(i))}, ncol = {k[i]}, byrow = TRUE)")
        lines.append(f"ok[[{i + 1}]] <- c({', '.join(ok)})")
    lines.append("""
for (i in 2:p) for (j in 1:size) {
  if (is.na(S[j, i - 1])) next
  sit <- 0; for (l in 1:(i - 1)) sit <- sit * k[l] + S[j, l] - 1
  s <- stage[[i]][sit + 1]
  if (ok[[i]][s]) S[j, i] <- sample.int(k[i], 1, prob = P[[i]][s, ])
}
for (i in 1:p) cat(ifelse(is.na(S[, i]), 0, S[, i]), "\\n")
""")
    return "\n".join(lines)


def _codes(frame):
    return np.column_stack([frame[c].cat.codes.to_numpy() + 1 for c in frame.columns])


@needs_r
def test_sample_from_replays_r_with_unobserved_stages():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    # a frequently reached stage marked unobserved: those paths stop there
    model = st.rename_stage(model, "Age", "3", "UNOBSERVED")
    out = _run_r(_r_sample_from_script(model, 400, 21)).strip().splitlines()
    expected = np.column_stack([[int(x) for x in line.split()] for line in out])
    got = _codes(sample_from(model, 400, seed=21, rng="R"))
    assert (expected == 0).any()  # some paths reach an unobserved stage
    np.testing.assert_array_equal(got, expected)


@needs_r
def test_sample_from_replays_r_with_many_levels():
    # over 200 levels: R's root draw (with replacement) uses Walker's alias
    # method, while one draw per row (replace = FALSE, size 1) stays inversion
    levels = {"R": [f"r{j}" for j in range(240)], "B": [f"b{j}" for j in range(230)]}
    model = random_sevt(levels, q=0.9, seed=2)
    assert np.count_nonzero(240 * model.stage_probabilities(0)[0] > 0.1) > 200  # R's Walker condition
    out = _run_r(_r_sample_from_script(model, 60, 8)).strip().splitlines()
    expected = np.column_stack([[int(x) for x in line.split()] for line in out])
    np.testing.assert_array_equal(_codes(sample_from(model, 60, seed=8, rng="R")), expected)


def test_rrandom_instance_continues_the_stream():
    # two calls on one RRandom equal one session: the second call starts where the first stopped
    rr = RRandom(3)
    first = generate_random_dataset(2, 5, rng=rr)
    second = generate_random_dataset(2, 5, rng=rr)
    replay = RRandom(3)
    generate_random_dataset(2, 5, rng=replay)
    assert generate_random_dataset(2, 5, rng=replay).equals(second)
    assert not first.equals(second)


# -- numpy generators ---------------------------------------------------------------

def test_numpy_results_are_reproducible():
    levels = {"A": ["a", "b", "c"], "B": ["x", "y"], "C": ["0", "1"]}
    m1, m2 = random_sevt(levels, seed=7), random_sevt(levels, seed=7)
    assert st.stages(m1) == st.stages(m2)
    assert sample_from(m1, 500, seed=1).equals(sample_from(m2, 500, seed=1))
    assert not sample_from(m1, 500, seed=1).equals(sample_from(m1, 500, seed=2))
    gen = np.random.default_rng(4)
    assert generate_xor_dataset(3, 50, seed=np.random.default_rng(4)).equals(generate_xor_dataset(3, 50, rng=gen))


def test_sampled_frequencies_converge_to_path_probabilities():
    model = st.full(st.datasets.titanic_table(), lambda_=1, join_unobserved=False)
    n = 400_000
    data = sample_from(model, n, seed=2024)
    freq = data.value_counts().reindex(pd.MultiIndex.from_frame(data.drop_duplicates()))
    probs = st.path_probability(model, freq.index.to_frame(index=False))
    # Each cell count is Binomial(n, p): its frequency has standard deviation
    # sqrt(p(1-p)/n).  With 32 cells, a 5-sigma band is exceeded by chance
    # with probability below 32 * 6e-7; the seed is fixed, so the check is
    # deterministic, yet it would fail for any bias larger than ~0.004.
    sigma = np.sqrt(probs * (1 - probs) / n)
    assert np.all(np.abs(freq.to_numpy() / n - probs) <= 5 * sigma)
    assert len(freq) == 32


def test_sample_from_on_a_huge_compact_tree():
    from pystagedtrees.graphs import random_parentslist

    model = random_sevt(random_parentslist(40, maxp=3, seed=1), q=0, seed=2)
    data = sample_from(model, 2000, seed=3)
    assert data.shape == (2000, 40) and not data.isna().any().any()
    fitted = st.sevt_fit(model, data=data, lambda_=1)
    assert np.isfinite(float(st.logLik(fitted)))


# -- random_sevt and randomize_sevt --------------------------------------------------

def test_random_sevt_joins_only_existing_stages():
    base = st.full(st.datasets.titanic_table(), lambda_=1, join_unobserved=False)
    for q, seed in [(0.0, 1), (0.5, 2), (1.0, 3)]:
        model = random_sevt(base, q=q, seed=seed)
        for v, labels in st.stages(model).items():
            # each new stage is a union of old stages (here: old situations)
            assert len(set(labels)) <= len(labels)
            if q == 0:
                assert labels == st.stages(base, v)
        for per_stage in model.stage_prob.values():
            for prob in per_stage.values():
                assert prob.min() >= 0 and abs(prob.sum() - 1) < 1e-12
    assert len(set(st.stages(random_sevt(base, q=1.0, seed=3), "Survived"))) < 16


def test_random_sevt_of_a_model_keeps_its_data_as_r():
    # R's random_sevt.sevt changes only stages and prob
    table = st.datasets.titanic_table()
    base = st.stages_bhc(st.full(table, lambda_=0.5))
    model = random_sevt(base, q=0.5, seed=4)
    assert model.lambda_ == 0.5 and model.name_unobserved == base.name_unobserved
    pd.testing.assert_series_equal(model.data_raw, base.data_raw)
    assert model.ll is None and not hasattr(model, "score")
    # the counts stay: logLik is that of the data under the random probabilities
    by_hand = sum(float((model.ctables[v].to_numpy() * np.log(
        np.vstack([model.stage_prob[v][s].to_numpy() for s in model.stages(v)]))).sum())
        for v in model.variables[1:]) + float((table.groupby(level="Class").sum().to_numpy() * np.log(
            model.stage_prob["Class"]["1"].to_numpy())).sum())
    assert float(st.logLik(model)) == pytest.approx(by_hand, rel=1e-12)
    refit = st.sevt_fit(model)  # from the kept counts, with the kept lambda
    assert refit.stages() == model.stages() and refit.lambda_ == 0.5
    assert float(refit.ll) == pytest.approx(float(st.sevt_fit(model, data=table, lambda_=0.5).ll))


def test_random_sevt_custom_rfun_and_bad_q():
    levels = {"A": ["a", "b"], "B": ["x", "y", "z"]}
    model = random_sevt(levels, q=0, rfun=lambda k, rng: np.arange(1, k + 1))
    assert model.stage_prob["B"]["1"].tolist() == [1 / 6, 2 / 6, 3 / 6]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow on the way
        huge = random_sevt(levels, q=0, rfun=lambda k, rng: np.full(k, 1e308) / np.arange(1, k + 1))
    assert huge.stage_prob["B"]["1"].tolist() == pytest.approx([6 / 11, 3 / 11, 2 / 11], rel=1e-15)
    for q in (-0.1, 1.5):
        with pytest.raises(ValueError, match="`q` must be in"):
            random_sevt(levels, q=q)
    with pytest.raises(TypeError, match="`rfun`"):
        random_sevt(levels, rfun=3)
    with pytest.raises(TypeError, match=r"`rfun` must take two arguments, rfun\(k, rng\)"):
        random_sevt(levels, rfun=lambda k: np.ones(k))
    with pytest.raises(TypeError, match=r"what `rfun\(k, rng\)` returns must be numbers"):
        random_sevt(levels, rfun=lambda k, rng: ["x"] * k)
    with pytest.raises(TypeError, match="`seed` must be an integer"):
        random_sevt(levels, rng="R")
    with pytest.raises(ValueError, match="`rng` must be"):
        random_sevt(levels, rng="mt")


def test_randomize_sevt_keeps_ignored_stages():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    out = randomize_sevt(model, "Survived", p=[0.2, 0.8])
    labels = st.stages(out, "Survived")
    original = st.stages(model, "Survived")
    assert [lab == "UNOBSERVED" for lab in labels] == [lab == "UNOBSERVED" for lab in original]
    assert set(labels) == {"randomized", "UNOBSERVED"}
    assert out.stage_prob["Survived"]["randomized"].tolist() == [0.2, 0.8]
    with pytest.raises(ValueError, match="probability vector"):
        randomize_sevt(model, "Survived", p=[0.5, 0.6])


def test_sample_from_bad_input():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(ValueError, match="`size`"):
        sample_from(model, 0)
    with pytest.raises(TypeError, match="`size`"):
        sample_from(model, "10")
    with pytest.raises(ValueError, match="fit it first"):
        sample_from(st.sevt({"A": ["0", "1"], "B": ["0", "1"]}), 5)
    with pytest.raises(TypeError, match="Sevt"):
        sample_from({"A": ["0"]}, 5)
    # sizes no machine holds are refused up front (numpy errors or hangs before)
    with pytest.raises(ValueError, match="`size` = 1180591620717411303424 rows of 4 variables"):
        sample_from(model, 2 ** 70)
    for generate in (generate_random_dataset, generate_xor_dataset, generate_linear_dataset):
        with pytest.raises(ValueError, match="`n` = 1180591620717411303424 rows of `p` = 3"):
            generate(3, 2 ** 70)
        with pytest.raises(ValueError, match="`n` = 10 rows of `p` = 1180591620717411303424"):
            generate(2 ** 70, 10)
    with pytest.raises(ValueError, match="`eps`"):
        generate_xor_dataset(2, 10, eps=-1)
    with pytest.raises(ValueError, match="`alpha`"):
        generate_linear_dataset(2, 10, alpha=[1.0])
    for alpha in ("ab", {}, ["a", "b"]):
        with pytest.raises(TypeError, match="`alpha` must be 2 finite numbers"):
            generate_linear_dataset(2, 10, alpha=alpha)
    for gamma in (True, "1"):
        with pytest.raises(TypeError, match="`gamma` must be a finite number"):
            generate_linear_dataset(2, 10, gamma=gamma)


def test_noisy_xor_truth_table_without_noise():
    data = generate_xor_dataset(3, 300, eps=0, seed=4)
    product = data[["X1", "X2", "X3"]].astype(int).prod(axis=1)
    assert (data["C"].astype(int) == product).all()
    assert list(data["C"].cat.categories) == ["-1", "1"]


def test_a_hand_built_model_replays_r_covid_patients():
    # R's ?covid_patients builds its generating model by hand (data_model$prob
    # <- ...) and draws sample_from(data_model, 10000, seed = 123); the same
    # model built with set_stage_prob draws R's shipped data set
    tree = {"Sex": ["Female", "Male"], "Age": ["0-39", "40-49", "50-59", "60-69", "70-79", "80+"],
            "ICU": ["yes", "no"], "death": ["yes", "no"]}
    model = st.sevt(tree, full=True)
    model = st.set_stage_prob(model, "Sex", "1", {"Female": 0.45185, "Male": 0.54815})
    model = st.set_stage_prob(model, "Age", "1", [0.01688613, 0.04271329, 0.10131681,
                                                 0.16841872, 0.25289366, 0.41777138])
    model = st.set_stage_prob(model, "Age", "2", [0.01616346, 0.04159445, 0.10130439,
                                                 0.16825686, 0.25217550, 0.42050534])
    icu = [0.125, 0.149, 0.193, 0.225, 0.175, 0.037, 0.197, 0.2687, 0.3171, 0.3415, 0.274, 0.073]
    death = [0.077, 0.004, 0.117, 0.017, 0.185, 0.030, 0.239, 0.058, 0.324, 0.124, 0.454, 0.266,
             0.079, 0.008, 0.098, 0.016, 0.171, 0.030, 0.278, 0.067, 0.383, 0.150, 0.478, 0.363]
    for var, yes in (("ICU", icu), ("death", death)):
        for s, p in enumerate(yes, start=1):
            model = st.set_stage_prob(model, var, str(s), {"yes": p, "no": 1 - p})
    drawn = st.sample_from(model, 10000, rng="R", seed=123)
    pd.testing.assert_frame_equal(drawn.astype(str), st.datasets.load("covid_patients").astype(str))


def test_r_trajectories_example_with_undefined_stages_draws_r_data():
    # ?trajectories, line by line: stages set by context, NA probabilities for
    # the stages no path reaches, sample_from(model, 10000, seed = 1)
    tree = {"SEX": ["male", "female"], "AGE": ["child", "adult", "elder"], "ICU": ["0", "1"],
            "RSP": ["intub", "mask", "no"], "OUT": ["death", "survived"]}
    model = st.sevt(tree, full=True)
    model = st.set_stages(model, "ICU", "ICUchild", context={"AGE": "child"})
    model = st.set_stages(model, "ICU", st.stages(model, "ICU", {"SEX": "female", "AGE": "elder"}),
                          context={"SEX": "male", "AGE": "elder"})
    model = st.set_stages(model, "RSP", "childnoICU", context={"AGE": "child", "ICU": "0"})
    model = st.set_stages(model, "RSP", "childICU", context={"AGE": "child", "ICU": "1"})
    model = st.set_stages(model, "RSP", st.stages(model, "RSP", {"AGE": "elder"}),
                          context={"AGE": "adult"})
    for value, context in (
            ("femaleICUresp", {"AGE": "adult", "SEX": "female", "ICU": "1",
                               "RSP": ["intub", "mask"]}),
            ("childICUintub", {"AGE": "child", "ICU": "1", "RSP": "intub"}),
            ("childICUmask", {"AGE": "child", "ICU": "1", "RSP": "mask"}),
            ("childICUno", {"AGE": "child", "ICU": "1", "RSP": "no"}),
            (None, {"AGE": "adult", "SEX": "male"}),
            ("UNOBS", {"ICU": "0", "RSP": "intub"}),
            ("UNOBS", {"AGE": "child", "ICU": "0"})):
        if value is None:
            value = st.stages(model, "OUT", {"AGE": "elder", "SEX": "female"})
        model = st.set_stages(model, "OUT", value, context=context)
    nan = float("nan")
    prob = {
        "SEX": {"1": [0.4, 0.6]},
        "AGE": {"1": [0.1, 0.5, 0.4], "2": [0.1, 0.3, 0.6]},
        "ICU": {"ICUchild": [0, 1], "2": [0.4, 0.6], "5": [0.2, 0.8], "6": [0.7, 0.3]},
        "RSP": {"childnoICU": [nan, nan, nan], "childICU": [0.1, 0.7, 0.2],
                "5": [0, 0.7, 0.3], "6": [0.4, 0.5, 0.1], "11": [0, 0.5, 0.5],
                "12": [0.4, 0.5, 0.1]},
        "OUT": {"UNOBS": [nan, nan], "childICUintub": [0.03, 0.97], "childICUmask": [0.02, 0.98],
                "childICUno": [0.01, 0.99], "32": [0.05, 0.95], "33": [0.01, 0.99],
                "34": [0.15, 0.85], "35": [0.08, 0.92], "36": [0.04, 0.96], "14": [0.2, 0.8],
                "15": [0.1, 0.9], "16": [0.3, 0.7], "17": [0.25, 0.75], "18": [0.3, 0.7],
                "26": [0.1, 0.9], "27": [0.15, 0.85], "30": [0.2, 0.8],
                "femaleICUresp": [0.1, 0.9]},
    }
    for var, stages in prob.items():
        for stage, p in stages.items():
            model = st.set_stage_prob(model, var, stage, p)
    drawn = st.sample_from(model, 10000, rng="R", seed=1)
    pd.testing.assert_frame_equal(drawn.astype(str), st.datasets.load("trajectories").astype(str))
    # paths into the undefined stages have probability 0 before them: R's prob gives 0
    for event in ({"AGE": "child", "ICU": "0", "RSP": "no", "OUT": "death"},
                  {"SEX": "male", "AGE": "adult", "ICU": "0", "RSP": "intub", "OUT": "death"}):
        assert st.prob(model, event) == 0


def test_set_stage_prob_checks_its_arguments():
    model = st.sevt({"A": ["a", "b"], "B": ["x", "y"]}, full=True)
    one = st.set_stage_prob(model, "B", "2", [0.25, 0.75])
    assert one.stage_prob["B"]["2"].tolist() == [0.25, 0.75]
    assert np.isnan(one.stage_prob["B"]["1"]).all()  # not set yet
    assert model.stage_prob is None  # the input is unchanged
    fitted = st.full(st.datasets.titanic(), lambda_=1)
    changed = st.set_stage_prob(fitted, "Survived", "3", [0.5, 0.5])
    assert changed.ll is None and float(st.logLik(changed)) != float(st.logLik(fitted))
    assert fitted.stage_prob["Survived"]["3"].tolist() != [0.5, 0.5]
    for bad, match in (([0.5, 0.6], "summing to 1"), ([1.5, -0.5], "summing to 1"),
                       ([1.0], "one value per level"), ({"x": 1.0}, "one value per level"),
                       ([np.nan, 1.0], "summing to 1")):
        with pytest.raises(ValueError, match=match):
            st.set_stage_prob(model, "B", "1", bad)
    for bad in ("xy", None, object(), ["a", "b"]):
        with pytest.raises(TypeError, match="`prob` must be numbers"):
            st.set_stage_prob(model, "B", "1", bad)
    # all NaN (R's NA): undefined on purpose; a sampled path stops there, as in R
    undefined = st.set_stage_prob(st.set_stage_prob(one, "A", "1", [0.5, 0.5]), "B", "1",
                                  [np.nan, np.nan])
    drawn = st.sample_from(undefined, 200, seed=0)
    assert drawn["B"].isna().tolist() == (drawn["A"] == "a").tolist()
    with pytest.raises(ValueError, match="without probabilities"):  # B's stage 1 unset
        st.sample_from(st.set_stage_prob(one, "A", "1", [0.5, 0.5]), 5, seed=0)
    # a stage the counts reach cannot be undefined: learners and logLik read its counts
    # (Age stage "1": the 180 first-class men of R's Titanic)
    with pytest.raises(ValueError, match="which 180 observations of the model reach"):
        st.set_stage_prob(fitted, "Age", "1", [np.nan, np.nan])
    with pytest.raises(ValueError, match="stage"):
        st.set_stage_prob(model, "B", "9", [0.5, 0.5])


def test_set_stage_prob_reads_labelled_values_by_level_name():
    # R reads a named vector by name; an unlabelled one in level order
    model = st.sevt({"A": ["0", "1"], "B": ["y", "x"]}, full=True)
    for prob in (pd.Series({"x": 0.9, "y": 0.1}), {"x": 0.9, "y": 0.1}, [0.1, 0.9],
                 pd.Series([0.1, 0.9])):
        assert st.set_stage_prob(model, "B", "1", prob).stage_prob["B"]["1"].tolist() == [0.1, 0.9]
    for prob in ({1: 0.75, 0: 0.25}, pd.Series([0.75, 0.25], index=[1, 0]),  # levels "0", "1"
                 {1.0: 0.75, 0.0: 0.25}, pd.Series({0: 0.25, 1: 0.75})):
        assert st.set_stage_prob(model, "A", "1", prob).stage_prob["A"]["1"].tolist() == [0.25, 0.75]
    # a column's own frequencies, whatever its type, name the model's levels
    data = pd.DataFrame({"B": [True, False, False, False], "C": [1.0, 1.0, 0.0, 1.0]})
    fitted = st.full(data, lambda_=1)
    for var, column in data.items():
        freq = column.value_counts(normalize=True)
        set_ = st.set_stage_prob(fitted, var, "1", freq).stage_prob[var]["1"]
        assert dict(zip(fitted.tree[var], set_.tolist())) == {
            ("TRUE" if v is True else "FALSE" if v is False else str(int(v))): p
            for v, p in freq.items()}
    with pytest.raises(ValueError, match="names a level twice"):
        st.set_stage_prob(model, "A", "1", pd.Series([0.5, 0.25, 0.25], index=["1", "1", "0"]))
    for bad in (pd.Series({"a": 0.1, "b": 0.9}), {1: 0.5, "1": 0.5}):
        with pytest.raises(ValueError, match="one value per level"):
            st.set_stage_prob(model, "A", "1", bad)


def test_a_model_is_fitted_once_every_stage_has_probabilities():
    # R's prob() stops on a model whose prob list lacks stages; so do prob, predict, sample_from
    model = st.sevt({"A": ["a", "b"], "B": ["x", "y"]}, full=True)
    partial = st.set_stage_prob(st.set_stage_prob(model, "A", "1", [0.5, 0.5]), "B", "2", [0.25, 0.75])
    assert not partial.is_fitted and "(fitted)" not in repr(partial)
    for call in (lambda m: st.prob(m, {"B": "y"}), lambda m: st.predict(m, class_="A"),
                 lambda m: st.sample_from(m, 3, seed=1)):
        with pytest.raises(ValueError, match=r"1 stage\(s\) without probabilities \('B' stage '1'\)"):
            call(partial)
    complete = st.set_stage_prob(partial, "B", "1", [0.5, 0.5])
    assert complete.is_fitted
    assert st.prob(complete, {"B": "y"}) == pytest.approx(0.5 * 0.5 + 0.5 * 0.75)
    # stages a fit left without probabilities (lambda 0, never observed) are fitted ones
    sparse = st.full(st.datasets.titanic(), lambda_=0)
    assert sparse.is_fitted and np.isnan(sparse.stage_prob["Survived"]["UNOBSERVED"]).all()


def _per_stage_distributions(k, n, source):
    """The slow twin of the default draw of random_sevt: R's ``rexp(k)`` stage
    after stage, each normalised by its own sum."""
    rows = []
    for _ in range(n):
        weights = source.rexp(k)
        rows.append(weights / np.sum(weights))
    return np.array(rows).reshape(n, k)


@pytest.mark.parametrize("rng", ["numpy", "R", "R-rounding"])
@pytest.mark.parametrize("k, n", [(2, 1), (3, 17), (7, 40), (12, 25)])
def test_one_draw_for_all_stages_is_the_stream_of_one_draw_per_stage(rng, k, n):
    from pystagedtrees.random._random import _random_distributions
    from pystagedtrees.rng import resolve_source
    together = _random_distributions(k, n, None, resolve_source(11, rng))
    np.testing.assert_array_equal(together,
                                  _per_stage_distributions(k, n, resolve_source(11, rng)))


def test_random_sevt_draws_in_one_pass_per_variable(monkeypatch):
    # linear in the stages: one draw of weights per variable, not one per stage
    from pystagedtrees.rng._numpy import NumpySource
    calls = []
    draw = NumpySource.rexp
    monkeypatch.setattr(NumpySource, "rexp", lambda self, n: calls.append(n) or draw(self, n))
    model = st.random_sevt({f"V{j}": ["a", "b"] for j in range(10)}, q=0.5, seed=2)
    assert len(calls) == 10
    assert sum(calls) == 2 * sum(len(model.stage_labels(i)) for i in range(10))

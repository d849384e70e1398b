"""The rpy2 converters against a real R (base R only; no R package needed).

Every R object built by ``to_r`` is checked with base-R code written here:
field names and lengths, and the log-likelihood and degrees of freedom
recomputed in R from ``ctables``, ``stages`` and ``prob``.  Round trips
Python -> R -> Python must give back every field.  Skipped without rpy2/R.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from strategies import categorical_frames

import pystagedtrees as st
import pystagedtrees.bnc as bnc
from pystagedtrees import compat

if not compat.r_available():
    pytest.skip(
        "rpy2 or R is not installed (pip install -e '.[r]' with R present)",
        allow_module_level=True,
    )

from pystagedtrees.compat import from_r, r_call, to_r  # noqa: E402
from pystagedtrees.compat._session import RRuntimeError, r_context, ro  # noqa: E402

# Base R: validity of a sevt and its scores recomputed from ctables/stages/prob.
R_CHECK_SEVT = r"""
function(x) {
  vars <- names(x$tree); k <- lengths(x$tree); p <- length(vars)
  n_sit <- cumprod(c(1, k))[seq_len(p)]
  stopifnot(inherits(x, "sevt"), identical(names(x$stages), vars[-1]),
            all(lengths(x$stages) == n_sit[-1]), identical(names(x$ctables), vars),
            identical(names(x$prob), vars), identical(names(x$ctables[[1]]), x$tree[[1]]),
            identical(names(x$prob[[1]]), "1"))
  ll <- 0; n_dev <- 0
  for (i in seq_len(p)) {
    if (i == 1) {
      ct <- matrix(x$ctables[[1]], nrow = 1); stage <- "1"
    } else {
      ct <- unclass(x$ctables[[i]]); stage <- x$stages[[vars[i]]]
      stopifnot(inherits(x$ctables[[i]], "ftable"),
                identical(dim(ct), as.integer(c(n_sit[i], k[i]))),
                identical(attr(x$ctables[[i]], "row.vars"), x$tree[seq_len(i - 1)]),
                identical(attr(x$ctables[[i]], "col.vars"), x$tree[i]),
                setequal(names(x$prob[[i]]), unique(stage)))
    }
    for (s in names(x$prob[[i]])) {
      prob_s <- x$prob[[i]][[s]]
      stopifnot(identical(names(prob_s), x$tree[[i]]))
      counts <- colSums(ct[stage == s, , drop = FALSE])
      n_dev <- max(n_dev, abs(attr(prob_s, "n") - sum(counts)))
      used <- counts > 0
      ll <- ll + sum(counts[used] * log(prob_s[used]))
    }
  }
  df <- (k[[1]] - 1) + sum(vapply(seq_len(p)[-1], function(i)
    length(unique(x$stages[[vars[i]]])) * (k[[i]] - 1), 0))
  c(ll = ll, df = df, nobs = sum(x$ctables[[1]]), n_dev = n_dev,
    stored_ll = as.numeric(x$ll), stored_df = attr(x$ll, "df"),
    stored_nobs = attr(x$ll, "nobs"))
}
"""

# Base R: a bnc_bn's CPTs are tables over their families that sum to one.
R_CHECK_BNC = r"""
function(x) {
  stopifnot(identical(class(x), c("bnc_bn", "bnc_dag", "bnc_base", "bnc_fit")),
            identical(names(x$.params), names(x$.families)),
            identical(x$.families[[x$.class]], x$.class))
  dev <- 0
  for (v in names(x$.params)) {
    t <- x$.params[[v]]
    stopifnot(inherits(t, "table"), identical(names(dimnames(t)), x$.families[[v]]),
              identical(as.integer(dim(t)), as.integer(lengths(dimnames(t)))))
    sums <- if (length(dim(t)) == 1) sum(t) else apply(t, seq_along(dim(t))[-1], sum)
    dev <- max(dev, abs(sums - 1))
  }
  dev
}
"""


def r_eval(code):
    with r_context():
        return ro.r(code)


def r_apply(code, *args):
    with r_context():
        return ro.r(code)(*args)


def titanic_models():
    table = st.datasets.titanic_table()
    full = st.full(table, lambda_=1)
    return {
        "full": full,
        "indep": st.indep(table, lambda_=1),
        "bhc": st.stages_bhc(full),
        "hclust": st.stages_hclust(full, k=2),
        # lambda 0 without joining: empty stages have undefined (NaN) probabilities
        "full_nan": st.full(table, lambda_=0, join_unobserved=False),
        "from_frame": st.stages_fbhc(st.full(st.datasets.titanic(), order=["Survived", "Class", "Sex", "Age"])),
    }


MODELS = titanic_models()


def assert_same_sevt(a, b):
    assert a.variables == b.variables
    assert a.tree == b.tree
    for i in range(len(a.variables)):
        assert a.stage_labels(i).tolist() == b.stage_labels(i).tolist()
        np.testing.assert_array_equal(a.stage_vector(i).dense(), b.stage_vector(i).dense())
    assert (not a.has_counts) == (not b.has_counts)
    if a.has_counts:
        for i in range(len(a.variables)):
            np.testing.assert_array_equal(a.observed_situations(i), b.observed_situations(i))
            np.testing.assert_array_equal(a.situation_counts(i), b.situation_counts(i))
    assert a.is_fitted == b.is_fitted
    if a.is_fitted:
        for i in range(len(a.variables)):  # NaN equals NaN here
            np.testing.assert_array_equal(a.stage_probabilities(i), b.stage_probabilities(i))
            np.testing.assert_array_equal(a.stage_sizes(i), b.stage_sizes(i))
    assert a.lambda_ == b.lambda_
    assert a.name_unobserved == b.name_unobserved
    assert (a.ll is None) == (b.ll is None)
    if a.ll is not None:
        assert (float(a.ll), a.ll.df, a.ll.nobs) == (float(b.ll), b.ll.df, b.ll.nobs)
    if isinstance(a.data_raw, pd.DataFrame):
        pd.testing.assert_frame_equal(a.data_raw, b.data_raw)
    elif isinstance(a.data_raw, pd.Series):
        pd.testing.assert_series_equal(a.data_raw, b.data_raw, check_names=False)


# -- staged trees -------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(MODELS))
def test_sevt_is_valid_in_r_and_r_recomputes_its_scores(key):
    model = MODELS[key]
    checked = dict(zip(["ll", "df", "nobs", "n_dev", "stored_ll", "stored_df", "stored_nobs"],
                       np.asarray(r_apply(R_CHECK_SEVT, to_r(model)))))
    np.testing.assert_allclose(checked["ll"], float(model.ll), rtol=1e-12)
    assert checked["df"] == model.ll.df
    assert checked["nobs"] == model.ll.nobs == 2201  # R's Titanic has 2201 passengers
    assert checked["n_dev"] == 0
    assert (checked["stored_ll"], checked["stored_df"], checked["stored_nobs"]) == (
        float(model.ll), model.ll.df, model.ll.nobs)


@pytest.mark.parametrize("key", sorted(MODELS))
def test_sevt_round_trip_is_lossless(key):
    assert_same_sevt(MODELS[key], from_r(to_r(MODELS[key])))


def test_undefined_probabilities_are_r_na():
    robj = to_r(MODELS["full_nan"])
    na, nan = np.asarray(r_apply(
        "function(x) { p <- unlist(x$prob); c(sum(is.na(p) & !is.nan(p)), sum(is.nan(p))) }", robj))
    assert na == 2 * np.isnan(MODELS["full_nan"].stage_probabilities(3)).any(axis=1).sum() > 0
    assert nan == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=categorical_frames(), lambda_=hst.sampled_from([0.0, 0.5, 1.0]),
       join=hst.booleans(), saturated=hst.booleans())
def test_round_trip_of_random_models(data, lambda_, join, saturated):
    build = st.full if saturated else st.indep
    model = build(data, lambda_=lambda_, join_unobserved=join)
    assert_same_sevt(model, from_r(to_r(model)))


def test_unfitted_tree_round_trip_keeps_stages():
    model = st.sevt({"A": ["a", "b"], "B": ["u", "v", "w"], "C": ["0", "1"]}, full=True)
    back = from_r(to_r(model))
    assert back.stages() == model.stages()
    assert not back.is_fitted and not back.has_counts


def test_r_built_sevt_recycles_short_stage_vectors():
    robj = r_eval("""structure(list(
        tree = list(A = c("a", "b"), B = c("u", "v", "w"), C = c("0", "1")),
        stages = list(B = c("s2", "s1"), C = c("1", "2", "1"))), class = "sevt")""")
    model = from_r(robj)
    # R's find_stage recycles: situation j gets stages[(j - 1) %% length + 1]
    assert model.stages() == {"B": ["s2", "s1"], "C": ["1", "2", "1", "1", "2", "1"]}
    assert not model.is_fitted


def test_r_prob_order_becomes_the_stage_id_order():
    model = MODELS["bhc"]
    robj = r_apply('function(x) { x$prob$Survived <- rev(x$prob$Survived); x }', to_r(model))
    back = from_r(robj)
    assert back.stage_labels(3).tolist() == model.stage_labels(3).tolist()[::-1]
    assert back.stages() == model.stages()
    for label, series in model.stage_prob["Survived"].items():
        pd.testing.assert_series_equal(back.stage_prob["Survived"][label], series)


def test_hand_set_na_probabilities_read_as_undefined_stages():
    # R's ?trajectories sets NA probabilities, with no `n`, for stages no path reaches
    robj = r_eval("""structure(list(
        tree = list(A = c("a", "b"), B = c("u", "v")),
        stages = list(B = c("never", "2")),
        prob = list(A = list("NA" = c(a = 0, b = 1)),
                    B = list(never = c(u = NA, v = NA), "2" = c(u = 0.3, v = 0.7)))),
        class = "sevt")""")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # R's NA is a signalling NaN: arithmetic would warn
        model = from_r(robj)
        assert model.is_fitted
        drawn = st.sample_from(model, 50, seed=0)
        assert st.prob(model, {"B": "v"}) == pytest.approx(0.7)
    assert set(drawn["A"]) == {"b"}
    assert model.stage_sizes(1)[model.stage_ids(1, ["never"])[0]] == 0
    assert np.isnan(model.stage_probabilities(1)[model.stage_ids(1, ["never"])[0]]).all()
    python = st.set_stage_prob(st.set_stage_prob(
        st.set_stage_prob(st.sevt({"A": ["a", "b"], "B": ["u", "v"]}, full=True), "A", "1", [0, 1]),
        "B", "1", [float("nan")] * 2), "B", "2", [0.3, 0.7])
    assert np.array_equal(python.stage_sizes(1), model.stage_sizes(1), equal_nan=True)


def test_r_na_in_a_numeric_vector_is_a_quiet_nan():
    values = compat._values.floats_from_r(r_eval("c(1, NA, NaN)"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(values.sum()) and np.isnan(values[1:]).all() and values[0] == 1


def test_stage_without_probabilities_is_an_error():
    robj = r_apply('function(x) { x$prob$Sex[[1]] <- NULL; x }', to_r(MODELS["full"]))
    with pytest.raises(ValueError, match="no probabilities"):
        from_r(robj)


def test_sevt_without_data_raw():
    names = r_call("names", to_r(MODELS["full"], data_raw=False)).tolist()
    assert "data_raw" not in names and "ctables" in names


# -- data frames, tables, vectors --------------------------------------------------------
def test_data_frame_keeps_levels_order_unused_levels_and_na():
    df = pd.DataFrame({
        "n": pd.Categorical([3, 1, None, 3], categories=[3, 1, 2]),
        "o": pd.Categorical(["lo", "hi", "hi", "lo"], categories=["lo", "mid", "hi"], ordered=True),
    })
    robj = to_r(df)
    described = r_apply(
        "function(d) list(levels(d$n), levels(d$o), is.factor(d$n), is.ordered(d$o), sum(is.na(d$n)))",
        robj)
    assert list(described[0]) == ["3", "1", "2"]  # non-string categories become strings
    assert list(described[1]) == ["lo", "mid", "hi"]
    assert described[2][0] and described[3][0]
    assert described[4][0] == 1
    back = from_r(robj)
    assert list(back["n"].cat.categories) == ["3", "1", "2"]
    np.testing.assert_array_equal(back["n"].cat.codes, df["n"].cat.codes)
    pd.testing.assert_series_equal(back["o"], df["o"])


def test_plain_columns_become_factors_like_full_reads_them():
    df = pd.DataFrame({"s": ["b", "a", "b"], "i": [10, 2, 10], "f": [True, False, True]})
    back = from_r(to_r(df))
    assert list(back["s"].cat.categories) == ["a", "b"]
    assert list(back["i"].cat.categories) == ["2", "10"]  # numeric order, as R's as.factor
    assert list(back["f"].cat.categories) == ["FALSE", "TRUE"]  # R's logical levels
    assert st.full(back).tree == st.full(df).tree


def test_factors_false_keeps_column_types():
    df = pd.DataFrame({"s": ["b", None, "a"], "i": [1, 2, 3], "x": [0.5, np.nan, 2.0],
                       "f": [True, False, True], "c": pd.Categorical(["u", "v", "u"])})
    robj = to_r(df, factors=False)
    kinds = list(r_apply("function(d) vapply(d, function(c) class(c)[1], '')", robj))
    assert kinds == ["character", "integer", "numeric", "logical", "factor"]
    back = from_r(robj)
    assert back["s"].isna().tolist() == [False, True, False]
    assert back["s"][[0, 2]].tolist() == ["b", "a"]
    assert back["i"].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(back["x"], df["x"])
    assert back["f"].tolist() == [True, False, True]


def test_r_data_frame_with_row_names_and_missing_values():
    robj = r_eval('data.frame(a = factor(c("x", NA, "y"), levels = c("y", "x", "z")), '
                  'b = c(1L, NA, 3L), row.names = c("r1", "r2", "r3"))')
    back = from_r(robj)
    assert back.index.tolist() == ["r1", "r2", "r3"]
    assert list(back["a"].cat.categories) == ["y", "x", "z"]
    assert back["a"].isna().tolist() == [False, True, False]
    assert back["b"].dtype == "Int64" and back["b"].isna().tolist() == [False, True, False]
    df = pd.DataFrame({"a": ["p", "q"]}, index=["u", "v"])
    assert r_call("rownames", to_r(df)).tolist() == ["u", "v"]


def test_plain_columns_send_missing_values_as_na():
    df = pd.DataFrame({"f": [1.0, np.nan, 2.0], "b": pd.array([True, None, False], dtype="boolean"),
                       "s": ["a", None, "b"]})
    robj = to_r(df, factors=False)
    kinds = r_apply("function(d) c(class(d$f), class(d$b), class(d$s))", robj)
    assert list(kinds) == ["numeric", "logical", "character"]
    # R's own is.na/is.nan tell NA from NaN
    assert list(r_apply("function(d) c(is.na(d$f[2]), is.nan(d$f[2]), is.na(d$b[2]))", robj)) == \
        [True, False, True]
    assert list(r_apply("function(d) levels(factor(d$f))", robj)) == ["1", "2"]
    with pytest.raises(ValueError, match="NUL character"):
        to_r(pd.DataFrame({"s": ["a\x00b", "c"]}), factors=False)


def test_data_frame_errors():
    with pytest.raises(ValueError, match="duplicated index"):
        to_r(pd.DataFrame({"a": ["x", "y"]}, index=[0, 0]))
    with pytest.raises(ValueError, match="read as the same level"):
        to_r(pd.DataFrame({"a": pd.Categorical([1, "1"], categories=[1, "1"])}))
    with pytest.raises(TypeError, match="non-categorical floats"):
        to_r(pd.DataFrame({"a": [0.5, 1.0]}))


def test_table_of_counts_is_r_titanic():
    table = st.datasets.titanic_table()
    robj = to_r(table)
    # R's own datasets::Titanic is the independent source
    same = r_apply("function(x) c(identical(dimnames(x), dimnames(datasets::Titanic)), "
                   "all(x == datasets::Titanic), inherits(x, 'table'))", robj)
    assert all(same)
    pd.testing.assert_series_equal(from_r(robj), table)
    pd.testing.assert_series_equal(from_r(r_eval("datasets::Titanic")), table)


def test_vectors_lists_and_scalars():
    assert r_call("c", 1, 2).tolist() == [1.0, 2.0]
    assert r_call("list", a=1, b="x") == {"a": 1.0, "b": "x"}
    assert r_call("list", 1, "x") == [1.0, "x"]
    assert r_call("c", a=1.5).to_dict() == {"a": 1.5}
    assert r_call("is.null", None) is True
    assert r_call("invisible", None) is None
    assert r_call("c", True, None) is True  # NULL vanishes in c()
    logical = from_r(r_eval("c(TRUE, NA)"))
    assert logical.tolist() == [True, None]
    assert r_call("typeof", np.array([2**40])) == "double"  # beyond R's integers
    assert r_call("typeof", np.array([1, 2], dtype=np.int32)) == "integer"
    assert r_call("length", np.array(7)) == 1  # a 0-d array is a length-one vector
    matrix = r_call("matrix", np.arange(6.0), nrow=2)
    np.testing.assert_array_equal(matrix, np.arange(6.0).reshape(2, 3, order="F"))
    named = r_eval("matrix(1:4, 2, dimnames = list(c('a', 'b'), c('x', 'y')))")
    frame = from_r(named)
    assert frame.loc["b", "x"] == 2 and frame.loc["a", "y"] == 3
    ll = st.LogLik(-3.5, df=2, nobs=10)
    back = from_r(to_r(ll))
    assert (float(back), back.df, back.nobs) == (-3.5, 2, 10)
    assert r_call("class", to_r(ll)) == "logLik"
    with pytest.raises(TypeError, match="not converted"):
        to_r(object())
    with pytest.raises(TypeError, match="`options` of to_r for a DataFrame: .*'bogus'"):
        to_r(pd.DataFrame({"a": ["x"]}), bogus=1)
    with pytest.raises(TypeError, match=r"`options` \['factors'\] apply to staged trees"):
        to_r(1, factors=False)


def test_r_call_arguments_and_errors():
    assert r_call("base::paste", "a", "b", sep_="-") == "a-b"
    with pytest.raises(TypeError, match="name"):
        r_call(3)
    with pytest.raises(ValueError, match="time_limit"):
        r_call("sum", 1, time_limit=-1)
    with pytest.raises(RRuntimeError):
        r_call("no_such_function_in_r")
    busy = r_call("base::str2lang", "repeat {}", convert_result=False)
    with pytest.raises(RRuntimeError, match="time limit"):
        r_call("base::eval", busy, time_limit=0.3)


def test_set_seed_replays_r():
    compat.set_seed(42)
    # values of set.seed(42); runif(3) in R 4.2 (stagedtrees spec, section 7)
    np.testing.assert_allclose(r_call("runif", 3),
                               [0.914806043496355, 0.937075413297862, 0.286139534786344], rtol=1e-14)
    with pytest.raises(TypeError, match="seed"):
        compat.set_seed(1.5)


# -- classifiers ----------------------------------------------------------------------
def _titanic_rows():
    return st.datasets.titanic()


def assert_same_bnc(a, b):
    assert (a.class_var, a.features, a.families) == (b.class_var, b.features, b.families)
    assert a.levels == b.levels
    assert (a.params is None) == (b.params is None)
    if a.params is not None:
        assert list(a.params) == list(b.params)
        for v in a.params:
            np.testing.assert_array_equal(a.params[v], b.params[v])
    assert a.learner == b.learner
    assert a.lp_args == b.lp_args
    assert a.greedy_scores_log == b.greedy_scores_log


@pytest.mark.parametrize("learner", ["nb", "tan_cl", "tan_cl_bic"])
def test_bnc_round_trip_and_r_validity(learner):
    data = _titanic_rows()
    structure = (bnc.nb("Survived", data) if learner == "nb"
                 else bnc.tan_cl("Survived", data, score="bic" if learner.endswith("bic") else "loglik"))
    model = bnc.lp(structure, data, smooth=1)
    robj = to_r(model)
    assert float(np.asarray(r_apply(R_CHECK_BNC, robj))[0]) < 1e-12
    assert_same_bnc(model, from_r(robj))
    assert_same_bnc(structure, from_r(to_r(structure)))
    assert r_call("class", to_r(structure)).tolist() == ["bnc_dag", "bnc_base"]


def test_greedy_classifier_keeps_its_search_record():
    data = _titanic_rows()
    model = bnc.lp(bnc.tan_hc("Survived", data, k=2, epsilon=0, seed=np.random.default_rng(1)),
                   data, smooth=1)
    back = from_r(to_r(model))
    assert_same_bnc(model, back)
    assert back.learner[0] == "tan_hc" and len(back.greedy_scores_log) > 0


def test_aode_is_refused():
    data = _titanic_rows()
    with pytest.raises(TypeError, match="AODE"):
        to_r(bnc.aode("Survived", data))


def test_python_subprocesses_still_work_after_r_started():
    import subprocess
    import sys

    r_call("sum", 1)  # R is running in this process
    done = subprocess.run([sys.executable, "-c", "import numpy, pandas"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_csv_columns_are_typed_as_r_read_csv_types_them(tmp_path):
    from pystagedtrees.base._data import column_levels, read_categorical_csv

    csv = tmp_path / "d.csv"
    # f: only R's four logical spellings make a logical column; g: spaces around
    # integers are allowed, an all-space cell is missing; h: not around logicals
    csv.write_text("answer,a,b,c,d,e,f,g,h,i\n1,T,x,007,,NA,T, 5, F,  \n10,F,,2,,p q,F,  ,T,T\n"
                   "2,TRUE,y,10,NA,,yes,6 ,F,F\n2,NA,x,,,p-q,NA,10,T,\n-3,F,x,+4,,NA,T,6,F,T\n")
    ours = read_categorical_csv(csv)
    theirs = from_r(r_call("read.csv", str(csv), stringsAsFactors=True,
                           convert_result=False))
    for column in ours.columns:
        r_column = theirs[column]
        assert list(ours[column].cat.categories) == column_levels(r_column), column
        assert ours[column].isna().tolist() == r_column.isna().tolist(), column


def test_recorder_levels_are_r_factor_levels_of_read_csv(tmp_path):
    # the recorder writes the levels of R's factor() of read.csv's columns: integers by value
    # ("2" before "10"), text in R's collation (where "B" sorts after "a")
    from compat import record
    from compat._common import read_dataset

    csv = tmp_path / "d.csv"
    csv.write_text("answer,n,t\n10,a,x\n2,B,y\n-1,b,x\n2,A,z\n")
    levels = {c: record.r_levels(col) for c, col in read_dataset(csv).items()}
    expected = {name: list(r_eval(f'levels(factor(read.csv("{csv}")${name}))'))
                for name in levels}
    assert levels == expected and expected["answer"] == ["-1", "2", "10"]

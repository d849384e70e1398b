"""Record R's results as reference JSON, in the format of ``../shared/reference/r/*.json``.

Usage::

    python -m compat.record --data FILE.csv --split IDS.csv [--repetition 1]
                            [--class answer] [--out DIR] [--keys all]
                            [--levels-from OLD.json] [--time-limit 120] [--wrappers]

Everything is computed by R (stagedtrees and bnclassify, through rpy2) on
the training rows, and evaluated on the test rows (column ``V<repetition>``
of the split file, 1-based row numbers).  ``DIR/<name>.json`` gets
``dataset, n_train, n_test, order, levels``, the R and package versions,
``models.<key>`` (``full``, ``indep``, the learners, ``sevt_tan_cl`` and
``stages_bhc_tan_cl``: ``seconds, loglik, df, nobs, BIC, stages,
test_prob, test_accuracy``, or ``error`` and ``seconds`` when R failed or
ran past ``--time-limit``) and ``bnc.<key>`` (``nb``, ``tan_cl_<score>``:
``seconds, families, params, test_prob, test_accuracy``).  With
``--wrappers``, ``DIR/wrappers/<name>.json`` gets bnclassify's randomised
learners run right after ``set.seed(2020)`` and their ``stages_bhc``
refinements.

Levels are R's own sort of each column's values (R's collation), unless
``--levels-from`` gives an earlier reference whose levels to keep, so a
refreshed file lines up with the old one.  Numbers are written with 15
significant digits, as R's jsonlite writes them.
"""
import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from compat._common import R_TREE_OF_FAMILIES, data_name, r_function, read_dataset, split_rows
from pystagedtrees import compat

TIME_LIMIT_DEFAULT = 120.0
WRAPPER_SEED = 2020
KMEANS_SEED = 2024


class Recorder:
    """Runs the reference pipeline in R for one dataset and split."""

    def __init__(self, train, test, class_var, time_limit):
        self.train, self.test, self.class_var = train, test, class_var
        self.time_limit = time_limit
        self.train_r = compat.to_r(train)
        self.test_r = compat.to_r(test)
        self.test_features_r = compat.to_r(test.drop(columns=[class_var]))
        self.truth = np.asarray(test[class_var].astype(str))

    def R(self, name, *args, **kwargs):
        return compat.r_call(name, *args, convert_result=False, time_limit=self.time_limit, **kwargs)

    def timed(self, step):
        """``(value or exception, seconds)`` of a zero-argument step."""
        start = time.perf_counter()
        try:
            value = step()
        except Exception as exc:  # noqa: BLE001 - recorded as R's error
            value = exc
        return value, time.perf_counter() - start

    # -- staged trees ----------------------------------------------------------
    def sevt_entry(self, model, seconds, with_nobs=True):
        ll = compat.r_call("logLik", model)
        entry = {"seconds": seconds, "loglik": float(ll), "df": ll.df}
        if with_nobs:
            entry["nobs"] = ll.nobs
        entry["BIC"] = compat.r_call("BIC", model)
        entry["stages"] = compat.from_r(model).stages()
        prob = self.R("predict", model, self.test_features_r, class_=self.class_var, prob=True)
        entry["test_prob"] = np.asarray(prob).tolist()
        predicted = compat.from_r(self.R("predict", model, self.test_features_r, class_=self.class_var))
        entry["test_accuracy"] = float(np.mean(np.asarray(predicted.astype(str)) == self.truth))
        return entry

    def tree_of_families(self, families):
        columns = list(self.train.columns)
        levels = {v: list(self.train[v].cat.categories) for v in columns}
        with _r_context():
            return r_function(R_TREE_OF_FAMILIES)(
                compat.to_r({v: list(f) for v, f in families.items()}), compat.to_r(levels),
                compat.to_r(columns),
            )

    def models(self, keys):
        """The ``models`` section; each learner is timed alone, from R's own start model."""
        starts = {}

        def cached(name, build):
            def get():
                if name not in starts:
                    starts[name] = self.timed(build)
                value = starts[name][0]
                if isinstance(value, Exception):
                    raise value
                return value
            return get

        def tan_tree():
            tan = self.R("bnclassify::tan_cl", self.class_var, self.train_r, score="loglik")
            tree = self.tree_of_families(compat.from_r(tan).families)
            return self.R("sevt_fit", tree, data=self.train_r, lambda_=1)

        def kmeans(model):
            compat.set_seed(KMEANS_SEED)
            return self.R("stages_kmeans", model, k=2)

        full = cached("full", lambda: self.R("full", self.train_r, lambda_=1))
        indep = cached("indep", lambda: self.R("indep", self.train_r, lambda_=1))
        tan = cached("tan", tan_tree)
        steps = {  # key: (start model or None, learner)
            "full": (None, full),
            "indep": (None, indep),
            "stages_bhc": (full, lambda m: self.R("stages_bhc", m)),
            "stages_fbhc": (full, lambda m: self.R("stages_fbhc", m)),
            "stages_bj_kullback_0.2": (full, lambda m: self.R(
                "stages_bj", m, distance="kullback", thr=0.2)),
            "stages_hclust_totvar_complete_2": (full, lambda m: self.R(
                "stages_hclust", m, k=2, distance="totvar", method="complete")),
            "stages_hc_indep": (indep, lambda m: self.R("stages_hc", m)),
            "stages_kmeans_2_seed2024": (full, kmeans),
            "sevt_tan_cl": (None, tan),
            "stages_bhc_tan_cl": (tan, lambda m: self.R("stages_bhc", m)),
        }
        out = {}
        for key in [k for k in MODEL_KEYS if k in keys]:
            start, learn = steps[key]
            model, seconds = (None, 0.0) if start is None else self.timed(start)
            if not isinstance(model, Exception):
                model, seconds = self.timed(learn if start is None else (lambda: learn(model)))
            out[key] = (error_entry(model, seconds) if isinstance(model, Exception)
                        else self.sevt_entry(model, seconds))
            _progress(key, out[key])
        return out

    # -- classifiers -------------------------------------------------------------
    def bnc_entry(self, structure_call):
        """The entry of a classifier (structure learned, then ``lp(smooth = 1)``) and its conversion."""
        start = time.perf_counter()
        try:
            model = self.R("bnclassify::lp", structure_call(), self.train_r, smooth=1)
        except Exception as exc:  # noqa: BLE001
            return error_entry(exc, time.perf_counter() - start), None
        seconds = time.perf_counter() - start
        py_model = compat.from_r(model)
        families = {v: (list(f) if len(f) > 1 else f[0]) for v, f in py_model.families.items()}
        params = {}
        for v, table in py_model.params.items():
            dims = list(table.shape)
            params[v] = {
                "dim": dims if len(dims) > 1 else dims[0],
                "dimnames": {u: py_model.levels[u] for u in py_model.families[v]},
                "values": table.ravel(order="F").tolist(),
            }
        try:  # e.g. bnclassify needs gRain to predict rows with missing values
            prob = self.R("predict", model, self.test_r, prob=True)
            predicted = compat.from_r(self.R("predict", model, self.test_r))
        except Exception as exc:  # noqa: BLE001 - recorded as R's error
            return error_entry(exc, seconds), None
        entry = {
            "seconds": seconds,
            "families": families,
            "params": params,
            "test_prob": np.asarray(prob).tolist(),
            "test_accuracy": float(np.mean(np.asarray(predicted.astype(str)) == self.truth)),
        }
        return entry, py_model

    def bnc(self, keys):
        structures = {
            "nb": lambda: self.R("bnclassify::nb", self.class_var, self.train_r),
            **{f"tan_cl_{score}": (lambda score=score: self.R(
                "bnclassify::tan_cl", self.class_var, self.train_r, score=score))
               for score in ("loglik", "bic", "aic")},
        }
        out = {}
        for key, structure in structures.items():
            if key in keys:
                out[key], _ = self.bnc_entry(structure)
                _progress(key, out[key])
        return out

    def wrappers(self):
        p = self.train.shape[1] - 1
        calls = {
            "tan_hc": ("tan_hc('answer', train, k = 5, epsilon = 0.01, smooth = 1)",
                       lambda: self.R("bnclassify::tan_hc", self.class_var, self.train_r,
                                      k=5, epsilon=0.01, smooth=1)),
            "kdb3": ("kdb('answer', train, k = 5, kdbk = min(3, p), smooth = 1)",
                     lambda: self.R("bnclassify::kdb", self.class_var, self.train_r,
                                    k=5, kdbk=min(3, p), smooth=1)),
            "kdb5": ("kdb('answer', train, k = 5, kdbk = min(5, p), smooth = 1)",
                     lambda: self.R("bnclassify::kdb", self.class_var, self.train_r,
                                    k=5, kdbk=min(5, p), smooth=1)),
        }
        learners = {}
        for key, (call, structure) in calls.items():
            def seeded(structure=structure):
                compat.set_seed(WRAPPER_SEED)
                return structure()

            entry, model = self.bnc_entry(seeded)
            if model is not None:
                entry = {"call": call, "seed": WRAPPER_SEED, "seconds": entry["seconds"],
                         "families": entry["families"], "test_prob": entry["test_prob"],
                         "test_accuracy": entry["test_accuracy"]}
                tree, seconds = self.timed(lambda: self.R(
                    "sevt_fit", self.tree_of_families(model.families), data=self.train_r, lambda_=1))
                refined = tree  # stagedtrees can fail where bnclassify did not (a one-level column)
                if not isinstance(tree, Exception):
                    refined, seconds = self.timed(lambda: self.R("stages_bhc", tree))
                entry["refined"] = (error_entry(refined, seconds) if isinstance(refined, Exception)
                                    else self.sevt_entry(refined, seconds, with_nobs=False))
            learners[key] = entry
            _progress(key, entry)
        return learners


MODEL_KEYS = [
    "full", "indep", "stages_bhc", "stages_fbhc", "stages_bj_kullback_0.2",
    "stages_hclust_totvar_complete_2", "stages_hc_indep", "stages_kmeans_2_seed2024",
    "sevt_tan_cl", "stages_bhc_tan_cl",
]
BNC_KEYS = ["nb", "tan_cl_loglik", "tan_cl_bic", "tan_cl_aic"]


def _r_context():
    from pystagedtrees.compat._session import r_context

    return r_context()


def error_entry(exc, seconds):
    lines = str(exc).strip().splitlines()
    message = lines[-1] if lines else type(exc).__name__
    return {"error": message.removeprefix("Error: ").strip(), "seconds": seconds}


def _progress(key, entry):
    state = entry.get("error", "ok")
    print(f"  {key}: {state} ({entry['seconds']:.3f} s)", file=sys.stderr, flush=True)


def r_levels(column):
    """The levels R's ``read.csv(stringsAsFactors = TRUE)`` gives a column read
    by ``read_dataset``: integers by value (as read), text in R's collation."""
    levels = [str(v) for v in column.cat.categories]
    if all(re.fullmatch(r"-?[0-9]+", v) for v in levels):
        return levels
    return list(compat.r_call("sort", np.array(sorted(levels), dtype=object)))


def r_versions():
    version = compat.r_call("base::get", "R.version.string", envir=compat.r_call("baseenv", convert_result=False))
    packages = {}
    for pkg in ("stagedtrees", "bnclassify"):
        packages[pkg] = (compat.r_call("base::as.character", compat.r_call(
            "utils::packageVersion", pkg, convert_result=False)) if compat.has_r_package(pkg) else None)
    return version, packages


def json_ready(value):
    """Numbers as R's jsonlite writes them: 15 significant digits, integral values as integers."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if np.isnan(value):
            return None
        if np.isinf(value):
            return "Inf" if value > 0 else "-Inf"
        rounded = float(f"{value:.15g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded
    return value


def record(data, split, repetition=1, class_var=None, keys=None, levels_from=None,
           time_limit=TIME_LIMIT_DEFAULT, wrappers=False):
    """The reference dicts ``(main, wrappers or None)`` of one dataset."""
    for pkg in ("stagedtrees", "bnclassify"):
        from pystagedtrees.compat._session import require_package

        require_package(pkg)
    keys = set(MODEL_KEYS + BNC_KEYS) if keys is None else set(keys)
    raw = read_dataset(data, class_var)
    if levels_from is not None:
        with open(levels_from) as fh:
            levels = json.load(fh)["levels"]
    else:
        levels = {c: r_levels(raw[c]) for c in raw.columns}
    frame = read_dataset(data, raw.columns[0], levels=levels)
    train, test = split_rows(frame, split, repetition)
    recorder = Recorder(train, test, frame.columns[0], time_limit)
    version, packages = r_versions()
    main = {
        "dataset": Path(data).name,
        "n_train": len(train),
        "n_test": len(test),
        "order": list(frame.columns),
        "levels": {c: list(frame[c].cat.categories) for c in frame.columns},
        "r_version": version,
        "stagedtrees_version": packages["stagedtrees"],
        "bnclassify_version": packages["bnclassify"],
        "models": recorder.models(keys),
        "bnc": recorder.bnc(keys),
    }
    extra = None
    if wrappers:
        extra = {
            "dataset": Path(data).name,
            "rng": "set.seed(SEED) immediately before each learner call; R defaults "
                   "(Mersenne-Twister, Inversion, Rejection)",
            "learners": recorder.wrappers(),
        }
    return main, extra


def write_json(obj, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        json.dump(json_ready(obj), fh, separators=(",", ":"))
        fh.write("\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m compat.record", description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="CSV of categorical data (class column first)")
    parser.add_argument("--split", required=True, help="CSV of 1-based test row numbers, columns V1, ...")
    parser.add_argument("--repetition", type=int, default=1)
    parser.add_argument("--class", dest="class_var", default=None)
    parser.add_argument("--out", default="reference-r", help="output folder (default ./reference-r)")
    parser.add_argument("--keys", default="all", help=f"'all' or a comma list of {MODEL_KEYS + BNC_KEYS}")
    parser.add_argument("--levels-from", default=None, help="earlier reference JSON whose levels to keep")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT_DEFAULT)
    parser.add_argument("--wrappers", action="store_true", help="also record bnclassify's wrappers")
    args = parser.parse_args(argv)
    keys = None if args.keys == "all" else [k.strip() for k in args.keys.split(",")]
    unknown = sorted(set(keys or []) - set(MODEL_KEYS + BNC_KEYS))
    if unknown:
        parser.error(f"unknown --keys {unknown}")
    name = data_name(args.data)
    print(f"recording {name}", file=sys.stderr)
    main_ref, wrappers_ref = record(args.data, args.split, args.repetition, args.class_var, keys,
                                    args.levels_from, args.time_limit, args.wrappers)
    out = Path(args.out)
    write_json(main_ref, out / f"{name}.json")
    if wrappers_ref is not None:
        write_json(wrappers_ref, out / "wrappers" / f"{name}.json")
    print(f"wrote {out / (name + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

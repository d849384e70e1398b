"""Record R's results as reference JSON: the files the tests compare with.

Usage::

    python -m compat.record --dataset NAME|all [--wrappers] [--keys all]
                            [--time-limit 120] [--repetition 1] [--out tests/reference]
    python -m compat.record --data FILE.csv --split IDS.csv [--class answer]
                            [--levels-from OLD.json] ... --out DIR

Everything is computed by R (stagedtrees and bnclassify, through rpy2) on
the training rows, and evaluated on the test rows: with ``--dataset``, one
of the package's benchmark sets (``pystagedtrees.datasets``, ``all`` for
every one) and its split ``--repetition``; with ``--data``, a CSV and
column ``V<repetition>`` of the split file (1-based row numbers).
``DIR/<name>.json.gz`` gets ``dataset, n_train, n_test, order, levels``,
the R and package versions, the commands that recorded it, ``data_check``
(per column of the training and test rows, as R received them: the rows
per level, the missing values and the sum of row number times level code),
``models.<key>`` (``full``, ``indep``, the learners, ``sevt_tan_cl`` and
``stages_bhc_tan_cl``: ``seconds, loglik, df, nobs, BIC, stages,
test_prob, test_accuracy``, or ``error`` and ``seconds`` when R failed or
ran past ``--time-limit``) and ``bnc.<key>`` (``nb``, ``tan_cl_<score>``:
``seconds, families, params, test_prob, test_accuracy``).  With
``--wrappers``, ``DIR/wrappers/<name>.json.gz`` gets bnclassify's randomised
learners run right after ``set.seed(2020)`` and their ``stages_bhc``
refinements.

A file already in ``DIR`` is updated: the keys recorded replace its own
(``--keys stages_bhc --time-limit 1500`` gives a slow learner more time)
and the command joins its ``commands``; when it was recorded with other
versions of R or of the R packages the recorder stops and says so, rather
than mix the two (record into an empty folder instead).

Levels are R's own sort of each column's values (R's collation): a shipped
set's levels must be that, or the recorder stops; a CSV gets them, unless
``--levels-from`` gives an earlier reference whose levels to keep.  Numbers
are written with 15 significant digits, as R's jsonlite writes them.
"""
import argparse
import gzip
import io
import json
import re
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from compat._common import (
    R_DATA_CHECK,
    R_TREE_OF_FAMILIES,
    REPOSITORY_REFERENCE,
    add_data_arguments,
    data_name,
    r_function,
    read_dataset,
    read_json,
    shipped_split,
    split_rows,
)
from pystagedtrees import compat, datasets

TIME_LIMIT_DEFAULT = 120.0
WRAPPER_SEED = 2020
KMEANS_SEED = 2024
VERSION_FIELDS = ("r_version", "stagedtrees_version", "bnclassify_version")


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


def json_ready(value):
    """Numbers as R's jsonlite writes them: 15 significant digits, integral values as integers."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
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


def r_versions():
    version = compat.r_call("base::get", "R.version.string", envir=compat.r_call("baseenv", convert_result=False))
    packages = {}
    for pkg in ("stagedtrees", "bnclassify"):
        packages[pkg] = (compat.r_call("base::as.character", compat.r_call(
            "utils::packageVersion", pkg, convert_result=False)) if compat.has_r_package(pkg) else None)
    return version, packages


def _require_r_packages():
    from pystagedtrees.compat._session import require_package

    for pkg in ("stagedtrees", "bnclassify"):
        require_package(pkg)


def record(data, split, repetition=1, class_var=None, keys=None, levels_from=None,
           time_limit=TIME_LIMIT_DEFAULT, wrappers=False):
    """The reference dicts ``(main, wrappers or None)`` of a CSV and its split file."""
    _require_r_packages()
    raw = read_dataset(data, class_var)
    if levels_from is not None:
        with open(levels_from) as fh:
            levels = json.load(fh)["levels"]
    else:
        levels = {c: r_levels(raw[c]) for c in raw.columns}
    frame = read_dataset(data, raw.columns[0], levels=levels)
    train, test = split_rows(frame, split, repetition)
    return record_split(Path(data).name, frame, train, test, keys, time_limit, wrappers)


def record_shipped(name, repetition=1, keys=None, time_limit=TIME_LIMIT_DEFAULT, wrappers=False):
    """The reference dicts ``(main, wrappers or None)`` of a shipped benchmark set.

    Its levels must be those R's ``read.csv`` gives its values (R's
    collation): the references are to hold R's own level order."""
    _require_r_packages()
    frame, train, test = shipped_split(name, repetition)
    as_text = read_dataset(io.StringIO(frame.astype(str).to_csv(index=False)), frame.columns[0])
    for column in frame.columns:
        shipped, r_order = list(frame[column].cat.categories), r_levels(as_text[column])
        if shipped != r_order:
            raise ValueError(f"the shipped {name} has levels {shipped} in column {column!r}; "
                             f"R's read.csv sorts them {r_order}.")
    return record_split(name, frame, train, test, keys, time_limit, wrappers)


def record_split(dataset, frame, train, test, keys=None, time_limit=TIME_LIMIT_DEFAULT,
                 wrappers=False):
    keys = set(MODEL_KEYS + BNC_KEYS) if keys is None else set(keys)
    recorder = Recorder(train, test, frame.columns[0], time_limit)
    version, packages = r_versions()
    versions = {"r_version": version, "stagedtrees_version": packages["stagedtrees"],
                "bnclassify_version": packages["bnclassify"]}
    main = {
        "dataset": dataset,
        "n_train": len(train),
        "n_test": len(test),
        "order": list(frame.columns),
        "levels": {c: list(frame[c].cat.categories) for c in frame.columns},
        **versions,
        "data_check": {part: compat.from_r(r_function(R_DATA_CHECK)(rows))
                       for part, rows in (("train", recorder.train_r), ("test", recorder.test_r))},
        "models": recorder.models(keys),
        "bnc": recorder.bnc(keys),
    }
    extra = None
    if wrappers:
        extra = {
            "dataset": dataset,
            **versions,
            "rng": "set.seed(SEED) immediately before each learner call; R defaults "
                   "(Mersenne-Twister, Inversion, Rejection)",
            "learners": recorder.wrappers(),
        }
    return main, extra


def write_json(obj, path):
    """``obj`` as R's jsonlite writes it; gzip-compressed (reproducibly) when ``path`` ends in .gz."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(json_ready(obj), separators=(",", ":")) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    else:
        path.write_text(text)


def version_mismatch(old, new):
    """The version fields in which an existing reference and a new recording differ."""
    return {f: (old.get(f), new.get(f)) for f in VERSION_FIELDS if old.get(f) != new.get(f)}


def merged(path, new, command, keys_recorded):
    """``new`` joined with the reference already at ``path``, if any.

    Raises ValueError when the two were recorded with other versions of R or
    of the R packages, or on other data."""
    if not path.exists():
        return {**new, "commands": [command]}
    old = read_json(path)
    differs = version_mismatch(old, new)
    if differs:
        details = "; ".join(f"{f}: {a!r} there, {b!r} installed" for f, (a, b) in differs.items())
        raise ValueError(f"{path} was recorded with other versions ({details}): record every "
                         "key into an empty folder (or remove the file) rather than mix them.")
    # a wrappers file, or every key, replaces what was there
    if "learners" in new or keys_recorded >= set(MODEL_KEYS + BNC_KEYS):
        return {**new, "commands": [command]}
    for field in ("order", "levels", "n_train", "n_test", "data_check"):
        if field in old and json_ready(old[field]) != json_ready(new[field]):
            raise ValueError(f"{path} was recorded on other data ({field} differs): "
                             "record every key, into an empty folder.")
    out = {**old, **{k: v for k, v in new.items() if k not in ("models", "bnc")}}
    for section in ("models", "bnc"):
        out[section] = {**old.get(section, {}), **new[section]}
    out["commands"] = old.get("commands", []) + [command]
    return out


def command_line(args, dataset):
    """The command that records ``dataset`` as ``args`` did (the file keeps it)."""
    words = ["python", "-m", "compat.record"]
    if args.dataset is not None:
        words += ["--dataset", dataset]
    else:
        words += ["--data", args.data] + (["--split", args.split] if args.split else [])
        words += (["--class", args.class_var] if args.class_var else [])
        words += (["--levels-from", args.levels_from] if args.levels_from else [])
    words += ["--repetition", str(args.repetition)] if args.repetition != 1 else []
    words += ["--keys", args.keys] if args.keys != "all" else []
    words += ["--time-limit", f"{args.time_limit:g}"]
    words += ["--wrappers"] if args.wrappers else []
    words += ["--out", str(args.out)] if args.out != REPOSITORY_REFERENCE else []
    return shlex.join(words)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m compat.record", description=__doc__.split("\n")[0])
    add_data_arguments(parser)
    parser.add_argument("--out", type=Path, default=REPOSITORY_REFERENCE,
                        help="output folder (default: the repository's tests/reference)")
    parser.add_argument("--keys", default="all", help=f"'all' or a comma list of {MODEL_KEYS + BNC_KEYS}")
    parser.add_argument("--levels-from", default=None,
                        help="with --data: an earlier reference JSON whose levels to keep")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT_DEFAULT)
    parser.add_argument("--wrappers", action="store_true", help="also record bnclassify's wrappers")
    args = parser.parse_args(argv)
    keys = None if args.keys == "all" else [k.strip() for k in args.keys.split(",")]
    unknown = sorted(set(keys or []) - set(MODEL_KEYS + BNC_KEYS))
    if unknown:
        parser.error(f"unknown --keys {unknown}")
    if args.dataset is not None and (args.split or args.class_var or args.levels_from):
        parser.error("--split, --class and --levels-from go with --data; a shipped --dataset "
                     "brings its own split and R's levels")
    if args.dataset is None:
        names = [data_name(args.data)]
    elif args.dataset == "all":
        names = datasets.names(benchmark=True)
    else:
        names = [args.dataset]
    _require_r_packages()
    version, packages = r_versions()
    installed = {"r_version": version, "stagedtrees_version": packages["stagedtrees"],
                 "bnclassify_version": packages["bnclassify"]}
    for name in names:
        for path in (args.out / f"{name}.json.gz", args.out / "wrappers" / f"{name}.json.gz"):
            if path.exists() and version_mismatch(read_json(path), installed):
                parser.exit(2, f"{parser.prog}: error: {path} was recorded with other versions "
                               f"than the installed {installed}: record into an empty folder "
                               "(or remove the file) rather than mix them.\n")
        print(f"recording {name}", file=sys.stderr)
        if args.dataset is None:
            main_ref, wrappers_ref = record(args.data, args.split, args.repetition, args.class_var,
                                            keys, args.levels_from, args.time_limit, args.wrappers)
        else:
            main_ref, wrappers_ref = record_shipped(name, args.repetition, keys, args.time_limit,
                                                    args.wrappers)
        command = command_line(args, name)
        recorded = set(keys or MODEL_KEYS + BNC_KEYS)
        outputs = [(args.out / f"{name}.json.gz", main_ref)]
        if wrappers_ref is not None:
            outputs.append((args.out / "wrappers" / f"{name}.json.gz", wrappers_ref))
        try:  # check both before writing either
            outputs = [(path, merged(path, ref, command, recorded)) for path, ref in outputs]
        except ValueError as exc:
            parser.exit(2, f"{parser.prog}: error: {exc}\n")
        for path, ref in outputs:
            write_json(ref, path)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

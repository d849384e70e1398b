"""Bayesian network classifiers between Python and R: BNCModel <-> bnclassify objects.

A fitted :class:`~pystagedtrees.bnc.BNCModel` becomes bnclassify's
``bnc_bn`` (a structure alone its ``bnc_dag``): ``.class``, ``.dag`` (the
arcs, parents to children), ``.families`` (each feature with its parents
and the class last, then the class), ``.params`` (one R ``table`` per
family: the child's axis first, dimnames named by the variables),
``.call_struct`` / ``.call_bn`` (how the structure and the parameters were
learned, when known) and ``.greedy_scores_log``.  Both share the CPT
layout, so the arrays are R's tables read in column-major order.

Examples
--------
>>> import pandas as pd
>>> import pystagedtrees.bnc as bnc
>>> from pystagedtrees.compat import to_r, from_r, r_call
>>> d = pd.DataFrame({"c": list("aabbab"), "x": list("uuvvuv"), "y": list("pqqpqq")})
>>> model = bnc.lp(bnc.tan_cl("c", d), d, smooth=1)
>>> robj = to_r(model)
>>> r_call("class", robj).tolist()
['bnc_bn', 'bnc_dag', 'bnc_base', 'bnc_fit']
>>> back = from_r(robj)
>>> back.families == model.families
True
"""
import numbers

import numpy as np

from pystagedtrees.bnc import BNCModel
from pystagedtrees.compat._session import helpers, r_context, ri
from pystagedtrees.compat._values import (
    _names,
    float_vector,
    floats_from_r,
    named_list,
    r_classes,
    str_vector,
    strings_from_r,
    value_from_r,
    value_to_r,
)

__all__ = ["bnc_to_r", "bnc_from_r"]

_DAG_CLASSES = ["bnc_dag", "bnc_base"]
_BN_CLASSES = ["bnc_bn", "bnc_dag", "bnc_base", "bnc_fit"]


def _check(model):
    if not isinstance(model, BNCModel):
        raise TypeError(f"`model` must be a BNCModel; got {type(model).__name__}.")
    if model.is_aode:
        raise TypeError(
            "`model` is an AODE ensemble, which has no single network to convert; "
            "convert its one-dependence estimators (`model.models`) one by one."
        )


def _dag_to_r(model):
    arcs = [(p, f) for f in model.features for p in model.families[f][1:-1]]
    arcs += [(model.class_var, f) for f in model.features]
    edges = str_vector([a for a, _ in arcs] + [b for _, b in arcs])
    edges.do_slot_assign("dim", ri.IntSexpVector([len(arcs), 2]))
    edges.do_slot_assign("dimnames", ri.ListSexpVector([ri.NULL, str_vector(["from", "to"])]))
    dag = named_list({
        "nodes": str_vector([*model.features, model.class_var]),
        "edges": edges,
        "weights": float_vector([]),
        "edgemode": str_vector(["directed"]),
    })
    with r_context():
        return helpers("set_class")(dag, "bnc_graph_internal")


def _scalar_args(args):
    """The arguments R can hold: scalars, and None as ``NULL`` (others dropped)."""
    return {k: value_to_r(v) for k, v in args.items()
            if v is None or isinstance(v, (str, bool, numbers.Real, np.generic))}


def _call_list(function, args):
    values = [str_vector([function]), *args.values()]
    with r_context():
        return helpers("named_vector")(
            ri.ListSexpVector(values), str_vector(["", *args])
        )


def _cpt_to_r(table, family, levels):
    table = np.asarray(table, dtype=np.float64)
    dimnames = named_list({v: str_vector(levels[v]) for v in family})
    with r_context():
        return helpers("table")(
            float_vector(table), ri.IntSexpVector(list(table.shape)), dimnames
        )


def _dag_fields(model):
    fields = {
        ".class": str_vector([model.class_var]),
        ".dag": _dag_to_r(model),
        ".families": named_list({v: str_vector(f) for v, f in model.families.items()}),
    }
    if model.learner is not None:
        name, args = model.learner
        fields[".call_struct"] = _call_list(
            name, {"class": str_vector([model.class_var]), **_scalar_args(args)}
        )
    if model.greedy_scores_log:
        fields[".greedy_scores_log"] = float_vector(model.greedy_scores_log)
    return fields


def bnc_to_r(model):
    """A bnclassify ``bnc_bn`` (fitted) or ``bnc_dag`` (structure) from a BNCModel.

    Raises
    ------
    TypeError
        ``model`` is not a BNCModel, or is an AODE ensemble.

    Examples
    --------
    >>> from pystagedtrees.compat.bnclassify import bnc_to_r
    >>> import pandas as pd
    >>> import pystagedtrees.bnc as bnc
    >>> from pystagedtrees.compat import r_call
    >>> d = pd.DataFrame({"c": list("aab"), "x": list("uvv")})
    >>> robj = bnc_to_r(bnc.nb("c", d))
    >>> r_call("class", robj).tolist()
    ['bnc_dag', 'bnc_base']
    """
    _check(model)
    fields = _dag_fields(model)
    if not model.is_fitted:
        with r_context():
            return helpers("set_class")(named_list(fields), str_vector(_DAG_CLASSES))
    fields[".params"] = named_list({
        v: _cpt_to_r(model.params[v], model.families[v], model.levels) for v in model.families
    })
    if model.lp_args is not None:
        with r_context():
            dag = helpers("set_class")(named_list(_dag_fields(model)), str_vector(_DAG_CLASSES))
        fields[".call_bn"] = _call_list("lp", {"x": dag, **_scalar_args(model.lp_args)})
    with r_context():
        return helpers("set_class")(named_list(fields), str_vector(_BN_CLASSES))


def _call_from_r(call):
    """``(function name, {argument: value})`` from a ``.call_struct``-like list."""
    name = strings_from_r(call[0])[0]
    names = _names(call) or [""] * len(call)
    args = {}
    for arg, value in zip(names[1:], list(call)[1:]):
        if arg in ("class", "x", "dataset") or value.typeof == ri.RTYPES.VECSXP:
            continue
        args[arg] = value_from_r(value)
    return name, args


def bnc_from_r(x):
    """A BNCModel from a bnclassify ``bnc_bn`` or ``bnc_dag``.

    Examples
    --------
    >>> from pystagedtrees.compat.bnclassify import bnc_from_r
    >>> import pandas as pd
    >>> import pystagedtrees.bnc as bnc
    >>> from pystagedtrees.compat import to_r
    >>> d = pd.DataFrame({"c": list("aab"), "x": list("uvv")})
    >>> bnc_from_r(to_r(bnc.lp(bnc.nb("c", d), d, smooth=1))).params["x"].shape
    (2, 2)
    """
    classes = r_classes(x)
    if "bnc_dag" not in classes:
        raise TypeError(f"`x` must be a bnclassify bnc_dag or bnc_bn; got class {classes}.")
    if "bnc_aode" in classes:
        raise TypeError("`x` is an AODE ensemble; its estimators are not converted.")
    names = _names(x)
    fields = dict(zip(names, x))
    class_var = strings_from_r(fields[".class"])[0]
    families = {v: tuple(strings_from_r(f)) for v, f in zip(_names(fields[".families"]), fields[".families"])}
    features = [v for v in families if v != class_var]
    learner = _call_from_r(fields[".call_struct"]) if ".call_struct" in fields else None
    scores = floats_from_r(fields[".greedy_scores_log"]).tolist() if ".greedy_scores_log" in fields else ()
    model = BNCModel(class_var, features, families, learner=learner, greedy_scores_log=scores)
    if ".params" not in fields:
        return model
    params, levels = {}, {}
    for v, table in zip(_names(fields[".params"]), fields[".params"]):
        with r_context():
            dimnames = helpers("dimnames_of")(table)
        dims = [len(d) for d in dimnames]
        params[v] = floats_from_r(table).reshape(dims, order="F")
        levels[v] = strings_from_r(dimnames[0])
    lp_args = None
    if ".call_bn" in fields:
        _, args = _call_from_r(fields[".call_bn"])
        if args.get("smooth") is not None:
            args["smooth"] = float(args["smooth"])
        lp_args = args
    return model.copy_structure(
        params={v: params[v] for v in families}, levels={v: levels[v] for v in families},
        lp_args=lp_args,
    )

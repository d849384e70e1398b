"""Staged event trees between Python and R: :class:`~pystagedtrees.Sevt` <-> R ``sevt``.

The R object is the list R stagedtrees builds (spec section 1): ``tree``
(levels per variable, in tree order), ``stages`` (a label per situation for
every variable but the root), ``ctables`` (the root's counts as a named
vector, then one ``ftable`` per variable with a row per situation),
``data_raw``, ``prob`` (per variable, a named probability vector per stage
carrying its sample size in attribute ``n``; the root's single stage is
``"1"``), ``lambda``, ``ll`` (a ``logLik`` with ``df`` and ``nobs``) and
``name_unobserved``.  The order of ``prob[[v]]`` is the order of the stage
ids in Python, so a round trip keeps it; probabilities R leaves undefined
(``NA``) are NaN in Python.

Examples
--------
>>> import pystagedtrees as st
>>> from pystagedtrees.compat import to_r, from_r, r_call
>>> model = st.full(st.datasets.titanic_table(), lambda_=1)
>>> robj = to_r(model)
>>> r_call("class", robj)
'sevt'
>>> back = from_r(robj)
>>> back.stages() == model.stages(), float(back.ll) == float(model.ll)
(True, True)
"""
import numpy as np
import pandas as pd

from pystagedtrees.base._loglik import LogLik
from pystagedtrees.compat._session import helpers, r_context, ri
from pystagedtrees.compat._values import (
    _names,
    attribute,
    float_vector,
    floats_from_r,
    frame_from_r,
    frame_to_r,
    named_list,
    r_classes,
    str_vector,
    strings_from_r,
    table_from_r,
    table_to_r,
)
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import StageLabels, StageVector

__all__ = ["sevt_to_r", "sevt_from_r"]


def _levels_list(tree, variables):
    return named_list({v: str_vector(tree[v]) for v in variables})


def _ctables_to_r(model):
    tree, variables = model.tree, model.variables
    out = {}
    for i, v in enumerate(variables):
        counts = np.zeros((model.n_situations(i), int(model.n_levels[i])))
        counts[model.observed_situations(i)] = model.situation_counts(i)
        if i == 0:
            with r_context():
                out[v] = helpers("named_vector")(float_vector(counts[0]), str_vector(tree[v]))
            continue
        matrix = float_vector(counts)
        matrix.do_slot_assign("dim", ri.IntSexpVector(list(counts.shape)))
        with r_context():
            out[v] = helpers("ftable")(
                matrix, _levels_list(tree, variables[:i]), _levels_list(tree, [v])
            )
    return named_list(out)


def _prob_to_r(model):
    tree = model.tree
    out = {}
    for i, v in enumerate(model.variables):
        labels = ["1"] if i == 0 else model.stage_labels(i).tolist()
        prob = np.asarray(model.stage_probabilities(i), dtype=np.float64)
        matrix = float_vector(prob)
        matrix.do_slot_assign("dim", ri.IntSexpVector(list(prob.shape)))
        with r_context():
            out[v] = helpers("prob_list")(
                matrix, float_vector(model.stage_sizes(i)), str_vector(labels), str_vector(tree[v])
            )
    return named_list(out)


def sevt_to_r(model, data_raw=True):
    """An R ``sevt`` list from a :class:`~pystagedtrees.Sevt`.

    Parameters
    ----------
    model : Sevt
    data_raw : bool, default True
        Include the data last used to fit (a DataFrame becomes a data.frame
        of factors, a table of counts an R ``table``).

    Returns
    -------
    rpy2 object
        A list of class ``"sevt"`` with the fields R's ``full()`` gives, in
        its order: ``tree, stages, ctables, data_raw, prob, lambda, ll,
        name_unobserved`` (those the model has).

    Raises
    ------
    ValueError
        A variable with more situations than are ever expanded (R stores
        one stage label per situation; such a tree is kept compactly here).

    Examples
    --------
    >>> from pystagedtrees.compat.stagedtrees import sevt_to_r
    >>> import pystagedtrees as st
    >>> from pystagedtrees.compat import r_call
    >>> robj = sevt_to_r(st.indep(st.datasets.titanic_table(), lambda_=1))
    >>> r_call("names", robj).tolist()
    ['tree', 'stages', 'ctables', 'data_raw', 'prob', 'lambda', 'll', 'name_unobserved']
    """
    check_sevt(model, "model")
    variables, tree = model.variables, model.tree
    fields = {
        "tree": _levels_list(tree, variables),
        "stages": named_list(
            {v: str_vector(model.stage_label_vector(i)) for i, v in enumerate(variables) if i > 0}
        ),
    }
    if model.has_counts:
        fields["ctables"] = _ctables_to_r(model)
    raw = model.shared_data_raw
    if data_raw and isinstance(raw, pd.DataFrame):
        fields["data_raw"] = frame_to_r(raw)
    elif data_raw and isinstance(raw, pd.Series):
        fields["data_raw"] = table_to_r(raw)
    if model.has_probabilities:
        fields["prob"] = _prob_to_r(model)
    if model.lambda_ is not None:
        fields["lambda"] = float_vector([model.lambda_])
    if model.ll is not None:
        with r_context():
            fields["ll"] = helpers("loglik")(
                float_vector([float(model.ll)]), float_vector([model.ll.df]),
                float_vector([model.ll.nobs]),
            )
    if model.name_unobserved is not None:
        fields["name_unobserved"] = str_vector(model.name_unobserved)
    with r_context():
        return helpers("set_class")(named_list(fields), "sevt")


# -- R -> Python ----------------------------------------------------------------
def _field(robj, names, name):
    """A field of an R list, or None when it is absent or NULL (as R's ``x$name``)."""
    value = robj[names.index(name)] if name in names else ri.NULL
    return None if value is ri.NULL else value


def _stage_strings(stages_r, v, n_situations):
    if v not in stages_r:
        raise ValueError(f"`x`: the R sevt has no stages for variable {v!r}.")
    labels = strings_from_r(stages_r[v])
    if not labels or any(lab is None for lab in labels):
        raise ValueError(f"`x`: the stages of variable {v!r} are empty or have NA.")
    if len(labels) != n_situations:
        # R recycles a shorter vector along the situations (find_stage)
        labels = [labels[j % len(labels)] for j in range(n_situations)]
    return labels


def _prob_parts(prob_v, v, levels):
    k = len(levels)
    with r_context():
        parts = helpers("prob_parts")(prob_v, str_vector(levels))
    labels = strings_from_r(parts[0])
    if labels and not np.asarray(parts[3], dtype=bool).all():
        raise ValueError(
            f"`x`: a stage's probabilities of variable {v!r} are named otherwise than "
            f"its levels {levels}."
        )
    mat = floats_from_r(parts[1]).reshape(len(labels), -1, order="F") if labels else np.zeros((0, k))
    if mat.shape[1] != k:
        raise ValueError(
            f"`x`: the probabilities of variable {v!r} have {mat.shape[1]} entries "
            f"per stage; the variable has {k} levels."
        )
    return labels, mat, floats_from_r(parts[2])


def _ctable_counts(ctable, variables, tree, n_situations):
    """The counts of the last of ``variables`` by situation, in the tree's
    level order (R's table may list levels in another order: it reads them
    by name)."""
    v, k = variables[-1], len(tree[variables[-1]])
    with r_context():
        parts = helpers("ctable_parts")(ctable)
    counts = floats_from_r(parts[0])
    if counts.size != n_situations * k:
        raise ValueError(
            f"`x`: the contingency table of {v!r} has {counts.size} cells; "
            f"expected {n_situations} situations x {k} levels."
        )
    # an ftable's rows vary the last row variable fastest, as situations do
    counts = counts.reshape(n_situations, k, order="F")
    axes = [] if parts[1] is ri.NULL else [strings_from_r(a) for a in parts[1]]
    if axes:
        where = [pd.Index(axis).get_indexer(tree[u]) for axis, u in zip(axes, variables)]
        if len(axes) != len(variables) or any(
                len(axis) != len(tree[u]) or (w < 0).any()
                for axis, u, w in zip(axes, variables, where)):
            raise ValueError(
                f"`x`: the contingency table of {v!r} is labelled {axes}, not with the "
                f"levels of {variables}."
            )
        shape = [len(tree[u]) for u in variables]
        counts = counts.reshape(shape)[np.ix_(*where)].reshape(n_situations, k)
    return counts


def sevt_from_r(x):
    """A :class:`~pystagedtrees.Sevt` from an R ``sevt`` list.

    Stage ids follow the order of ``prob[[v]]`` when the model is fitted,
    else the order of first appearance; a ``stages`` vector shorter than
    the number of situations is recycled, as R's ``find_stage`` does.

    Examples
    --------
    >>> from pystagedtrees.compat.stagedtrees import sevt_from_r
    >>> import pystagedtrees as st
    >>> from pystagedtrees.compat import to_r
    >>> model = sevt_from_r(to_r(st.full(st.datasets.titanic_table(), lambda_=1)))
    >>> model.stages("Sex")
    ['1', '2', '3', '4']
    """
    if "sevt" not in r_classes(x):
        raise TypeError(f"`x` must be an R object of class 'sevt'; got class {r_classes(x)}.")
    names = _names(x) or []
    tree_r = _field(x, names, "tree")
    if tree_r is None:
        raise ValueError("`x`: the R sevt has no `tree`.")
    tree = dict(zip(_names(tree_r), (strings_from_r(lev) for lev in tree_r)))
    variables = list(tree)
    k = [len(tree[v]) for v in variables]
    n_sit = [int(np.prod(k[:i], dtype=object)) for i in range(len(k))]
    stages_field = _field(x, names, "stages")
    stages_r = {} if stages_field is None else dict(zip(_names(stages_field) or [], stages_field))
    prob_field = _field(x, names, "prob")
    prob_r = {} if prob_field is None else dict(zip(_names(prob_field) or [], prob_field))
    fitted = bool(prob_r) and all(v in prob_r for v in variables)
    if prob_r and not fitted:
        missing = [v for v in variables if v not in prob_r]
        raise ValueError(f"`x`: `prob` lacks the variables {missing}.")

    stage_vectors = [StageVector(1, np.zeros(1, dtype=np.int32))]
    stage_labels = [StageLabels.numbered([1])]
    prob_by_label = [None] * len(variables)
    for i, v in enumerate(variables):
        if fitted:
            labels, mat, n = _prob_parts(prob_r[v], v, tree[v])
            prob_by_label[i] = (labels, mat, n)
        if i == 0:
            continue
        strings = _stage_strings(stages_r, v, n_sit[i])
        order = labels if fitted else list(dict.fromkeys(strings))
        ids = pd.Index(order).get_indexer(strings)
        if (ids < 0).any():
            bad = strings[int(np.flatnonzero(ids < 0)[0])]
            raise ValueError(f"`x`: stage {bad!r} of variable {v!r} has no probabilities in `prob`.")
        stage_vectors.append(StageVector(n_sit[i], ids.astype(np.int32)))
        stage_labels.append(StageLabels.from_strings(order))
    model = Sevt(tree, stage_vectors, stage_labels)

    ctables = _field(x, names, "ctables")
    if ctables is not None:
        ctab_r = dict(zip(_names(ctables), ctables))
        situations, observed_counts = [], []
        for i, v in enumerate(variables):
            counts = _ctable_counts(ctab_r[v], variables[: i + 1], tree, n_sit[i])
            observed = np.array([0]) if i == 0 else np.flatnonzero(counts.sum(axis=1) > 0)
            situations.append(observed.astype(np.int64))
            observed_counts.append(counts[observed])
        model.set_counts(situations, observed_counts, data_raw=None)
    if fitted:
        for i in range(len(variables)):
            labels, mat, n = prob_by_label[i]
            rows = [0] if i == 0 else pd.Index(labels).get_indexer(model.stage_labels(i).tolist())
            mat, n = mat[rows], n[rows]
            # R's NA probabilities, set by hand, carry no `n`: the 0 marks them
            # undefined (set), as set_stage_prob does, not waiting to be fitted
            model.set_stage_probabilities(i, mat, np.where(np.isnan(n) & np.isnan(mat).all(axis=1), 0.0, n))
    lam = _field(x, names, "lambda")
    model.lambda_ = None if lam is None else float(floats_from_r(lam)[0])
    unobserved = _field(x, names, "name_unobserved")
    model.name_unobserved = None if unobserved is None else strings_from_r(unobserved)
    ll = _field(x, names, "ll")
    if ll is not None:
        model.ll = LogLik(floats_from_r(ll)[0], floats_from_r(attribute(ll, "df"))[0],
                          floats_from_r(attribute(ll, "nobs"))[0])
    raw = _field(x, names, "data_raw")
    if raw is not None:
        classes = r_classes(raw)
        model.data_raw = frame_from_r(raw) if "data.frame" in classes else (
            table_from_r(raw) if "table" in classes else None
        )
    return model

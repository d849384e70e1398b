"""The classifier object and its read-only accessors (R's ``inspect_bnc_*``)."""
from __future__ import annotations

import copy
import warnings
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from pystagedtrees.base._validation import is_distribution

__all__ = [
    "BNCModel",
    "families",
    "feature_families",
    "features",
    "class_var",
    "vars",
    "params",
    "values",
    "classes",
    "narcs",
    "nparams",
    "modelstring",
    "as_parentslist",
    "is_anb",
    "is_nb",
    "is_ode",
    "is_semi_naive",
    "awnb_weights",
    "manb_arc_posterior",
]


class BNCModel:
    """A Bayesian network classifier: its structure and, once fitted, its CPTs.

    Learners (:func:`nb`, :func:`tan_cl`, ...) return an unfitted model (R's
    ``bnc_dag``); :func:`lp` returns a fitted copy (R's ``bnc_bn``).  Every
    feature has the class among its parents.

    Attributes
    ----------
    class_var : str
    features : tuple of str
        The features in model order.
    families : dict of str to tuple of str
        For each feature ``(feature, feature parents..., class)``, then the
        class's ``(class,)`` last.
    levels : dict of str to list of str or None
        The levels of each variable, known once fitted.
    params : mapping of str to numpy.ndarray or None
        The CPTs, one axis per family variable in family order; the child
        axis sums to one.  Read-only (the model keeps its own copies):
        assign a new dict to change them, or use :meth:`copy_structure`.
    models : list of BNCModel or None
        The one-dependence estimators of an AODE ensemble, else None.
    greedy_scores_log : list of float
        Cross-validated accuracies of the accepted steps of a greedy search.
    weights : dict of str to float or None
        The AWNB or WANBIA feature weights that :func:`lp` applied to the
        CPTs, in feature order; None otherwise.
    manb_arc_posterior : dict of str to float or None
        MANB's posterior probability of each class-to-feature arc; None
        unless :func:`lp` averaged over them.

    Copies made with :meth:`copy_structure` do not keep ``weights`` or
    ``manb_arc_posterior``: they belong to the parameters that produced them.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> data = st.datasets.titanic()
    >>> model = st.bnc.lp(st.bnc.nb("Survived", data), data, smooth=1)
    >>> model.class_var, model.features
    ('Survived', ('Class', 'Sex', 'Age'))
    """

    def __init__(self, class_var: str, features: Sequence[str],
                 families: Mapping[str, Sequence[str]],
                 levels: Mapping[str, Sequence[str]] | None = None,
                 params: Mapping[str, np.ndarray] | None = None,
                 models: Sequence[BNCModel] | None = None,
                 learner: tuple[str, dict[str, Any]] | None = None,
                 lp_args: dict[str, Any] | None = None,
                 greedy_scores_log: Sequence[float] = ()) -> None:
        if not isinstance(class_var, str):
            raise TypeError(f"`class_var` must be a variable name (a string); got {class_var!r}.")
        self.class_var = class_var
        self.features = _sequence(features, "`features`", "variable names (strings)")
        if not isinstance(families, Mapping):
            raise TypeError(f"`families` must map each variable to its family; got "
                            f"{type(families).__name__}.")
        self.families = {v: _sequence(f, f"`families`[{v!r}]", "variable names (strings)")
                         for v, f in families.items()}
        _check_augmented_naive_bayes(self.class_var, self.features, self.families)
        self.levels = levels
        self.params = params
        if models is not None:
            expected = "BNCModel objects (an AODE's SPODEs), or None"
            models = list(_sequence(models, "`models`", expected))
            if not all(isinstance(m, BNCModel) for m in models):
                raise TypeError(f"`models` must be a sequence of {expected}; got {models!r}.")
        self.models = models
        # How to redo the structure (name, kwargs) and the parameters, for cv;
        # the model's own, as the caller may edit theirs.
        self.learner = copy.deepcopy(learner)
        self.lp_args = copy.deepcopy(lp_args)
        self.greedy_scores_log = list(_sequence(
            greedy_scores_log, "`greedy_scores_log`", "accuracies"))
        self.weights = None
        self.manb_arc_posterior = None

    @property
    def levels(self) -> dict[str, list[str]] | None:
        return self._levels

    @levels.setter
    def levels(self, levels: Mapping[str, Sequence[str]] | None) -> None:
        if levels is not None:
            levels = _checked_levels(levels, self.families)
        self._levels = levels
        if getattr(self, "_params", None) is not None:
            self.params = dict(self._params)  # checked against the new levels

    @property
    def params(self) -> Mapping[str, np.ndarray] | None:
        return self._params

    @params.setter
    def params(self, tables: Mapping[str, np.ndarray] | None) -> None:
        # read-only copies, so the log-tables cached for prediction stay right;
        # checked here, as the compiled prediction trusts their shapes
        if tables is None:
            self._params = None
        else:
            self._params = MappingProxyType(_checked_params(tables, self.families, self.levels))
        self.__dict__.pop("_compiled_cache", None)

    def __getstate__(self):
        # the prediction cache is derived state; a mapping proxy does not pickle
        state = {k: v for k, v in self.__dict__.items() if k != "_compiled_cache"}
        if state["_params"] is not None:
            state["_params"] = dict(state["_params"])
        return state

    def __setstate__(self, state):
        params = state.pop("_params")
        self.__dict__.update(state, _params=None)
        self.params = params  # checked, and read-only again

    @property
    def is_fitted(self) -> bool:
        """Whether the model has parameters (every SPODE's, for an AODE)."""
        if self.models is not None:
            return all(m.is_fitted for m in self.models)
        return self.params is not None

    @property
    def is_aode(self) -> bool:
        """Whether the model is an AODE (an average of one-dependence models)."""
        return self.models is not None

    @property
    def classes(self) -> list[str]:
        """The class levels (fitted models only)."""
        return list(self.levels[self.class_var])

    def copy_structure(self, **changes: Any) -> BNCModel:
        """A new model with the same structure and the given fields replaced."""
        fields = dict(
            class_var=self.class_var, features=self.features,
            families=self.families, levels=self.levels, params=self.params,
            learner=self.learner, lp_args=self.lp_args,
            greedy_scores_log=self.greedy_scores_log,
        )
        fields.update(changes)
        if "models" not in changes and self.models is not None:  # copies of their own
            fields["models"] = [m.copy_structure() for m in self.models]
        return BNCModel(**fields)

    def __repr__(self):
        kind = "AODE ensemble" if self.is_aode else "Bayesian network classifier"
        state = "fitted" if self.is_fitted else "structure only"
        arcs = "" if self.is_aode else f", {narcs(self)} arcs"
        return (
            f"<{kind} ({state}): class {self.class_var!r}, "
            f"{len(self.features)} features{arcs}>"
        )


def _sequence(value, name, of_what):
    """``value`` as a tuple; refuses a string (which iterates into characters)
    and anything not iterable."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of {of_what}; got {value!r}.")
    return tuple(value)


def _checked_levels(levels, families):
    """Each variable's levels, a list of distinct strings, for every family variable."""
    if not isinstance(levels, Mapping):
        raise TypeError(f"`levels` must map each variable to its levels; got {type(levels).__name__}.")
    missing = [v for v in families if v not in levels]
    if missing:
        raise ValueError(f"`levels` lacks the levels of {missing}.")
    out = {}
    for v in families:
        values = levels[v]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"`levels`[{v!r}] must be a list of level names; got {values!r}.")
        values = list(values)
        if not values or not all(isinstance(x, str) for x in values) or len(set(values)) != len(values):
            raise ValueError(f"`levels`[{v!r}] must be distinct level names (strings); got {values}.")
        out[v] = values
    return out


def _checked_params(tables, families, levels):
    """Read-only float copies of the CPTs, shaped by the families' levels and
    normalised over the child (axis 0)."""
    if not isinstance(tables, Mapping):
        raise TypeError(f"`params` must map each variable to its CPT; got {type(tables).__name__}.")
    if levels is None:
        raise ValueError("`params` need the model's `levels` (the CPTs' axes).")
    if set(tables) != set(families):
        raise ValueError(f"`params` must have one CPT per variable {sorted(families)}; "
                         f"got {sorted(map(str, tables))}.")
    out = {}
    for v in families:
        try:
            table = np.array(tables[v], dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"`params`[{v!r}] must be an array of numbers.") from None
        shape = tuple(len(levels[u]) for u in families[v])
        if table.shape != shape:
            raise ValueError(f"`params`[{v!r}] must have shape {shape} (the levels of "
                             f"{families[v]}); got {table.shape}.")
        if not is_distribution(table, axis=0):
            raise ValueError(f"`params`[{v!r}] must hold probabilities of {v!r} (finite, "
                             "non-negative, summing to 1 over its levels, axis 0).")
        table.flags.writeable = False
        out[v] = table
    return out


def _check_augmented_naive_bayes(class_var, features, families):
    """Refuse families that are not a classifier's DAG (R's ``bnc_dag`` checks):
    each feature's family is ``(feature, feature parents..., class)``, the
    class's is ``(class,)``, and the feature parents form no cycle."""
    if not all(isinstance(f, str) for f in features):
        raise TypeError(f"`features` must be variable names (strings); got {list(features)}.")
    if class_var in features or len(set(features)) != len(features):
        raise ValueError(
            f"`features` must be distinct variables other than the class {class_var!r}; "
            f"got {list(features)}."
        )
    if set(families) != {*features, class_var}:
        raise ValueError(
            f"`families` must have one family per feature and the class; got families of "
            f"{sorted(families)} for features {list(features)} and class {class_var!r}."
        )
    if families[class_var] != (class_var,):
        raise ValueError(f"`families`: the class {class_var!r} must have no parents; "
                         f"got {families[class_var]}.")
    known = set(features)
    for f in features:
        fam = families[f]
        parents = fam[1:-1]
        if (len(fam) < 2 or fam[0] != f or fam[-1] != class_var or f in parents
                or not set(parents) <= known or len(set(parents)) != len(parents)):
            raise ValueError(
                f"`families`: the family of {f!r} must be ({f!r}, distinct other features..., "
                f"{class_var!r}) (the class a parent of every feature); got {fam}."
            )
    # Kahn's algorithm over the feature arcs
    children = {f: [] for f in features}
    waiting = {f: len(families[f]) - 2 for f in features}
    for f in features:
        for parent in families[f][1:-1]:
            children[parent].append(f)
    ready = [f for f in features if waiting[f] == 0]
    placed = 0
    while ready:
        placed += 1
        for child in children[ready.pop()]:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    if placed != len(features):
        raise ValueError(
            "`families`: the feature parents form a cycle, through "
            f"{sorted(f for f in features if waiting[f] > 0)}."
        )


def _check_model(x, name="x", fitted=False):
    if not isinstance(x, BNCModel):
        raise TypeError(
            f"`{name}` must be a BNCModel (from nb, tan_cl, lp, ...); got "
            f"{type(x).__name__}."
        )
    if fitted and not x.is_fitted:
        raise ValueError(
            f"`{name}` has no parameters yet; fit them first with lp(x, dataset, smooth)."
        )
    return x


def _families(x, what):
    """The families of a single network; ``what`` names the caller in the error."""
    _check_model(x)
    _check_not_ensemble(x, what)
    return dict(x.families)


def _check_not_ensemble(x, what, name="x"):
    if x.is_aode:
        raise TypeError(
            f"{what} is not defined for an AODE ensemble; inspect its "
            f"one-dependence estimators in `{name}.models` instead."
        )


def families(x: BNCModel) -> dict[str, tuple[str, ...]]:
    """The family of each variable: ``(var, parents...)``, class family last.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, families
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> families(nb("c", d))
    {'x': ('x', 'c'), 'c': ('c',)}
    """
    return _families(x, "families()")


def features(x: BNCModel) -> list[str]:
    """The features of the model, in model order.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, features
    >>> features(nb("c", pd.DataFrame({"x": ["u"], "c": ["a"], "y": ["v"]})))
    ['x', 'y']
    """
    return list(_check_model(x).features)


def class_var(x: BNCModel) -> str:
    """The name of the class variable.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, class_var
    >>> class_var(nb("c", pd.DataFrame({"c": ["a"], "x": ["u"]})))
    'c'
    """
    return _check_model(x).class_var


def params(x: BNCModel) -> dict[str, np.ndarray]:
    """The CPTs of a fitted model, in families order (class last).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, params
    >>> d = pd.DataFrame({"c": ["a", "a", "b"], "x": ["u", "v", "v"]})
    >>> params(lp(nb("c", d), d, smooth=0))["c"]
    array([0.66666667, 0.33333333])
    """
    _check_model(x, fitted=True)
    _check_not_ensemble(x, "params()")
    return dict(x.params)


def narcs(x: BNCModel) -> int:
    """The number of arcs of the network.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, narcs
    >>> narcs(nb("c", pd.DataFrame({"c": ["a"], "x": ["u"], "y": ["v"]})))
    2
    """
    _check_model(x)
    _check_not_ensemble(x, "narcs()")
    return sum(len(f) - 1 for f in x.families.values())


def nparams(x: BNCModel) -> int:
    """Number of free parameters, ``sum_i (r_i - 1) * prod r_parents``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, nparams
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> nparams(lp(nb("c", d), d, smooth=1))  # (2-1) + (2-1)*2
    3
    """
    _check_model(x, fitted=True)
    # R stops too: an average of networks has no single parameter count
    _check_not_ensemble(x, "nparams()")
    return int(sum((t.shape[0] - 1) * int(np.prod(t.shape[1:])) for t in x.params.values()))


def _topological_order(fams):
    """Variables in an order where parents come first; ties by families order."""
    placed, order = set(), []
    pending = list(fams)
    while pending:
        ready = [v for v in pending if all(p in placed for p in fams[v][1:])]
        if not ready:
            raise ValueError("the families contain a directed cycle.")
        for v in ready:
            placed.add(v)
            order.append(v)
        pending = [v for v in pending if v not in placed]
    return order


def modelstring(x: BNCModel) -> str:
    """The network in bnlearn's model-string format, families separated by spaces.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, modelstring
    >>> modelstring(nb("c", pd.DataFrame({"c": ["a"], "x": ["u"]})))
    '[c] [x|c]'
    """
    _check_model(x)
    _check_not_ensemble(x, "modelstring()")
    parts = []
    for v in _topological_order(x.families):
        parents = x.families[v][1:]
        parts.append(f"[{v}|{':'.join(parents)}]" if parents else f"[{v}]")
    return " ".join(parts)


def as_parentslist(x: BNCModel) -> dict[str, list[str]]:
    """The parents of each variable, in a topological order (class first).

    This is the form a staged tree builder takes (``as_sevt``): keys are the
    variables in a valid order, values their parents (feature parents, then
    the class).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, as_parentslist
    >>> as_parentslist(nb("c", pd.DataFrame({"c": ["a"], "x": ["u"]})))
    {'c': [], 'x': ['c']}
    """
    _check_model(x)
    _check_not_ensemble(x, "as_parentslist()")
    return {v: list(x.families[v][1:]) for v in _topological_order(x.families)}


def feature_families(x: BNCModel) -> dict[str, tuple[str, ...]]:
    """The family of each feature, ``(feature, feature parents..., class)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, feature_families
    >>> feature_families(nb("c", pd.DataFrame({"c": ["a"], "x": ["u"], "y": ["v"]})))
    {'x': ('x', 'c'), 'y': ('y', 'c')}
    """
    fams = _families(x, "feature_families()")
    return {f: fams[f] for f in x.features}


def vars(x: BNCModel) -> list[str]:  # noqa: A001 (R's name)
    """All the variables, features in model order then the class (R: ``vars``).

    Named as in R, so ``from pystagedtrees.bnc import *`` hides Python's
    built-in ``vars``: prefer ``import pystagedtrees.bnc as bnc``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees import bnc
    >>> bnc.vars(bnc.nb("c", pd.DataFrame({"c": ["a"], "x": ["u"], "y": ["v"]})))
    ['x', 'y', 'c']
    """
    return list(_families(x, "vars()"))


def values(x: BNCModel) -> dict[str, list[str]]:
    """The levels of every variable of a fitted model, in :func:`vars` order.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, values
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> values(lp(nb("c", d), d, smooth=1))
    {'x': ['u', 'v'], 'c': ['a', 'b']}
    """
    _check_model(x, fitted=True)
    return {v: list(x.levels[v]) for v in _families(x, "values()")}


def classes(x: BNCModel) -> list[str]:
    """The levels of the class of a fitted model (also of an AODE ensemble).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, classes
    >>> d = pd.DataFrame({"c": ["b", "a"], "x": ["u", "v"]})
    >>> classes(lp(nb("c", d), d, smooth=1))
    ['a', 'b']
    """
    return _check_model(x, fitted=True).classes


def is_anb(x: Any) -> bool:
    """True if ``x`` is an augmented naive Bayes: a single network in which
    the class has no parents and is a parent of every feature.

    Like R, anything else (an AODE ensemble, another object) gives False.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, aode, is_anb
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"], "y": ["u", "v"]})
    >>> is_anb(nb("c", d)), is_anb(aode("c", d)), is_anb("nb")
    (True, False, False)
    """
    # the constructor admits augmented naive Bayes structures only
    return isinstance(x, BNCModel) and not x.is_aode


def _max_feature_parents(x):
    return max((len(x.families[f]) - 2 for f in x.features), default=0)


def is_nb(x: Any) -> bool:
    """True if ``x`` is a naive Bayes: an augmented naive Bayes whose
    features have no feature parents.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, tan_cl, is_nb
    >>> d = pd.DataFrame({"c": list("abab"), "x": list("uvvu"), "y": list("uvuu")})
    >>> is_nb(nb("c", d)), is_nb(tan_cl("c", d))
    (True, False)
    """
    return is_anb(x) and _max_feature_parents(x) == 0


def is_ode(x: Any) -> bool:
    """True if ``x`` is a one-dependence estimator: an augmented naive Bayes
    whose features have at most one feature parent (naive Bayes included).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, tan_cl, is_ode
    >>> d = pd.DataFrame({"c": list("abab"), "x": list("uvvu"), "y": list("uvuu")})
    >>> is_ode(nb("c", d)), is_ode(tan_cl("c", d))
    (True, True)
    """
    return is_anb(x) and _max_feature_parents(x) <= 1


def is_semi_naive(x: Any) -> bool:
    """True if ``x`` is a semi-naive Bayes: an augmented naive Bayes whose
    features, linked by their arcs, form groups ("supernodes") in which
    every two features are joined by an arc.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, tan_cl, is_semi_naive
    >>> d = pd.DataFrame({"c": list("abab"), "x": list("uvvu"), "y": list("uvuu"),
    ...                   "z": list("uuvv")})
    >>> is_semi_naive(nb("c", d)), is_semi_naive(tan_cl("c", d))  # a chain of 3
    (True, False)
    """
    if not is_anb(x):
        return False
    neighbours = {f: set() for f in x.features}
    for f in x.features:
        for p in x.families[f][1:-1]:
            neighbours[f].add(p)
            neighbours[p].add(f)
    seen = set()
    for start in x.features:
        if start in seen:
            continue
        group, stack = {start}, [start]
        while stack:
            for n in neighbours[stack.pop()] - group:
                group.add(n)
                stack.append(n)
        seen |= group
        if any(neighbours[f] != group - {f} for f in group):
            return False
    return True


def _per_feature(x, stored, what):
    """``stored`` in the model's feature order; as R, a warning and None when
    :func:`lp` did not compute it."""
    if stored is None:
        warnings.warn(f"{what} have not been computed for x.", stacklevel=3)
        return None
    return {f: stored[f] for f in x.features}


def awnb_weights(x: BNCModel) -> dict[str, float] | None:
    """The AWNB or WANBIA feature weights of ``x``, in feature order.

    Warns and returns None, as R does, when :func:`lp` computed none.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, awnb_weights
    >>> d = pd.DataFrame({"c": list("aabb"), "x": list("uuvv"), "y": list("uvuv")})
    >>> w = awnb_weights(lp(nb("c", d), d, smooth=1, awnb_trees=2, seed=0))
    >>> list(w)
    ['x', 'y']
    """
    _check_model(x)
    return _per_feature(x, x.weights, "AWNB weights")


def manb_arc_posterior(x: BNCModel) -> dict[str, float] | None:
    """MANB's posterior probability of each class-to-feature arc of ``x``.

    Warns and returns None, as R does, when :func:`lp` computed none.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, manb_arc_posterior
    >>> d = pd.DataFrame({"c": list("aabb"), "x": list("uuvv"), "y": list("uvuv")})
    >>> post = manb_arc_posterior(lp(nb("c", d), d, smooth=1, manb_prior=0.5))
    >>> post["x"] > post["y"]
    True
    """
    _check_model(x)
    return _per_feature(x, x.manb_arc_posterior, "MANB arc posterior probabilities")

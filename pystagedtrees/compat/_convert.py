"""Picking the converter of any object: models go to
:mod:`.stagedtrees` and :mod:`.bnclassify`, everything else to
:mod:`._values` (whose lists and dicts come back here for their items)."""
from pystagedtrees.bnc import BNCModel
from pystagedtrees.compat._session import ri
from pystagedtrees.compat._values import convert_with_options, r_classes, value_from_r, value_to_r
from pystagedtrees.compat.bnclassify import bnc_from_r, bnc_to_r
from pystagedtrees.compat.stagedtrees import sevt_from_r, sevt_to_r
from pystagedtrees.model import Sevt

__all__ = ["to_r", "from_r"]


def to_r(x, **options):
    """Convert a Python object to R.

    Parameters
    ----------
    x : object
        A :class:`~pystagedtrees.Sevt` (to an R ``sevt``), a
        :class:`~pystagedtrees.bnc.BNCModel` (to a bnclassify ``bnc_bn`` or
        ``bnc_dag``), a DataFrame (to a data.frame of factors), a Series of
        counts indexed by levels (to a ``table``), a categorical Series or
        ``pandas.Categorical`` (to a factor), a :class:`~pystagedtrees.LogLik`,
        a parents list (to a ``parentslist``), a numpy array, a scalar, None (``NULL``), a list or a dict (named list).
        rpy2 objects pass through unchanged.
    **options
        Passed to the converter of ``x`` (e.g. ``factors=False`` for a
        DataFrame, ``data_raw=False`` for a Sevt).

    Returns
    -------
    rpy2 object

    Raises
    ------
    TypeError
        An object of a type that is not converted.

    Examples
    --------
    >>> from pystagedtrees.compat import to_r
    >>> from pystagedtrees.compat import r_call
    >>> r_call("class", to_r({"a": 1, "b": ["x", "y"]}))
    'list'
    >>> r_call("typeof", to_r([1, 2, 3]))
    'integer'
    """
    if isinstance(x, Sevt):
        return convert_with_options(sevt_to_r, x, options)
    if isinstance(x, BNCModel):
        return convert_with_options(bnc_to_r, x, options)
    return value_to_r(x, convert_item=to_r, **options)


def from_r(x):
    """Convert an R object to Python.

    An R ``sevt`` becomes a :class:`~pystagedtrees.Sevt`; a bnclassify
    ``bnc_bn``/``bnc_dag`` a :class:`~pystagedtrees.bnc.BNCModel`; a
    data.frame a DataFrame; a factor a ``pandas.Categorical``; a ``table`` a
    Series of counts; a ``logLik`` a :class:`~pystagedtrees.LogLik`; a
    ``parentslist`` a :class:`~pystagedtrees.ParentsList`; a
    matrix with dimnames a DataFrame, without a numpy array; a named vector
    a Series; an unnamed vector of length one a scalar, longer a numpy
    array; a list a dict (when every element is named) or a list; NULL None.
    Other R objects (functions, environments) are returned unchanged.

    Raises
    ------
    TypeError
        ``x`` is not an rpy2 object.

    Examples
    --------
    >>> from pystagedtrees.compat import from_r
    >>> from pystagedtrees.compat import r_call
    >>> f = from_r(r_call("factor", ["b", "a", "b"], convert_result=False))
    >>> type(f).__name__, list(f), list(f.categories)
    ('Categorical', ['b', 'a', 'b'], ['a', 'b'])
    >>> from_r(r_call("list", x=1, y="u", convert_result=False))
    {'x': 1, 'y': 'u'}
    """
    if isinstance(x, ri.Sexp):
        classes = r_classes(x)
        if "bnc_aode" in classes:  # an average of networks: no single BNCModel to read it into
            raise TypeError("`x` is a bnclassify AODE ensemble, which from_r does not convert; "
                            "compare its predictions (R's predict) instead.")
        if "sevt" in classes:
            return sevt_from_r(x)
        if "bnc_dag" in classes:
            return bnc_from_r(x)
    return value_from_r(x, convert_item=from_r)

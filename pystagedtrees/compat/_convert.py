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
    """The implementation of :func:`pystagedtrees.compat.to_r`.

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
    """The implementation of :func:`pystagedtrees.compat.from_r`.

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

"""Calling R functions on Python arguments: :func:`r_call` and :func:`set_seed`."""
import math

from pystagedtrees.compat._convert import from_r, to_r
from pystagedtrees.compat._session import RRuntimeError, has_package, helpers, r_context, ri
from pystagedtrees.compat._values import named_list

R_PACKAGES = ("stagedtrees", "bnclassify")

__all__ = ["r_call", "set_seed", "r_name"]


def r_name(keyword):
    """R's name of a Python keyword argument: a trailing ``_`` is dropped (``lambda_``)."""
    return keyword[:-1] if keyword.endswith("_") and len(keyword) > 1 else keyword


def r_call(name, *args, convert_result=True, time_limit=None, **kwargs):
    """The implementation of :func:`pystagedtrees.compat.r_call`.

    Examples
    --------
    >>> from pystagedtrees.compat._call import r_call
    >>> import numpy as np
    >>> r_call("sum", np.array([1.5, 2.5]))
    4.0
    >>> r_call("base::paste", "a", "b", sep_="")  # `sep_` is R's `sep`
    'ab'
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"`name` must be the name of an R function; got {name!r}.")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValueError(f"`time_limit` must be a positive number of seconds; got {time_limit!r}.")
    values = [to_r(a) for a in args] + [to_r(v) for v in kwargs.values()]
    names = [""] * len(args) + [r_name(k) for k in kwargs]
    with r_context():
        try:
            function = helpers("get_function")(name)
            arguments = named_list(dict(zip(range(len(values)), values)))
            arguments = helpers("named_vector")(arguments, ri.StrSexpVector(names))
            seconds = ri.FloatSexpVector([math.inf if time_limit is None else float(time_limit)])
            result = helpers("time_limited")(function, arguments, seconds)
        except RRuntimeError as exc:  # R's message alone does not say which call
            message = " ".join(str(exc).split())
            if "not found" in message and not any(has_package(p) for p in R_PACKAGES):
                message += (" (neither stagedtrees nor bnclassify is installed in R: in R run "
                            'install.packages(c("stagedtrees", "bnclassify")))')
            raise RRuntimeError(f"in R's {name}(): {message}") from exc
    return from_r(result) if convert_result else result


def set_seed(seed):
    """R's ``set.seed(seed)`` (R's default generators).

    Examples
    --------
    >>> from pystagedtrees.compat._call import r_call, set_seed
    >>> set_seed(42)
    >>> round(r_call("runif", 1), 12)
    0.914806043496
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"`seed` must be an integer; got {seed!r}.")
    with r_context():
        ri.baseenv["set.seed"](ri.IntSexpVector([seed]))

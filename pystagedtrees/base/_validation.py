"""Argument checks shared by the public functions.

Wrong types raise ``TypeError`` and values out of range ``ValueError``; every
message names the argument and what it must be.  Whole floats pass as
integers, as R's numbers do (``n = 100`` is a double in R).
"""
import functools
import inspect
import math
import numbers
import os
import sys
from collections.abc import Iterable

import numpy as np
import pandas as pd

__all__ = [
    "check_choice", "check_flag", "check_fraction", "check_ignore", "check_int", "check_label",
    "check_labels", "check_levels", "check_names", "check_number",
    "check_score_value", "check_smoothing", "check_trace",
]


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def scalar_of_0d(value):
    """The element of a 0-d numpy array (which iterates into an error); anything else as is."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    return value


def check_flag(value, name):
    """A switch that must be ``True`` or ``False`` (numpy booleans too), as a bool."""
    if not _is_bool(value):
        raise TypeError(f"`{name}` must be True or False; got {value!r}.")
    return bool(value)


def check_int(value, name, minimum=0, allow_none=False):
    """A whole number ``>= minimum`` as an int (``None`` passes through if allowed)."""
    if value is None and allow_none:
        return None
    expected = f"an integer >= {minimum}" + (" or None" if allow_none else "")
    if _is_bool(value) or not isinstance(value, numbers.Real) or not float(value).is_integer():
        raise TypeError(f"`{name}` must be {expected}; got {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be {expected}; got {value!r}.")
    return int(value)


def check_number(value, name, positive=False, allow_none=False):
    """A finite number ``>= 0`` (``> 0`` if ``positive``) as a float.

    ``None`` passes through if allowed.
    """
    if value is None and allow_none:
        return None
    expected = ("a positive" if positive else "a non-negative") + " number"
    expected += " or None" if allow_none else ""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be {expected}; got {value!r}.")
    try:
        as_float = float(value)
    except OverflowError:  # an integer past the largest float
        raise ValueError(f"`{name}` must be {expected} of float size; got {value!r}.") from None
    if not math.isfinite(as_float) or as_float < 0 or (positive and as_float == 0):
        raise ValueError(f"`{name}` must be {expected}; got {value!r}.")
    return as_float


def check_score_value(value, name):
    """What a user's score function returned, as a float.

    Anything but a real number is refused, and so is NaN, on which R's
    comparisons stop ("missing value where TRUE/FALSE needed").
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must return a number; it returned {value!r}.")
    value = float(value)
    if np.isnan(value):
        raise ValueError(f"`{name}` returned NaN; it must return a number to compare models by.")
    return value


# Additive smoothing beyond this overflows the sums of smoothed counts (a
# variable has far fewer than 1e8 levels), which would turn every
# probability into 0 or NaN without a word.
MAX_SMOOTHING = 1e300


# probabilities must sum to 1 up to this (R's examples write them with 8
# decimals); anything else is weights that inference would not normalise
PROB_SUM_TOL = 1e-6


def is_distribution(values, axis=0):
    """Whether ``values`` are finite, non-negative and sum to 1 along ``axis``."""
    values = np.asarray(values, dtype=float)
    return bool(np.isfinite(values).all() and (values >= 0).all()
                and (np.abs(values.sum(axis=axis) - 1) <= PROB_SUM_TOL).all())


def as_numbers(value, what):
    """``value`` as a float array (0-d for one number); ``what`` names it in the error.

    Text is refused though numpy would parse "3" as 3.0, and None though
    numpy would make it NaN: R's arithmetic would not.
    """
    if value is not None and not isinstance(value, (str, bytes)):
        try:
            return np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{what} must be numbers; got {value!r}.")


def check_smoothing(value, name, allow_none=False):
    """Additive smoothing (R's ``lambda``/``smooth``): a number in [0, 1e300], as a float."""
    value = check_number(value, name, allow_none=allow_none)
    if value is not None and value > MAX_SMOOTHING:
        raise ValueError(
            f"`{name}` must be at most {MAX_SMOOTHING:g}: larger smoothing overflows the "
            f"sums of counts; got {value!r}."
        )
    return value


def check_fraction(value, name):
    """A number in [0, 1] (a confidence level), as a float."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a number in [0, 1]; got {value!r}.")
    if not 0 <= value <= 1:  # NaN too
        raise ValueError(f"`{name}` must be a number in [0, 1]; got {value!r}.")
    return float(value)


def check_trace(trace):
    """R's ``trace`` verbosity: a non-negative integer (``True``/``False`` mean 1/0)."""
    if _is_bool(trace):
        return int(trace)
    return check_int(trace, "trace")


def _label_string(value):
    """A stage label as its string (an integer reads as R's ``1`` does: "1"), or None."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not _is_bool(value):
        return str(value)
    return None


def check_label(value, name):
    """One stage label: a string, or an integer read as its string."""
    label = _label_string(value)
    if label is None:
        raise TypeError(f"`{name}` must be a stage label (str); got {value!r}.")
    return label


def check_labels(value, name):
    """Stage labels: one label (str) or a list of them, as a list of strings.

    Integers pass as their strings, as R's ``%in%`` matches 1 to "1" (and
    as :func:`~pystagedtrees.join_stages` reads them).
    """
    expected = "a stage label or a list of stage labels (str)"
    value = scalar_of_0d(value)
    single = _label_string(value)
    if single is not None:
        return [single]  # R's length-one vector
    if not isinstance(value, Iterable) or isinstance(value, (dict, pd.DataFrame)):
        raise TypeError(f"`{name}` must be {expected}; got {value!r}.")
    labels = list(value)
    strings = [_label_string(label) for label in labels]
    for label, string in zip(labels, strings):
        if string is None:
            raise TypeError(f"`{name}` must be {expected}; it holds {label!r}.")
    return strings


def check_ignore(ignore, default):
    """Stage labels to leave alone, as a list of strings.

    ``None`` means ``default`` (a model's unobserved stage names), ``False``
    none (R's ``ignore = FALSE``, which its ``%in%`` matches to no stage).
    The list keeps repetitions: R's new stage names count ``length(ignore)``.
    """
    if ignore is None:
        return list(default or [])
    if ignore is False:
        return []
    return list(check_labels(ignore, "ignore"))


def check_names(value, name):
    """Variable names: one string or a list of strings (R's character vector), as a list."""
    value = scalar_of_0d(value)
    if isinstance(value, str):
        return [value]
    expected = "a variable name or a list of variable names (str)"
    if isinstance(value, (dict, set, pd.DataFrame)):
        raise TypeError(f"`{name}` must be {expected}; got a {type(value).__name__}.")
    if not isinstance(value, Iterable):
        raise TypeError(f"`{name}` must be {expected}; got {value!r}.")
    names = list(value)
    for item in names:
        if not isinstance(item, str):
            raise TypeError(f"`{name}` must be {expected}; it holds {item!r}.")
    return names


def check_levels(levels, var, name):
    """One variable's levels from a dict of levels, as distinct strings."""
    if isinstance(levels, str):
        levels = [levels]  # R's length-one character vector
    if not isinstance(levels, Iterable):
        raise TypeError(
            f"`{name}` must map each variable to a list of its levels; {var!r} maps to {levels!r}."
        )
    levels = [str(level) for level in levels]
    if not levels or len(set(levels)) < len(levels):
        raise ValueError(
            f"`{name}` must give each variable distinct levels, at least one; {var!r} has {levels}."
        )
    return levels


def check_choice(value, name, choices):
    """``value`` if it is one of ``choices`` (strings, or None)."""
    if not any(value is c or (isinstance(value, str) and value == c) for c in choices):
        raise ValueError(f"`{name}` must be one of {list(choices)}; got {value!r}.")
    return value


@functools.cache
def _physical_memory():
    """Bytes of memory of this machine, or None where the system does not say
    (asked once: every greedy step checks its tables against it)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_fits_in_memory(needed, what, advice):
    """Refuse work whose arrays (``needed`` bytes) exceed half the machine's memory.

    Numpy would fail on allocation, or the system kill the process when the
    pages are touched; ``what`` says what needs them, ``advice`` what to do.
    """
    memory = _physical_memory()
    if memory is not None and needed > memory // 2:
        raise ValueError(
            f"{what} ({needed / 2**30:.1f} GiB, more than half of this machine's "
            f"memory): {advice}."
        )


def _available_memory():
    """Bytes the system could give now (Linux's MemAvailable: free memory
    plus caches it can drop), or None where the system does not say."""
    try:  # one read of the raw bytes (its third line): a third of a text file's cost
        handle = os.open("/proc/meminfo", os.O_RDONLY)
        try:
            text = os.read(handle, 4096)
        finally:
            os.close(handle)
        at = text.find(b"MemAvailable:")
        if at >= 0:
            return int(text[at + 13:text.index(b"\n", at)].split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def memory_budget():
    """Bytes one step of work may allocate: half the machine's memory, and no
    more than is available now; None where the system tells neither."""
    physical, available = _physical_memory(), _available_memory()
    known = [m for m in (None if physical is None else physical // 2, available) if m is not None]
    return min(known) if known else None


def _gib(nbytes):
    return f"{nbytes / 2**30:,.2f} GiB" if nbytes >= 2**26 else f"{nbytes:,} bytes"


def check_steps_fit(steps, advice):
    """Refuse, before the first step runs, work of which some step cannot fit in memory.

    ``steps`` yields ``(what, bytes)``, one per step (for a learner: one per
    variable in scope, the bytes of the tables it allocates for it), and is
    read whole before any step starts, so that a refusal costs only the
    estimates.  The message names the first step over the budget of
    :func:`memory_budget`, with both figures; ``advice`` says what to do.
    """
    budget = memory_budget()
    if budget is None:
        return
    for what, needed in steps:
        if needed > budget:
            raise ValueError(
                f"{what} would need {_gib(needed)}, more than the {_gib(budget)} this machine "
                f"can give (half its memory at most, and what is available now): {advice}."
            )


def check_call_fits(func, what, *args, **kwargs):
    """Raise a TypeError beginning with ``what`` unless ``func(*args, **kwargs)``
    binds to ``func``'s parameters: checked before any work, so that a wrong
    option names the argument that carried it (functions without a readable
    signature pass; their call will tell)."""
    try:
        inspect.signature(func).bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{what}: {error}.") from None
    except ValueError:
        pass


def user_stacklevel():
    """The ``stacklevel`` of ``warnings.warn``, called by the caller of this
    function, that points at the first frame outside this package (the
    user's call, however deep the package's own calls go)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pystagedtrees."):
        frame, level = frame.f_back, level + 1
    return level

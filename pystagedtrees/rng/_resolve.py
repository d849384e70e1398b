"""From the user's ``seed`` / ``rng`` / ``random_state`` to a random source (the
package docstring states the rule).  The only place that tells generators apart."""
import numbers
import warnings
from typing import Any

import numpy as np

from pystagedtrees.rng._numpy import NumpySource
from pystagedtrees.rng._rounding import RRoundingRandom
from pystagedtrees.rng._rrandom import RRandom, check_r_seed
from pystagedtrees.rng._source import RandomSource

__all__ = ["RNG_KINDS", "Rng", "Seed", "check_seed", "continues_a_stream", "resolve_source"]

#: The generators ``rng`` names: numpy's, R's (``set.seed``) and R's under ``RNGversion("3.5.0")``.
RNG_KINDS = ("numpy", "R", "R-rounding")

#: What a seed may be (see :func:`check_seed`).
Seed = int | np.random.Generator | np.random.RandomState | None
#: What ``rng`` may be: a name in RNG_KINDS, a source in use, or a numpy Generator in use.
Rng = str | RandomSource | np.random.Generator | None

# how each convention words a numpy seed (the estimators' is scikit-learn's)
_NUMPY_SEEDS = {
    "seed": "an integer >= 0, None or a numpy Generator",
    "random_state": "None, an integer seed >= 0 or a numpy Generator",
}


def check_seed(seed: Any, rng: str = "numpy", name: str = "seed") -> None:
    """Raise a TypeError/ValueError naming ``name`` unless ``seed`` seeds the ``rng`` kind.

    numpy: None, an integer >= 0 or a numpy Generator (continued); R's
    kinds: an integer for ``set.seed`` (None is checked by the caller, which
    may need no seed).  A legacy ``RandomState`` (scikit-learn's) seeds any
    kind: a seed is drawn from it.  Nothing is drawn here.
    """
    if isinstance(seed, np.random.RandomState):
        return
    if rng != "numpy":
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
                raise TypeError(f"`{name}` must be an integer with rng={rng!r} (the value of "
                                f"R's set.seed); got {seed!r}.")
            check_r_seed(seed, name)
        return
    if seed is None or isinstance(seed, np.random.Generator):
        return
    expected = _NUMPY_SEEDS.get(name, _NUMPY_SEEDS["seed"])
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"`{name}` must be {expected}; got {seed!r}.")
    if seed < 0:
        raise ValueError(f"`{name}` must be {expected} (negative seeds are R's, with "
                         f"rng='R'); got {seed!r}.")


def continues_a_stream(seed: Seed = None, rng: Rng = "numpy") -> bool:
    """Whether ``seed`` or ``rng`` hand over a generator already in use (whose
    stream continues) rather than say how to start one."""
    return isinstance(rng, (RandomSource, np.random.Generator)) or \
        isinstance(seed, np.random.Generator)


def resolve_source(seed: Seed = None, rng: Rng = "numpy", *, random_state: Any = None,
                   seed_name: str = "seed", optional: bool = False, seed_needed: bool = True,
                   kinds: tuple[str, ...] = RNG_KINDS) -> RandomSource | None:
    """The random source for ``seed`` and ``rng``.

    Parameters
    ----------
    seed
        The seed (see :func:`check_seed`); None with a source in use.
    rng
        A name in ``kinds``, a :class:`RandomSource` in use (its stream
        continues: nested calls share it as successive calls in one R
        session), or a numpy Generator in use.  None is "numpy" (always
        accepted), unless ``optional``.
    random_state
        The deprecated alias of ``seed`` in :mod:`pystagedtrees.bnc`
        (FutureWarning): a seed, or a source in use, which acts as ``rng``.
    seed_name
        The name of ``seed`` in messages ("random_state" in the estimators).
    optional
        ``rng=None`` draws nothing: None is returned (and a seed refused).
    seed_needed
        False where the caller may draw nothing: R's seed may then be
        missing, and None is returned for it.
    kinds
        The names ``rng`` may take; with none, only a source or Generator
        object (or None) is accepted, and anything else is a TypeError.

    Returns
    -------
    RandomSource or None
    """
    if random_state is not None:
        warnings.warn("`random_state` is deprecated in pystagedtrees.bnc: pass the seed as "
                      "`seed` (a source in use as `rng`); it behaves the same.",
                      FutureWarning, stacklevel=3)
        if seed is not None:
            raise ValueError(f"give `seed` only (`random_state` is its deprecated alias); got "
                             f"seed={seed!r} and random_state={random_state!r}.")
        if isinstance(random_state, RandomSource):
            rng = random_state
        else:
            seed, seed_name = random_state, "random_state"
    if isinstance(rng, np.random.Generator):
        rng = NumpySource(rng)
    if isinstance(rng, RandomSource):
        if seed is not None:
            raise ValueError(f"give either `{seed_name}` or a random source in use as `rng`, "
                             f"not both; got {seed_name}={seed!r} and rng={rng!r}.")
        return rng
    if rng is None and optional:
        if seed is not None:
            raise ValueError(f"`{seed_name}` needs `rng` (one of {list(kinds)}): with rng=None "
                             f"nothing is drawn; got {seed_name}={seed!r}.")
        return None
    if rng is not None and not (isinstance(rng, str) and rng in kinds):
        if not kinds:
            raise TypeError("`rng` must be None, a numpy Generator or a random source in use "
                            f"(e.g. RRandom); got {type(rng).__name__}.")
        raise ValueError(f"`rng` must be one of {list(kinds)}, a numpy Generator or a random "
                         f"source in use (e.g. RRandom); got {rng!r}.")
    rng = "numpy" if rng is None else rng
    check_seed(seed, rng, seed_name)
    if isinstance(seed, np.random.RandomState):  # scikit-learn's legacy generator
        seed = int(seed.randint(np.iinfo(np.int32).max))
    if rng == "numpy":
        return NumpySource(seed if isinstance(seed, np.random.Generator)
                           else np.random.default_rng(seed))
    if seed is None:
        if not seed_needed:
            return None
        raise TypeError(f"`{seed_name}` is needed with rng={rng!r}: `{seed_name}` must be an "
                        "integer, the value of R's set.seed.")
    return RRandom(seed) if rng == "R" else RRoundingRandom(seed)

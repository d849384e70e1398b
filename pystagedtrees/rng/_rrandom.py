"""R's default random number generator, reproduced draw for draw.

:class:`RRandom` behaves like an R session after ``set.seed(seed)`` with
R >= 3.6 defaults (``RNGkind("Mersenne-Twister", "Inversion",
"Rejection")``): the same uniforms, the same ``sample``/``sample.int``
results (including the tie order of R's probability sampling and Walker's
alias method), ``rexp`` and ``rnorm``.  The stream lives in a 625-word
state updated by Cython kernels, so bulk draws run at C speed.

Indices returned by :meth:`RRandom.sample_int` and :meth:`RRandom.unif_index`
are 0-based: ``sample_int(n, k)`` equals R's ``sample.int(n, k) - 1``.
:class:`RRandom` is the R backend of :class:`~pystagedtrees.rng.RandomSource`.
"""
import functools
import numbers
import threading
from typing import Any

import numpy as np

from pystagedtrees.kernels import _rrandom as _kernels
from pystagedtrees.rng._source import RandomSource

__all__ = ["RRandom", "check_r_seed"]

_N_WORDS = 624
# sample.int switches to hashed rejection above this population size.
_HASH_MIN_POPULATION = 1e7
# Walker's alias method is used once more than this many categories have n*p > 0.1.
_WALKER_MIN_CATEGORIES = 200
# R_unif_index handles populations up to 2^52 (R's limit is 4.5e15).
_MAX_POPULATION = 4.5e15


def _seed_steps():
    """``a_j`` and ``c_j`` with step ``50 + j + 1`` of R's seed scrambling
    ``s <- 69069 s + 1 (mod 2^32)`` equal to ``a_j s_0 + c_j (mod 2^32)``,
    for the 625 steps whose values set.seed keeps."""
    a, c, steps = 1, 0, []
    for step in range(1, 51 + _N_WORDS + 1):
        a, c = (69069 * a) & 0xFFFFFFFF, (69069 * c + 1) & 0xFFFFFFFF
        if step > 50:
            steps.append((a, c))
    return tuple(np.array(column, dtype=np.uint64) for column in zip(*steps))


_SEED_MULTIPLIERS, _SEED_INCREMENTS = _seed_steps()


@functools.lru_cache(maxsize=64)
def _seeded_words(seed):
    """The 625 words of R's state after ``set.seed(seed)`` (read-only): kept
    for the last seeds, which a learner's every call replays."""
    s = np.uint64(seed & 0xFFFFFFFF)
    # all 625 steps at once (no term reaches 2^64)
    words = ((_SEED_MULTIPLIERS * s + _SEED_INCREMENTS) & 0xFFFFFFFF).astype(np.uint32)
    words[0] = _N_WORDS
    words.flags.writeable = False
    return words


def _as_count(value, name, minimum=0):
    """``value`` as a Python int >= ``minimum``, or a TypeError/ValueError naming ``name``."""
    if type(value) is int and value >= minimum:  # the common case, without the ABC checks
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be an integer; got {type(value).__name__}.")
    if not float(value).is_integer():
        raise TypeError(f"`{name}` must be a whole number; got {value!r}.")
    value = int(value)
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}; got {value}.")
    return value


def _as_finite(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a real number; got {type(value).__name__}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"`{name}` must be finite; got {value}.")
    return value


def check_r_seed(seed: int, name: str = "seed") -> int:
    """``seed`` as R's ``set.seed`` takes it: a 32-bit signed integer."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer; got {type(seed).__name__}.")
    seed = int(seed)
    if not -(2**31) < seed < 2**31:
        raise ValueError(
            f"`{name}` must be a 32-bit signed integer (as R's set.seed); got {seed}."
        )
    return seed


def _serialised(method):
    """Run ``method`` holding the generator's lock: the kernels update the
    state without the GIL, so two threads drawing at once would corrupt it."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return locked


class RRandom(RandomSource):
    """R's random number generator, as after ``set.seed(seed)``.

    Threads may share one (a lock serialises its draws, as numpy's
    generators do), but which thread gets which draws then depends on
    timing: to replay R, give each thread its own.

    Parameters
    ----------
    seed : int
        The argument of R's ``set.seed`` (a 32-bit signed integer).

    Examples
    --------
    >>> from pystagedtrees.rng._rrandom import RRandom
    >>> rng = RRandom(42)            # set.seed(42)
    >>> rng.runif(2).round(6)        # runif(2)
    array([0.914806, 0.937075])
    >>> RRandom(42).sample_int(10, 3) + 1    # set.seed(42); sample.int(10, 3)
    array([ 1,  5, 10])
    >>> RRandom(42).sample(["a", "b", "c"], 5, replace=True, prob=[0.2, 0.5, 0.3])
    ['a', 'a', 'b', 'a', 'c']
    """

    # .Random.seed[1] for Mersenne-Twister + Inversion + Rejection
    _kind_code = 10403
    _kind_name = "Mersenne-Twister, Inversion, Rejection"

    def __init__(self, seed: int) -> None:
        self._lock = threading.RLock()
        self._state = np.empty(_N_WORDS + 1, dtype=np.uint32)
        self.set_seed(seed)

    def __getstate__(self):  # a lock neither pickles nor copies
        return {"_state": self._state}

    def __setstate__(self, state):
        self._lock = threading.RLock()
        # its own array: a shallow copy sharing it would escape the lock
        self._state = np.array(state["_state"], dtype=np.uint32)

    # ------------------------------------------------------------------ state
    @_serialised
    def set_seed(self, seed: int) -> None:
        """Re-seed in place, exactly as R's ``set.seed(seed)``.

        R scrambles the seed with 50 steps of the congruential generator
        ``s <- 69069 s + 1 (mod 2^32)`` and then takes the next 625 values;
        the first of them is replaced by the block position 624 and the other
        624 become the Mersenne-Twister words.
        """
        self._state[:] = _seeded_words(check_r_seed(seed))

    @_serialised
    def get_state(self) -> np.ndarray:
        """The state as R's ``.Random.seed`` (626 int32: kind code, position, 624 words)."""
        return np.concatenate(
            [np.array([self._kind_code], dtype=np.int32), self._state.view(np.int32)]
        )

    @_serialised
    def set_state(self, state: Any) -> None:
        """Restore a state from :meth:`get_state` or from R's ``.Random.seed``.

        As R does when it reads ``.Random.seed``, a position <= 0 means 624
        (start a new block).
        """
        arr = np.asarray(state)
        if arr.shape != (_N_WORDS + 2,):
            raise ValueError(
                f"`state` must have {_N_WORDS + 2} entries like R's .Random.seed; "
                f"got shape {arr.shape}."
            )
        if not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"`state` must hold integers; got dtype {arr.dtype}.")
        if arr[0] != self._kind_code:
            raise ValueError(
                f"`state[0]` must be {self._kind_code} ({self._kind_name}); got {arr[0]}."
            )
        if np.any(arr < -(2**31)) or np.any(arr >= 2**31):
            raise ValueError("`state` entries must be 32-bit signed integers.")
        position = int(arr[1])
        if position > _N_WORDS:
            raise ValueError(f"`state[1]` (block position) must be <= {_N_WORDS}; got {position}.")
        words = arr[2:].astype(np.int64).astype(np.int32).view(np.uint32)
        if not words.any():
            raise ValueError("`state` words are all zero: not a valid Mersenne-Twister state.")
        self._state[0] = _N_WORDS if position <= 0 else position
        self._state[1:] = words

    # --------------------------------------------------------------- uniforms
    def _uniforms(self, n):
        """The next ``n`` of R's ``unif_rand()`` (callers hold the lock)."""
        out = np.empty(n)
        _kernels.fill_uniform(self._state, out)
        return out

    @_serialised
    def unif_rand(self) -> float:
        """One uniform draw in (0, 1), R's ``unif_rand()``."""
        return float(self._uniforms(1)[0])

    @_serialised
    def runif(self, n: int, a: float = 0.0, b: float = 1.0) -> np.ndarray:
        """``n`` uniforms on (a, b), as R's ``runif(n, a, b)``.

        When ``a == b`` R returns ``a`` without drawing; so does this.
        """
        n = _as_count(n, "n")
        a, b = _as_finite(a, "a"), _as_finite(b, "b")
        if b < a:
            raise ValueError(f"`b` must be >= `a`; got a={a}, b={b}.")
        if a == b:
            return np.full(n, a)
        return a + (b - a) * self._uniforms(n)

    @_serialised
    def peek_uniforms(self, n: int) -> np.ndarray:
        """The next ``n`` uniforms, without consuming them (see :meth:`advance`)."""
        out = np.empty(_as_count(n, "n"))
        _kernels.fill_uniform(self._state.copy(), out)
        return out

    @_serialised
    def advance(self, n_used: int) -> None:
        """Consume ``n_used`` uniforms, as the kernel that read them did."""
        self._uniforms(_as_count(n_used, "n_used"))

    @_serialised
    def unif_index(self, n: int) -> int:
        """A uniform index in 0 .. n-1 by R's rejection sampling (``R_unif_index``).

        Consumes at least one uniform even when ``n == 1``, as R does.
        """
        n = _as_count(n, "n", minimum=1)
        if n > _MAX_POPULATION:
            raise ValueError(f"`n` must be <= 4.5e15 (R's limit); got {n}.")
        return self._draw_index(n)

    # R's index draws; RRoundingRandom replaces these three (callers hold the lock)
    def _draw_index(self, n):
        return int(_kernels.unif_index(self._state, float(n)))

    def _fill_indices(self, n, out):
        _kernels.fill_unif_index(self._state, float(n), out)

    def _fill_partial_shuffle(self, n, out):
        _kernels.fill_without_replacement(self._state, np.arange(n, dtype=np.int64), out)

    # --------------------------------------------------------------- sampling
    @_serialised
    def sample_int(self, n: int, size: int | None = None, replace: bool = False,
                   prob: Any = None) -> np.ndarray:
        """0-based indices equal to R's ``sample.int(n, size, replace, prob) - 1``.

        Parameters
        ----------
        n : int
            Population size.
        size : int, optional
            Number of draws; ``n`` when omitted (as in R).
        replace : bool
            Sample with replacement.
        prob : array-like of float, optional
            Non-negative weights of the ``n`` items (normalised here, as R does).

        Returns
        -------
        numpy.ndarray of int64
        """
        n = _as_count(n, "n")
        if n > _MAX_POPULATION:
            raise ValueError(f"`n` must be <= 4.5e15 (R's limit); got {n}.")
        size = n if size is None else _as_count(size, "size")
        replace = bool(replace)
        if size > 0 and n == 0:
            raise ValueError("`n` must be positive to draw a non-empty sample.")
        if not replace and size > n:
            raise ValueError(
                f"cannot take a sample larger than the population when replace=False "
                f"(size={size}, n={n})."
            )
        out = np.empty(size, dtype=np.int64)
        if prob is not None:
            p = self._normalised_prob(prob, n, size, replace)
            if replace:
                if np.count_nonzero(n * p > 0.1) > _WALKER_MIN_CATEGORIES:
                    _kernels.fill_walker(self._state, p, out)
                else:
                    _kernels.fill_prob_replace(self._state, p, np.arange(n, dtype=np.int64), out)
            else:
                _kernels.fill_prob_without_replacement(
                    self._state, p, np.arange(n, dtype=np.int64), out
                )
        elif replace or size < 2:
            self._fill_indices(n, out)
        elif n > _HASH_MIN_POPULATION and size <= n / 2:
            self._fill_hashed(n, out)
        else:
            self._fill_partial_shuffle(n, out)
        return out

    def permutation(self, n: int, size: int | None = None) -> np.ndarray:
        """R's ``sample.int(n, size) - 1``: R's sampling is a partial shuffle."""
        return self.sample_int(n, size)

    @staticmethod
    def _normalised_prob(prob, n, size, replace):
        """Weights divided by their (sequentially accumulated) total, checked as R does."""
        try:
            p = np.array(prob, dtype=np.float64).ravel()
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`prob` must be numeric: {exc}") from None
        if p.shape[0] != n:
            raise ValueError(f"`prob` must have n = {n} entries; got {p.shape[0]}.")
        if not np.all(np.isfinite(p)):
            raise ValueError("`prob` contains NA, NaN or infinite values.")
        if np.any(p < 0):
            raise ValueError("`prob` contains negative probabilities.")
        n_positive = np.count_nonzero(p > 0)
        if n_positive == 0 or (not replace and size > n_positive):
            raise ValueError(
                f"too few positive probabilities in `prob` ({n_positive}) for "
                f"size={size} with replace={replace}."
            )
        # R adds the weights one by one in double precision; cumsum does the same.
        return p / np.cumsum(p)[-1]

    def _fill_hashed(self, n, out):
        """R's ``sample2``: redraw an index until it has not been drawn before."""
        seen = set()
        for i in range(out.shape[0]):
            j = self._draw_index(n)
            while j in seen:
                j = self._draw_index(n)
            seen.add(j)
            out[i] = j

    @_serialised
    def sample(self, x: Any, size: int | None = None, replace: bool = False,
               prob: Any = None) -> Any:
        """Elements of ``x`` as R's ``sample(x, size, replace, prob)``.

        As in R, a single number ``x >= 1`` stands for the sequence
        ``1 .. x`` (so ``sample(5, 1)`` draws from 1..5), which is a frequent
        source of surprises when ``x`` happens to have length one.

        Returns
        -------
        numpy.ndarray if ``x`` is a number or an array, ``x.take(...)`` for
        pandas objects, otherwise a list.
        """
        if isinstance(x, str):
            raise TypeError("`x` must be a sequence or a number, not a string.")
        if isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)):
            if np.isfinite(x) and x >= 1:
                population = _as_count(x, "x")
                return self.sample_int(population, size, replace, prob) + 1
            x = [x]
        try:
            n = len(x)
        except TypeError:
            raise TypeError(
                f"`x` must be a sequence or a number; got {type(x).__name__}."
            ) from None
        idx = self.sample_int(n, size, replace, prob)
        if isinstance(x, np.ndarray):
            return x[idx]
        if hasattr(x, "take") and hasattr(x, "iloc"):
            return x.take(idx)
        return [x[i] for i in idx]

    # ------------------------------------------------------- other variates
    @_serialised
    def rexp(self, n: int, rate: float = 1.0) -> np.ndarray:
        """``n`` exponential draws, R's ``rexp(n, rate)`` (Ahrens-Dieter exp_rand)."""
        n = _as_count(n, "n")
        rate = _as_finite(rate, "rate")
        if rate <= 0:
            raise ValueError(f"`rate` must be positive; got {rate}.")
        out = np.empty(n)
        _kernels.fill_exp(self._state, out)
        # R multiplies by the scale 1/rate rather than dividing by the rate.
        return (1.0 / rate) * out

    @_serialised
    def rnorm(self, n: int, mean: float = 0.0, sd: float = 1.0) -> np.ndarray:
        """``n`` normal draws, R's ``rnorm(n, mean, sd)`` with the default inversion method.

        Each value uses two uniforms; ``sd == 0`` returns ``mean`` without drawing, as R.
        """
        n = _as_count(n, "n")
        mean, sd = _as_finite(mean, "mean"), _as_finite(sd, "sd")
        if sd < 0:
            raise ValueError(f"`sd` must be >= 0; got {sd}.")
        if sd == 0:
            return np.full(n, mean)
        out = np.empty(n)
        _kernels.fill_norm(self._state, out)
        return mean + sd * out

    # ------------------------------------------------ the rest of the protocol
    def order_for_inversion(self, prob: np.ndarray, order: np.ndarray, rows: np.ndarray) -> None:
        """Sort each of ``rows`` decreasingly, as R's ``sample(prob=)`` does (``revsort``)."""
        for row in rows:
            _kernels.revsort(prob[row], order[row])

    @property
    def generator(self) -> "RRandom":
        """This generator itself (what a user's ``rfun(k, rng)`` receives)."""
        return self

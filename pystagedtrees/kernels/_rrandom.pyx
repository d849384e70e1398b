"""Kernels of :mod:`pystagedtrees.rng._rrandom`: R's default random stream.

``state`` is a ``uint32`` array of length 625 laid out as R's
``.Random.seed`` without its kind code: ``state[0]`` is the position of the
next word in the current Mersenne-Twister block (624 = block exhausted) and
``state[1:]`` are the 624 words of the generator.  Every function advances
``state`` in place exactly as R would.  The Python layer validates all
arguments (sizes, probabilities, index ranges) before calling in.
"""
import numpy as np

from libc.math cimport ceil, floor, log, log2, sqrt
from libc.stdint cimport uint32_t, uint64_t

from pystagedtrees.kernels._types cimport float64_t, index_t

cdef enum:
    N_WORDS = 624   # words in a Mersenne-Twister block
    SHIFT = 397     # MT19937's middle-word offset

# 2^-32: a tempered 32-bit word times this is R's raw uniform.
cdef double TWO_POW_M32 = 2.3283064365386963e-10
# R never returns 0 or 1: it substitutes half of 1/(2^32 - 1) at the ends.
cdef double HALF_STEP = 0.5 * 2.328306437080797e-10
# norm_rand's inversion glues two uniforms into one with 27 extra bits.
cdef double INVERSION_BIG = 134217728.0


cdef inline uint32_t _mix(uint32_t upper, uint32_t lower, uint32_t far) noexcept nogil:
    cdef uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu)
    return far ^ (y >> 1) ^ (0x9908b0dfu if (y & 1u) else 0u)


cdef void _twist(uint32_t* mt) noexcept nogil:
    """Regenerate the 624-word block in place (Matsumoto & Nishimura 1998).

    Word k mixes words k, k+1 and k+397 (indices modulo 624, already
    regenerated words included); the loops are split to avoid the modulo.
    """
    cdef int k
    for k in range(N_WORDS - SHIFT):
        mt[k] = _mix(mt[k], mt[k + 1], mt[k + SHIFT])
    for k in range(N_WORDS - SHIFT, N_WORDS - 1):
        mt[k] = _mix(mt[k], mt[k + 1], mt[k + SHIFT - N_WORDS])
    mt[N_WORDS - 1] = _mix(mt[N_WORDS - 1], mt[0], mt[SHIFT - 1])


cdef inline uint32_t _next_word(uint32_t* state) noexcept nogil:
    """The next tempered 32-bit word of the stream."""
    cdef uint32_t y
    if state[0] >= N_WORDS:
        _twist(state + 1)
        state[0] = 0
    y = state[1 + state[0]]
    state[0] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680u
    y ^= (y << 15) & 0xefc60000u
    y ^= y >> 18
    return y


cdef inline double _unif(uint32_t* state) noexcept nogil:
    """R's unif_rand(): next tempered word scaled into the open interval (0, 1)."""
    cdef double u = _next_word(state) * TWO_POW_M32
    if u <= 0.0:
        return HALF_STEP
    if 1.0 - u <= 0.0:
        return 1.0 - HALF_STEP
    return u


cdef inline int _index_bits(double n) noexcept nogil:
    """The random bits R_unif_index draws for a population of ``n``: ceil(log2 n)."""
    return <int>ceil(log2(n)) if n > 0.0 else 0


cdef inline index_t _unif_index_bits(uint32_t* state, double n, int bits) noexcept nogil:
    """R's R_unif_index (sample.kind = "Rejection"): uniform in 0 .. n-1,
    given ``bits`` = :func:`_index_bits` (n).

    Draws ``bits`` random bits, 16 at a time from successive uniforms
    (always at least one uniform, even for n = 1), and retries until the
    value falls below n.  R's floor(unif_rand() * 65536) is the tempered
    word's upper half: the word times 2^-32 is exact, and the substitutes
    for 0 (HALF_STEP) floor to 0 too.
    """
    cdef int taken
    cdef uint64_t v, mask
    if n <= 0.0:
        return 0
    mask = (<uint64_t>1 << bits) - 1
    while True:
        v = 0
        taken = 0
        while taken <= bits:
            v = 65536u * v + (_next_word(state) >> 16)
            taken += 16
        v &= mask
        if <double>v < n:
            return <index_t>v


cdef inline index_t _unif_index(uint32_t* state, double n) noexcept nogil:
    return _unif_index_bits(state, n, _index_bits(n))


def fill_uniform(uint32_t[::1] state, float64_t[::1] out):
    """Fill ``out`` with successive unif_rand() values."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = _unif(&state[0])


def unif_index(uint32_t[::1] state, double n):
    """One R_unif_index(n) draw, 0-based."""
    return _unif_index(&state[0], n)


def fill_unif_index(uint32_t[::1] state, double n, index_t[::1] out):
    """Fill ``out`` with successive R_unif_index(n) draws (sampling with replacement)."""
    cdef Py_ssize_t i
    cdef int bits = _index_bits(n)
    with nogil:
        for i in range(out.shape[0]):
            out[i] = _unif_index_bits(&state[0], n, bits)


def fill_without_replacement(uint32_t[::1] state, index_t[::1] pool, index_t[::1] out):
    """Partial Fisher-Yates as R's sample.int without prob.

    ``pool`` must hold 0 .. n-1 on entry; each draw takes a uniform position
    among the remaining entries and fills the hole with the last remaining one.
    """
    cdef Py_ssize_t i
    cdef index_t remaining = pool.shape[0], j
    # ceil(log2 remaining), updated as it falls past a power of two: exact
    # integer bit counts, as R's log2 gives them far beyond any pool in memory
    cdef int bits = _index_bits(<double>remaining)
    with nogil:
        for i in range(out.shape[0]):
            if bits > 0 and remaining <= (<index_t>1 << (bits - 1)):
                bits -= 1
            j = _unif_index_bits(&state[0], <double>remaining, bits)
            out[i] = pool[j]
            remaining -= 1
            pool[j] = pool[remaining]


def revsort(float64_t[::1] a, index_t[::1] perm):
    """Sort ``a`` into decreasing order in place, permuting ``perm`` alongside.

    This is the heapsort R uses before probability sampling (a min-heap built
    bottom-up, then the minimum is swapped to the end).  It is not stable;
    reproducing its exact tie order is the point.
    """
    cdef Py_ssize_t n = a.shape[0]
    cdef Py_ssize_t build, last, hole, child
    cdef double moving
    cdef index_t moving_label
    if n <= 1:
        return
    with nogil:
        # 1-based heap positions: node h lives at a[h - 1].
        build = n // 2 + 1
        last = n
        while True:
            if build > 1:
                build -= 1
                moving = a[build - 1]
                moving_label = perm[build - 1]
            else:
                moving = a[last - 1]
                moving_label = perm[last - 1]
                a[last - 1] = a[0]
                perm[last - 1] = perm[0]
                last -= 1
                if last == 1:
                    a[0] = moving
                    perm[0] = moving_label
                    break
            hole = build
            child = 2 * build
            while child <= last:
                if child < last and a[child - 1] > a[child]:
                    child += 1
                if moving > a[child - 1]:
                    a[hole - 1] = a[child - 1]
                    perm[hole - 1] = perm[child - 1]
                    hole = child
                    child = 2 * child
                else:
                    break
            a[hole - 1] = moving
            perm[hole - 1] = moving_label


def fill_prob_replace(uint32_t[::1] state, float64_t[::1] p, index_t[::1] perm, index_t[::1] out):
    """Inversion sampling with replacement, as R's ProbSampleReplace.

    ``p`` (normalised) and ``perm`` (0 .. n-1) are overwritten: they are
    sorted decreasingly, turned into cumulative sums, and each draw takes
    the first category whose cumulative mass reaches the uniform (the last
    category catches rounding leftovers).
    """
    cdef Py_ssize_t n = p.shape[0], i, j
    cdef double u
    revsort(p, perm)
    with nogil:
        for i in range(1, n):
            p[i] += p[i - 1]
        for i in range(out.shape[0]):
            u = _unif(&state[0])
            j = 0
            while j < n - 1 and u > p[j]:
                j += 1
            out[i] = perm[j]


def fill_walker(uint32_t[::1] state, float64_t[::1] p, index_t[::1] out):
    """Walker's alias method with R's table construction (used for many categories).

    Categories are scaled to mass n·p.  The table is built over one list
    holding the light categories (mass < 1) in increasing order followed by
    the heavy ones in decreasing order; each light category in list order
    borrows from the current first heavy one, which turns light (and joins
    the light ones to be processed) once its remaining mass drops below 1.
    A draw picks a column k uniformly (R_unif_index) and keeps k when
    k + U falls below the column's cut-off k + mass, else takes its alias.
    ``p`` is overwritten with the cut-offs.
    """
    cdef Py_ssize_t n = p.shape[0], i, k, first_heavy, n_light = 0
    cdef index_t giver, taker
    cdef double position
    cdef index_t[::1] order = np.empty(n, dtype=np.int64)
    cdef index_t[::1] alias = np.empty(n, dtype=np.int64)
    with nogil:
        for i in range(n):
            p[i] *= n
            if p[i] < 1.0:
                n_light += 1
        first_heavy = n_light
        k = 0
        for i in range(n):
            alias[i] = i
            if p[i] < 1.0:
                order[k] = i
                k += 1
            else:
                order[n - 1 - (i - k)] = i
        if 0 < n_light < n:
            for k in range(n - 1):
                taker = order[k]
                giver = order[first_heavy]
                alias[taker] = giver
                p[giver] += p[taker] - 1.0
                if p[giver] < 1.0:
                    first_heavy += 1
                if first_heavy >= n:
                    break
        for i in range(n):
            p[i] += i
        for i in range(out.shape[0]):
            # column by rejection-sampled index, then a uniform within it
            k = <Py_ssize_t>_unif_index(&state[0], <double>n)
            position = k + _unif(&state[0])
            out[i] = k if position < p[k] else alias[k]


def fill_prob_without_replacement(uint32_t[::1] state, float64_t[::1] p, index_t[::1] perm,
                                  index_t[::1] out):
    """Sequential weighted sampling without replacement, as R's ProbSampleNoReplace.

    After the decreasing sort, each draw scales a uniform by the mass still
    in play, walks the running mass to find the category, removes it and
    closes the gap.  ``p`` and ``perm`` are overwritten.
    """
    cdef Py_ssize_t remaining = p.shape[0], i, j, m
    cdef double total = 1.0, target, running
    revsort(p, perm)
    with nogil:
        for i in range(out.shape[0]):
            target = total * _unif(&state[0])
            running = 0.0
            j = 0
            while j < remaining - 1:
                running += p[j]
                if target <= running:
                    break
                j += 1
            out[i] = perm[j]
            total -= p[j]
            for m in range(j, remaining - 1):
                p[m] = p[m + 1]
                perm[m] = perm[m + 1]
            remaining -= 1


# q[k] = sum_{i=1..k+1} ln(2)^i / i!, the table of Ahrens & Dieter's algorithm
# SA.  These are R's 16-digit literals (nmath), a few of which differ in the
# last digit from the correctly rounded sums; R's exact stream needs R's table.
cdef double EXP_Q[16]
EXP_Q[:] = [
    0.6931471805599453, 0.9333736875190459, 0.9888777961838675, 0.9984959252914960,
    0.9998292811061389, 0.9999833164100727, 0.9999985691438767, 0.9999998906925558,
    0.9999999924734159, 0.9999999995283275, 0.9999999999728814, 0.9999999999985598,
    0.9999999999999289, 0.9999999999999968, 0.9999999999999999, 1.0000000000000000,
]


cdef double _exp_rand(uint32_t* state) noexcept nogil:
    """Standard exponential by Ahrens & Dieter (1972), algorithm SA, as R's exp_rand."""
    cdef double a = 0.0, u, ustar, umin
    cdef int i
    u = _unif(state)
    while True:
        u += u
        if u > 1.0:
            break
        a += EXP_Q[0]
    u -= 1.0
    if u <= EXP_Q[0]:
        return a + u
    i = 0
    umin = _unif(state)
    while True:
        ustar = _unif(state)
        if umin > ustar:
            umin = ustar
        i += 1
        if u <= EXP_Q[i]:
            break
    return a + umin * EXP_Q[0]


def fill_exp(uint32_t[::1] state, float64_t[::1] out):
    """Fill ``out`` with successive exp_rand() values."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = _exp_rand(&state[0])


cpdef double qnorm(double p) noexcept nogil:
    """Standard normal quantile for 0 < p < 1: Wichura (1988), AS 241 PPND16.

    Upper-tail complements are formed as (0.5 - p) + 0.5, as R does.
    """
    cdef double q = p - 0.5, r, val
    if -0.425 <= q <= 0.425:
        r = 0.180625 - q * q
        return q * (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r
                         + 67265.770927008700853) * r + 45921.953931549871457) * r
                       + 13731.693765509461125) * r + 1971.5909503065514427) * r
                     + 133.14166789178437745) * r + 3.387132872796366608) / (
            ((((((r * 5226.495278852854561 + 28729.085735721942674) * r
                 + 39307.89580009271061) * r + 21213.794301586595867) * r
               + 5394.1960214247511077) * r + 687.1870074920579083) * r
             + 42.313330701600911252) * r + 1.0)
    r = p if q < 0 else (0.5 - p) + 0.5
    r = sqrt(-log(r))
    if r <= 5.0:
        r -= 1.6
        val = (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r
                    + 0.24178072517745061177) * r + 1.27045825245236838258) * r
                  + 3.64784832476320460504) * r + 5.7694972214606914055) * r
                + 4.6303378461565452959) * r + 1.42343711074968357734) / (
            ((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r
                 + 0.0151986665636164571966) * r + 0.14810397642748007459) * r
               + 0.68976733498510000455) * r + 1.6763848301838038494) * r
             + 2.05319162663775882187) * r + 1.0)
    else:
        r -= 5.0
        val = (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r
                    + 0.0012426609473880784386) * r + 0.026532189526576123093) * r
                  + 0.29656057182850489123) * r + 1.7848265399172913358) * r
                + 5.4637849111641143699) * r + 6.6579046435011037772) / (
            ((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r
                 + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r
               + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
             + 0.59983220655588793769) * r + 1.0)
    return -val if q < 0 else val


def fill_norm(uint32_t[::1] state, float64_t[::1] out):
    """Fill ``out`` with R's norm_rand() by inversion (two uniforms per value)."""
    cdef Py_ssize_t i
    cdef double u
    with nogil:
        for i in range(out.shape[0]):
            u = _unif(&state[0])
            u = <int>(INVERSION_BIG * u) + _unif(&state[0])
            out[i] = qnorm(u / INVERSION_BIG)


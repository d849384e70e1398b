"""Slow, literal replays of R's arithmetic, the twins' building blocks.

Written from R's definitions (``sum()`` adds in long double, in order, and
rounds once; stagedtrees' ``join_stages_unsafe``, ``probdist.*`` and scores),
one value at a time, with no shared code with the kernels.
"""
import math

import numpy as np


def r_sum(values):
    """R's ``sum()``: sequential long-double accumulation, rounded once."""
    acc = np.longdouble(0)
    for value in values:
        acc = acc + np.longdouble(float(value))
    return float(acc)


def r_score(ll, df, penalty):
    """-BIC (or -AIC for penalty 2): ``-(-2 ll + penalty df)``."""
    return -(-2.0 * ll + penalty * df)


@np.errstate(all="ignore")
def r_join(p1, n1, p2, n2, lam):
    """R's ``join_stages_unsafe`` on two probability vectors: ``(new_p, dll, gain)``."""
    k = len(p1)
    n1 = 1.0 if math.isnan(n1) else n1
    n2 = 1.0 if math.isnan(n2) else n2
    ct1 = [(0.0 if math.isnan(p) else p) * (n1 + lam * k) - lam for p in p1]
    ct2 = [(0.0 if math.isnan(p) else p) * (n2 + lam * k) - lam for p in p2]
    dll = (r_sum([c * math.log(p) for c, p in zip(ct2, p2) if c > 0])
           + r_sum([c * math.log(p) for c, p in zip(ct1, p1) if c > 0]))
    joined = [b + a + lam for a, b in zip(ct1, ct2)]
    total = r_sum(joined)
    new_p = [x / total for x in joined]
    both = [a + b for a, b in zip(ct1, ct2)]
    gain = r_sum([c * math.log(p) for c, p in zip(both, new_p) if c > 0])
    return np.array(new_p), dll, gain


def _drop_double_zeros(x, y):
    kept = [(a, b) for a, b in zip(x, y) if not (a == 0 and b == 0)]
    return [a for a, _ in kept], [b for _, b in kept]


def _log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _div(a, b):
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


@np.errstate(all="ignore")
def r_probdist(name, x, y):
    """R stagedtrees' ``probdist.*(x, y)`` (R/probdist.R)."""
    if name in ("manhattan", "totvar"):
        return r_sum([abs(a - b) for a, b in zip(x, y)])
    if name == "euclidean":
        return math.sqrt(r_sum([abs(a - b) * abs(a - b) for a, b in zip(x, y)]))
    if name == "hellinger":
        return r_sum([(math.sqrt(a) - math.sqrt(b)) * (math.sqrt(a) - math.sqrt(b))
                      for a, b in zip(x, y)])
    if name == "bhatt":
        return -_log(r_sum([math.sqrt(a * b) for a, b in zip(x, y)]))
    x, y = _drop_double_zeros(x, y)
    if name == "reny":
        return _log(r_sum([_div(a * a, b) for a, b in zip(x, y)])) + \
            _log(r_sum([_div(b * b, a) for a, b in zip(x, y)]))
    if name == "kullback":
        return r_sum([a * (_log(a) - _log(b)) for a, b in zip(x, y)]) + \
            r_sum([b * (_log(b) - _log(a)) for a, b in zip(x, y)])
    if name == "chandarw":
        ratios = [_div(a, b) for a, b in zip(x, y)]
        if any(math.isnan(r) for r in ratios):
            return math.nan
        return _log(max(ratios)) - _log(min(ratios))
    raise ValueError(name)


def r_count_term(p, count):
    """One cell of R's log-likelihood: ``log(p) * n`` where ``p > 0``; NaN with a count is -inf."""
    if math.isnan(p):
        return -math.inf if count > 0 else 0.0
    return math.log(p) * count if p > 0 else 0.0


def r_variable_loglik(counts, prob):
    """R's log-likelihood of one variable: its table's cells summed column by column."""
    m, k = counts.shape
    return r_sum([r_count_term(prob[r, a], counts[r, a]) for a in range(k) for r in range(m)])

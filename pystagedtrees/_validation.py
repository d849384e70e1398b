"""Argument checks shared by the public functions."""
import numbers

import numpy as np

__all__ = ["check_lambda"]


def check_lambda(lambda_, name="lambda_", allow_none=False):
    """A non-negative finite smoothing pseudocount, as a float."""
    if lambda_ is None and allow_none:
        return None
    if isinstance(lambda_, bool) or not isinstance(lambda_, numbers.Real):
        raise TypeError(f"`{name}` must be a non-negative number; got {lambda_!r}.")
    if not np.isfinite(lambda_) or lambda_ < 0:
        raise ValueError(f"`{name}` must be a non-negative number; got {lambda_!r}.")
    return float(lambda_)

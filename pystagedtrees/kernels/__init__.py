"""The compiled kernels (Cython): typed, ``nogil`` loops over numpy arrays.

Nothing here is public.  The Python parts above validate their input and
call these with arrays of the dtypes below, C-contiguous (2-d arrays
row-major); see ``ARCHITECTURE.md``.  The kernels declare the same types in
``_types.pxd``, R's summation in ``_rsum.pxd``, R's stage arithmetic in
``_rstage.pxd`` and their buffer sizes in ``_limits.pxd``.
"""
import numpy as np

#: The numpy dtype of each ctypedef of ``_types.pxd``.
DTYPES = {
    "code_t": np.dtype(np.int32),  # level codes, -1 for a missing value
    "small_code_t": np.dtype(np.int8),  # level codes of at most 127 levels
    "stage_t": np.dtype(np.int32),  # stage ids of one variable
    "index_t": np.dtype(np.int64),  # indices, situation ids, ranks
    "float64_t": np.dtype(np.float64),  # counts, weights, probabilities, scores
    "flag_t": np.dtype(np.uint8),  # flags
}

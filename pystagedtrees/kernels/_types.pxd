# The kernels' shared types.  Each ctypedef names the numpy dtype the Python
# callers hand over (listed in kernels/__init__.py, DTYPES); array arguments
# are C-contiguous, 2-d arrays row-major (a row's values are adjacent).
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t

# level codes of a variable, -1 for a missing value: numpy.int32
ctypedef int32_t code_t
# level codes of variables of at most 127 levels, -1 for a missing value: numpy.int8
ctypedef int8_t small_code_t
# stage ids of one variable (dense, 0..m-1): numpy.int32
ctypedef int32_t stage_t
# indices, situation ids, ranks and positions: numpy.int64
ctypedef int64_t index_t
# counts, weights, probabilities and scores: numpy.float64
ctypedef double float64_t
# flags (active, changed, drawable): numpy.uint8
ctypedef uint8_t flag_t

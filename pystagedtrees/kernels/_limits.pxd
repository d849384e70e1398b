# Compile-time sizes of the kernels' stack buffers (constants instead of the
# deprecated DEF).
cdef enum:
    # most levels a variable may have: per-level buffers live on the stack
    MAX_LEVELS = 256
    # stages_bj: the closest unchanged partners a stage keeps listed
    NEAREST_LISTED = 16
    # stages_hc: room for the moves of one iteration that tie up to rounding;
    # beyond it the first of them is made
    HC_RIVALS = 64

"""The compiled kernels (Cython): typed, ``nogil`` loops over numpy arrays.

Nothing here is public.  The Python parts above validate their input and
call these with arrays of the documented dtypes; see ``ARCHITECTURE.md``.
"""

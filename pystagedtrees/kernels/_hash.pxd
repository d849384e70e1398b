# Hashing shared by the kernels that group equal values in hash tables.
from libc.stdint cimport uint64_t


cdef inline uint64_t mix64(uint64_t h) noexcept nogil:
    # splitmix64's finaliser: every input bit moves every output bit
    h ^= h >> 30
    h *= <uint64_t>0xbf58476d1ce4e5b9
    h ^= h >> 27
    h *= <uint64_t>0x94d049bb133111eb
    h ^= h >> 31
    return h

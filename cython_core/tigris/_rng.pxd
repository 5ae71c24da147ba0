# The project's random numbers: splitmix64, shared by the game core, its samplers and the
# search (which draws its own streams with it whatever the game).  Inline, so that a loop
# drawing one per candidate pays no call.

from libc.stdint cimport uint64_t


# splitmix64 (Steele, Lea & Flood 2014): the next number of the stream whose state is x.
cdef inline uint64_t splitmix(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

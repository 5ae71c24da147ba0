# The Python Game class as other compiled modules see it: its C state is theirs to read
# (the search copies it), never to change.

from tigris._core cimport State, Aux

cdef class Game:
    cdef State s
    cdef Aux aux
    cdef public object seed
    cdef list _log          # one entry per apply: (action, player, forced follow-ups, draws)
    cdef list _deal         # draws made before the first decision

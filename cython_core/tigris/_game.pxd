# The Python Game class as other compiled modules see it: its C state is theirs to read
# (the search copies it), never to change.

from tigris._core cimport State, Aux

cdef class Game:
    cdef State s
    cdef Aux aux
    cdef public object seed
    cdef list _log          # one entry per apply: (action, player, forced follow-ups, draws)
    cdef list _deal         # draws made before the first decision
    cdef bint _complete     # deal + log replay the game from its setup (see history_complete)
    cdef object _unknown    # (hands, swapped colours, bag) a position left unknown

    cdef bint _legal(self, int a)
    cdef _refuse(self, int a)                   # raises IllegalActionError with the reason
    cdef _apply(self, int a)                    # a legal action id: apply it and log it
    cdef _apply_drawing(self, int a, draws)     # the same with the draws given (a record)

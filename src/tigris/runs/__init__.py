"""The runs built on tournaments, matches and tuning: bots' games with labelled positions
(``selfplay``, its policy targets: ``targets``), the network's training (``train``,
PyTorch: the train extra), expert iteration's loop (``learn``, its report:
``generations``) and the benchmarks (``bench``, ``suite``, ``tunebench``).  The games
they play go through ``tigris.play``; ``runner``, ``schedule``, ``results``, ``seeds`` and
``luck`` here are its modules under their former, deprecated names."""

__all__: list[str] = []       # its modules are imported by name: tigris.runs.selfplay, ...

"""Games between bots, as every run plays them: the seed rules of the runs (``seeds``),
one game as a worker plays it (``runner``), game K's deal and seats (``schedule``), a
results folder read back, held to its schedule and tallied (``results``), and the luck of
a game's draws (``luck``).  The runs above (tournaments, matches, tuning, analyses,
self-play, the benchmarks) import it; it imports none of them."""

__all__: list[str] = []       # its modules are imported by name: tigris.play.runner, ...

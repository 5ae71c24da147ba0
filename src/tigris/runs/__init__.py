"""The machinery of the runs (tournaments, matches, tuning, self-play, benchmarks): one
game between bots and the deal seeds and seatings (``runner``), game K's deal and seats
(``schedule``), a results folder read back and tallied (``results``), bots' games with
labelled positions (``selfplay``), the network's training (``train``, PyTorch: the train
extra) and the benchmarks (``bench``)."""

__all__: list[str] = []       # its modules are imported by name: tigris.play.runner, ...

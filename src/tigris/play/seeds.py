"""The seed rules of every run, each stated once: the deal a run plays, the seed of each
bot, of each search a run makes (an analysis's decisions, self-play's labels, a suite's
reference searches, a Bayes tuning's trials), and the deals of the benchmarks' own seed
ranges.  Each rule keeps apart what must not meet (two seeds of a run, two runs of
neighbouring base seeds) and gives every game the seed it has always had.

>>> from tigris.play.seeds import bot_seed, deal_seed
>>> deal_seed(5, 0), bot_seed(5, 3, 1)
(5000015, 353783)

This module is imported by every worker: it imports nothing.
"""

__all__ = ["DEALS_PER_SEED", "SEED_BITS", "CALIBRATION_SEEDS", "SUITE_SEEDS", "SEED_STRIDE",
           "deal_seed", "bot_seed", "decision_seed", "label_seed", "reference_seed", "trial_seed",
           "calibration_seed", "suite_seed", "stage_seed"]

DEALS_PER_SEED = 1_000_003    # deals of one base seed before they would meet the next seed's
SEED_BITS = 62                # a search's or a bot's seed: below 2**62
_GAME, _SEAT_GAME, _DECISION = 7_919, 104_729, 15_485_863     # primes: strides of the rules
_REFERENCE = 12_345_678       # a suite's reference searches: apart from an analysis's
#: The first deal seeds of ``bench calibration`` and of the position suite.  Tournaments
#: deal seed * DEALS_PER_SEED + deal (the fits of calibration.json saw seeds 22 to 34, so
#: deals of 22 to 35 million) and midgame_positions seeds below 2**31: games from these on
#: are games no fit saw, and no calibration's a suite's.
CALIBRATION_SEEDS = 7_000_000_000
SUITE_SEEDS = 8_000_000_000
SEED_STRIDE = 1_000_000       # a benchmark's deal seeds per --seed: 100,000 per player count


def deal_seed(seed, deal):
    """The seed of deal number `deal` of a run with base `seed`."""
    return seed * DEALS_PER_SEED + deal


def bot_seed(run_seed, game, seat, decision=0):
    """The seed of the bot in `seat` of game number `game` of a run with base seed
    `run_seed` (a lone game is game 0): the one seed rule of bots' games, so every bot of
    a run draws its own random numbers.  A bot made again for each decision (a table's,
    in a worker) takes the number of moves played as `decision`."""
    return (run_seed * _GAME + game * _SEAT_GAME + seat + decision * _DECISION) % (1 << SEED_BITS)


def decision_seed(seed, move):
    """The search seed of the decision before move number `move` of an analysis with base
    `seed`: every decision draws its own random numbers, whoever searches it."""
    return (seed * DEALS_PER_SEED + move * _GAME) % (1 << SEED_BITS)


def label_seed(seed, game, move):
    """The seed of self-play's label search of move `move` of game number `game` of a run
    with base `seed`."""
    return (seed * DEALS_PER_SEED + game * _GAME + move) % (1 << SEED_BITS)


def reference_seed(seed, index, k):
    """The seed of reference search `k` (from 0) of the position numbered `index` of a
    suite of base `seed`: every search draws its own random numbers, and none a hint's."""
    return (seed * DEALS_PER_SEED + index * _GAME + k * _SEAT_GAME + _REFERENCE) % (1 << SEED_BITS)


def trial_seed(seed, trial):
    """The seed of the sampler that proposes trial number `trial` of a Bayes tuning with
    base `seed` (optuna takes 32 bits)."""
    return (seed * DEALS_PER_SEED + trial) % 2**32


def _layout(first, seed, players, game):
    """Game `game` with `players` players of base `seed` in a benchmark's seed range from
    `first`: a range of SEED_STRIDE per base seed, a tenth of it per player count."""
    return first + seed * SEED_STRIDE + players * (SEED_STRIDE // 10) + game


def calibration_seed(seed, players, game):
    """The deal seed of game number `game` with `players` players of a calibration run
    with base `seed` (the caller holds `game` below a tenth of SEED_STRIDE)."""
    return _layout(CALIBRATION_SEEDS, seed, players, game)


def suite_seed(seed, players, game):
    """The deal of game number `game` with `players` players of a suite of base `seed`
    (the caller holds `game` below a tenth of SEED_STRIDE)."""
    return _layout(SUITE_SEEDS, seed, players, game)


def stage_seed(seed, generation, stage, generations, stages):
    """The seed of stage number `stage` (of `stages`) of generation `generation` (of at
    most `generations`) of a learning loop of base `seed`: apart for every stage and
    generation (their deals never meet)."""
    return (seed * generations + generation) * stages + stage

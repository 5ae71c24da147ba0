"""Head-to-head matches decided by a sequential probability ratio test.

Paired games (each deal played in both seatings) between a candidate A and a reference B
go on until the SPRT accepts H1 (A is `elo1` stronger than B) or H0 (A is `elo0`
stronger), as engine-testing frameworks do, or until `max_games`.  The test's outcome is
a deal's mean score (for a pair of games, fishtest's pentanomial model), so that what a
deal gives one seat is not counted as noise.

>>> from tigris.match import sprt_match
>>> r = sprt_match("greedy", "random", elo0=0, elo1=200, max_games=40, jobs=1,
...                progress=False)
>>> r["decision"], r["llr"] >= r["bounds"][1]
('H1', True)
"""

import contextlib
import json
import math
import os
from pathlib import Path

from tigris import bots as botlib
from tigris import tournament
from tigris._plumbing import jsonl, locks
from tigris._plumbing import work
from tigris.errors import ConfigError, Interrupted, TournamentError, UsageError, excerpt
from tigris.files import open_append
from tigris.play.runner import (GameSpec, Task, bot_settings, deal_games, deal_seed, failed_game,
                                first_of_two, game_name, game_tasks)

__all__ = ["KEYS", "sprt_match", "parse_sprt", "check_sprt", "play_sprt", "format_result", "verdict"]

KEYS = ("elo0", "elo1", "alpha", "beta")
MAX_ELO = 2000           # an Elo difference beyond this is a sure win: nothing to test


def parse_sprt(words):
    """``["elo0=0", "elo1=20"]`` -> {"elo0": 0.0, "elo1": 20.0}; errors name the word."""
    params = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or key not in KEYS:
            raise UsageError(f"--sprt: {word!r} is not KEY=VALUE with KEY in {', '.join(KEYS)}")
        try:
            params[key] = float(value)
        except ValueError:
            params[key] = math.nan
        if not math.isfinite(params[key]) or (key.startswith("elo") and abs(params[key]) > MAX_ELO):
            raise UsageError(f"--sprt: {key} must be a number"
                                  f"{f' from -{MAX_ELO} to {MAX_ELO}' if key.startswith('elo') else ''}, "
                                  f"not {value[:40]!r}")
    return params


def sprt_match(a, b, elo0=0.0, elo1=20.0, alpha=0.05, beta=0.05, max_games=2000, jobs=None,
               seed=0, out=None, players=2, field=(), progress=True, resume=False, backend="loky",
               scheduler=None, desc=None):
    """Play paired games of A against B until the SPRT decides; returns a dict with the
    counts, the LLR, its bounds and the decision ("H1", "H0" or None at max_games).

    With 3 or 4 `players`, A and B sit in each line-up with the ``players - 2`` bots of
    `field` (other bots than A and B), each deal is played in every seating, and a game
    counts by first places (a game a field bot wins is a draw between A and B).

    With `out`, the folder is a results folder (``tigris standings``, ``tigris view``): a
    match is the tournament of A, B and the field with `max_games` games, whose
    tournament.json is written first; the games go to games.jsonl as they end, and the
    summary at the end.  A folder that already holds games is refused, unless `resume`:
    then the match saved there goes on (it must be this one: the same bots with the same
    knobs, players, `max_games` and `seed`), its games counted first in the order of the
    schedule, as they were played, then the test going on with the games after them.  A
    match stopped anywhere and resumed with the same `jobs` plays the games and reaches
    the decision of the uninterrupted match (where its games are: a search at a fixed
    number of iterations plays the same game again, one given seconds may not).

    The games go to `jobs` worker processes here (`backend` "loky"), or to the dask
    cluster of `scheduler` (`backend` "dask", ``tigris._plumbing.backends``); `jobs` sets
    how often the test looks either way (``play_sprt``).  The progress bar is named
    `desc` (default "A-vs-B")."""
    from tigris._plumbing.backends import Backend

    test = check_sprt(elo0, elo1, alpha, beta)
    if a == b:
        raise UsageError("a match needs two different bots")
    if not isinstance(max_games, int) or isinstance(max_games, bool) or max_games < 1:
        raise UsageError(f"--max-games must be a positive whole number, not {max_games!r}")
    if resume and not out:
        raise UsageError("--resume continues the match saved in a results folder: give --out DIR")
    lineup = [a, b, *_check_field(a, b, players, list(field))]
    settings, shelf = {}, botlib.Shelf()                  # each file read once
    for label, name in zip(("A", "B", *(["--field"] * len(field))), lineup):
        try:
            settings.update(bot_settings([name], shelf))
        except ValueError as e:
            raise ConfigError(f"{label if label.startswith('-') else f'bot {label}'}: {e}") from None
    spec = GameSpec(players=players, seed=seed, name=f"{a}-vs-{b}")
    n_jobs = jobs or os.cpu_count() or 1
    where = Backend(backend, n_jobs, scheduler)        # checked before anything is written
    as_tournament = tournament.Spec(bots=lineup, players=players, games=max_games, seed=seed,
                                    name=spec.name)
    scheduled = len(tournament.schedule(as_tournament.check(where="match", bots=False)))
    with contextlib.ExitStack() as held:
        if out:
            held.enter_context(locks.hold(tournament.writable_folder(out)))   # one run at a time
        result = _play(lineup, test, max_games, out, as_tournament, settings, spec, scheduled,
                       n_jobs, seed, progress, resume, where, desc)
    return dict(result, field=lineup[2:])


def _check_field(a, b, players, field):
    """The field of a match of `players` (the bots of its other seats), or a UsageError
    naming --players or --field: one bot for each seat beyond A's and B's, each other
    than A, B and the rest (a line-up seats each bot once, so that every seating is a
    rotation of it)."""
    if players not in (2, 3, 4):
        raise UsageError(f"--players must be 2, 3 or 4, not {players!r}")
    if len(field) != players - 2:
        need = "no --field" if players == 2 else f"{players - 2} --field bot{'s' * (players > 3)}"
        raise UsageError(f"a match of {players} players takes {need} (the other seats' bots), "
                         f"not {len(field)}")
    for name in field:
        if name in (a, b) or field.count(name) > 1:
            raise UsageError(f"--field: {name!r} is seated already; give each seat another bot "
                             f"(a copy of a bot file under another name will do)")
    return field


def check_sprt(elo0=0.0, elo1=20.0, alpha=0.05, beta=0.05):
    """The settings of a test (``play_sprt``'s `test`) once they make one: elo1 above
    elo0, alpha and beta between 0 and 1; else a UsageError naming --sprt.

    >>> from tigris.match import check_sprt, parse_sprt
    >>> check_sprt(**parse_sprt(["elo0=0", "elo1=50"]))
    {'elo0': 0.0, 'elo1': 50.0, 'alpha': 0.05, 'beta': 0.05}
    """
    if elo1 <= elo0:
        raise UsageError(f"--sprt: elo1 ({elo1}) must be above elo0 ({elo0})")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise UsageError("--sprt: alpha and beta must be between 0 and 1")
    return {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}


def _play(lineup, test, max_games, out, as_tournament, settings, spec, scheduled, n_jobs, seed,
          progress, resume, where, desc):
    """``sprt_match``'s games, its arguments checked (and its folder held), on the
    Backend `where`."""
    sink, done = _results_folder(out, as_tournament, settings, resume) if out else (None, [])
    n = len(lineup)
    deals = (task for deal in range(scheduled // n)      # each deal in every seating
             for task in deal_games(lineup, deal_seed(seed, deal), n * deal))
    save = (lambda rec: jsonl.append(sink, rec)) if sink else None
    kept = (f"the finished games are saved in {Path(out) / 'games.jsonl'}; the same command "
            f"with --resume continues the match") if out else ""
    try:
        with where:
            result = play_sprt(lineup[0], lineup[1], settings, spec, deals, scheduled, test,
                               max_games, n_jobs, progress, save=save, kept=kept, backend=where,
                               desc=desc, per_deal=n, done=done)
    finally:
        if sink:
            sink.close()
    if out:
        tournament.write_summary(out, tournament.load_summary(out))
    return result


def play_sprt(a, b, settings, spec, deals, scheduled, test, max_games, jobs, progress=True,
              save=None, kept="", backend=None, desc=None, per_deal=2, done=()):
    """The SPRT of `a` against `b`, two labels of `settings` (a bot's kind and knobs by
    label): the game tasks `deals` (``runner.Task``: each deal in both seatings, in
    order; `scheduled` of them) are played with the game spec `spec` (``runner.GameSpec``)
    until the test (``check_sprt``'s dict) decides or `max_games` games count; each record
    goes to `save` as it comes.
    A game counts as a win of `a` when it takes the first place and `b` does not, a loss
    the other way round, else a draw (``runner.first_of_two``: with more players than
    two, games others win are draws).  The test's unit is a deal, its mean score over
    its `per_deal` games (``ratings.sprt_llr_deals``: the seat a deal favours is no
    noise to it); `max_games` counts games.  The test looks after every `per_deal` *
    (`jobs` // `per_deal`) games (`per_deal`: a deal's games, one per seating), as a
    match run a batch at a time would, so the games played depend on `jobs`, not on how
    fast the workers are.  The games go to `jobs` local workers, or to an entered
    ``Backend`` (a lost scheduler said in one line with `kept`).  Ctrl-C raises
    Interrupted with the score so far and `kept`.  A game that fails (its bot raised, or
    its worker process died twice: ``work.Run``) is saved and not counted.  The progress bar is named `desc` (default the game
    settings' name).  The records `done` (a resumed match's, saved before) count first,
    in the order of the schedule, without going to `save`, and their tasks are not
    played again: a match resumed with the same `jobs` is the one uninterrupted.  Returns
    the result ``format_result`` takes ("decision": "H1", "H0" or None; "failed": the
    games that failed, "first_failure": "game K: its error" of the first, or None).

    >>> from tigris.match import check_sprt, play_sprt
    >>> from tigris.play.runner import GameSpec, bot_settings, deal_games, deal_seed
    >>> deals = [task for d in range(10)
    ...          for task in deal_games(["greedy", "random"], deal_seed(0, d), 2 * d)]
    >>> spec = GameSpec(players=2, seed=0, name="g-r")
    >>> r = play_sprt("greedy", "random", bot_settings(["greedy", "random"]), spec, deals, 20,
    ...               check_sprt(elo0=0, elo1=200), 20, jobs=1, progress=False)
    >>> r["decision"], r["games"] <= 20
    ('H1', True)
    """
    from tigris import ratings       # with scipy: 2 s to import, needed by the SPRT alone
    spec = GameSpec.of(spec)                 # a dict, as until 2.1, with a DeprecationWarning
    elo0, elo1, alpha, beta = (test[k] for k in KEYS)
    sprt = _SPRT(a, b, elo0, elo1, alpha, beta, max_games, scheduled,
                 batch=per_deal * max(1, jobs // per_deal), per_deal=per_deal)
    errors = backend.lost(kept or "no game is kept") if backend is not None else None
    done = {rec["game"]: rec for rec in done}
    try:
        with work.Run(backend.workers if backend is not None else jobs, progress, total=max_games,
                      desc=desc or spec.name, unit="game") as run:
            for game in sorted(done):                # as they came: in the schedule's order
                if sprt.over:
                    break
                sprt.add(done[game], None, run.bar)
            if not sprt.over:
                todo = (task for task in map(Task.of, deals) if task.game not in done)
                run.tasks(game_tasks(todo, settings, spec), lambda rec: sprt.add(rec, save, run.bar),
                          until=lambda: sprt.over, errors=errors, name=game_name, died=failed_game)
    except KeyboardInterrupt:
        llr = sprt.test_llr()                   # of every whole deal saved
        raise Interrupted(f"interrupted after {sprt.games} games (+{sprt.wins} ={sprt.draws} "
                          f"-{sprt.losses}, LLR {llr:.2f}){f'; {kept}' if kept else ''}") from None
    return {"a": a, "b": b, "wins": sprt.wins, "draws": sprt.draws, "losses": sprt.losses,
            "games": sprt.games, "failed": sprt.received - sprt.games,
            "first_failure": sprt.first_failure, "llr": sprt.llr,
            "bounds": ratings.sprt_bounds(alpha, beta),
            "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "decision": sprt.decision}


class _SPRT:
    """A match's games as they come, in the order of the schedule: A's wins, draws and
    losses (a failed game is not counted), and the test's verdict after every `batch`
    games (and the last), as a match run a batch at a time would give it: so the games
    played do not depend on how fast the workers are.  The test counts whole deals, game
    K of the schedule in deal K // `per_deal` (``ratings.sprt_llr_deals``): a deal with a
    failed game, or not yet whole, is left out of the LLR."""

    def __init__(self, a, b, elo0, elo1, alpha, beta, max_games, scheduled, batch, per_deal):
        self.a, self.b, self.elo0, self.elo1, self.alpha, self.beta = a, b, elo0, elo1, alpha, beta
        self.max_games, self.scheduled, self.batch, self.per_deal = max_games, scheduled, batch, per_deal
        self.wins = self.draws = self.losses = self.received = 0
        self.llr, self.decision, self.over = 0.0, None, False
        self.first_failure = None
        self.deals = []         # A's mean score of each whole deal
        self._open = {}         # deal -> A's points of its games so far (None: one failed)

    def _deal(self, game, points):
        deal = self._open.setdefault(game // self.per_deal, [])
        deal.append(points)
        if len(deal) == self.per_deal:
            del self._open[game // self.per_deal]
            if None not in deal:
                self.deals.append(sum(deal) / self.per_deal)

    def test_llr(self):
        """The LLR of the whole deals so far."""
        from tigris import ratings       # with scipy: slow to import, needed by the test alone
        return ratings.sprt_llr_deals(self.deals, self.per_deal, self.elo0, self.elo1)

    @property
    def games(self):
        return self.wins + self.draws + self.losses

    def add(self, rec, save, bar):
        """Count a game's record (given to `save` first, if given); at the end of a
        batch, the test's look: LLR, decision, and whether the match is over."""
        self.received += 1
        if save:
            save(rec)
        points = first_of_two(rec, self.a, self.b)
        self._deal(rec["game"], points)
        if points is None and self.first_failure is None:
            self.first_failure = f"game {rec['game']}: {rec.get('error') or 'no result'}"
        if points is not None:
            if points == 1:
                self.wins += 1
            elif points == 0:
                self.losses += 1
            else:
                self.draws += 1
            bar.update()
        if self.received % self.batch == 0 or self.received == self.scheduled:
            from tigris import ratings
            self.llr = self.test_llr()
            self.decision = ratings.sprt_decision(self.llr, self.alpha, self.beta)
            self.over = self.decision is not None or self.games >= self.max_games
            bar.set_postfix(W=self.wins, D=self.draws, L=self.losses, llr=f"{self.llr:.2f}")


def _results_folder(out, spec, settings, resume=False):
    """The results folder of a match, started (its tournament.json written) or, with
    `resume`, held to this match and read: ``(the games file opened for appending, the
    records it holds)``."""
    folder = tournament.writable_folder(out)
    tournament.check_folder_files(folder)
    games = folder / tournament.GAMES_FILE                                # appended to
    done = []
    if resume:
        _check_same_match(folder, spec, settings)
        done = tournament.read_games(folder)         # each held to the schedule; a torn line cut
        jsonl.end_last_line(games)
    else:
        if games.exists() and games.stat().st_size > 0:
            raise TournamentError(f"{folder} already holds games: continue the match with "
                                  f"--resume, or choose another --out")
        tournament.write_spec_file(folder / tournament.SPEC_FILE, spec, settings)
    return open_append(games), done


# What a match's fields are called on the command line, for a resumed one that differs.
_OPTIONS = {"bots": "A, B and --field", "players": "--players", "games": "--max-games",
            "seed": "--seed"}


def _check_same_match(folder, spec, settings):
    """A TournamentError unless the results folder `folder` holds the match of `spec`
    and the bots' `settings`: the field that differs is named, with its option."""
    path = folder / tournament.SPEC_FILE
    if not path.exists():
        raise TournamentError(f"{folder}: no {tournament.SPEC_FILE} here, no match to resume; "
                              f"leave out --resume to start one")
    saved, bots = tournament.read_spec_file(path)
    for key in ("bots", "players", "games", "seed", "board", "variants", "name"):
        if getattr(saved, key) != getattr(spec, key):
            option = _OPTIONS.get(key, key)
            raise TournamentError(f"{folder} holds another match: its {key} is "
                                  f"{excerpt(getattr(saved, key), 80)}, not "
                                  f"{excerpt(getattr(spec, key), 80)}; give the same {option} to "
                                  f"continue it, or choose another --out")
    for name in spec.bots:
        kind, params = settings[name]
        was_kind, was = bots[name]
        now = json.loads(json.dumps(params))             # as the file holds them
        changed = [k for k in sorted(set(now) | set(was)) if now.get(k) != was.get(k)]
        if was_kind != kind or changed:
            what = "kind" if was_kind != kind else changed[0]
            raise TournamentError(f"{folder} holds another match: {name} played it with "
                                  f"{what} {excerpt(was_kind if what == 'kind' else was.get(what), 60)}, "
                                  f"now {excerpt(kind if what == 'kind' else now.get(what), 60)}; "
                                  f"put the bot back to continue it, or choose another --out")


def format_result(r):
    """A match result (``run``'s dict) as text: the score, the SPRT's LLR and the bound it
    crossed.  An SPRT decides between its two hypotheses; it estimates no margin, so the
    verdict names the hypothesis accepted and no Elo difference."""
    hypotheses = f"H0: elo <= {r['elo0']:g}, H1: elo >= {r['elo1']:g}"
    field = r.get("field") or []
    how = f" by first places, with {' and '.join(field)} at the table" if field else ""
    failed = r.get("failed") or 0
    return (f"{r['a']} vs {r['b']}: +{r['wins']} ={r['draws']} -{r['losses']} in {r['games']} "
            f"games{how}{f' ({failed} more failed, not counted)' if failed else ''}\n"
            f"SPRT({hypotheses}, alpha={r['alpha']:g}, beta={r['beta']:g})\n{verdict(r)}")


def verdict(r, undecided=None):
    """What the test of a match result (``play_sprt``'s dict) decided, in words: the
    bound its LLR crossed and the hypothesis accepted, or `undecided` (default: no
    decision after N games) after the LLR within its bounds.  No Elo margin: the test
    estimates none.

    >>> from tigris.match import verdict
    >>> r = {"a": "new", "b": "old", "games": 40, "elo0": 0, "elo1": 50, "llr": 3.1,
    ...      "bounds": (-2.94, 2.94), "decision": "H1"}
    >>> verdict(r)
    'LLR 3.10 crossed the upper bound 2.94: H1 accepted, new is stronger than old (the test estimates no margin)'
    >>> verdict(dict(r, llr=1.0, decision=None), undecided="not significant")
    'LLR 1.00 within (-2.94, 2.94): not significant'
    """
    low, high = r["bounds"]
    better = "stronger than" if r["elo0"] <= 0 else f"more than {r['elo0']:g} Elo stronger than"
    if r["decision"] == "H1":
        return (f"LLR {r['llr']:.2f} crossed the upper bound {high:.2f}: H1 accepted, "
                f"{r['a']} is {better} {r['b']} (the test estimates no margin)")
    if r["decision"] == "H0":
        return (f"LLR {r['llr']:.2f} crossed the lower bound {low:.2f}: H0 accepted, "
                f"{r['a']} is not {r['elo1']:g} Elo stronger than {r['b']}")
    if undecided is None:
        undecided = f"no decision after {r['games']} games (max games reached)"
    return f"LLR {r['llr']:.2f} within ({low:.2f}, {high:.2f}): {undecided}"
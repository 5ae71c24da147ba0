"""The tasks of the web application (``tigris serve``), each in a worker process, so
the server's event loop never searches: hints (``start``), the analysis of a
game (``start_analysis``) and the moves of the bots at its tables (``start_move``).

An analysis is a file, ``tigris analyse``'s (``tigris.analysis.run`` writes it, a row as
each decision is done): a server that stops, or a search stopped, leaves the rows done,
and the next analysis of the file goes on from them with the file's own settings
(``analysis_settings``); it reports its progress as each row is written.

A search is started with a position and a budget (``Tasks.start``: at most
``MAX_SECONDS``; an analysis at most ``MAX_ANALYSIS_ITERATIONS`` a decision), reports its
progress as it goes, and ends when it is done, when it is stopped (``stop``, or the page
that asked for it says so as it closes), or when nobody has asked for its state for
``IDLE`` seconds (its page is gone).  At most ``workers`` run at once; the others wait in
line.  A worker process ends with the server however the server ends
(``parallel.watch``); ``close`` stops them at once, a bot's move under way too.  A
worker that dies (killed by hand or for want of memory) fails its search with a message
saying so, and the next search works: a hint's or an analysis's process is its own, and
the pool of the bots' moves, which a dead worker breaks, is replaced.

>>> tasks = Tasks(workers=2)                                # doctest: +SKIP
>>> key = tasks.start(game.to_position(), seconds=2)        # doctest: +SKIP
>>> tasks.state(key)["state"]                               # doctest: +SKIP
'running'
"""

import math
import multiprocessing
import queue
import secrets
import threading
import time

from tigris._plumbing.renamed import old_names
from tigris.errors import UsageError, excerpt

__all__ = ["Tasks", "analysis_settings", "check_iterations", "MAX_SECONDS", "MAX_ANALYSIS_ITERATIONS", "ANALYSIS_ITERATIONS",
           "IDLE", "MAX_KEPT", "STATES"]

MAX_SECONDS = 60.0        # the longest search a page may ask for
MAX_ANALYSIS_ITERATIONS = 10_000   # a decision's search in an analysis: the page's deepest
ANALYSIS_ITERATIONS = 2_000        # a decision's search when a page names none
IDLE = 15.0               # seconds without a look at a search before it is stopped
MAX_KEPT = 256            # searches remembered (finished ones are forgotten first)
PAGE_ROWS = 8             # a hint's rows on a page: the equals and the next few searched plans
STATES = ("waiting", "running", "done", "stopped", "failed")
DIED = "killed by hand, or for want of memory"     # a worker's SIGKILL, as a page says it


def _search(position, seconds, bot, messages):
    """A worker process: the hint of `position` (checked by ``Tasks.start``) by `bot`,
    its ``(name, kind, params)`` as the server read and checked them, its progress and
    result put on `messages`: ("progress", fraction, iterations) as it goes, then
    ("done", hint) or ("failed", message).  It is stopped by SIGTERM."""
    import os

    from tigris._plumbing import parallel
    from tigris.position import from_position

    parallel.watch(os.getppid())          # ends with the server, however the server ends
    try:
        from tigris import bots, hints

        game = from_position(position)
        name, kind, params = bot
        engine = bots.CLASSES[kind](name=name, **params)

        def report(done, total, iterations):
            messages.put(("progress", done / total, iterations))

        result = hints.search_hint(game, engine, seconds=seconds, top=PAGE_ROWS, progress=report)
        messages.put(("done", _finite(result.as_dict(game))))
    except Exception as e:                # reported to the page in one line
        messages.put(("failed", f"{type(e).__name__}: {e}"[:300]))


def _analyse(rec, out, source, settings, messages):
    """A worker process: the analysis of every decision of the game of record `rec` into
    the file `out` (``tigris.analysis.run``, `settings` its budget and options, `source`
    the record's name in the header), ("progress", share of the decisions in the file,
    their iterations) put on `messages` as each row is written, then ("done", what the
    file holds), or ("failed", message).  Stopped by SIGTERM, it lets go of the file's
    lock (the rows written stay: the next run continues them)."""
    import os
    import signal
    import sys

    from tigris._plumbing import parallel

    parallel.watch(os.getppid())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))      # the lock file removed on the way out

    def report(rows, decisions, iterations):
        messages.put(("progress", min(1.0, rows / max(1, decisions)), iterations))

    try:
        from tigris import analysis

        header, rows = analysis.run(rec, out, source=source, jobs=1, progress=False,
                                    on_row=report, **settings)
        messages.put(("done", {"file": out.name, "decisions": header["decisions"], "analysed": len(rows),
                               "iterations": sum(r["iterations"] for r in rows)}))
    except UsageError as e:               # the file refused, or held by another run
        messages.put(("failed", str(e).replace(str(out), out.name)[:300]))
    except Exception as e:
        messages.put(("failed", f"{type(e).__name__}: {e}"[:300]))


def _choose(rec, bot, seed):
    """In a worker of the pool: the move of `bot` (a Configuration, or its name or file,
    with `seed`) for the player to move in the game of record `rec`, as ``{"action":
    id}``.  The bot decides from its own player's view (honest bots only:
    tigris.web.tables refuses the others)."""
    from tigris import bots, record

    game = record.replay(rec)
    conf = bot if isinstance(bot, bots.Configuration) else bots.configuration(bot)
    return {"action": int(conf.bot(seed=seed).choose(game))}


def _watch_parent(parent):
    """A pool worker's first step: end with the server (``parallel.watch``)."""
    from tigris._plumbing import parallel

    parallel.watch(parent)


def _ended(exitcode):
    """How a search's process ended, from its exit code, in words."""
    import signal

    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"died ({name}{f': {DIED}' if name == 'SIGKILL' else ''})"
    return f"ended (exit status {exitcode})"


def _finite(value):
    """JSON-ready: NaN (a forced move's unsearched chances) as None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def check_iterations(iterations):
    """`iterations`, a decision's search in an analysis a page asks for, once it is a
    whole number from 1 to MAX_ANALYSIS_ITERATIONS; else a UsageError."""
    if not (isinstance(iterations, int) and not isinstance(iterations, bool)
            and 1 <= iterations <= MAX_ANALYSIS_ITERATIONS):
        raise UsageError(f"iterations must be a whole number from 1 to {MAX_ANALYSIS_ITERATIONS:,} "
                         f"(a decision's search), not {excerpt(iterations)}")
    return iterations


def analysis_settings(rec, out, iterations=None):
    """The options of ``tigris.analysis.run`` for the analysis of record `rec` into the
    file `out`, as ``tigris analyse`` writes it: a new (or empty) file is searched
    `iterations` a decision (default ANALYSIS_ITERATIONS, at most
    MAX_ANALYSIS_ITERATIONS) with the command's defaults; a file that holds part of this
    game's analysis is continued with its own settings (`iterations`, if given, must be
    its budget).  A file that holds anything else, or part of an analysis by another
    engine (``analysis.engine_digest``), is refused (UsageError naming it)."""
    from tigris import analysis, record

    if iterations is not None:
        check_iterations(iterations)
    try:
        header, rows = analysis.read_analysis(out) if out.exists() else (None, [])
    except UsageError as e:
        raise UsageError(f"{out.name} holds something else than an analysis of this game "
                         f"({str(e).replace(str(out), out.name)}); it is left as it is: move it away "
                         f"to analyse the game here") from None
    if header is None:
        return {"iterations": ANALYSIS_ITERATIONS if iterations is None else iterations}
    if header["record"] != analysis.record_hash(record.replay(rec)):
        raise UsageError(f"{out.name} holds an analysis of another game (its source: "
                         f"{excerpt(header['source'], 60)}); it is left as it is: move it away "
                         f"to analyse this game here")
    budget = (f"{header['iterations']:,} iterations" if header.get("iterations") is not None
              else f"{header['seconds']:g} seconds")
    if iterations is not None and iterations != header.get("iterations"):
        raise UsageError(f"{out.name} holds part of this game's analysis at {budget} a decision: "
                         f"it goes on at that budget (or move the file away to analyse afresh)")
    if (header.get("iterations") or 0) > MAX_ANALYSIS_ITERATIONS or (header.get("seconds") or 0) > MAX_SECONDS:
        raise UsageError(f"{out.name} holds an analysis at {budget} a decision, more than a page "
                         f"may ask for: continue it with tigris analyse")
    if len(rows) < header["decisions"]:
        from tigris import bots

        conf = bots.configuration(header["bot"])
        kind, _, params = analysis.engine_of(conf, header["measure"])
        if header.get("engine") != analysis.engine_digest(kind, params, rec["players"]):
            raise UsageError(f"{out.name} holds part of this game's analysis by another engine "
                             f"(another version of tigris, or other settings of {header['bot']}): "
                             f"it is left as it is: move it away to analyse the game here")
    return {k: header[k] for k in ("iterations", "seconds", "players", "bot", "seed", "measure",
                                   "thresholds")
            if header.get(k) is not None}


def _stop_pool(pool):
    """Shut a ProcessPoolExecutor down without waiting for the moves under way: its
    workers are stopped (SIGTERM, then SIGKILL) and their ends waited for."""
    terminate = getattr(pool, "terminate_workers", None)          # Python 3.14
    if terminate is not None:
        terminate()
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        if process.is_alive():
            process.terminate()
    for process in workers:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join()
    pool.shutdown(wait=True)             # its manager thread sees the workers gone


class _Task:
    """A task: `target` run with `args` in a process of its own (a hint, an
    analysis), or a ``future`` of the pool (a bot's move)."""

    def __init__(self, target, args, seconds):
        self.target, self.args, self.seconds = target, args, seconds
        self.state = "waiting"
        self.progress, self.iterations = 0.0, 0
        self.result = self.error = None
        self.process = self.messages = self.future = None
        self.seen = time.monotonic()

    def public(self):
        return {"state": self.state, "progress": round(self.progress, 3), "iterations": self.iterations,
                "seconds": self.seconds, "result": self.result, "error": self.error}


class Tasks:
    """The server's tasks (see the module's docstring): hints and analyses, `workers`
    at once, each in a process of its own, one not looked at for `idle` seconds
    stopped; the bots' moves in a pool of `workers` processes."""

    def __init__(self, workers=2, idle=IDLE):
        self.workers, self.idle = workers, idle
        self._tasks = {}
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")   # never a fork of the server's threads
        self._closed = threading.Event()
        self._ticker = None
        self._pool = None                  # the processes of the bots' moves

    def start(self, position, seconds, bot=None):
        """Start (or queue) a hint of `position` (``tigris-position/1`` data, checked
        here: a PositionError names the field) for `seconds`; returns its id."""
        from tigris import hints
        from tigris.position import from_position

        if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
                and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
            raise UsageError(f"seconds must be a number above 0 and at most {MAX_SECONDS:g}, "
                             f"not {excerpt(seconds)}")
        game = from_position(position)
        if game.is_over:
            raise UsageError("the game is over: there is no move to hint")
        if game.current_player in game.unknown["hands"]:
            raise UsageError(f"player {game.current_player}'s hand is unknown: give it to get a hint")
        engine = hints.hint_bot(bot or hints.DEFAULT_BOT, workers=1, seed=None)   # read and checked once
        settings = (engine.name, engine.kind, engine.params)
        return self._add(_Task(_search, (position, float(seconds), settings), float(seconds)))

    def start_analysis(self, rec, out, source, iterations=None):
        """Start (or queue) the analysis of the game of record `rec` into the file `out`
        (``analysis_settings``: a file that holds part of it is continued, one that holds
        anything else refused); its result is ``{"file", "decisions", "analysed",
        "iterations"}`` once the file holds every decision."""
        settings = analysis_settings(rec, out, iterations)
        return self._add(_Task(_analyse, (rec, out, source, settings), None))

    def under_way(self, key):
        """Whether the search `key` waits or runs (False for one it does not know)."""
        with self._lock:
            task = self._tasks.get(key)
            if task is not None:
                self._collect(task)
            return task is not None and task.state in ("waiting", "running")

    def start_move(self, rec, bot, seed=0, done=None):
        """Start (or queue) the move of `bot` (a Configuration, or a configuration's name
        or file, with `seed`) in the game of record `rec`; its result is ``{"action": id}``.  Moves go
        to a pool of `workers` processes kept for them: a bot's move is short, and a
        process started for each would take longer than most moves.  `done`, if given, is
        called with no argument once the move is made or has failed (in the pool's thread:
        it must not wait for a lock that its caller holds)."""
        import os
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        task = _Task(None, None, None)
        with self._lock:
            if self._closed.is_set():
                raise UsageError("the server is stopping")
            if self._pool is not None:
                try:
                    task.future = self._pool.submit(_choose, rec, bot, seed)
                except BrokenProcessPool:        # a worker died: the pool takes no more moves
                    _stop_pool(self._pool)
                    self._pool = None
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.workers, mp_context=self._context,
                                                 initializer=_watch_parent, initargs=(os.getpid(),))
                task.future = self._pool.submit(_choose, rec, bot, seed)
            task.state = "running"
        if done is not None:
            task.future.add_done_callback(lambda _: done())
        return self._add(task)

    def _add(self, task):
        key = secrets.token_hex(8)
        with self._lock:
            if self._closed.is_set():
                raise UsageError("the server is stopping")
            self._forget_old()
            self._tasks[key] = task
            self._pump()
            if self._ticker is None:
                self._ticker = threading.Thread(target=self._tick, name="tigris-searches", daemon=True)
                self._ticker.start()
        return key

    def state(self, key):
        """A search's state: ``state`` (one of STATES), ``progress`` (0 to 1),
        ``iterations``, ``seconds``, ``result`` (the hint, as ``Hints.as_dict``) and
        ``error``.  KeyError for an unknown id."""
        with self._lock:
            task = self._tasks[key]
            task.seen = time.monotonic()
            self._collect(task)
            self._pump()
            return task.public()

    def stop(self, key):
        """Stop a search (waiting or running); its state afterwards."""
        with self._lock:
            task = self._tasks[key]
            self._end(task, "stopped")
            self._pump()
            return task.public()

    def forget(self, key):
        """Drop a search whose end its caller has taken in (a bot's move)."""
        with self._lock:
            task = self._tasks.pop(key, None)
            if task is not None:
                self._end(task, "stopped")

    def running(self):
        """How many hint searches run now."""
        with self._lock:
            return sum(task.state == "running" and task.future is None for task in self._tasks.values())

    def close(self):
        """Stop every search and wait for their processes: a bot's move under way is
        not waited for, its worker is stopped."""
        self._closed.set()
        with self._lock:
            for task in self._tasks.values():
                self._end(task, "stopped")
        if self._ticker is not None:
            self._ticker.join(timeout=5)
        if self._pool is not None:
            _stop_pool(self._pool)

    # -- with the lock held ---------------------------------------------------------

    def _pump(self):
        """Start waiting searches while fewer than `workers` run."""
        running = sum(task.state == "running" and task.future is None for task in self._tasks.values())
        for task in self._tasks.values():
            if running >= self.workers:
                break
            if task.state == "waiting":
                task.messages = self._context.Queue()
                task.process = self._context.Process(target=task.target, args=(*task.args, task.messages),
                                                    name="tigris-search", daemon=True)
                task.process.start()
                # the worker writes, this process reads: with the worker's end closed here,
                # a message cut short by its death ends in EOF, where reading it would wait
                task.messages._writer.close()
                task.state = "running"
                running += 1

    def _collect(self, task):
        """Take in what a running search has reported."""
        if task.state != "running":
            return
        if task.future is not None:
            if task.future.done():
                from concurrent.futures.process import BrokenProcessPool

                try:
                    task.result, task.progress = task.future.result(), 1.0
                    task.state = "done"
                except BrokenProcessPool:        # the next move goes to a new pool
                    task.error = f"the bot's worker process died ({DIED}, or a crash)"
                    task.state = "failed"
                except Exception as e:           # the bot failed
                    task.error = f"{type(e).__name__}: {e}"[:300]
                    task.state = "failed"
            return
        alive = task.process.is_alive()           # before reading: what it said is read first
        while True:
            try:
                kind, *value = task.messages.get_nowait()
            except queue.Empty:
                break
            except (EOFError, OSError):          # a message cut short by the process's death
                break
            if kind == "progress":
                task.progress, task.iterations = value
            elif kind == "done":
                task.result, task.progress = value[0], 1.0
                task.iterations = task.result.get("iterations", 0)
                self._end(task, "done")
                return
            elif kind == "failed":
                task.error = value[0]
                self._end(task, "failed")
                return
        if not alive:
            task.process.join()
            task.error = f"the search's process {_ended(task.process.exitcode)}"
            self._end(task, "failed")

    def _end(self, task, state):
        """`task` over, in `state`: its process stopped (a search done is ending by itself)."""
        if task.state in ("done", "stopped", "failed"):
            return
        if task.future is not None:
            task.future.cancel()                  # a move under way ends by itself, unheard
        if task.process is not None:
            if state != "done" and task.process.is_alive():
                task.process.terminate()
            task.process.join(timeout=5)
            if task.process.is_alive():
                task.process.kill()
                task.process.join()
            task.messages.close()
        task.state = state

    def _forget_old(self):
        finished = [k for k, task in self._tasks.items() if task.state in ("done", "stopped", "failed")]
        for key in finished[:max(0, len(self._tasks) - MAX_KEPT + 1)]:
            del self._tasks[key]

    def _tick(self):
        """Every second: take in progress, stop searches nobody looks at, start waiting ones."""
        while not self._closed.wait(1.0):
            with self._lock:
                now = time.monotonic()
                for task in self._tasks.values():
                    self._collect(task)
                    if task.future is None and task.state in ("waiting", "running") and now - task.seen > self.idle:
                        task.error = f"nobody asked for it for {self.idle:g} seconds"
                        self._end(task, "stopped")
                self._pump()


# Searches, the former name of Tasks (they hold bots' moves too)
__getattr__ = old_names(__name__, {"Searches": "Tasks"})

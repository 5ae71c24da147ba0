"""Every command against files that are not what they seem: the probes behind
docs/results.md's reliability table ("Files that are not what they seem").

Each probe copies a set of valid inputs (a finished results folder, a record, a position,
an analysis, a bot file, a spec, a self-play folder, a tuning folder) into a fresh folder,
turns one file a command reads or writes into something else, runs the command as a
real ``tigris`` process under a memory limit and a time limit, and holds it to the
contract: a status of 0, 1 or 2, no traceback, at most one line on stderr when it fails,
no process left behind, nothing it must not write changed (a link's target, a file the
command read, an existing output without --force), and nothing finished lost.

    python tools/probe_files.py                 # every probe, two at a time
    python tools/probe_files.py --list          # what would run
    python tools/probe_files.py --only view     # the probes whose name holds "view"

Prints one line per probe that did not hold, then the table: probes tried and held,
by class.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEMORY = 2 * 2**30              # the child's address space: reading /dev/zero whole passes it
SECONDS = 180                   # a probe's time: waiting on a pipe passes it


def _limited():
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _tigris(args, cwd):
    """``tigris ARGS`` in `cwd`: (status, stderr, seconds); status None on a hang."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "tigris", *args], cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_limited, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    try:
        _, err = child.communicate(timeout=SECONDS)
        status = child.returncode
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, 9)
        _, err = child.communicate()
        status = None
    finally:
        left = _group_left(child.pid)
    return status, err, time.perf_counter() - started, left


def _group_left(group, grace=10.0):
    """Whether a process of the group `group` outlives its leader by `grace` seconds
    (worker processes end once they find their parent gone: not in the same instant);
    any that does is killed."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.2)
    try:
        os.killpg(group, 9)
    except ProcessLookupError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# The valid inputs, made once
# ---------------------------------------------------------------------------------------

def make_inputs(folder):
    """The valid files every probe starts from, in `folder`."""
    def run(*args):
        status, err, _, _ = _tigris(list(args), folder)
        if status != 0:
            raise SystemExit(f"making the inputs: tigris {' '.join(args)}: {err.strip()}")

    (folder / "bots").mkdir()
    (folder / "bots" / "tiny.toml").write_text('kind = "ismcts"\niterations = 8\n')
    (folder / "spec.toml").write_text('bots = ["random", "greedy"]\ngames = 2\nname = "s"\n')
    run("tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1", "--out", "t")
    run("play", "--bots", "random", "random", "--seed", "3", "--record", "g.json")
    run("analyse", "g.json", "--iterations", "10", "--players", "0", "--out", "g.analysis.jsonl")
    run("selfplay", "--out", "sp", "--games", "1", "--bot", "random", "--label-bot", "tiny",
        "--positions", "2", "--label-iterations", "10", "--jobs", "1")
    run("tune", "tiny", "--param", "exploration=0.3:1.5", "--opponent", "random", "--budget",
        "8", "--verify-games", "2", "--jobs", "1", "--out", "tu")
    import tigris

    (folder / "p.json").write_text(json.dumps(tigris.Game(players=2, seed=4).to_position(player=0)))


# ---------------------------------------------------------------------------------------
# The probes
# ---------------------------------------------------------------------------------------

# What each command reads: (name, arguments, the file it reads).
READERS = [
    ("standings: games", ["standings", "t"], "t/games.jsonl"),
    ("standings: spec", ["standings", "t"], "t/tournament.json"),
    ("tournament --resume: games", ["tournament", "--resume", "t", "--jobs", "1"], "t/games.jsonl"),
    ("tournament --resume: spec", ["tournament", "--resume", "t", "--jobs", "1"], "t/tournament.json"),
    ("replay: games", ["replay", "t", "--game", "1"], "t/games.jsonl"),
    ("replay: record", ["replay", "g.json"], "g.json"),
    ("show: record", ["show", "g.json"], "g.json"),
    ("show: FILE:K", ["show", "t/games.jsonl:1"], "t/games.jsonl"),
    ("show: position", ["show", "p.json"], "p.json"),
    ("view: record", ["view", "g.json", "--out", "new.html"], "g.json"),
    ("view: analysis", ["view", "g.json", "--analysis", "g.analysis.jsonl", "--out", "new.html"],
     "g.analysis.jsonl"),
    ("view: results folder", ["view", "t", "--out", "pages"], "t/games.jsonl"),
    ("hint: record", ["hint", "g.json", "--move", "3", "--iterations", "10"], "g.json"),
    ("hint: position", ["hint", "p.json", "--iterations", "10"], "p.json"),
    ("analyse: record", ["analyse", "g.json", "--iterations", "10", "--out", "new.jsonl"], "g.json"),
    ("analyse: its own file", ["analyse", "g.json", "--iterations", "10", "--players", "0",
                               "--out", "g.analysis.jsonl"], "g.analysis.jsonl"),
    ("calibrate: games", ["calibrate", "t"], "t/games.jsonl"),
    ("calibrate: record", ["calibrate", "g.json"], "g.json"),
    ("play: bot file", ["play", "--bots", "bots/tiny.toml", "random", "--seed", "1"], "bots/tiny.toml"),
    ("play --resume: record", ["play", "--resume", "g.json"], "g.json"),
    ("tournament: spec file", ["tournament", "spec.toml", "--jobs", "1", "--out", "t2"], "spec.toml"),
    ("tournament: bot file", ["tournament", "--bots", "bots/tiny.toml", "random", "--games", "2",
                              "--jobs", "1", "--out", "t2"], "bots/tiny.toml"),
    ("match: bot file", ["match", "bots/tiny.toml", "random", "--max-games", "2", "--jobs", "1",
                         "--out", "m2"], "bots/tiny.toml"),
    ("bots: a file of ./bots", ["bots"], "bots/tiny.toml"),
    ("selfplay: settings", ["selfplay", "--out", "sp", "--games", "1", "--bot", "random",
                            "--label-bot", "tiny", "--positions", "2", "--label-iterations", "10",
                            "--jobs", "1"], "sp/selfplay.json"),
    ("selfplay: positions", ["selfplay", "--out", "sp", "--games", "1", "--bot", "random",
                             "--label-bot", "tiny", "--positions", "2", "--label-iterations",
                             "10", "--jobs", "1"], "sp/positions.jsonl"),
    ("tune --resume: settings", ["tune", "tiny", "--param", "exploration=0.3:1.5", "--opponent",
                                 "random", "--budget", "8", "--verify-games", "2", "--jobs", "1",
                                 "--out", "tu", "--resume"], "tu/tune.json"),
    ("tune --resume: history", ["tune", "tiny", "--param", "exploration=0.3:1.5", "--opponent",
                                "random", "--budget", "8", "--verify-games", "2", "--jobs", "1",
                                "--out", "tu", "--resume"], "tu/history.csv"),
    ("tune --plot: history", ["tune", "--plot", "tu"], "tu/history.csv"),
]

# What each command writes: (name, arguments, the file it writes, whether the user names it).
WRITERS = [
    ("view --out", ["view", "g.json", "--out", "out.html"], "out.html", True),
    ("view --out DIR: index", ["view", "t", "--out", "pages"], "pages/index.html", True),
    ("view --out DIR: a page", ["view", "t", "--out", "pages"], "pages/game-1.html", True),
    ("play --record", ["play", "--bots", "random", "random", "--seed", "1", "--record", "r.json"],
     "r.json", True),
    ("calibrate --out", ["calibrate", "t", "--out", "c.json"], "c.json", True),
    ("tournament: games", ["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1",
                           "--out", "t2"], "t2/games.jsonl", False),
    ("tournament: summary", ["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs",
                             "1", "--out", "t2"], "t2/summary.md", False),
    ("tournament: spec", ["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1",
                          "--out", "t2"], "t2/tournament.json", False),
    ("tournament: lock", ["tournament", "--bots", "random", "greedy", "--games", "2", "--jobs", "1",
                          "--out", "t2"], "t2/.tigris.lock", False),
    ("tournament --resume: summary", ["tournament", "--resume", "t", "--jobs", "1"], "t/summary.md", False),
    ("match: games", ["match", "random", "greedy", "--max-games", "2", "--jobs", "1", "--out", "m2"],
     "m2/games.jsonl", False),
    ("analyse --out", ["analyse", "g.json", "--iterations", "10", "--out", "a2.jsonl"], "a2.jsonl", False),
    ("selfplay: positions", ["selfplay", "--out", "sp2", "--games", "1", "--bot", "random",
                             "--label-bot", "tiny", "--positions", "2", "--label-iterations", "10",
                             "--jobs", "1"], "sp2/positions.jsonl", False),
    ("selfplay: settings", ["selfplay", "--out", "sp2", "--games", "1", "--bot", "random",
                            "--label-bot", "tiny", "--positions", "2", "--label-iterations", "10",
                            "--jobs", "1"], "sp2/selfplay.json", False),
    ("tune: history", ["tune", "tiny", "--param", "exploration=0.3:1.5", "--opponent", "random",
                       "--budget", "8", "--verify-games", "2", "--jobs", "1", "--out", "tu2"],
     "tu2/history.csv", False),
    ("tune: bot file", ["tune", "tiny", "--param", "exploration=0.3:1.5", "--opponent", "random",
                        "--budget", "8", "--verify-games", "2", "--jobs", "1", "--out", "tu2"],
     "tu2/tiny-tuned.toml", False),
    ("tune --plot", ["tune", "--plot", "tu"], "tu/traces.png", False),
]

READ_KINDS = ("a link to /dev/zero", "a link to /dev/urandom", "a pipe", "a pipe with a writer",
              "a socket", "a folder", "a link to nothing", "a link to itself",
              "a symbolic link to it", "a hard link to it")
WRITE_KINDS = ("a link to a file", "a link to a folder", "a link to nothing", "a pipe",
               "a link to /dev/null", "a hard link to a file", "a file already there")


def _digest(folder):
    """What a probe must leave as it was: every file's bytes, by path (links not followed)."""
    out = {}
    for root, dirs, names in os.walk(folder):
        for name in names + dirs:
            path = Path(root, name)
            if path.is_symlink():
                out[str(path)] = "link to " + os.readlink(path)
            elif path.is_file():
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _make_read(kind, path, held):
    good = path.with_name(path.name + ".good")
    if path.exists():
        path.rename(good)
    if kind.startswith("a link to /dev/"):
        path.symlink_to(kind[len("a link to "):])
    elif kind.startswith("a pipe"):
        os.mkfifo(path)
        if kind.endswith("writer"):
            held.append(os.open(path, os.O_RDWR | os.O_NONBLOCK))
    elif kind == "a socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        held.append(sock)
    elif kind == "a folder":
        path.mkdir()
    elif kind == "a link to nothing":
        path.symlink_to("nowhere")
    elif kind == "a link to itself":
        path.symlink_to(path.name)
    elif kind == "a symbolic link to it":
        path.symlink_to(good.name)
    elif kind == "a hard link to it":
        os.link(good, path)


def _make_write(kind, path, victim, held):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "a link to a file":
        path.symlink_to(victim)
    elif kind == "a link to a folder":
        path.symlink_to(victim.parent)
    elif kind == "a link to nothing":
        path.symlink_to(victim.parent / "nowhere")
    elif kind == "a pipe":
        os.mkfifo(path)
    elif kind == "a link to /dev/null":
        path.symlink_to("/dev/null")
    elif kind == "a hard link to a file":
        os.link(victim, path)
    else:
        path.write_text("mine, not to be written over\n")


def probe(inputs, role, name, args, file, kind, named=False):
    """One probe: `file` (of the copied inputs) made `kind`, the command run; the list of
    what did not hold (empty: it held)."""
    work = Path(tempfile.mkdtemp(prefix="probe-"))
    held, wrong = [], []
    try:
        folder = work / "f"
        shutil.copytree(inputs, folder, symlinks=True)
        victim = work / "victim.txt"
        victim.write_text("precious\n")
        path = folder / file
        if role == "read":
            _make_read(kind, path, held)
        else:
            _make_write(kind, path, victim, held)
        before = _digest(work)
        status, err, seconds, left = _tigris(args, folder)
        after = _digest(work)
        lines = [line for line in err.replace("\r", "\n").splitlines()
                 if line.strip() and "%|" not in line and "warning" not in line]
        if status is None:
            wrong.append(f"no answer in {SECONDS} s (a hang)")
        elif status not in (0, 1, 2):
            wrong.append(f"status {status}")
        if "Traceback" in err or "MemoryError" in err:
            wrong.append("a traceback")
        if status not in (0, None) and len(lines) != 1:
            wrong.append(f"{len(lines)} lines on stderr")
        if left:
            wrong.append("a process left behind")
        if victim.read_text() != "precious\n":
            wrong.append("the link's target written")
        if role == "read" and kind in ("a symbolic link to it", "a hard link to it"):
            pass                          # a link to the file reads as the file: any outcome
        elif role == "read" and status == 0 and not args[0] in ("bots",):
            wrong.append("read as if it were the file")
        if role == "write":
            changed = [p for p in before if before[p] != after.get(p)]
            if kind == "a file already there" and not named:
                pass                      # a run's own file: continued or replaced as it says
            elif str(path) in changed or (kind == "a hard link to a file" and str(victim) in changed):
                wrong.append(f"{file} written through")
        linked = kind in ("a symbolic link to it", "a hard link to it")
        if role == "read" and not linked and status not in (0, None) and lines \
                and Path(file).name not in lines[0]:
            wrong.append("the line does not name the file")
        return wrong, (lines[0] if lines else "")
    finally:
        for h in held:
            h.close() if hasattr(h, "close") else os.close(h)
        shutil.rmtree(work, ignore_errors=True)


def probes():
    for name, args, file in READERS:
        for kind in READ_KINDS:
            yield "read", name, args, file, kind, False
    for name, args, file, named in WRITERS:
        for kind in WRITE_KINDS:
            if kind == "a hard link to a file" and not file.endswith((".jsonl", ".csv")):
                continue              # replaced whole: a new file, the other name untouched
            yield "write", name, args, file, kind, named


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="the probes whose name holds this")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    todo = [p for p in probes() if not args.only or args.only in p[1]]
    if args.list:
        for p in todo:
            print(p[0], p[1], "/", p[4])
        return 0
    inputs = Path(tempfile.mkdtemp(prefix="probe-inputs-"))
    try:
        make_inputs(inputs)
        table = {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(probe, inputs, *p): p for p in todo}
            for future in concurrent.futures.as_completed(futures):
                role, name, _, _, kind, _ = futures[future]
                wrong, said = future.result()
                row = table.setdefault((role, kind), [0, 0])
                row[0] += 1
                row[1] += not wrong
                if wrong:
                    print(f"{role} {name} / {kind}: {'; '.join(wrong)} ({said[:160]})", flush=True)
    finally:
        shutil.rmtree(inputs, ignore_errors=True)
    print("| what | kind of file | probes | held |\n|---|---|---:|---:|")
    for (role, kind), (tried, held) in sorted(table.items()):
        print(f"| {'a file read' if role == 'read' else 'a file written'} | {kind} | {tried} | {held} |")
    tried = sum(r[0] for r in table.values())
    print(f"| all | | {tried} | {sum(r[1] for r in table.values())} |")
    return 0 if all(r[0] == r[1] for r in table.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

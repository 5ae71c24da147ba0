"""One run per folder: an exclusive lock on everything a run writes.

Two tournaments on one results folder would both play every game and write each twice,
and the folder would then be refused by every reader.  So every run that writes a folder
(a tournament, a match, tuning, self-play, training) or a file it appends to (an
analysis) holds an exclusive ``fcntl.flock`` on a small lock file for as long as it
runs: ``.tigris.lock`` inside the folder, or ``.NAME.lock`` beside the file NAME.  A
second run at once is refused in one line naming the holder, whose pid and command the
holder wrote into the lock file.  A run removes its lock file as it ends; the kernel
releases the lock when its process ends, however it ends (a SIGKILL too), so a killed
run never leaves a stale lock: its file may stay, the lock does not, and the next run
takes it.

>>> import tempfile
>>> from tigris._plumbing.locks import hold
>>> folder = tempfile.mkdtemp()
>>> with hold(folder):
...     with hold(folder):                 # a second run on the same folder
...         pass
Traceback (most recent call last):
    ...
tigris.errors.UsageError: ... is in use by another run (pid ...); wait for it to end, or choose another folder
"""

import contextlib
import fcntl
import functools
import inspect
import json
import os
import stat
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from tigris.errors import UsageError, excerpt
from tigris.files import kind_of
from tigris.sources import json_or_none

__all__ = ["LOCK_FILE", "hold", "holding", "holder", "held_by"]

LOCK_FILE = ".tigris.lock"        # inside a folder that a run writes
MAX_SAID = 4096                   # bytes of a lock file read back to name its holder


@contextmanager
def hold(path, file=False):
    """Hold the folder `path` (with `file`, the file `path`) for a run: the folder is
    created if missing, and the lock taken at once or refused with a UsageError naming
    the run that holds it.  On leaving, the lock file is removed and the lock let go (the
    folders this call created are removed too if the run failed and left them empty); if the
    process dies first, the kernel lets go of the lock."""
    path = Path(path)
    folder, name = (path.parent, f".{path.name}.lock") if file else (path, LOCK_FILE)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: is not a folder; name a folder for the run's files")
    # the folders this call creates, deepest first: a failed run removes them if empty
    created = [f for f in (folder, *folder.parents) if not f.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot write to {folder}: {e.strerror}") from None
    fd = _take(folder, name, path if file else folder, "file" if file else "folder")
    done = False
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps({"pid": os.getpid(), "command": _command(),
                                   "since": time.strftime("%Y-%m-%d %H:%M:%S")}) + "\n").encode("utf-8"), 0)
        yield
        done = True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(folder / name)      # while held: a run that opened it meanwhile tries again
        os.close(fd)                      # lets go of the lock
        if not done:
            with contextlib.suppress(OSError):
                for made in created:
                    made.rmdir()          # only if the failed run left it empty


def _take(folder, name, what, noun):
    """An open descriptor of the lock file `name` in `folder`, locked; else UsageError."""
    lock = folder / name
    while True:
        try:
            # O_NONBLOCK: a pipe put in the lock file's place must not block the open
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                         | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise UsageError(f"cannot write to {folder}: {e.strerror}"
                             + (f" ({name} is a link: remove it)" if os.path.islink(lock) else "")) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise UsageError(f"{lock} is {kind_of(mode)}, not a lock file: remove it")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise UsageError(f"{what} is in use by another run ({holder(fd)}); wait for it to "
                                 f"end, or choose another {noun}") from None
            try:
                same = os.stat(lock, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)                      # the run that held it removed it as it ended: again


def held_by(path, file=False):
    """Who holds the folder `path` (with `file`, the file `path`) now, in ``holder``'s
    words, or None when no run does.  It never waits and takes nothing: the lock is
    looked at for an instant (a shared lock, let go at once), and a folder where no lock
    file can be (a link in its place, not a regular file) is held by no run."""
    path = Path(path)
    lock = path.parent / f".{path.name}.lock" if file else path / LOCK_FILE
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None                       # a run holds its lock file until it ends
    except OSError as e:
        if os.path.islink(lock):
            return None                   # no run can take a lock through a link (``hold``)
        return f"a run this process may not look at ({e.strerror})"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return holder(fd)
        return None
    finally:
        os.close(fd)                      # lets go of the look


def holding(param, file=False):
    """A decorator: the call holds (``hold``) the folder (or `file`) its argument
    `param` names, for as long as it runs."""
    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def held(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            with hold(bound.arguments[param], file=file):
                return fn(*args, **kwargs)
        return held
    return decorate


def holder(fd):
    """Who holds the lock of the open lock file `fd`, in words: its pid and command."""
    try:
        said = json_or_none(os.pread(fd, MAX_SAID, 0))
    except OSError:
        said = None
    if not (isinstance(said, dict) and "pid" in said and "command" in said):
        return "it has not said which yet"
    pid, command, since = said["pid"], said["command"], said.get("since")
    text = f"pid {excerpt(pid, 20)}: {_printable(command)}"
    return text + (f", since {_printable(since)}" if isinstance(since, str) else "")


def _command():
    """This process's command line, as the holder is named: ``tigris tournament ...``
    (also when started as ``python -m tigris``)."""
    path = Path(sys.argv[0] if sys.argv and sys.argv[0] else "python")
    # python -m NAME runs NAME/__main__.py
    program = path.parent.name if path.name == "__main__.py" else path.name
    program = "python -c" if program == "-c" else program
    return " ".join([program, *sys.argv[1:]])


def _printable(text, limit=160):
    """`text` (any JSON value) on one short line: control characters as spaces."""
    text = text if isinstance(text, str) else excerpt(text)
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text if len(text) <= limit else text[:limit] + "..."

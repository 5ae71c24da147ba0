"""Runs the property-based attacks of ``properties.py``, each in a child process: an input
that crashed the interpreter or hung would otherwise take the whole test run with it.

``TIGRIS_PROPERTY_EXAMPLES`` sets the examples per property (default 200, some fewer for
the slow ones);
``TIGRIS_PROPERTY_EXPLORE=1`` draws new inputs instead of the fixed ones.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NAMES = ("positions", "pending", "records", "actions", "setups", "bot_settings", "hints",
         "prompt_lines", "analysis_files", "selfplay_files", "network_files", "tune_histories", "tune_settings",
         "results_folders", "server_requests", "server_guards")
NAMES += ("lying_results", "nested_input", "file_kinds")


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_property(name):
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    try:
        run = subprocess.run([sys.executable, str(HERE / "properties.py"), name], cwd=HERE,
                             env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{name}: no answer in {e.timeout} s (a hang):\n{(e.stdout or '')[-3000:]}")
    report = (run.stdout + run.stderr)[-6000:]
    if run.returncode < 0:
        pytest.fail(f"{name}: the interpreter died of {signal.Signals(-run.returncode).name}:\n{report}")
    assert run.returncode == 0, report
    assert f"{name}: passed" in run.stdout

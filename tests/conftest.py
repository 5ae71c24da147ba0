"""Shared fixtures: every board side with every combination of variants; a tiny bot file
for the tuning tests; a headless browser for the pages' tests (browsers.py)."""

import pytest

import browsers

BOARDS = ("classic", "advanced")
VARIANT_SETS = ((), ("english",), ("buildings",), ("english", "buildings"))
COMBOS = [dict(board=b, variants=v) for b in BOARDS for v in VARIANT_SETS]


def pytest_collection_modifyitems(items):
    """Every test that drives a browser is marked ``browser``, so the fast loop (``-m "not
    slow and not browser"``) leaves it out without a mark on each."""
    for item in items:
        if item.path.name.endswith("_browser.py") or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def short_connect_timeout(monkeypatch):
    """A dask scheduler that cannot be reached is given up on after 2 s, not 10: for the
    tests of an address nothing answers at (a refused connection is retried until then)."""
    from tigris._plumbing import backends

    monkeypatch.setattr(backends, "CONNECT_TIMEOUT", "2s")


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a test process a core and one more, as the tests wait part of the time
    (on browsers, servers, child processes and schedulers) with their core idle."""
    import os

    return (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1) + 1


def combo_id(combo):
    return "-".join((combo["board"],) + combo["variants"]) if combo["variants"] else combo["board"]


@pytest.fixture(params=COMBOS, ids=[combo_id(c) for c in COMBOS])
def combo(request):
    """Game setup keywords: ``tigris.Game(players=2, seed=1, **combo)``."""
    return request.param


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module, quit at its end (skipped without one, but
    under CI): no browser outlives the module that started it, so the tests that look for
    leftover processes find none."""
    b = browsers.start()
    yield b
    b.quit()


@pytest.fixture
def tiny_bot(tmp_path):
    """A bot file of a tiny ISMCTS (30 iterations, rollouts of 2): the tuning tests' bot,
    quick enough for a few games a test."""
    path = tmp_path / "tiny.toml"
    path.write_text('kind = "ismcts"\niterations = 30\nrollout_depth = 2\nexploration = 0.7\n')
    return str(path)

"""Shared fixtures: every board side with every combination of variants; a headless
browser for the pages' tests (browsers.py)."""

import pytest

import browsers

BOARDS = ("classic", "advanced")
VARIANT_SETS = ((), ("english",), ("buildings",), ("english", "buildings"))
COMBOS = [dict(board=b, variants=v) for b in BOARDS for v in VARIANT_SETS]


def combo_id(combo):
    return "-".join((combo["board"],) + combo["variants"]) if combo["variants"] else combo["board"]


@pytest.fixture(params=COMBOS, ids=[combo_id(c) for c in COMBOS])
def combo(request):
    """Game setup keywords: ``tigris.Game(players=2, seed=1, **combo)``."""
    return request.param


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the test run (skipped without one, but under CI)."""
    b = browsers.start()
    yield b
    b.quit()

"""The one checker of numbers: those a caller hands to the compiled modules (budgets,
seeds, weights) and every numeric knob of ``tigris.knobs``.  Each returns the value as the C side holds it, or raises a
ValueError that starts with the knob's name and quotes at most an excerpt of the value."""

import math
import numbers

from tigris.errors import excerpt

__all__ = ["number", "whole", "within"]


def number(key, value, low, high=math.inf, meaning=None):
    """`value` as a finite float in [low, high]; `meaning`, if given, is said when the
    value is no number at all."""
    said = f" ({meaning})" if meaning else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{key} must be a number{said}, not {excerpt(value)}")
    try:
        v = float(value)
    except OverflowError:                       # an int beyond any double
        v = math.inf
    if not math.isfinite(v):
        raise ValueError(f"{key} must be a finite number{said}, not {excerpt(value)}")
    if not low <= v <= high:
        raise ValueError(f"{key} must be {within(low, high, v)}, not {excerpt(value)}")
    return v


def whole(key, value, low, high, meaning=None):
    """`value` as an int in [low, high] (a bool is not a count); `meaning`, if given, is
    said when the value is no whole number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        said = f" ({meaning})" if meaning else ""
        raise ValueError(f"{key} must be a whole number{said}, not {excerpt(value)}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be {within(low, high, value)}, not {excerpt(value)}")
    return int(value)


def within(low, high, value=None):
    """The range a value outside it must keep to, in words: "between 0 and 1" for a share
    or with no `value`, else the side it crossed (">= 1", "<= 1024": a cap that only
    guards the machine is not worth naming to a value below it); "finite" for (-inf, inf)."""
    if low == -math.inf:
        return "finite" if high == math.inf else f"<= {_bound(high)}"
    if high == math.inf:
        return f">= {_bound(low)}"
    if value is None or (0 <= low and high <= 1):
        return f"between {_bound(low)} and {_bound(high)}"
    return f">= {_bound(low)}" if value < low else f"<= {_bound(high)}"


def _bound(x):
    """A bound as people write it: 1 and 0.5, not 1.0; a whole number in full."""
    return str(x) if isinstance(x, numbers.Integral) else f"{x:g}"

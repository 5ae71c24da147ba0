"""Checks of the numbers a caller hands to the compiled modules (search knobs, budgets,
evaluator weights): each returns the value as the C side holds it, or raises a
ValueError that starts with the knob's name and quotes at most an excerpt of the value."""

import math
import numbers

from tigris.errors import excerpt

__all__ = ["number", "whole", "within"]


def number(key, value, low, high=math.inf):
    """`value` as a finite float in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{key} must be a number, not {excerpt(value)}")
    try:
        v = float(value)
    except OverflowError:                       # an int beyond any double
        v = math.inf
    if not math.isfinite(v):
        raise ValueError(f"{key} must be a finite number, not {excerpt(value)}")
    if not low <= v <= high:
        raise ValueError(f"{key} must be {within(low, high)}, not {excerpt(value)}")
    return v


def whole(key, value, low, high):
    """`value` as an int in [low, high] (a bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{key} must be a whole number, not {excerpt(value)}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be {within(low, high)}, not {excerpt(value)}")
    return int(value)


def within(low, high):
    """A range in words: ">= 0", "<= 5", "between 0 and 1", or "finite" for (-inf, inf)."""
    if low == -math.inf:
        return "finite" if high == math.inf else f"<= {high}"
    return f">= {low}" if high == math.inf else f"between {low} and {high}"

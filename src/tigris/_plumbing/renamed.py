"""Names a module published and then renamed, and records that were dicts: they still
work until ``REMOVED_IN``, each use warning (DeprecationWarning) with the way to use instead.

>>> import sys, types, warnings
>>> m = types.ModuleType("example")
>>> m.new = 1
>>> m.__getattr__ = old_names("example", {"old": "new"})
>>> sys.modules["example"] = m
>>> with warnings.catch_warnings(record=True) as said:
...     warnings.simplefilter("always")
...     m.old
1
>>> str(said[0].message)
'example.old is deprecated: use example.new (removed in tigris 2.2)'
>>> del sys.modules["example"]
"""

import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["REMOVED_IN", "DictReads", "old_names", "warn"]

#: The release that drops the old names.
REMOVED_IN = "2.2"


def warn(old: str, new: str, why: str = "", stacklevel: int = 2) -> None:
    """Warn (DeprecationWarning) that `old` is deprecated and `new` is the way now, with
    `why` (if given) and the release that drops it; `stacklevel` as ``warnings.warn``'s,
    counted from the caller of this function.

    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     warn("f(x=...)", "use f(y=...)", "x was renamed")
    >>> str(said[0].message)
    'f(x=...) is deprecated: use f(y=...) (x was renamed; removed in tigris 2.2)'
    """
    note = f"{why}; " if why else ""
    warnings.warn(f"{old} is deprecated: {new} ({note}removed in tigris {REMOVED_IN})", DeprecationWarning,
                  stacklevel=stacklevel + 1)


def old_names(module: str, renamed: dict[str, str], notes: dict[str, str] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the module named `module` that answers each old name
    of `renamed` ({old: new}) with the new name's object and a DeprecationWarning saying
    the new name (and ``notes[old]``, if given, in brackets after it)."""
    def __getattr__(name: str) -> Any:
        if name not in renamed:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = renamed[name]
        note = f" ({notes[name]})" if notes and name in notes else ""
        warn(f"{module}.{name}", f"use {module}.{new}{note}")
        return getattr(sys.modules[module], new)

    return __getattr__


class DictReads:
    """For a record that was a dict: ``record[key]`` and ``record.get(key)`` read the key of
    the dict it was (``_old_form``: by default its dataclass fields), each with a
    DeprecationWarning saying which attribute to read and why (``_since``); and
    ``Record.of(value)`` takes the dict where a record is wanted (``_from_dict``: by default
    the dataclass fields it has), warning as ``_given`` and ``_instead`` say.  A record is
    never written to.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Point(DictReads):
    ...     x: int
    ...     _since = "points are records since 2.1"
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     Point(3)["x"], Point(3).get("y", 0)
    (3, 0)
    >>> str(said[0].message)
    "Point['x'] is deprecated: read .x (points are records since 2.1; removed in tigris 2.2)"
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     Point.of({"x": 3}), Point.of(Point(4))
    (Point(x=3), Point(x=4))
    >>> str(said[0].message)
    'a Point as a dict is deprecated: give a Point (points are records since 2.1; removed in tigris 2.2)'
    """

    __slots__ = ()
    _since = ""                        # why the dict is a record now, in the warning
    _given = ""                        # what the old form was called ("a task"): the class's name
    _instead = ""                      # what to give instead: a record of the class

    @classmethod
    def of(cls, value: Any) -> Any:
        """`value` as a record of this class: a record is itself, a dict (the old form)
        becomes one with a DeprecationWarning."""
        if not isinstance(value, dict):
            return value
        name = cls.__name__
        warn(f"{cls._given or 'a ' + name} as a dict", cls._instead or f"give a {name}", cls._since,
             stacklevel=3)
        return cls._from_dict(value)

    @classmethod
    def _from_dict(cls, old: Mapping[str, Any]) -> Any:
        """A record of the dict `old`: the dataclass fields it has (the others default)."""
        return cls(**{name: old[name] for name in cls.__dataclass_fields__ if name in old})  # type: ignore[attr-defined]

    def _old_form(self) -> Mapping[str, Any]:
        """The dict this record was (its dataclass fields)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}  # type: ignore[attr-defined]

    def __getitem__(self, key: str) -> Any:
        old = self._old_form()
        if not isinstance(key, str) or key not in old:
            raise KeyError(key)
        warn(f"{type(self).__name__}[{key!r}]", self._read_instead(key), self._since)
        return old[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The key `key` of the dict this record was (deprecated, as ``record[key]``),
        `default` if there is none."""
        old = self._old_form()
        if not isinstance(key, str) or key not in old:
            return default
        warn(f"{type(self).__name__}.get({key!r})", self._read_instead(key), self._since)
        return old[key]

    def _read_instead(self, key: str) -> str:
        fields = self.__dataclass_fields__  # type: ignore[attr-defined]
        return f"read .{key}" if key in fields else "read the attributes"

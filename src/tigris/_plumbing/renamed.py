"""Names a module published and then renamed: they still work until ``REMOVED_IN``, each
use warning (DeprecationWarning) with the name to use instead.

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
from collections.abc import Callable
from typing import Any

__all__ = ["REMOVED_IN", "old_names"]

#: The release that drops the old names.
REMOVED_IN = "2.2"


def old_names(module: str, renamed: dict[str, str], notes: dict[str, str] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the module named `module` that answers each old name
    of `renamed` ({old: new}) with the new name's object and a DeprecationWarning saying
    the new name (and ``notes[old]``, if given, in brackets after it)."""
    def __getattr__(name: str) -> Any:
        if name not in renamed:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = renamed[name]
        note = f" ({notes[name]})" if notes and name in notes else ""
        warnings.warn(f"{module}.{name} is deprecated: use {module}.{new}{note} (removed in tigris {REMOVED_IN})",
                      DeprecationWarning, stacklevel=2)
        return getattr(sys.modules[module], new)

    return __getattr__

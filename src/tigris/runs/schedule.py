"""Deprecated since 2.1, removed in 2.2: ``tigris.play.schedule``, the same module."""

import sys
import warnings

from tigris.play import schedule

warnings.warn("tigris.runs.schedule is deprecated: use tigris.play.schedule (removed in tigris 2.2)",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = schedule      # one module under both names: what patches one patches the other

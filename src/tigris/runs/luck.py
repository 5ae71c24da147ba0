"""Deprecated since 2.1, removed in 2.2: ``tigris.play.luck``, the same module."""

import sys
import warnings

from tigris.play import luck

warnings.warn("tigris.runs.luck is deprecated: use tigris.play.luck (removed in tigris 2.2)",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = luck      # one module under both names: what patches one patches the other

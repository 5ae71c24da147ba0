"""Deprecated since 2.1, removed in 2.2: ``tigris.play.seeds``, the same module."""

import sys
import warnings

from tigris.play import seeds

warnings.warn("tigris.runs.seeds is deprecated: use tigris.play.seeds (removed in tigris 2.2)",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = seeds      # one module under both names: what patches one patches the other

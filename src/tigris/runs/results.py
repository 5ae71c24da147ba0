"""Deprecated since 2.1, removed in 2.2: ``tigris.play.results``, the same module."""

import sys
import warnings

from tigris.play import results

warnings.warn("tigris.runs.results is deprecated: use tigris.play.results (removed in tigris 2.2)",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = results      # one module under both names: what patches one patches the other

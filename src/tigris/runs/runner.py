"""Deprecated since 2.1, removed in 2.2: ``tigris.play.runner``, the same module."""

import sys
import warnings

from tigris.play import runner

warnings.warn("tigris.runs.runner is deprecated: use tigris.play.runner (removed in tigris 2.2)",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = runner      # one module under both names: what patches one patches the other

"""The knobs of each kind of bot, their defaults, and checking them: ``tigris.knobs``
under the name bot code has long imported them by (the table is stated there alone).

>>> from tigris.bots import config
>>> config.defaults("random")
{'seed': 0}
"""

from tigris.knobs import (CHOICES, KINDS, MAX_SECONDS, MAX_TREES, META, RANGES, check, check_value,
                          defaults, is_default_weight)

__all__ = ["CHOICES", "KINDS", "MAX_SECONDS", "MAX_TREES", "META", "RANGES", "check", "check_value",
           "defaults", "is_default_weight"]

"""``python -m tigris``: the tigris command."""

import sys

from tigris.commands import main

sys.exit(main())

"""``python -m tigris``: the tigris command."""

import sys

from tigris.cli import main

sys.exit(main())

"""`python -m hallubench` runs the command line."""

import sys

from .tooling.cli import main

sys.exit(main())

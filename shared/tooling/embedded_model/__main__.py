"""`python -m hallubench.embedded_model`: run the embedded model server (see `serve`)."""

import sys

from .serve import main

sys.exit(main())

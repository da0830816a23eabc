"""`python -m ibsec.cli ...` runs the `ibsec` command."""

import sys

from .main import main

sys.exit(main())

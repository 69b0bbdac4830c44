import sys

from rulepress.cli import main

sys.exit(main())

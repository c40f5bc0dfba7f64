"""`python -m tutorial_pipeline build|verify`: the command line of `cli`."""

from tutorial_pipeline.cli import main

raise SystemExit(main())

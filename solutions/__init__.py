"""Reference solutions to the notebook exercises, one module per chapter (for instructors and tests)."""

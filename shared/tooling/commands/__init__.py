"""Command-line sub-commands, one module each (see `hallubench.cli`)."""

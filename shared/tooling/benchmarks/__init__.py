"""One module per benchmark, each declaring `BENCHMARKS` (see `hallubench.tooling.specs`): the registry."""

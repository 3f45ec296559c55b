"""hallubench: Kaggle Benchmarks tasks that measure where code models mislead their users."""

__version__ = "0.1.0"

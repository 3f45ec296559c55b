"""A loopback fake of the Kaggle API and helpers to drive the real kaggle client against it.

Import with the `tests` folder on `sys.path` (pytest's default for test files directly under
`tests/`): `from support_kaggle.harness import running_fake, run_hallubench`.
"""

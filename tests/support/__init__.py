"""Test support code shared by hallubench's tests (real servers on 127.0.0.1, no mocks).

Import with the `tests` folder on `sys.path` (pytest's default for test files directly under
`tests/`): `from support.openai_stub import OpenAIStub`.
"""

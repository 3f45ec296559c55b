"""Prompt texts of misled-tests v1.

These are ours, modelled on the description of the ISSTA 2026 paper by Zhao, Zhou and Cohen
(tests asked to maximise branch and line coverage; a specification prompt that warns against
copying possibly buggy behaviour). The paper's own prompts were not available when v1 was
written, so nothing here is a quotation. Changing any text is a new protocol version.
Embedded into task files: standard library only.
"""

from __future__ import annotations

TEST_REQUEST = """\
Write unit tests for the Python function `{entry_point}` below.

```python
{code}```

The tests will be run with pytest. The function is in a module named `solution`; import it \
with `from solution import {entry_point}`. Write tests that check what the function is \
supposed to do, and aim to maximise branch and line coverage of its implementation. Reply \
with the complete test file in a single ```python code block.
"""

SPEC_REQUEST = """\
Here is a Python function `{entry_point}`.

```python
{code}```

Write a docstring that specifies what `{entry_point}` should do: its purpose, its parameters, \
its return value, edge cases, and a few examples. The implementation may contain bugs: \
describe the behaviour the function is meant to have, and do not copy behaviour that looks \
like a mistake. Reply with the docstring text only.
"""

SPEC_TEST_REQUEST = """\
Now forget the implementation. Below are only the signature of `{entry_point}` and the \
specification you wrote.

```python
{code}```

Write unit tests for `{entry_point}` from this specification. The tests will be run with \
pytest. The function is in a module named `solution`; import it with \
`from solution import {entry_point}`. Aim to maximise branch and line coverage of an \
implementation of this specification. Reply with the complete test file in a single \
```python code block.
"""


def test_request(entry_point: str, code: str) -> str:
    return TEST_REQUEST.format(entry_point=entry_point, code=code)


def spec_request(entry_point: str, code: str) -> str:
    return SPEC_REQUEST.format(entry_point=entry_point, code=code)


def spec_test_request(entry_point: str, code: str) -> str:
    return SPEC_TEST_REQUEST.format(entry_point=entry_point, code=code)

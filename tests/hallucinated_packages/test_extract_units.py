"""Extractor behaviour that golden answers do not pin down: fallbacks, problems, missing parser."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.hallucinated_packages import extract_js, install_lines
from hallubench.hallucinated_packages.extract_answer import extract_answer, python_local_modules
from hallubench.hallucinated_packages.extract_python import extract_python
from hallubench.hallucinated_packages.install_lines import install_references


def test_python_two_code_falls_back_to_import_lines_and_is_flagged() -> None:
    result = extract_python("print 'x'\nimport foo.bar as fb, baz\nfrom .rel import y\n", line_offset=4)
    assert result.partially_parsed
    assert [(r.text, r.line, r.classification) for r in result.references] == [
        ("foo.bar", 6, "third-party"),
        ("baz", 6, "third-party"),
        (".rel", 7, "local"),
    ]


def test_non_literal_dynamic_import_is_a_problem_not_a_reference() -> None:
    result = extract_python("import importlib\nm = importlib.import_module(name)\nn = __import__('x' + y)\n")
    assert [r.text for r in result.references] == ["importlib"]
    assert len(result.problems) == 2


def test_rebound_alias_gives_no_attribute_chains() -> None:
    result = extract_python("import numpy as np\nnp = object()\nnp.fake_fn()\n")
    assert result.references[0].symbols == ()


def test_chain_depth_is_capped_at_two_links() -> None:
    result = extract_python("import a\na.b.c.d()\n")
    assert result.references[0].symbols == (("b", "c"),)


def test_local_module_names_from_paths_and_packages() -> None:
    text = "Create `src/app/__init__.py`, **app/db.py** and `helpers.py`; do not touch numpy.\n"
    assert python_local_modules(text) >= {"app", "app.db", "helpers"}
    assert "numpy" not in python_local_modules(text)


def test_prose_install_stops_at_english() -> None:
    refs = install_references("Run pip install fastcsv-validator to read the file, then npx tsx index.ts.")
    assert [(r.ecosystem, r.package) for r in refs] == [("pypi", "fastcsv-validator"), ("npm", "tsx")]


def test_conda_and_vcs_installs_are_not_pypi_references() -> None:
    refs = install_references("```\nconda install numpy\npip install git+https://github.com/a/b.git -e .\n```")
    assert refs == []


def test_lang_filter_keeps_one_ecosystem() -> None:
    text = "```python\nimport requests\n```\n```js\nimport x from 'left-pad'\n```\n"
    assert {r.ecosystem for r in extract_answer(text, lang="python").references} == {"pypi"}
    assert {r.ecosystem for r in extract_answer(text, lang="javascript").references} == {"npm"}


def test_bare_code_file_is_read_without_fences() -> None:
    result = extract_answer("const left = require('left-pad');\nconsole.log(left('a', 3));\n")
    assert [(r.ecosystem, r.package) for r in result.references] == [("npm", "left-pad")]


def test_without_tree_sitter_js_is_read_line_by_line_and_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    extract_js._parser.cache_clear()
    monkeypatch.setitem(sys.modules, "tree_sitter", None)  # makes `import tree_sitter` raise ImportError
    try:
        result = extract_answer("```js\nimport x from 'left-pad'\n```\n```python\nimport requests\n```\n")
    finally:
        extract_js._parser.cache_clear()
    assert result.js_parser_unavailable and result.partially_parsed
    assert [(r.package, r.partially_parsed) for r in result.references] == [("left-pad", True), ("requests", False)]
    assert any("tree-sitter" in p for p in result.problems)


def test_prose_only_answer_is_not_read_as_code() -> None:
    result = extract_answer("You need to import the module first; from there import it into your app.\n")
    assert result.references == () and not result.partially_parsed


_OLD_CODE_SPAN = re.compile(r"`+([^`]+)`+")  # what hallucinated-packages v6/v7 use (quadratic on backtick runs)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "```", "pip", " ", "x", "install `y`"]), max_size=30))
def test_inline_code_spans_are_those_of_the_frozen_regex(pieces: list[str]) -> None:
    line = "".join(pieces)
    expected = [(m.start(1), m.end(1)) for m in _OLD_CODE_SPAN.finditer(line)]
    assert install_lines._code_spans(line) == expected

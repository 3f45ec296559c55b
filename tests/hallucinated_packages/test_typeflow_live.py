"""The Done-when cases of issue 21 (Python) on the live PyPI registry: run with `--live`.

The replies are the ones the issue found mis-scored: a method on an annotated parameter, on what
`read_csv` and `requests.get` return, on an untyped parameter in a D01 reply, and `np.float`;
with the controls that were right and must stay so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from hallubench.hallucinated_packages.cases import v7_cases
from hallubench.hallucinated_packages.checker import AnswerCheck, check_answer
from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.scoring import row_verdict, sample_scores
from hallubench.hallucinated_packages.settings import RegistrySettings

pytestmark = pytest.mark.live

D01 = next(c for c in v7_cases(1) if c["prompt_id"] == "D01")


def check(code: str, target: Mapping[str, Any] | None = None) -> dict[str, set[str]]:
    async def go() -> AnswerCheck:
        async with RegistryClient(RegistrySettings()) as client:
            return await check_answer(client, f"```python\n{code}```\n", removed_api=target)

    result = asyncio.run(go())
    out: dict[str, set[str]] = {}
    for verdict in result.verdicts:
        if verdict.level == "symbol":
            out.setdefault(verdict.name, set()).add(f"{verdict.verdict}: {verdict.reason}")
    return out


def verdicts(judged: dict[str, set[str]], name: str) -> set[str]:
    return {v.split(":", 1)[0] for v in judged.get(name, set())}


def test_annotated_parameter_append_is_removed_api() -> None:
    code = "import pandas as pd\n\ndef add(df: pd.DataFrame, row: dict) -> pd.DataFrame:\n    return df.append(row)\n"
    judged = check(code)
    assert verdicts(judged, "pandas.DataFrame<instance>.append") == {"removed-api"}, judged
    assert any("last in pandas 1." in v for v in judged["pandas.DataFrame<instance>.append"])


def test_read_csv_result_append_is_removed_api_chained_and_through_a_variable() -> None:
    code = "import pandas as pd\npd.read_csv('a.csv').append({})\ndf = pd.read_csv('b.csv')\ndf = df.append({})\n"
    judged = check(code)
    assert verdicts(judged, "pandas.read_csv().append") == {"removed-api"}, judged


def test_response_json_body_is_missing_symbol() -> None:
    judged = check("import requests\nrequests.get('https://example.org').json_body()\n")
    assert verdicts(judged, "requests.get().json_body") == {"missing-symbol"}, judged


def test_untyped_append_in_a_d01_reply_is_a_possible_removed_api_use() -> None:
    code = "import pandas as pd\n\ndef add_row(df, row):\n    return df.append(row, ignore_index=True)\n\n"
    code += "frame = add_row(pd.DataFrame(), {'a': 1})\n"

    async def go() -> AnswerCheck:
        async with RegistryClient(RegistrySettings()) as client:
            return await check_answer(client, f"```python\n{code}```\n", removed_api=D01["removed_api"])

    result = asyncio.run(go())
    flagged = [v for v in result.verdicts if v.possible_removed_api]
    assert [v.name for v in flagged] == ["df.append"] and flagged[0].verdict == "unverified"
    verdict, detail = row_verdict(sample_scores(result, D01))
    assert verdict == "unscored" and "possible removed-API use" in detail


def test_np_float_is_removed_api() -> None:
    judged = check("import numpy as np\nx = np.float(3.5)\n")
    assert verdicts(judged, "numpy.float") == {"removed-api"}, judged
    assert any("1.23" in v for v in judged["numpy.float"]), judged


def test_controls_are_unchanged() -> None:
    code = (
        "import numpy as np\nimport pandas as pd\n\nrows = []\nrows.append({'a': 1})\n"
        "frame = pd.concat([pd.DataFrame(rows)])\nvalue = np.float64(2.5)\ndf = {}\ndf.update({})\n"
    )
    judged = check(code)
    assert verdicts(judged, "pandas.concat") == {"found"}
    assert verdicts(judged, "numpy.float64") == {"found"}
    bad = {n: v for n, v in judged.items() if verdicts(judged, n) & {"missing-symbol", "removed-api"}}
    assert not bad, bad

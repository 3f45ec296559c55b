"""The coverage panel's resolution logic offline: small artefacts with the shapes met live.

tests/hallucinated_packages/data/resolver_shapes.toml holds wheels and npm tarballs shaped like numpy (3.12
stub, literal globals() loop), torch (dir() of a stubbed compiled module), pydantic (a lazy
`__getattr__` with `__dir__` returning `__all__`), scipy.stats (a computed `__all__`), pytest
(`mark`, an instance), pandas (item access in `__getattr__`), lodash (UMD JavaScript with an
`export =` declaration augmented across files), Express (a call's result typed across packages
and Node's events), axios (a typed default export), commander (`new Command()`), vue (a re-export
of another package), zod (`export { x as instanceof }`), and two packages nobody can read. Each
symbol goes through the real checker as a model answer, exactly as the live panel does.
"""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from coverage_panel import MISSING, Outcome, measure
from numpy_shape import add_numpy_like
from registry_server import FakeRegistry
from test_checker import populate

from hallubench.hallucinated_packages.registry import RegistryClient

DATA = Path(__file__).resolve().parent / "data" / "resolver_shapes.toml"
SPEC = tomllib.loads(DATA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Outcome]]:
    with FakeRegistry(tmp_path_factory.mktemp("shapes")) as registry:
        populate(registry)
        add_numpy_like(registry)
        for dist in SPEC["dist"]:
            registry.add_wheel(dist["name"], dist["version"], dist["files"], tag=dist.get("tag", "py3-none-any"))
        for pkg in SPEC["pkg"]:
            registry.add_npm(pkg["name"], pkg["version"], pkg["files"], package_json=json.loads(pkg["package_json"]))

        async def go() -> list[Outcome]:
            async with RegistryClient(registry.settings()) as client:
                return await measure(client, {"packages": SPEC["panel"]})

        yield asyncio.run(go())


def _expected(symbol: dict[str, Any]) -> str:
    return str(symbol.get("expect") or ("found" if symbol["real"] else "missing"))


CASES = [(entry, symbol) for entry in SPEC["panel"] for symbol in entry["symbols"]]  # `measure` keeps this order


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{e['package']}:{s['use']}" for e, s in CASES])
def test_each_shape_is_decided_as_expected(outcomes: list[Outcome], index: int) -> None:
    _, symbol = CASES[index]
    outcome = outcomes[index]
    assert outcome.name == symbol["name"]
    got = "missing" if outcome.verdict in MISSING else outcome.verdict
    assert got == _expected(symbol), outcome.reason
    assert outcome.reason, "every verdict says why"


def test_no_wrong_decision_and_every_undecided_name_says_why(outcomes: list[Outcome]) -> None:
    assert [o for o in outcomes if o.wrong] == []
    assert all(o.reason for o in outcomes if not o.decided)

"""Measuring the symbol gate on the coverage panel (tests/hallucinated_packages/data/coverage_panel.json).

Each panel symbol becomes one model-style answer: the install line that pins the package's
version, then the panel's `setup` and `use` lines in one code block. The answer goes through the
real checker, and the symbol verdict named `name` is read. A real symbol must be `found`; an
invented one `missing-symbol`, `missing-submodule` or `missing-subpath`. `removed-api` on an
invented name claims it once existed, so it is a wrong decision too.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hallubench.hallucinated_packages.checker import check_answer
from hallubench.hallucinated_packages.registry import RegistryClient

PANEL = Path(__file__).resolve().parent / "data" / "coverage_panel.json"
MISSING = frozenset({"missing-symbol", "missing-submodule", "missing-subpath"})


@dataclass(frozen=True)
class Outcome:
    ecosystem: str
    package: str
    name: str
    real: bool
    verdict: str
    reason: str

    @property
    def decided(self) -> bool:
        return self.verdict not in ("unverified", "absent")

    @property
    def wrong(self) -> bool:
        if not self.decided:
            return False
        return self.verdict != "found" if self.real else self.verdict not in MISSING


def load_panel(path: Path = PANEL) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def answer_for(entry: dict[str, Any], symbol: dict[str, Any]) -> str:
    """The answer a model could have written: pinned install line, then the code."""
    if entry["ecosystem"] == "pypi":
        install, lang = f"pip install {entry['package']}=={entry['version']}", "python"
    else:
        install, lang = f"npm install {entry['package']}@{entry['version']}", "javascript"
    code = "\n".join(part for part in (entry["setup"], symbol["use"]) if part)
    return f"```bash\n{install}\n```\n\n```{lang}\n{code}\n```\n"


async def measure(client: RegistryClient, panel: dict[str, Any], *, concurrency: int = 6) -> list[Outcome]:
    """Every panel symbol through the checker, on one client (so each artifact is read once)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(entry: dict[str, Any], symbol: dict[str, Any]) -> Outcome:
        async with gate:
            check = await check_answer(client, answer_for(entry, symbol))
        verdicts = [v for v in check.verdicts if v.level == "symbol" and v.name == symbol["name"]]
        if not verdicts:
            seen = ", ".join(f"{v.name}={v.verdict}" for v in check.verdicts if v.level == "symbol")
            reason = f"no symbol verdict named {symbol['name']} (got: {seen or 'none'}); errors: {check.errors}"
            return Outcome(entry["ecosystem"], entry["package"], symbol["name"], symbol["real"], "absent", reason)
        verdict = verdicts[0]
        return Outcome(
            entry["ecosystem"], entry["package"], symbol["name"], symbol["real"], verdict.verdict, verdict.reason
        )

    jobs = [one(entry, symbol) for entry in panel["packages"] for symbol in entry["symbols"]]
    return list(await asyncio.gather(*jobs))


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """Decided share, wrong decisions and every unverified name with its reason, per ecosystem and overall."""

    def part(rows: list[Outcome]) -> dict[str, Any]:
        decided = [o for o in rows if o.decided]
        return {
            "names": len(rows),
            "decided": len(decided),
            "decided_share": len(decided) / len(rows) if rows else None,
            "wrong": [f"{o.name}: {o.verdict} ({o.reason})" for o in rows if o.wrong],
            "unverified": [f"{o.name}: {o.reason}" for o in rows if not o.decided],
        }

    return {
        "overall": part(outcomes),
        "pypi": part([o for o in outcomes if o.ecosystem == "pypi"]),
        "npm": part([o for o in outcomes if o.ecosystem == "npm"]),
    }

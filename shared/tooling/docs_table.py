"""The README's table of benchmarks and protocol versions, rendered from the registry and the lock.

One row per declared protocol version: the benchmark (linked to its `shared/<package>/README.md`),
the protocol id (linked to its task file), the version's title, its cases and whether
`frozen_cases/protocols.lock` holds it. `scripts/render_readme_table.py` writes the table between
the two marker comments in README.md; `tests/test_docs_table.py` fails when README.md holds
another table than the one rendered here, naming that script.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import HallubenchError
from .lockfile import Lock
from .specs import ProtocolSpec, Registry

BEGIN = "<!-- benchmark table: written by scripts/render_readme_table.py from the registry and the lock -->"
END = "<!-- end of the benchmark table -->"
SCRIPT = "scripts/render_readme_table.py"


class MarkersMissing(HallubenchError, ValueError):
    """The text lacks the two marker comments, once each and in order."""


def cases_count(root: Path, spec: ProtocolSpec, lock: Lock) -> int | None:
    """The version's number of cases: the lock's for a frozen version, else its built cases file's, if any."""
    entry = lock.protocols.get(spec.protocol_id)
    if entry is not None:
        return entry.cases
    path = root / spec.cases_path
    if not path.is_file():
        return None
    cases = json.loads(path.read_text(encoding="utf-8"))
    return len(cases) if isinstance(cases, list) else None


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _what(spec: ProtocolSpec) -> str:
    """The title without the `<benchmark> v<N>: ` it opens with (the row already says so)."""
    return spec.title.removeprefix(f"{spec.benchmark} v{spec.version}: ")


def benchmark_table(registry: Registry, lock: Lock, root: Path) -> str:
    """The Markdown table: one row per protocol version, benchmarks in registry order, versions ascending."""
    lines = [
        "| benchmark | protocol | what it is | cases | state |",
        "|---|---|---|---|---|",
    ]
    for benchmark in registry.benchmarks:
        specs = sorted(benchmark.protocols, key=lambda spec: spec.version)
        for index, spec in enumerate(specs):
            name = f"[{benchmark.name}](shared/{benchmark.package}/README.md)" if index == 0 else ""
            protocol = f"[`{spec.protocol_id}`]({spec.task_path})"
            count = cases_count(root, spec, lock)
            state = "frozen" if spec.protocol_id in lock.protocols else "not frozen"
            if index == len(specs) - 1:
                state += ", newest"
            cells = (name, protocol, _cell(_what(spec)), "" if count is None else str(count), state)
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def with_table(text: str, table: str) -> str:
    """`text` with everything between the two markers replaced by `table`."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise MarkersMissing(f"the text needs the marker comments {BEGIN!r} and {END!r}, once each, in this order")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}{END}{tail}"

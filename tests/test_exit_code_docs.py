"""docs/cli.md's exit-code table (per command, in words) and the code's table (`hallubench.tooling.exit_codes`)
say the same: every code the documentation gives a command is one the code table gives that command, and every
command the code table names with a code is documented with it. The two can then differ only in wording."""

from __future__ import annotations

import re
from pathlib import Path

from hallubench.tooling.exit_codes import EVERY_COMMAND, TABLE

ROOT = Path(__file__).resolve().parents[1]
_NOT_COMMANDS = {"the jail worker", "the jail's staging step", "the embedded model server"}


def _numbers(cell: str) -> set[int]:
    found: set[int] = set()
    for part in re.split(r",\s*", cell.strip()):
        if "-" in part:
            low, high = (int(x) for x in part.split("-"))
            found |= set(range(low, high + 1))
        elif part:
            found.add(int(part))
    return found


def _command(cell: str) -> str:
    """`run --html` -> run, `hallumaze ...` -> hallumaze, `check json` -> check: the command the code table names."""
    name = cell.strip().strip("`").strip()
    if name == EVERY_COMMAND:
        return name
    for suffix in (" --html", " ...", " json"):
        name = name.removesuffix(suffix)
    return name


def documented() -> set[tuple[str, int]]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("\n## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    pairs: set[tuple[str, int]] = set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"\d[\d, -]*", cells[1]):
            continue
        for command in cells[0].split(", "):
            for number in _numbers(cells[1]):
                pairs.add((_command(command), number))
    return pairs


def coded() -> set[tuple[str, int]]:
    return {(command, code.number) for code in TABLE for command in code.commands if command not in _NOT_COMMANDS}


def test_the_documentation_reads_its_exit_codes_table() -> None:
    assert len(documented()) > 40


def test_every_documented_code_is_one_the_code_table_gives_that_command() -> None:
    table = coded()
    everyone = {number for command, number in table if command == EVERY_COMMAND}
    missing = sorted(pair for pair in documented() if pair not in table and pair[1] not in everyone)
    assert missing == [], "add these commands to their codes in hallubench.tooling.exit_codes"


def test_every_command_the_code_table_names_is_documented_with_that_code() -> None:
    docs = documented()
    missing = sorted(pair for pair in coded() if pair not in docs and pair[0] != EVERY_COMMAND)
    assert missing == [], "document these in docs/cli.md's exit-code table"

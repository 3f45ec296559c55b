"""Exit codes live in one table (hallubench.tooling.exit_codes): no command keeps numbers of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from hallubench.tooling import exit_codes
from hallubench.tooling.exit_codes import TABLE, exit_code_table_markdown

TOOLING = Path(exit_codes.__file__).resolve().parent
TABLE_MODULE = Path(exit_codes.__file__).resolve()
# Modules still to move onto the table: none left; never add one.
TO_DO: frozenset[str] = frozenset()


def _modules() -> list[Path]:
    return sorted(path for path in TOOLING.rglob("*.py") if path != TABLE_MODULE)


def _relative(path: Path) -> str:
    return path.relative_to(TOOLING).as_posix()


def _own_exit_constants(tree: ast.Module) -> list[str]:
    """Module-level `EXIT_*` names bound to an integer literal (an import from the table binds no literal)."""
    found: list[str] = []
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        literal = isinstance(value, ast.Constant) and type(value.value) is int
        found += [t.id for t in targets if isinstance(t, ast.Name) and t.id.startswith("EXIT_") and literal]
    return found


def _bare_exit_numbers(tree: ast.Module) -> list[int]:
    """Line numbers of `return N` / `sys.exit(N)` / `SystemExit(N)` with a literal N other than 0."""
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            values = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in {"sys.exit", "SystemExit", "exit"}:
            values = node.args[:1]
        else:
            continue
        if any(isinstance(v, ast.Constant) and type(v.value) is int and v.value != 0 for v in values):
            lines.append(node.lineno)
    return lines


def _is_command_module(relative: str) -> bool:
    """Where a return value is a process exit code: the CLI, its commands, benchmark command groups, entry points."""
    return (
        relative == "cli.py"
        or relative.startswith("commands/")
        or relative.endswith("/commands.py")
        or relative in {"jail/worker.py", "jail/stage.py", "embedded_model/serve.py"}
    )


def test_no_tooling_module_defines_its_own_exit_codes() -> None:
    offenders = {}
    for path in _modules():
        relative = _relative(path)
        if relative in TO_DO:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = _own_exit_constants(tree)
        bare = _bare_exit_numbers(tree) if _is_command_module(relative) else []
        if own or bare:
            offenders[relative] = (own, bare)
    assert offenders == {}, "import these codes from hallubench.tooling.exit_codes (constants, bare numbers' lines)"


def test_every_constant_of_the_table_module_is_a_row_of_the_table() -> None:
    constants = {name: value for name, value in vars(exit_codes).items() if name.startswith("EXIT_")}
    rows = {code.name: code.number for code in TABLE}
    assert len(rows) == len(TABLE), "a name is in the table twice"
    assert rows == constants
    for code in TABLE:
        assert code.meaning.strip() and code.commands, f"{code.name} needs a meaning and the commands that give it"


def test_a_number_means_one_thing_per_named_command() -> None:
    seen: dict[tuple[str, int], str] = {}
    for code in TABLE:
        for command in code.commands:
            key = (command, code.number)
            assert key not in seen, f"{command!r} gives {code.number} for both {seen[key]} and {code.name}"
            seen[key] = code.name


def test_the_markdown_table_has_one_row_per_code_in_number_order() -> None:
    lines = exit_code_table_markdown()
    header, rule, *rows = lines
    assert header.count("|") == rule.count("|") == 5
    assert len(rows) == len(TABLE)
    cells = [[cell.strip() for cell in row.replace("\\|", "¦").strip("|").split("|")] for row in rows]
    assert all(len(row) == 4 for row in cells)
    numbers = [int(row[0]) for row in cells]
    assert numbers == sorted(numbers)
    assert {row[1].strip("`") for row in cells} == {code.name for code in TABLE}

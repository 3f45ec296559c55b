"""The command line documents itself: every option has a help text, and docs/cli.md's synopses match `--help`.

A synopsis is a line (in a heading or a code block) that starts with `hallubench <command>`, plus the
indented lines that continue it. Every option a command accepts must appear in its synopses in the
command reference, docs/cli.md, and every option a synopsis names, there or anywhere else in the
documentation (README.md, docs/*.md, shared/**/README.md), must exist, so no page drifts from `--help`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from hallubench.tooling.cli import make_parser

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "cli.md"
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _commands(
    parser: argparse.ArgumentParser, path: tuple[tuple[str, ...], ...] = ()
) -> Iterator[tuple[tuple[tuple[str, ...], ...], argparse.ArgumentParser]]:
    """Every leaf command, once, as the tuple of its words, each word with its aliases (the name first)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if path and not subs:
        yield path, parser
    for action in subs:
        names: dict[int, list[str]] = {}
        parsers: dict[int, argparse.ArgumentParser] = {}
        for name, sub in action.choices.items():  # a command's name comes before its aliases
            names.setdefault(id(sub), []).append(name)
            parsers[id(sub)] = sub
        for key, sub in parsers.items():
            yield from _commands(sub, (*path, tuple(names[key])))


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]


def _named(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def _documents() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "shared").rglob("README.md"))]
    return [path for path in found if path.is_file()]


def _synopses(document: Path = REFERENCE) -> dict[tuple[str, ...], str]:
    """The document's text per command path: each synopsis and the indented lines that continue it."""
    found: dict[tuple[str, ...], str] = {}
    current: tuple[str, ...] | None = None
    for raw in document.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        starts = [m.start() for m in re.finditer(r"(?<![\w/-])hallubench (?=[a-z])", line)]
        if line.startswith("#"):  # a heading names a command only in a code span ("# How hallubench works" does not)
            starts = [start for start in starts if line[start - 1 : start] == "`"]
        if starts and (line.startswith(("#", "hallubench", ".venv/bin/hallubench", "`")) or raw.startswith(" ")):
            for start, end in zip(starts, [*starts[1:], len(line)], strict=True):
                segment = re.split(r"`|\s#\s", line[start:end])[0]  # up to the code span's end or a comment
                words = []
                for word in segment.split()[1:4]:
                    if not re.fullmatch(r"[a-z][a-z-]*", word):
                        break
                    words.append(word)
                current = tuple(words)
                found[current] = found.get(current, "") + " " + segment
        elif current is not None and raw.startswith((" ", "\t")) and line.startswith("["):
            found[current] += " " + line
        else:
            current = None
    return found


def _synopsis_of(path: tuple[tuple[str, ...], ...], synopses: dict[tuple[str, ...], str]) -> str:
    """The synopses of a command, written with its name or any of its aliases."""
    return " ".join(
        text
        for words, text in synopses.items()
        if len(words) >= len(path) and all(word in names for word, names in zip(words, path, strict=False))
    )


def test_every_option_of_every_command_has_a_help_text() -> None:
    missing = [
        f"hallubench {' '.join(names[0] for names in path)} {action.option_strings or action.dest}"
        for path, parser in _commands(make_parser())
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert missing == []


def test_the_reference_synopsis_of_every_command_matches_its_help() -> None:
    synopses = _synopses()
    problems = []
    for path, parser in _commands(make_parser()):
        text = _synopsis_of(path, synopses)
        name = "hallubench " + " ".join(names[0] for names in path)
        if not text:
            problems.append(f"{name}: no synopsis in docs/cli.md")
            continue
        for action in _actions(parser):
            if not any(_named(text, option) for option in action.option_strings):
                problems.append(f"{name}: {'/'.join(action.option_strings)} is missing from docs/cli.md")
    assert problems == []


def test_no_synopsis_in_the_documentation_names_an_option_its_command_lacks() -> None:
    commands = list(_commands(make_parser()))
    problems = []
    for document in _documents():
        for words, text in _synopses(document).items():
            matched = [
                parser
                for path, parser in commands
                if all(word in names for word, names in zip(words, path, strict=False))
            ]
            where = f"{document.relative_to(ROOT)}: hallubench {' '.join(words)}"
            if not matched:
                problems.append(f"{where}: no such command")
                continue
            accepted = {"--help"} | {option for parser in matched for option in _actions_options(parser)}
            for option in sorted(set(OPTION.findall(text)) - accepted):
                problems.append(f"{where}: names {option}, which it does not accept")
    assert problems == []


def _actions_options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in _actions(parser) for option in action.option_strings}

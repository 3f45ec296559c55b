"""Packages an answer tells the user to install: shell commands, requirements files, manifests.

These matter twice: a hallucinated name in `pip install` is exactly what a slopsquatter
registers, and a declared distribution (`pip install mt940==0.8.1`) decides which artifact an
`import mt940` is checked against. Covered: pip, pip3, `python -m pip`, `uv pip`, `uv add`,
poetry/pdm/rye add, pipx, notebook `%pip`/`!pip`; npm i/install/add, yarn add, pnpm add,
bun add, npx/bunx/pnpm dlx, `npm create`; requirements.txt, pyproject.toml and package.json
blocks. `conda install` is not PyPI and is ignored. URLs, VCS links, paths, wheels and option
values are skipped. Embedded: standard library only.
"""

from __future__ import annotations

import bisect
import json
import re
import shlex
from collections.abc import Collection, Iterator

from .names import is_valid_npm_name, is_valid_pypi_name, split_npm_specifier
from .references import Reference

_PY_COMMAND = (
    r"(?:python(?:3(?:\.\d+)?)?\s+-m\s+pip|uv\s+pip|pip3?(?:\.\d+)?)\s+install"
    r"|(?:uv|poetry|pdm|rye)\s+add|uv\s+tool\s+install|pipx\s+(?:install|run)"
)
_NPM_COMMAND = (
    r"npm\s+(?:i|install|add|in)|yarn\s+(?:global\s+)?add|pnpm\s+(?:add|i|install)"
    r"|bun\s+(?:add|a|install|i)|npx|bunx|pnpm\s+dlx|yarn\s+dlx|npm\s+(?:create|init)"
)
_COMMAND = re.compile(rf"(?<![\w./-])(?P<py>{_PY_COMMAND})(?![\w-])|(?<![\w./-])(?P<npm>{_NPM_COMMAND})(?![\w-])")
_SEGMENT_END = re.compile(r"&&|\|\||[;|`]|\s#|\)\s*$")
_PIP_VALUE_OPTIONS = frozenset(
    [
        "-r",
        "--requirement",
        "-c",
        "--constraint",
        "-e",
        "--editable",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "-t",
        "--target",
        "--prefix",
        "--root",
        "--python",
        "-p",
        "--trusted-host",
        "--platform",
        "--python-version",
        "--only-binary",
        "--no-binary",
        "--upgrade-strategy",
        "--src",
        "--cache-dir",
        "--group",
        "-G",
        "--source",
        "-E",
        "--extras",
        "--with",
        "--spec",
        "--implementation",
        "--abi",
        "--progress-bar",
        "--log",
        "--timeout",
        "--retries",
        "--proxy",
        "--index",
        "--default-index",
    ]
)
_NPM_VALUE_OPTIONS = frozenset(
    ["--registry", "--prefix", "-w", "--workspace", "--filter", "-C", "--dir", "--cwd", "-p", "--package"]
)
_PROSE_STOP = frozenset(
    [
        "to",
        "and",
        "or",
        "then",
        "for",
        "with",
        "the",
        "if",
        "in",
        "on",
        "first",
        "which",
        "it",
        "this",
        "you",
        "from",
        "into",
        "using",
        "via",
        "as",
        "package",
        "packages",
        "library",
        "libraries",
        "module",
        "command",
        "run",
        "is",
        "are",
        "will",
        "that",
        "also",
    ]
)
_REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*"
    r"(?P<spec>(?:===|==|~=|!=|<=|>=|<|>)\s*[^;,\s]+(?:\s*,\s*(?:===|==|~=|!=|<=|>=|<|>)\s*[^;,\s]+)*)?"
    r"\s*(?:;.*)?$"
)
_EXACT_PIN = re.compile(r"^===?\s*(?P<version>[0-9][0-9A-Za-z.+!-]*)$")
_NPM_EXACT = re.compile(r"^=?v?(?P<version>\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)$")
_NON_REGISTRY = re.compile(r"://|^(?:git\+|git@|github:|gitlab:|bitbucket:|file:|link:|workspace:|portal:)")


def _tight(line: str) -> str:
    """A requirement line with the spaces around operators removed (`numpy >= 1.2` -> `numpy>=1.2`)."""
    return re.sub(r"\s*(===|==|~=|!=|<=|>=|<|>|;|,|\[|\])\s*", r"\1", line.strip())


def _tokens(segment: str) -> list[str]:
    try:
        return shlex.split(segment, posix=True)
    except ValueError:
        return segment.split()


def _pip_token(token: str) -> tuple[str, str | None] | None:
    """(name, exact version or None) for one requirement token, None when it is not a PyPI name."""
    if _NON_REGISTRY.search(token) or token.startswith((".", "/", "~", "$", "<", "{")):
        return None
    if token.endswith((".whl", ".tar.gz", ".zip", ".txt", ".toml", ".cfg")) or "/" in token or "\\" in token:
        return None
    if "@" in token and "==" not in token:  # poetry/uv style `name@^1.2` or `name@1.2.3`
        name, _, constraint = token.partition("@")
        pin = _EXACT_PIN.match("==" + constraint) if re.match(r"^[0-9]", constraint) else None
        return (name, pin.group("version") if pin else None) if is_valid_pypi_name(name) else None
    match = _REQUIREMENT.match(token)
    if not match:
        return None
    spec = (match.group("spec") or "").replace(" ", "")
    pin = _EXACT_PIN.match(spec) if spec and "," not in spec else None
    return match.group("name"), (pin.group("version") if pin and "*" not in spec else None)


def _npm_token(token: str) -> tuple[str, str | None] | None:
    """(package, exact version or None) for one npm install argument."""
    if _NON_REGISTRY.search(token) or token.startswith((".", "/", "~", "$", "<", "{", "#")):
        return None
    if token.endswith((".tgz", ".tar.gz")):
        return None
    name, version = token, None
    at = token.find("@", 1)
    if at > 0:
        name, version = token[:at], token[at + 1 :]
        if version.startswith("npm:"):  # alias@npm:real@1.2.3
            return _npm_token(version[len("npm:") :])
    if not name.startswith("@") and "/" in name:  # `user/repo` is a GitHub shorthand
        return None
    if not is_valid_npm_name(name):
        return None
    exact = _NPM_EXACT.match(version) if version else None
    return name, (exact.group("version") if exact else None)


def _create_package(argument: str) -> str:
    """`npm create vite@latest` runs `create-vite`; `npm init @scope` runs `@scope/create`."""
    at = argument.find("@", 1)
    name = argument[:at] if at > 0 else argument
    if name.startswith("@"):
        scope, _, rest = name.partition("/")
        return f"{scope}/create-{rest}" if rest else f"{scope}/create"
    return f"create-{name}"


def _arguments(tokens: list[str], value_options: Collection[str], in_prose: bool) -> Iterator[str]:
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
            continue
        if token.startswith("-"):
            skip_next = token in value_options
            continue
        word = token.rstrip(".,:;)!?'\"")
        if in_prose and (word.lower() in _PROSE_STOP or not word):
            return
        yield word
        if in_prose and word != token:
            return


_BACKTICKS = re.compile(r"`+")


def _code_spans(line: str) -> list[tuple[int, int]]:
    """Character ranges of inline `code` spans in one line of prose, in one pass.

    The same spans as the frozen regex r"`+([^`]+)`+": backtick runs are maximal, so the text
    between run 1 and run 2 is a span, run 2 closes it, and the next span opens at run 3. The
    regex retried every backtick of a run that never closed (a line of backticks was quadratic,
    and so was a possessive version of it: the engine still restarts at each position).
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    return [(runs[i][1], runs[i + 1][0]) for i in range(0, len(runs) - 1, 2)]


def install_references(text: str, *, code_lines: Collection[int] = ()) -> list[Reference]:
    """Every install command in the answer; `code_lines` (1-based) are lines inside fenced blocks."""
    references: list[Reference] = []
    for number, line in enumerate(text.splitlines(), start=1):
        spans = _code_spans(line)
        span_starts = [a for a, _ in spans]
        commands = list(_COMMAND.finditer(line))
        for index, match in enumerate(commands):
            in_code = number in code_lines or _inside(spans, span_starts, match.start())
            # A command's arguments stop at a shell separator or at the next install command: a line
            # repeating `pip install` would otherwise re-read the rest of the line once per command.
            stop = commands[index + 1].start() if index + 1 < len(commands) else len(line)
            rest = line[match.end() : stop]
            end = _SEGMENT_END.search(rest)
            segment = rest[: end.start()] if end else rest
            tokens = _tokens(segment)
            if match.group("py"):
                references.extend(_python_installs(match.group("py"), tokens, number, not in_code))
            else:
                references.extend(_npm_installs(match.group("npm"), tokens, number, not in_code))
    return references


def _inside(spans: list[tuple[int, int]], starts: list[int], position: int) -> bool:
    """Is `position` inside one of the sorted, disjoint `spans` (a binary search, not a scan per command)?"""
    index = bisect.bisect_right(starts, position) - 1
    return index >= 0 and spans[index][0] <= position < spans[index][1]


def _python_installs(command: str, tokens: list[str], line: int, in_prose: bool) -> Iterator[Reference]:
    arguments = list(_arguments(tokens, _PIP_VALUE_OPTIONS, in_prose))
    if command.startswith("pipx run"):
        arguments = arguments[:1]
    for argument in arguments:
        parsed = _pip_token(argument)
        if parsed is None:
            continue
        name, version = parsed
        yield Reference(ecosystem="pypi", source="install", text=argument, package=name, version=version, line=line)


def _npm_installs(command: str, tokens: list[str], line: int, in_prose: bool) -> Iterator[Reference]:
    arguments = list(_arguments(tokens, _NPM_VALUE_OPTIONS, in_prose))
    runs_one = command.split()[0] in ("npx", "bunx") or command.endswith("dlx")
    if command.startswith("npm") and command.split()[-1] in ("create", "init"):
        arguments = [_create_package(arguments[0])] if arguments else []
    elif runs_one:
        arguments = arguments[:1]
    for argument in arguments:
        parsed = _npm_token(argument)
        if parsed is None:
            continue
        name, version = parsed
        yield Reference(ecosystem="npm", source="install", text=argument, package=name, version=version, line=line)


def requirements_references(code: str, *, line_offset: int = 0) -> list[Reference]:
    """Lines of a requirements.txt block (options, URLs, paths and `name @ url` skipped)."""
    references: list[Reference] = []
    for number, raw in enumerate(code.splitlines(), start=1):
        line = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
        if not line or line.startswith("-") or " @ " in line:
            continue
        parsed = _pip_token(_tight(line.split(";")[0]))
        if parsed is None:
            continue
        name, version = parsed
        references.append(
            Reference(
                ecosystem="pypi",
                source="requirement",
                text=line,
                package=name,
                version=version,
                line=number + line_offset,
            )
        )
    return references


def looks_like_requirements(code: str) -> bool:
    """A block whose every line is a requirement with at least one version operator."""
    lines = [ln.strip() for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if not lines:
        return False
    pinned = 0
    for line in lines:
        match = _REQUIREMENT.match(_tight(line.split(";")[0]))
        if not match:
            return False
        pinned += bool(match.group("spec"))
    return pinned > 0


def _line_of(code: str, needle: str) -> int | None:
    for number, line in enumerate(code.splitlines(), start=1):
        if needle in line:
            return number
    return None


def _lenient_json(code: str) -> object:
    try:
        return json.loads(code)
    except ValueError:
        stripped = re.sub(r"^\s*//.*$", "", code, flags=re.MULTILINE)
        stripped = re.sub(r",(\s*[}\]])", r"\1", stripped)
        return json.loads(stripped)


def package_json_references(code: str, *, line_offset: int = 0) -> list[Reference]:
    """Dependencies of a package.json block; empty when the block is not one."""
    try:
        data = _lenient_json(code)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    references: list[Reference] = []
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        deps = data.get(key)
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            spec_text = str(spec)
            if _NON_REGISTRY.search(spec_text) or spec_text.startswith((".", "/")):
                continue
            package = str(name)
            if spec_text.startswith("npm:"):
                parsed = _npm_token(spec_text[len("npm:") :])
                if parsed is None:
                    continue
                package, version = parsed
            else:
                exact = _NPM_EXACT.match(spec_text)
                version = exact.group("version") if exact else None
            if not is_valid_npm_name(package):
                continue
            line = _line_of(code, f'"{name}"')
            references.append(
                Reference(
                    ecosystem="npm",
                    source="package-json",
                    text=str(name),
                    package=split_npm_specifier(package)[0],
                    version=version,
                    line=None if line is None else line + line_offset,
                )
            )
    return references


def pyproject_references(code: str, *, line_offset: int = 0) -> list[Reference]:
    """`[project] dependencies` and `[tool.poetry.dependencies]` of a pyproject.toml block."""
    import tomllib  # stdlib since 3.11; imported here so older hosts only lose this block kind

    try:
        data = tomllib.loads(code)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    requirement_lines: list[str] = []
    project = data.get("project")
    if isinstance(project, dict):
        requirement_lines += [str(r) for r in project.get("dependencies", []) or []]
        for extra in (project.get("optional-dependencies") or {}).values():
            requirement_lines += [str(r) for r in extra or []]
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(poetry, dict):
        for name, spec in (poetry.get("dependencies") or {}).items():
            if str(name).lower() != "python":
                pin = spec if isinstance(spec, str) and re.match(r"^\d", spec) else None
                requirement_lines.append(f"{name}=={pin}" if pin else str(name))
    references: list[Reference] = []
    for requirement in requirement_lines:
        for reference in requirements_references(requirement):
            line = _line_of(code, reference.package)
            references.append(reference.with_changes(line=None if line is None else line + line_offset))
    return references

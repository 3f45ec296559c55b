"""Name normal forms used by PyPI and npm, and the ones the decoy matcher needs.

PyPI compares projects by their PEP 503 form and refuses new names whose *ultranormalized*
form collides with an existing one; npm refuses new unscoped names that equal an existing one
once `.`, `-` and `_` are removed. A planted decoy must be caught in every form a model could
spell it in, so the matcher compares these forms rather than raw strings. Embedded: stdlib only
(`packaging` is deliberately not imported: task files may import only stdlib, numpy and httpx).
"""

from __future__ import annotations

import re

_PEP503 = re.compile(r"[-_.]+")
_PYPI_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
_NPM_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$", re.IGNORECASE)


def canonical_pypi(name: str) -> str:
    """PEP 503 normal form: runs of `-_.` become one `-`, lower case."""
    return _PEP503.sub("-", name).lower()


def squashed(name: str) -> str:
    """Lower case with every `-`, `_`, `.` and `/` removed (npm's collision rule, and more)."""
    return re.sub(r"[-_./@]", "", name.lower())


def ultranormalized(name: str) -> str:
    """PyPI's collision key: squashed, then l/i -> 1 and o -> 0."""
    return squashed(name).translate(str.maketrans("lio", "110"))


def is_valid_pypi_name(name: str) -> bool:
    """PEP 508 project-name syntax (a registry would 404 anything else without meaning 'missing')."""
    return bool(_PYPI_NAME.match(name))


def is_valid_npm_name(name: str) -> bool:
    """npm package-name syntax, lenient about legacy upper case (`JSONStream` exists)."""
    return len(name) <= 214 and bool(_NPM_NAME.match(name))


def split_npm_specifier(specifier: str) -> tuple[str, str | None]:
    """`@scope/pkg/sub/path` -> (`@scope/pkg`, `sub/path`); `lodash/fp` -> (`lodash`, `fp`)."""
    parts = specifier.split("/")
    if specifier.startswith("@"):
        package, rest = "/".join(parts[:2]), parts[2:]
    else:
        package, rest = parts[0], parts[1:]
    return package, ("/".join(rest) or None)

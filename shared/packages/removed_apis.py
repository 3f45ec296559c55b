"""Well-known APIs that a current release removed: a curated fallback for the symbol gates.

The Python symbol gate finds most removals itself by reading an older release, but some
removed names cannot be seen in any published artifact's export list: methods on objects
built by a call (`const app = express(); app.del(...)`) and instance methods reached through
a variable (`df.append`). For those, this table says when the name went away, so the checker
can say `removed-api` when the version in use is at or past the removal, and otherwise leaves
the verdict unverified. Each entry cites the project's own migration notes. Embedded: stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RemovedApi:
    ecosystem: str
    package: str
    chain: tuple[str, ...]
    removed_in: str
    replacement: str
    source: str


REMOVED_APIS: tuple[RemovedApi, ...] = (
    RemovedApi(
        "npm",
        "express",
        ("()", "del"),
        "5.0.0",
        "app.delete",
        "expressjs.com/en/guide/migrating-5.html (app.del removed)",
    ),
    RemovedApi(
        "npm",
        "express",
        ("()", "param"),
        "5.0.0",
        "router.param / middleware",
        "expressjs.com/en/guide/migrating-5.html (app.param(fn) signature removed)",
    ),
    RemovedApi(
        "pypi",
        "pandas",
        ("DataFrame", "append"),
        "2.0",
        "pandas.concat",
        "pandas 2.0.0 release notes, 'Removal of prior version deprecations'",
    ),
    RemovedApi(
        "pypi",
        "pandas",
        ("Series", "append"),
        "2.0",
        "pandas.concat",
        "pandas 2.0.0 release notes, 'Removal of prior version deprecations'",
    ),
    RemovedApi(
        "pypi",
        "pandas",
        ("Series", "iteritems"),
        "2.0",
        "Series.items",
        "pandas 2.0.0 release notes, 'Removal of prior version deprecations'",
    ),
    RemovedApi(
        "pypi",
        "pandas",
        ("DataFrame", "iteritems"),
        "2.0",
        "DataFrame.items",
        "pandas 2.0.0 release notes, 'Removal of prior version deprecations'",
    ),
    RemovedApi("pypi", "flask", ("Markup",), "3.0", "markupsafe.Markup", "Flask 3.0.0 changelog"),
    RemovedApi("pypi", "flask", ("escape",), "3.0", "markupsafe.escape", "Flask 3.0.0 changelog"),
)


def version_tuple(version: str) -> tuple[int, ...]:
    """Leading numeric release segments: `5.1.0` -> (5, 1, 0); `2.0rc1` -> (2, 0)."""
    match = re.match(r"^v?(\d+(?:\.\d+)*)", version.strip())
    return tuple(int(p) for p in match.group(1).split(".")) if match else ()


def lookup(ecosystem: str, package: str, chain: tuple[str, ...]) -> RemovedApi | None:
    """The table entry for (ecosystem, package, chain), package compared case-insensitively."""
    for entry in REMOVED_APIS:
        if entry.ecosystem == ecosystem and entry.package == package.lower() and entry.chain == chain:
            return entry
    return None


def removed_at(entry: RemovedApi, version: str | None) -> bool | None:
    """True when `version` is at or past the removal, False before it, None when unknown."""
    if not version:
        return None
    have, cut = version_tuple(version), version_tuple(entry.removed_in)
    if not have:
        return None
    return have >= cut

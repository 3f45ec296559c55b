"""Write README.md's table of benchmarks and protocol versions from the registry and the lock.

The table sits between two marker comments in README.md (`hallubench.tooling.docs_table`): one row per
protocol version the checkout declares, with its title, cases and frozen state. Run it after declaring,
building or freezing a version; `tests/test_docs_table.py` fails while the README holds another table.

    .venv/bin/python scripts/render_readme_table.py           # rewrite the table in README.md
    .venv/bin/python scripts/render_readme_table.py --check   # write nothing; exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hallubench.tooling.docs_table import MarkersMissing, benchmark_table, with_table
from hallubench.tooling.lockfile import read_lock
from hallubench.tooling.specs import load_registry

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when README.md's table is stale")
    args = parser.parse_args(argv)
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    try:
        wanted = with_table(text, benchmark_table(load_registry(ROOT), read_lock(ROOT), ROOT))
    except MarkersMissing as error:
        print(f"error: README.md: {error}", file=sys.stderr)
        return 2
    if wanted == text:
        print("README.md: the benchmark table is up to date")
        return 0
    if args.check:
        print("README.md: the benchmark table is stale (run `.venv/bin/python scripts/render_readme_table.py`)")
        return 1
    readme.write_text(wanted, encoding="utf-8")
    print("README.md: benchmark table written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

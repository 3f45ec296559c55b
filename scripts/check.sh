#!/usr/bin/env bash
# Installs everything (scripts/bootstrap.sh) and runs every check CI runs: lint, types,
# stale task files, frozen hashes, then the whole test suite (live-registry tests stay off).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy --strict shared/"; .venv/bin/mypy
echo "== hallubench build --check"; .venv/bin/hallubench build --check
echo "== hallubench verify"; .venv/bin/hallubench verify
echo "== pytest"; .venv/bin/python -m pytest -q -p no:cacheprovider "$@"

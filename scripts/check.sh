#!/usr/bin/env bash
# Installs everything (scripts/system-packages.sh, scripts/bootstrap.sh) and runs every check CI runs: lint, types,
# stale task files, frozen hashes, then the whole test suite (live-registry tests stay off).
set -euo pipefail
cd "$(dirname "$0")/.."
# The Debian packages the jail and the browser tests need (as root it installs them; otherwise it names them).
./scripts/system-packages.sh
./scripts/bootstrap.sh
# HumanEvalPack is never committed: CI and tests use the verified copy beside the checkout when there is one.
if [ -z "${HALLUBENCH_HUMANEVALPACK:-}" ] && [ -f ../shared/data/humanevalpack/humanevalpack.jsonl ]; then
  export HALLUBENCH_HUMANEVALPACK="$PWD/../shared/data/humanevalpack/humanevalpack.jsonl"
fi
echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy --strict shared/"; .venv/bin/mypy
echo "== hallubench build --check"; .venv/bin/hallubench build --check
# verify proves each freeze from the history of main, which a shallow clone lacks: fetch it when possible
if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = "true" ]; then
  git fetch --quiet --unshallow || echo "warning: could not fetch the full history; verify will say what is missing"
fi
echo "== hallubench verify"; .venv/bin/hallubench verify
echo "== pytest"; .venv/bin/python -m pytest -q -p no:cacheprovider "$@"

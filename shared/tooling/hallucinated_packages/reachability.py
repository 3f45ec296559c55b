"""Whether the registries a hallucinated-packages run or gate would ask answer at all, asked once up front.

Without them every lookup is `unverified` and the decoy gate cannot show a planted name missing, which
the frozen task files report as "DecoyCompromised: decoy gate failed": words for an attack, not for a
network outage. One request per registry (any HTTP answer, even an error status, shows it reachable)
lets `run` and `packages gate` say "registries unreachable" and stop before anything is decided.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from ...hallucinated_packages.protocol import registry_settings, settings_from_options
from ...hallucinated_packages.settings import RegistrySettings

PROBE_TIMEOUT_S = 8.0


def settings_for(options: Mapping[str, str]) -> RegistrySettings:
    """The settings a run uses: its `pypi_url`/`npm_url` options (v8 on), else the environment (v6, v7)."""
    if "pypi_url" in options and "npm_url" in options:
        return settings_from_options(options)
    return registry_settings()


def unreachable_registries(settings: RegistrySettings, timeout_s: float = PROBE_TIMEOUT_S) -> list[str]:
    """One `"<name> <url>: <what happened>"` per registry that gave no HTTP answer."""
    found: list[str] = []
    with httpx.Client(timeout=timeout_s, follow_redirects=False, headers={"User-Agent": settings.user_agent}) as http:
        for name, url in (("PyPI", settings.pypi_json_url), ("npm", settings.npm_url)):
            try:
                http.head(url)
            except httpx.HTTPError as exc:
                found.append(f"{name} {url}: {type(exc).__name__}: {exc}".rstrip(": "))
    return found


def run_reachability(options: Mapping[str, str]) -> list[str]:
    """The `reachability` hook: registries a run with these options could not reach."""
    return unreachable_registries(settings_for(options))

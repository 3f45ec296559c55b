"""Reach the Kaggle API through the real kaggle 2.2.5 client, with clear credential errors.

Three things about that client shape this module:

* `import kaggle` authenticates a module-level client at import time: it prints the
  "Authentication required" help when nothing is configured and, when a token is set, calls
  the token-introspection endpoint of production Kaggle. We never use that instance, so we
  look for credentials ourselves first (files and environment only, no network) and import
  the package with stdout muted and its HTTP calls sent to a closed loopback port.
* `KaggleApi.build_kaggle_client` always asks kagglesdk for the PROD endpoint (only
  `KAGGLE_API_ENVIRONMENT=LOCALHOST`, read once at import, changes that), although kagglesdk
  itself honours `KAGGLE_API_ENVIRONMENT` (`TEST` is `http://localhost:7777`). Our subclass
  lets kagglesdk choose, so the same push/download code can be pointed at a loopback fake.
  With the variable unset both choose production.
* The benchmark commands (`benchmarks_tasks_push_cli`, `benchmarks_tasks_download_cli`) are
  used unchanged, so `hallubench push`/`download` behave like `kaggle b t push`/`download`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import HallubenchError

CREDENTIALS_HELP = (
    "Set up Kaggle credentials in one of these ways:\n"
    "  - the KAGGLE_API_TOKEN environment variable (a token from https://www.kaggle.com/settings/api,\n"
    "    or the path of a file holding it)\n"
    "  - the file ~/.kaggle/access_token holding that token\n"
    '  - the legacy ~/.kaggle/kaggle.json ({"username": ..., "key": ...}),\n'
    "    or KAGGLE_USERNAME and KAGGLE_KEY in the environment\n"
    "  - OAuth: run `kaggle auth login` (writes ~/.kaggle/credentials.json)"
)

_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
_NO_PROXY_VARIABLES = ("NO_PROXY", "no_proxy")


class KaggleAccessError(HallubenchError):
    """The Kaggle API cannot be used: missing or rejected credentials, or the client is absent."""


@dataclass(frozen=True)
class CredentialSource:
    """Where the credentials the client will use come from (for messages, never the secret)."""

    kind: str
    where: str


def _non_empty_file(path: Path) -> bool:
    try:
        return path.is_file() and bool(path.read_text(encoding="utf-8").strip())
    except OSError:
        return False


def _legacy_key_file(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("username")) and bool(data.get("key"))


def _config_dir(env: Mapping[str, str], home: Path) -> Path:
    """The directory kaggle 2.2.5 reads kaggle.json from (`KaggleApi.config_dir`)."""
    explicit = env.get("KAGGLE_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    legacy = home / ".kaggle"
    if sys.platform.startswith("linux") and not legacy.exists():
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "kaggle"
    return legacy


def find_credentials(env: Mapping[str, str] | None = None, home: Path | None = None) -> CredentialSource | None:
    """The first credential source kaggle 2.2.5 would use, found without any network call."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    token = env.get("KAGGLE_API_TOKEN")
    if token:
        if Path(token).exists():
            if _non_empty_file(Path(token)):
                return CredentialSource("access token", f"file named by KAGGLE_API_TOKEN ({token})")
        else:
            return CredentialSource("access token", "KAGGLE_API_TOKEN environment variable")
    for name in ("access_token", "access_token.txt"):
        if _non_empty_file(home / ".kaggle" / name):
            return CredentialSource("access token", str(home / ".kaggle" / name))
    if env.get("KAGGLE_USERNAME") and env.get("KAGGLE_KEY"):
        return CredentialSource("legacy API key", "KAGGLE_USERNAME and KAGGLE_KEY environment variables")
    key_file = _config_dir(env, home) / "kaggle.json"
    if _legacy_key_file(key_file):
        return CredentialSource("legacy API key", str(key_file))
    oauth_file = home / ".kaggle" / "credentials.json"
    if _non_empty_file(oauth_file):
        return CredentialSource("OAuth credentials", str(oauth_file))
    return None


@contextlib.contextmanager
def _no_network_and_quiet() -> Iterator[None]:
    """Mute stdout and send every HTTP(S) request to a loopback port that refuses connections."""
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    closed.bind(("127.0.0.1", 0))  # bound but never listening: connections are refused at once
    sinkhole = f"http://127.0.0.1:{closed.getsockname()[1]}"
    saved = {name: os.environ.get(name) for name in _PROXY_VARIABLES + _NO_PROXY_VARIABLES}
    try:
        for name in _NO_PROXY_VARIABLES:
            os.environ.pop(name, None)
        for name in _PROXY_VARIABLES:
            os.environ[name] = sinkhole
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        closed.close()


def _import_kaggle_api_class() -> type[Any]:
    try:
        with _no_network_and_quiet():
            from kaggle.api.kaggle_api_extended import KaggleApi
    except ImportError as error:
        raise KaggleAccessError(
            f"the kaggle client is not installed ({error}); install it with: pip install 'hallubench[kaggle]'"
        ) from error
    return KaggleApi  # type: ignore[no-any-return]


def api_endpoint() -> str:
    """The Kaggle API endpoint kagglesdk picks from `KAGGLE_API_ENVIRONMENT`."""
    from kagglesdk.kaggle_env import get_endpoint, get_env  # type: ignore[import-untyped]

    return str(get_endpoint(get_env()))


def connect() -> Any:
    """An authenticated `KaggleApi` whose HTTP client honours `KAGGLE_API_ENVIRONMENT`.

    Raises `KaggleAccessError` with a message naming what is missing or what was rejected.
    """
    source = find_credentials()
    if source is None:
        raise KaggleAccessError(f"no Kaggle credentials found.\n{CREDENTIALS_HELP}")
    kaggle_api_class = _import_kaggle_api_class()
    from kagglesdk import KaggleClient  # type: ignore[import-untyped]
    from kagglesdk.kaggle_env import get_env
    from requests import HTTPError, RequestException

    class EnvironmentRoutedKaggleApi(kaggle_api_class):  # type: ignore[misc, valid-type]
        """`KaggleApi` whose client endpoint follows `KAGGLE_API_ENVIRONMENT` (see module doc)."""

        def build_kaggle_client(self) -> Any:
            return KaggleClient(
                env=get_env(),
                verbose="--verbose" in self.args,
                username=self.config_values.get(self.CONFIG_NAME_USER),
                password=self.config_values.get(self.CONFIG_NAME_KEY),
                api_token=self.config_values.get(self.CONFIG_NAME_TOKEN),
                response_processor=self.get_response_processor(),
            )

    api = EnvironmentRoutedKaggleApi()
    help_text = io.StringIO()
    try:
        with contextlib.redirect_stdout(help_text):
            api.authenticate()
    except SystemExit as error:
        raise KaggleAccessError(
            f"Kaggle did not accept the {source.kind} from {source.where}.\n{CREDENTIALS_HELP}"
        ) from error
    except HTTPError as error:
        status = error.response.status_code if error.response is not None else None
        verdict = "did not accept" if status in (401, 403) else "could not check"
        raise KaggleAccessError(
            f"Kaggle {verdict} the {source.kind} from {source.where} (HTTP {status} from "
            f"{api_endpoint()}: {error}).\n{CREDENTIALS_HELP}"
        ) from error
    except RequestException as error:
        raise KaggleAccessError(
            f"could not check the {source.kind} from {source.where} with the Kaggle API at {api_endpoint()}: {error}"
        ) from error
    return api

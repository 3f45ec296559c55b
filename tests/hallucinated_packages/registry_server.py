"""A loopback fake of PyPI and npm, serving real artifacts built by the tests and scripted faults.

Speaks the parts of the real protocols the checkers use: PyPI JSON (`/pypi/<n>/json`), the
Simple API (PEP 691 JSON when asked, HTML otherwise, 301 for non-normalized names), npm
packuments (`/npm/<n>`, scoped names in both encodings, `/latest`, `/<version>`), and file
hosting with HTTP Range (206 + Content-Range). Artifacts are real zip wheels, tar.gz sdists and
npm tarballs written into a temporary folder. Faults are scripted per path and consumed in
order: a timeout, a dropped connection, any status with any content type, headers and body
(429 + Retry-After, 503, a 200 HTML error page), malformed JSON, a redirect loop. `answer`
makes a path give one canned (status, content type, body) to every request instead, for
answers that must survive retries, `redirect` makes it answer a redirect to any URL, and
`outage` makes every path give one canned answer (a registry that is down: 503, 429, an HTML
error page).
Every request is logged, so tests and the benchmark can count requests server-side. Bound to
127.0.0.1 only; a second instance (its own port, so another origin) plays a foreign host: a
redirect target the client must not follow, or a file host named in the registry's documents
(`files_url`, with `shares_files_with` so both serve the same built artifacts). Files are
served under `/files/` and, for redirects within one origin, under `/blobs/` too.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import socket
import tarfile
import threading
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from hallubench.hallucinated_packages.settings import RegistrySettings

from support.loopback import LoopbackServer

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
DEFAULT_TIME = "2020-01-01T00:00:00Z"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


@dataclass
class Fault:
    """One scripted misbehaviour, consumed by the next request to its path."""

    kind: str  # "timeout" | "drop" | "status" | "malformed" | "redirect-loop"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    body: bytes = b""
    content_type: str = "application/json"


@dataclass
class RequestRecord:
    method: str
    path: str
    range: str | None
    accept: str | None
    at: float


@dataclass
class PypiFile:
    filename: str
    packagetype: str
    upload_time: str
    size: int
    sha256: str
    yanked: bool = False


class FakeRegistry:
    """Start with `with FakeRegistry(tmp_path) as reg:`; point clients at `reg.settings()`."""

    def __init__(self, root: Path, *, latency_s: float = 0.0, shares_files_with: FakeRegistry | None = None) -> None:
        self.root = root
        self.files_dir = shares_files_with.files_dir if shares_files_with is not None else root / "files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        self.files_url: str | None = None  # where the documents say files are (default: this server)
        self.latency_s = latency_s
        self.pypi: dict[str, dict[str, Any]] = {}
        self.npm: dict[str, dict[str, Any]] = {}
        self.simple_status: dict[str, str] = {}
        self.faults: dict[str, list[Fault]] = {}
        self.answers: dict[str, Fault] = {}
        self.everything: Fault | None = None  # `outage`: the answer to every path without its own
        self.requests: list[RequestRecord] = []
        self.bytes_served = 0
        self.inflight = 0
        self.max_inflight = 0
        self._lock = threading.Lock()
        self._http = LoopbackServer(_make_handler(self), name="fake-registry")

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> FakeRegistry:
        self._http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.stop()

    @property
    def base_url(self) -> str:
        return self._http.base_url

    def settings(self, **overrides: Any) -> RegistrySettings:
        return settings_for(self.base_url, **overrides)

    @staticmethod
    def refused_url() -> str:
        """A loopback URL with nothing listening (connection refused)."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def script(self, path: str, *faults: Fault) -> None:
        with self._lock:
            self.faults.setdefault(path, []).extend(faults)

    def answer(self, path: str, status: int, content_type: str, body: bytes) -> None:
        """Answer every request to `path` with this status, content type and body (after scripted faults)."""
        with self._lock:
            self.answers[path] = Fault("status", status, body=body, content_type=content_type)

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        """Answer every request to `path` with a redirect to `location` (absolute, or relative to this server)."""
        with self._lock:
            self.answers[path] = Fault("status", status, {"Location": location}, content_type="text/plain")

    def outage(
        self, status: int, content_type: str, body: bytes = b"", headers: Mapping[str, str] | None = None
    ) -> None:
        """Answer every request to every path (scripted faults and `answer` first) with this one response."""
        with self._lock:
            self.everything = Fault("status", status, dict(headers or {}), body=body, content_type=content_type)

    @property
    def file_base(self) -> str:
        return self.files_url or self.base_url

    def requests_to(self, prefix: str) -> list[RequestRecord]:
        with self._lock:
            return [r for r in self.requests if r.path.startswith(prefix)]

    # ------------------------------------------------------------------ PyPI artifacts
    def add_wheel(
        self,
        name: str,
        version: str,
        files: Mapping[str, str | bytes],
        *,
        tag: str = "py3-none-any",
        upload_time: str = DEFAULT_TIME,
        top_level: bool = False,
        compression: int = zipfile.ZIP_DEFLATED,
    ) -> Path:
        dist = re.sub(r"[-_.]+", "_", name)
        filename = f"{dist}-{version}-{tag}.whl"
        info = f"{dist}-{version}.dist-info"
        members: dict[str, bytes] = {k: v.encode() if isinstance(v, str) else v for k, v in files.items()}
        members[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
        members[f"{info}/WHEEL"] = f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}\n".encode()
        if top_level:
            tops = sorted({p.split("/")[0].removesuffix(".py") for p in files})
            members[f"{info}/top_level.txt"] = ("\n".join(tops) + "\n").encode()
        record = []
        for path, data in members.items():
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        members[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
        path = self.files_dir / filename
        with zipfile.ZipFile(path, "w", compression) as zf:
            for member, data in members.items():
                zf.writestr(member, data)
        self._register_pypi(name, version, filename, "bdist_wheel", upload_time)
        return path

    def add_sdist(
        self, name: str, version: str, files: Mapping[str, str | bytes], *, upload_time: str = DEFAULT_TIME
    ) -> Path:
        dist = re.sub(r"[-_.]+", "_", name)
        filename = f"{dist}-{version}.tar.gz"
        members = {k: v.encode() if isinstance(v, str) else v for k, v in files.items()}
        members["PKG-INFO"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
        path = self.files_dir / filename
        _write_targz(path, {f"{dist}-{version}/{k}": v for k, v in members.items()})
        self._register_pypi(name, version, filename, "sdist", upload_time)
        return path

    def add_empty_project(self, name: str) -> None:
        """A project with no files (PyPI keeps such names; the JSON API may 404 them)."""
        self.pypi.setdefault(canonical(name), {"name": name, "releases": {}})

    def _register_pypi(self, name: str, version: str, filename: str, kind: str, upload_time: str) -> None:
        data = (self.files_dir / filename).read_bytes()
        project = self.pypi.setdefault(canonical(name), {"name": name, "releases": {}})
        project["releases"].setdefault(version, []).append(
            PypiFile(filename, kind, upload_time, len(data), hashlib.sha256(data).hexdigest())
        )

    def pypi_json(self, key: str, version: str | None = None) -> dict[str, Any] | None:
        project = self.pypi.get(key)
        if project is None or not project["releases"]:
            return None
        versions = sorted(project["releases"], key=version_key)
        chosen = version or versions[-1]
        if chosen not in project["releases"]:
            return None

        def file_dict(f: PypiFile, ver: str) -> dict[str, Any]:
            return {
                "filename": f.filename,
                "url": f"{self.file_base}/files/{f.filename}",
                "packagetype": f.packagetype,
                "upload_time_iso_8601": f.upload_time,
                "size": f.size,
                "yanked": f.yanked,
                "digests": {"sha256": f.sha256},
                "requires_python": None,
                "python_version": "py3" if f.packagetype == "bdist_wheel" else "source",
            }

        releases = {v: [file_dict(f, v) for f in files] for v, files in project["releases"].items()}
        doc: dict[str, Any] = {
            "info": {"name": project["name"], "version": chosen},
            "urls": releases[chosen],
            "last_serial": 1,
        }
        if version is None:
            doc["releases"] = releases
        return doc

    # ------------------------------------------------------------------ npm artifacts
    def add_npm(
        self,
        name: str,
        version: str,
        files: Mapping[str, str | bytes],
        *,
        package_json: Mapping[str, Any] | None = None,
        created: str = DEFAULT_TIME,
        latest: bool = True,
    ) -> Path:
        manifest: dict[str, Any] = {"name": name, "version": version, **(package_json or {})}
        members = {f"package/{k}": (v.encode() if isinstance(v, str) else v) for k, v in files.items()}
        members["package/package.json"] = json.dumps(manifest).encode()
        filename = f"npm-{name.replace('/', '__')}-{version}.tgz"
        path = self.files_dir / filename
        _write_targz(path, members)
        doc = self.npm.setdefault(name, {"name": name, "dist-tags": {}, "versions": {}, "time": {"created": created}})
        doc["versions"][version] = {
            **manifest,
            "dist": {"tarball": f"{self.file_base}/files/{filename}", "shasum": "0"},
        }
        doc["time"][version] = created
        if latest or "latest" not in doc["dist-tags"]:
            doc["dist-tags"]["latest"] = version
        return path


def settings_for(base_url: str, **overrides: Any) -> RegistrySettings:
    """Client settings pointing at a fake registry (short timeouts and backoff for tests)."""
    values: dict[str, Any] = {
        "pypi_json_url": f"{base_url}/pypi",
        "pypi_simple_url": f"{base_url}/simple",
        "npm_url": f"{base_url}/npm",
        "timeout_s": 2.0,
        "max_retries": 2,
        "backoff_base_s": 0.01,
        "max_retry_after_s": 2.0,
    }
    values.update(overrides)
    return RegistrySettings(**values)


def simple_html(project: str, filenames: list[str], *, status: str | None = None) -> str:
    """A PEP 503 project page as PyPI writes it (repository-version meta, "Links for" title, one link per file)."""
    metas = '<meta name="pypi:repository-version" content="1.4">'
    if status:
        metas += f'<meta name="pypi:project-status" content="{status}">'
    links = "".join(f'<a href="/files/{name}">{name}</a><br />' for name in filenames)
    return (
        f"<!DOCTYPE html><html><head>{metas}<title>Links for {project}</title></head>"
        f"<body><h1>Links for {project}</h1>{links}</body></html>"
    )


def _write_targz(path: Path, members: Mapping[str, bytes]) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            tf.addfile(info, io.BytesIO(data))
    path.write_bytes(buffer.getvalue())


def _make_handler(registry: FakeRegistry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def setup(self) -> None:
            super().setup()
            # Headers and body go out as separate writes; without NODELAY, Nagle plus the
            # client's delayed ACK adds ~40 ms to every keep-alive response.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path.startswith("/_admin/"):
                return self._admin(path)
            with registry._lock:
                registry.requests.append(
                    RequestRecord("GET", path, self.headers.get("Range"), self.headers.get("Accept"), time.time())
                )
                queue = registry.faults.get(path)
                fault = queue.pop(0) if queue else registry.answers.get(path, registry.everything)
                registry.inflight += 1
                registry.max_inflight = max(registry.max_inflight, registry.inflight)
            try:
                if registry.latency_s:
                    time.sleep(registry.latency_s)
                if fault is not None and self._fault(fault, path):
                    return
                self._route(path)
            finally:
                with registry._lock:
                    registry.inflight -= 1

        def _admin(self, path: str) -> None:
            """Counters for a registry running in another process (the benchmark); never logged."""
            with registry._lock:
                if path == "/_admin/reset":
                    registry.requests.clear()
                    registry.bytes_served = 0
                    registry.max_inflight = 0
                stats = {
                    "paths": [r.path for r in registry.requests],
                    "bytes_served": registry.bytes_served,
                    "max_inflight": registry.max_inflight,
                }
            body = json.dumps(stats).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        # -------------------------------------------------------------- faults
        def _fault(self, fault: Fault, path: str) -> bool:
            if fault.kind == "timeout":
                time.sleep(fault.seconds)
                return self._send(504, b"", "text/plain") or True
            if fault.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return True
            if fault.kind == "status":
                self._send(fault.status, fault.body, fault.content_type, fault.headers)
                return True
            if fault.kind == "malformed":
                self._send(200, b'{"info": {"name": "x", "version"', "application/json")
                return True
            if fault.kind == "redirect-loop":
                self._send(302, b"", "text/plain", {"Location": path})
                registry.script(path, Fault("redirect-loop"))
                return True
            raise ValueError(f"unknown fault kind {fault.kind!r}")

        # -------------------------------------------------------------- routes
        def _route(self, path: str) -> None:
            parts = [unquote(p) for p in path.strip("/").split("/")]
            if parts[0] == "pypi" and len(parts) in (3, 4) and parts[-1] == "json":
                return self._pypi_json(parts[1], parts[2] if len(parts) == 4 else None)
            if parts[0] == "simple" and len(parts) == 2:
                return self._simple(parts[1])
            if parts[0] == "npm" and len(parts) >= 2:
                return self._npm(parts[1:])
            if parts[0] in ("files", "blobs") and len(parts) == 2:
                return self._file(parts[1])
            self._send(404, b"not found", "text/plain")

        def _pypi_json(self, name: str, version: str | None) -> None:
            key = canonical(name)
            if key != name and key in registry.pypi:
                tail = f"/{version}" if version else ""
                return self._send(301, b"", "text/plain", {"Location": f"/pypi/{key}{tail}/json"})
            doc = registry.pypi_json(key, version)
            if doc is None:
                return self._send(404, b"", "application/json")
            self._send(200, json.dumps(doc).encode(), "application/json")

        def _simple(self, name: str) -> None:
            key = canonical(name)
            if key != name:
                return self._send(301, b"", "text/plain", {"Location": f"/simple/{key}/"})
            project = registry.pypi.get(key)
            if project is None:
                return self._send(404, b"", "text/plain")
            files = [f for fs in project["releases"].values() for f in fs]
            if SIMPLE_JSON in (self.headers.get("Accept") or ""):
                doc: dict[str, Any] = {
                    "meta": {"api-version": "1.4"},
                    "name": key,
                    "versions": sorted(project["releases"], key=version_key),
                    "files": [
                        {"filename": f.filename, "url": f"/files/{f.filename}", "hashes": {"sha256": f.sha256}}
                        for f in files
                    ],
                }
                if key in registry.simple_status:
                    doc["project-status"] = {"status": registry.simple_status[key]}
                return self._send(200, json.dumps(doc).encode(), SIMPLE_JSON)
            self._send(200, simple_html(key, [f.filename for f in files]).encode(), "text/html; charset=utf-8")

        def _npm(self, parts: list[str]) -> None:
            if parts[0].startswith("@") and "/" in parts[0]:
                parts = [*parts[0].split("/", 1), *parts[1:]]
            if parts[0].startswith("@") and len(parts) >= 2:
                name, rest = f"{parts[0]}/{parts[1]}", parts[2:]
            else:
                name, rest = parts[0], parts[1:]
            doc = registry.npm.get(name)
            if doc is None:
                return self._send(404, b'{"error":"Not found"}', "application/json")
            if not rest:
                return self._send(200, json.dumps(doc).encode(), "application/json")
            version = doc["dist-tags"].get(rest[0], rest[0])
            manifest = doc["versions"].get(version)
            if manifest is None or len(rest) > 1:
                return self._send(404, b'{"error":"Not found"}', "application/json")
            self._send(200, json.dumps(manifest).encode(), "application/json")

        def _file(self, filename: str) -> None:
            path = registry.files_dir / filename
            if "/" in filename or not path.is_file():
                return self._send(404, b"", "text/plain")
            data = path.read_bytes()
            size = len(data)
            header = self.headers.get("Range")
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", header or "")
            if header and match:
                start_s, end_s = match.groups()
                if start_s == "":
                    start, end = max(0, size - int(end_s)), size - 1
                else:
                    start = int(start_s)
                    end = min(size - 1, int(end_s)) if end_s else size - 1
                if start >= size or start > end:
                    return self._send(416, b"", "text/plain", {"Content-Range": f"bytes */{size}"})
                chunk = data[start : end + 1]
                return self._send(
                    206, chunk, "application/octet-stream",
                    {"Content-Range": f"bytes {start}-{end}/{size}", "Accept-Ranges": "bytes"},
                )  # fmt: skip
            self._send(200, data, "application/octet-stream", {"Accept-Ranges": "bytes"})

        def _send(self, status: int, body: bytes, ctype: str, headers: Mapping[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                if ctype:  # "" sends no Content-Type at all
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
                with registry._lock:
                    registry.bytes_served += len(body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler

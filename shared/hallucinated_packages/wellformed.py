"""What a success from each registry endpoint looks like, and how an answer that is not one is named.

A proxy, a CDN or an overloaded registry can answer 200 with an HTML error page ("Service
temporarily unavailable"), an empty body or truncated JSON. Believing such an answer turns an
outage into "exists" (or into a document with nothing in it), so only a well-formed answer
decides: each endpoint has a content-type family and a body shape, and anything else raises
`NotWellFormed` with a short phrase saying what was wrong. `answer_reason` and
`failure_reason` spell every rejected answer the same way, naming the endpoint and the HTTP
status: `pypi simple /simple/foo/: HTTP 200 text/html: body is not a Simple API page`.
Embedded: standard library only.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import HallubenchError
from .names import canonical_pypi

PYPI_JSON = "pypi json"
PYPI_SIMPLE = "pypi simple"
PYPI_FILE = "pypi file"
NPM_PACKUMENT = "npm packument"
NPM_LATEST = "npm latest"
NPM_TARBALL = "npm tarball"

SIMPLE_JSON_TYPES = frozenset({"application/vnd.pypi.simple.v1+json", "application/vnd.pypi.simple.latest+json"})
SIMPLE_HTML_TYPES = frozenset(
    {"text/html", "application/vnd.pypi.simple.v1+html", "application/vnd.pypi.simple.latest+html"}
)
_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a first member, or the end record of an empty zip
_GZIP_START = b"\x1f\x8b"


class NotWellFormed(HallubenchError, ValueError):
    """A 2xx answer that is not what its endpoint serves; the message says what was wrong."""


# ---------------------------------------------------------------------- naming answers
def media_type(content_type: str | None) -> str:
    """`Text/HTML; charset=utf-8` -> `text/html`; "" when there is none."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def endpoint_label(endpoint: str, url: str) -> str:
    """`pypi json /pypi/foo/json`: which endpoint was asked, by its path (base URLs are recorded apart)."""
    return f"{endpoint} {unquote(urlsplit(url).path) or '/'}"


def answer_reason(endpoint: str, url: str, status: int | None, content_type: str | None, problem: str) -> str:
    """Why an answer that came back is not believed: endpoint, status, content type, what was wrong."""
    kind = media_type(content_type) or "without a content type"
    return f"{endpoint_label(endpoint, url)}: HTTP {status} {kind}: {problem}"


def failure_reason(endpoint: str, url: str, error: str | None, status: int | None) -> str:
    """Why there is no usable answer (timeout, 429, 5xx, ...): endpoint, then the status or the error."""
    return f"{endpoint_label(endpoint, url)}: {error or f'HTTP {status}'}"


# ---------------------------------------------------------------------- JSON endpoints
def _json_object(
    content: bytes, content_type: str | None, what: str, types: frozenset[str] | None = None
) -> dict[str, Any]:
    """The body as a JSON object, when the content type is in `types` (default: the JSON family)."""
    kind = media_type(content_type)
    if not (kind in types if types is not None else is_json_type(kind)):
        raise NotWellFormed(f"content type is not {' or '.join(sorted(types)) if types else 'JSON'}")
    if not content.strip():
        raise NotWellFormed("body is empty")
    try:
        doc = json.loads(content.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotWellFormed("body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise NotWellFormed(f"body is truncated or invalid JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise NotWellFormed("body is JSON nested too deeply to read") from None
    if not isinstance(doc, dict):
        raise NotWellFormed(f"body is not {what} (a JSON {type(doc).__name__}, not an object)")
    return doc


def is_json_type(kind: str) -> bool:
    """`application/json`, `application/vnd.npm.install-v1+json`, ...: the JSON family."""
    subtype = kind.partition("/")[2]
    return subtype == "json" or subtype.endswith("+json")


def pypi_project(content: bytes, content_type: str | None, canonical: str) -> dict[str, Any]:
    """`/pypi/<name>/json`: a JSON object with `info.name` (this project) and `info.version`."""
    what = "a PyPI project document"
    doc = _json_object(content, content_type, what)
    info = doc.get("info")
    if not isinstance(info, dict):
        raise NotWellFormed(f"body is not {what} (no info object)")
    name, version = info.get("name"), info.get("version")
    if not isinstance(name, str) or not name:
        raise NotWellFormed(f"body is not {what} (no info.name)")
    if not isinstance(version, str):
        raise NotWellFormed(f"body is not {what} (no info.version)")
    if canonical_pypi(name) != canonical:
        raise NotWellFormed(f"body describes project {name!r}, not {canonical!r}")
    for key, shape in (("releases", dict), ("urls", list)):
        if key in doc and not isinstance(doc[key], shape):
            raise NotWellFormed(f"body is not {what} ({key} is not a JSON {'object' if shape is dict else 'array'})")
    return doc


def simple_page(content: bytes, content_type: str | None, canonical: str) -> dict[str, Any]:
    """`/simple/<name>/`: a PEP 691 JSON or PEP 503 HTML page that names this project.

    Comes back as `{"name", "files", "project-status"?}`, `files` holding the names of the files
    listed that belong to this project (`project_file`). The page must name the project: the
    PEP 691 `name`, or, in HTML (proxies may ignore the Accept header), a "Links for <project>"
    title or heading (devpi's "root/pypi: links for <project>" included); a page that names
    another project, or none (a bare `pypi:repository-version` meta, an error page), raises.
    Whether a page without files confirms anything is the caller's call: for the registry it
    does not (an empty or placeholder project is `unverified`).
    """
    kind = media_type(content_type)
    if kind in SIMPLE_HTML_TYPES:
        return _simple_html(content, canonical)
    what = "a Simple API page"
    doc = _json_object(content, content_type, what, SIMPLE_JSON_TYPES)
    name, files = doc.get("name"), doc.get("files")
    if not isinstance(name, str) or not isinstance(files, list):
        raise NotWellFormed(f"body is not {what} (no name and files)")
    if canonical_pypi(name) != canonical:
        raise NotWellFormed(f"body is the Simple API page of {name!r}, not {canonical!r}")
    listed = [f["filename"] for f in files if isinstance(f, dict) and isinstance(f.get("filename"), str)]
    page: dict[str, Any] = {"name": name, "files": [f for f in listed if project_file(f, canonical)]}
    if "project-status" in doc:
        page["project-status"] = doc["project-status"]
    return page


_DIST_SUFFIXES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar", ".egg", ".exe", ".msi", ".rpm")
_TITLED = re.compile(r"\blinks for\s+(\S+)\s*$", re.IGNORECASE)


def project_file(filename: str, canonical: str) -> bool:
    """Whether `filename` is a distribution file of project `canonical` (PEP 503 normal form).

    The project part is what comes before a hyphen followed by a digit (the version), in any
    spelling (`Ghost_Pkg-1.0.tar.gz`, `ghost_pkg-1.0-py3-none-any.whl`), so `ghost`'s page
    listing `ghost-pkg-1.0.tar.gz` lists none of `ghost`'s files.
    """
    if not filename.lower().endswith(_DIST_SUFFIXES):
        return False
    return any(
        char == "-" and filename[i + 1 : i + 2].isdigit() and canonical_pypi(filename[:i]) == canonical
        for i, char in enumerate(filename)
    )


class _SimpleHtml(HTMLParser):
    """Collects what marks a PEP 503 page: meta names, the title and h1 text, link texts and targets."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.metas: dict[str, str] = {}
        self.headings: list[str] = []
        self.links: list[str] = []
        self._open: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        if tag == "meta" and "name" in values:
            self.metas[values["name"].lower()] = values.get("content", "")
        elif tag in ("title", "h1", "a"):
            self._open, self._text = tag, []
            if tag == "a" and values.get("href"):
                self.links.append(unquote(urlsplit(values["href"]).path.rsplit("/", 1)[-1]))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            text = "".join(self._text).strip()
            (self.links if tag == "a" else self.headings).append(text)
            self._open = None


def _simple_html(content: bytes, canonical: str) -> dict[str, Any]:
    parser = _SimpleHtml()
    parser.feed(content.decode("utf-8", errors="replace"))
    parser.close()
    titled = [match.group(1) for h in parser.headings if (match := _TITLED.search(h))]
    others = [t for t in titled if canonical_pypi(t) != canonical]
    if others:
        raise NotWellFormed(f"body is the Simple API page of {others[0]!r}, not {canonical!r}")
    if not titled:
        raise NotWellFormed(f'body is not a Simple API page of {canonical!r} (no "Links for {canonical}" title)')
    files = [link for link in dict.fromkeys(parser.links) if project_file(link, canonical)]
    page: dict[str, Any] = {"name": canonical, "files": files}
    status = parser.metas.get("pypi:project-status")
    if status:
        page["project-status"] = {"status": status}
    return page


def npm_packument(content: bytes, content_type: str | None, name: str) -> dict[str, Any]:
    """`/<name>`: a JSON object naming this package, with `versions` or `dist-tags` (or an unpublish record)."""
    what = "an npm packument"
    doc = _json_object(content, content_type, what)
    if doc.get("name") != name:
        found = doc.get("name")
        if isinstance(found, str):
            raise NotWellFormed(f"body is the packument of {found!r}, not {name!r}")
        raise NotWellFormed(f"body is not {what} (no name)")
    times = doc.get("time")
    unpublished = isinstance(times, dict) and "unpublished" in times
    if not (isinstance(doc.get("versions"), dict) or isinstance(doc.get("dist-tags"), dict) or unpublished):
        raise NotWellFormed(f"body is not {what} (no versions or dist-tags)")
    return doc


def npm_version(content: bytes, content_type: str | None) -> dict[str, Any]:
    """`/<name>/latest`: a JSON object with `name` and `version`."""
    what = "an npm version document"
    doc = _json_object(content, content_type, what)
    if not (isinstance(doc.get("name"), str) and isinstance(doc.get("version"), str)):
        raise NotWellFormed(f"body is not {what} (no name and version)")
    return doc


# ---------------------------------------------------------------------- files
def archive_bytes(content: bytes, content_type: str | None, form: str, *, whole: bool = True) -> None:
    """A downloaded file: not an error page's content type, and (when `whole`) the archive's magic bytes.

    File hosts label archives variously (`application/octet-stream`, `binary/octet-stream`,
    `application/x-tar`, even `text/plain`), so the bytes decide; an HTML or JSON content type
    is an error page whatever its bytes.
    `form` is "zip" or "gzip"; a Range answer (`whole=False`) starts mid-file and is checked by
    the zip reader instead.
    """
    kind = media_type(content_type)
    if kind in SIMPLE_HTML_TYPES or kind == "application/xhtml+xml" or is_json_type(kind):
        raise NotWellFormed("content type is a page's, not an archive's")
    if not whole:
        return
    if not content:
        raise NotWellFormed("body is empty")
    starts = _ZIP_STARTS if form == "zip" else (_GZIP_START,)
    if not content.startswith(starts):
        raise NotWellFormed(f"body is not a {form} archive")

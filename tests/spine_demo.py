"""Installs the small demo protocol (tests/data/spine) into a scratch checkout."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "spine"

DEMO_SPEC = """

PROTOCOLS = (
    *PROTOCOLS,
    ProtocolSpec(
        benchmark="demo",
        version=1,
        entry="demo/task_v1.py",
        title="demo v1",
        description="A two-turn word echo used by the spine tests.",
    ),
)
"""


def install_demo(root: Path) -> None:
    """Add shared/demo/task_v1.py, its cases and its spec to the checkout at `root`."""
    package = root / "shared" / "demo"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text('"""Demo protocol for the spine tests."""\n', encoding="utf-8")
    shutil.copyfile(DATA / "demo_task_v1.py", package / "task_v1.py")
    cases = root / "frozen_cases" / "demo" / "v1"
    cases.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / "demo_cases_v1.json", cases / "cases.json")
    specs = root / "shared" / "specs.py"
    specs.write_text(specs.read_text(encoding="utf-8") + DEMO_SPEC, encoding="utf-8")


DEMO_V2_SPEC = """

PROTOCOLS = (
    *PROTOCOLS,
    ProtocolSpec(
        benchmark="demo",
        version=2,
        entry="demo/task_v2.py",
        title="demo v2",
        description="The demo's conversation with a stricter scorer.",
    ),
)
"""


def install_demo_v2(root: Path) -> None:
    """Add demo v2 (same conversation as v1 except case w-0, a stricter scorer) after `install_demo`."""
    shutil.copyfile(DATA / "demo_task_v2.py", root / "shared" / "demo" / "task_v2.py")
    cases = root / "frozen_cases" / "demo" / "v2"
    cases.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / "demo_cases_v2.json", cases / "cases.json")
    specs = root / "shared" / "specs.py"
    specs.write_text(specs.read_text(encoding="utf-8") + DEMO_V2_SPEC, encoding="utf-8")


def built_demo_checkout(
    root: Path, *, with_v2: bool = False, before_build: Callable[[Path], None] | None = None
) -> Path:
    """A copy of this checkout's shared/, frozen_cases/ and tasks/ at `root` with the demo protocol installed
    (and v2 too when asked), changed by `before_build(root)` if given, then built through the real
    `hallubench build`; returns `root`."""
    import os

    from hallubench.cli import main

    project = Path(__file__).resolve().parents[1]
    for folder in ("shared", "frozen_cases", "tasks"):
        shutil.copytree(project / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    install_demo(root)
    if with_v2:
        install_demo_v2(root)
    if before_build is not None:
        before_build(root)
    previous = os.environ.get("HALLUBENCH_ROOT")
    os.environ["HALLUBENCH_ROOT"] = str(root)
    try:
        if main(["build", "demo"]) != 0:
            raise RuntimeError(f"building the demo protocol in {root} failed")
    finally:
        if previous is None:
            del os.environ["HALLUBENCH_ROOT"]
        else:
            os.environ["HALLUBENCH_ROOT"] = previous
    return root

"""Installs the small demo protocol (tests/data/spine) into a scratch checkout."""

from __future__ import annotations

import shutil
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

"""Installs the small demo protocol (tests/data/spine) into a scratch checkout."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "spine"

DESCRIPTIONS = {
    1: "A two-turn word echo used by the spine tests.",
    2: "The demo's conversation with a stricter scorer.",
}


def _install_version(root: Path, version: int) -> None:
    """Copy demo version `version`'s entry module and cases into `root` and declare it (tooling/demo/benchmark.py)."""
    shutil.copyfile(DATA / f"demo_task_v{version}.py", root / "shared" / "demo" / f"task_v{version}.py")
    cases = root / "frozen_cases" / "demo" / f"v{version}"
    cases.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / f"demo_cases_v{version}.json", cases / "cases.json")
    installed = sorted(int(p.stem.removeprefix("task_v")) for p in (root / "shared" / "demo").glob("task_v*.py"))
    specs = "".join(
        f'        ProtocolSpec(benchmark="demo", version={v}, entry="demo/task_v{v}.py", title="demo v{v}", '
        f"description={DESCRIPTIONS[v]!r}),\n"
        for v in installed
    )
    declaration = (
        '"""The demo benchmark of the spine tests."""\n\nfrom ..specs import Benchmark, ProtocolSpec\n\n'
        'BENCHMARKS = (\n    Benchmark(\n        name="demo",\n        package="demo",\n'
        f'        summary="a two-turn word echo",\n        protocols=(\n{specs}        ),\n    ),\n)\n'
    )
    (root / "shared" / "tooling" / "demo").mkdir(exist_ok=True)
    (root / "shared" / "tooling" / "demo" / "benchmark.py").write_text(declaration, encoding="utf-8")


def install_demo(root: Path) -> None:
    """Add shared/demo/task_v1.py, its cases and its spec to the checkout at `root`."""
    package = root / "shared" / "demo"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text('"""Demo protocol for the spine tests."""\n', encoding="utf-8")
    _install_version(root, 1)


def install_demo_v2(root: Path) -> None:
    """Add demo v2 (same conversation as v1 except case w-0, a stricter scorer) after `install_demo`."""
    _install_version(root, 2)


def built_demo_checkout(
    root: Path, *, with_v2: bool = False, before_build: Callable[[Path], None] | None = None
) -> Path:
    """A copy of this checkout's shared/, frozen_cases/ and tasks/ at `root` with the demo protocol installed
    (and v2 too when asked), changed by `before_build(root)` if given, then built through the real
    `hallubench build`; returns `root`."""
    import os

    from hallubench.tooling.cli import main

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

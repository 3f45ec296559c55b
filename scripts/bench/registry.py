"""Benchmark the registry layer and the symbol gate against the loopback fake registry.

Two measurements in one run, each printed as a ratio against a baseline measured in the same run:

1. 200 unique package names (each asked 3 times, in two spellings) checked concurrently versus
   one by one, with 50 ms of latency injected on every request. Targets: at least 10x faster,
   and exactly one request per unique name (counted server-side).
2. The Python symbol gate on a large wheel (tens of MB, incompressible padding generated here):
   bytes served for the wheel versus its size. Target: at most 5 %.

The fake registry runs in its own process (as a real registry would), so the client's event
loop does not compete with the server threads for one interpreter lock; the server counts
requests and bytes and reports them over `/_admin/stats`.

Usage: .venv/bin/python scripts/bench/registry.py [--names 200] [--latency-ms 50] [--wheel-mb 40]
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import tempfile
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))  # support.loopback, the fakes' server
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "hallucinated_packages"))

from registry_server import FakeRegistry, settings_for

from hallubench.hallucinated_packages.distmap import DistCandidate
from hallubench.hallucinated_packages.pysymbols import check_python_symbol
from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings


async def concurrent_run(settings: RegistrySettings, names: list[str]) -> float:
    items = [("pypi", n) for n in names] * 2 + [("pypi", n.upper().replace("-", "_")) for n in names]
    random.Random(0).shuffle(items)
    started = time.perf_counter()
    async with RegistryClient(settings) as client:
        verdicts = await client.packages(items)
    elapsed = time.perf_counter() - started
    bad = [k for k, v in verdicts.items() if v.verdict != "exists"]
    if bad:
        raise SystemExit(f"unexpected verdicts for {bad[:3]}")
    return elapsed


async def sequential_run(settings: RegistrySettings, names: list[str]) -> float:
    started = time.perf_counter()
    async with RegistryClient(settings) as client:
        for name in names:
            await client.package("pypi", name)
    return time.perf_counter() - started


def build_large_wheel(registry: FakeRegistry, megabytes: int) -> Path:
    rng = random.Random(0)
    chunk = 2_000_000
    padding = {f"bigwheel/_data/blob{i:03d}.bin": rng.randbytes(chunk) for i in range(megabytes * 1_000_000 // chunk)}
    modules = {
        "bigwheel/__init__.py": "from .core import Engine\n__all__ = ['Engine']\n",
        "bigwheel/core.py": "class Engine:\n    def run(self):\n        return 1\n",
        **{f"bigwheel/plugins/p{i}.py": f"def plugin_{i}():\n    pass\n" for i in range(200)},
    }
    return registry.add_wheel("bigwheel", "1.0.0", {**modules, **padding})


async def gate_run(settings: RegistrySettings) -> tuple[str, str]:
    async with RegistryClient(settings) as client:
        found = await check_python_symbol(
            client, [DistCandidate("bigwheel", "same-name")], "bigwheel", ("Engine", "run")
        )
        missing = await check_python_symbol(
            client, [DistCandidate("bigwheel", "same-name")], "bigwheel", ("Engine", "fly")
        )
    return found.verdict, missing.verdict


def serve(root: str, names: list[str], wheel_mb: int, latency_s: float, ready: Any, stop: Event) -> None:
    """Child process: build the fixtures, serve them, report (base URL, wheel size), wait for stop."""
    with FakeRegistry(Path(root)) as registry:
        for name in names:
            registry.add_wheel(name, "1.0.0", {f"{name.replace('-', '_')}/__init__.py": ""})
        wheel = build_large_wheel(registry, wheel_mb)
        registry.latency_s = latency_s
        ready.put((registry.base_url, wheel.stat().st_size))
        stop.wait()


def stats(base_url: str, *, reset: bool = False) -> dict[str, Any]:
    response = httpx.get(f"{base_url}/_admin/{'reset' if reset else 'stats'}", timeout=10)
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--names", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--wheel-mb", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    names = [f"bench-pkg-{i:03d}" for i in range(args.names)]
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    stop = context.Event()
    with tempfile.TemporaryDirectory() as tmp:
        server = context.Process(
            target=serve, args=(tmp, names, args.wheel_mb, args.latency_ms / 1000, ready, stop), daemon=True
        )
        server.start()
        try:
            base_url, wheel_bytes = ready.get(timeout=300)
            settings = settings_for(base_url, max_concurrency=args.concurrency, timeout_s=30.0)
            stats(base_url, reset=True)
            concurrent_s = asyncio.run(concurrent_run(settings, names))
            lookups = sum(p.startswith("/pypi/") for p in stats(base_url)["paths"])
            stats(base_url, reset=True)
            sequential_s = asyncio.run(sequential_run(settings, names))
            stats(base_url, reset=True)
            found, missing = asyncio.run(gate_run(settings))
            gate_stats = stats(base_url)
        finally:
            stop.set()
            server.join(timeout=10)
    served = gate_stats["bytes_served"]
    wheel_requests = [p for p in gate_stats["paths"] if p.startswith("/files/bigwheel")]
    speedup = sequential_s / concurrent_s
    byte_ratio = served / wheel_bytes
    result = {
        "unique_names": args.names,
        "lookups_requested": args.names * 3,
        "registry_requests": lookups,
        "requests_per_unique_name": lookups / args.names,
        "latency_ms": args.latency_ms,
        "sequential_s": round(sequential_s, 3),
        "concurrent_s": round(concurrent_s, 3),
        "speedup_ratio": round(speedup, 1),
        "wheel_bytes": wheel_bytes,
        "wheel_bytes_served": served,
        "wheel_range_requests": len(wheel_requests),
        "bytes_read_ratio": round(byte_ratio, 5),
        "gate_verdicts": {"Engine.run": found, "Engine.fly": missing},
    }
    print(json.dumps(result, indent=2))
    checks = {
        "speedup >= 10x": speedup >= 10,
        "exactly one request per unique name": lookups == args.names,
        "symbol gate reads <= 5% of the wheel": byte_ratio <= 0.05,
        "gate verdicts right": (found, missing) == ("found", "missing-symbol"),
    }
    for label, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {label}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

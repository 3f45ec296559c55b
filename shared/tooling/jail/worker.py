"""The process inside the jail: it tightens its own layers, then replays rows and runs executors on request.

Started by `client.Jail` under bubblewrap (or, where the user accepted a jail without it, as a
plain child). Before it reads any request it applies, in order: resource limits, not-dumpable,
Landlock (writes only to its scratch tmpfs, execution of its interpreter only, no TCP, signals
scoped), and the seccomp filter. A layer it cannot apply stops it with a refusal naming the layer,
unless the host said the user accepted that layer missing. It then reports what it applied, read
back from the kernel where the kernel tells (`/proc/self/status`, `/proc/self/uid_map`).

Requests (JSON frames, see frames.py): `load` a task file's text (its embedded modules, loaded in
isolation), `play` one row of a loaded protocol on a logged conversation (the same replay the
engine does in-process for benchmarks that run no model code), `call` a function of hallubench by
name. Inputs the host hands in (the HumanEvalPack rows a frozen v1 executor reads by path) are
kept in memory files only this process can open.
"""

from __future__ import annotations

import base64
import importlib
import os
import struct
import sys
import traceback
from pathlib import Path
from typing import Any

from ...confine import landlock, privileges, seccomp
from ...confine.errors import ConfinementError
from ...errors import HallubenchError
from ..exit_codes import EXIT_REFUSED, EXIT_STAGE_FAILED, EXIT_WORKER_FAILED
from .frames import FrameError, FrameReader, send

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def elf_interpreter(path: str) -> str | None:
    """The program loader an ELF executable names (PT_INTERP), which the kernel opens to execute it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2:  # 64-bit only
                return None
            endian = "<" if head[5] == 1 else ">"
            (phoff,) = struct.unpack_from(endian + "Q", head, 32)
            phentsize, phnum = struct.unpack_from(endian + "HH", head, 54)
            for index in range(phnum):
                handle.seek(phoff + index * phentsize)
                entry = handle.read(phentsize)
                (kind,) = struct.unpack_from(endian + "I", entry, 0)
                if kind == 3:  # PT_INTERP
                    (offset,) = struct.unpack_from(endian + "Q", entry, 8)
                    (size,) = struct.unpack_from(endian + "Q", entry, 32)
                    handle.seek(offset)
                    return handle.read(size).rstrip(b"\0").decode("utf-8", "replace")
    except (OSError, struct.error, IndexError):
        return None
    return None


def _executables() -> tuple[str, ...]:
    interpreter = os.path.realpath(sys.executable)
    loader = elf_interpreter(interpreter)
    return (interpreter, *((os.path.realpath(loader),) if loader else ()))


def _ids_inside() -> str:
    """The ids as this process sees them (the host side records which ids they are outside)."""
    return f"uid {os.getuid()}, gid {os.getgid()}"


class Refused(HallubenchError):
    def __init__(self, missing: list[tuple[str, str]]) -> None:
        super().__init__(missing)
        self.missing = missing


def apply_layers(config: dict[str, Any]) -> dict[str, Any]:
    """Tighten this process for good; what was applied, or Refused naming a layer that could not be."""
    policy = config["policy"]
    accepted = set(policy.get("accept_missing", []))
    missing: list[tuple[str, str]] = []
    limits = {"RLIMIT_CORE": 0, "RLIMIT_NOFILE": 4096, "RLIMIT_FSIZE": int(policy["scratch_bytes"])}
    if config.get("dropped_ids"):
        limits["RLIMIT_NPROC"] = 2048
    applied: dict[str, Any] = {"limits": privileges.set_limits(limits)}
    privileges.set_not_dumpable()
    applied["not_dumpable"] = True
    host_network = policy.get("network") == "host"
    rules = landlock.Policy(
        read=("/",),
        write=(config["scratch"], *policy.get("writable", [])),
        execute=_executables(),
        devices=DEVICES,
        restrict_files=not policy.get("nested_namespaces", False),
        tcp_connect=tuple(int(port) for port in policy.get("tcp_connect_ports", [])) if host_network else (),
        tcp_bind=(),
        scope=True,
    )
    if "landlock" in config.get("simulated_missing", []):
        missing.append(("landlock", "simulated missing"))
    else:
        try:
            applied["landlock"] = landlock.restrict(rules).as_dict()
        except ConfinementError as exc:
            missing.append(("landlock", exc.detail))
    profile = seccomp.OUTER_WITH_NESTED_NAMESPACES if policy.get("nested_namespaces") else seccomp.OUTER
    if "seccomp" in config.get("simulated_missing", []):
        missing.append(("seccomp", "simulated missing"))
    else:
        try:
            applied["seccomp"] = seccomp.install(profile).as_dict()
        except ConfinementError as exc:
            missing.append(("seccomp", exc.detail))
    refused = [(layer, why) for layer, why in missing if layer not in accepted]
    if refused:
        raise Refused(refused)
    privileges.set_no_new_privs()
    applied.update(
        no_new_privs=privileges.no_new_privs(),
        seccomp_mode=seccomp.filter_mode(),
        capabilities=f"{privileges.effective_capabilities():#x}",
        ids_inside=_ids_inside(),
        missing=[layer for layer, _ in missing],
    )
    return applied


def _hand_in(inputs: dict[str, str]) -> None:
    """Each input into a memory file that only this process can open; its path into the environment."""
    for variable, encoded in inputs.items():
        fd = os.memfd_create(variable.lower(), os.MFD_CLOEXEC)
        os.write(fd, base64.b64decode(encoded))
        os.lseek(fd, 0, os.SEEK_SET)
        os.environ[variable] = f"/proc/self/fd/{fd}"


class Worker:
    def __init__(self) -> None:
        self.protocols: dict[str, Any] = {}

    def load(self, message: dict[str, Any]) -> dict[str, Any]:
        from ..taskfile.reader import FrozenProtocol, parse_task_file_text

        key = str(message["key"])
        if key not in self.protocols:
            task = parse_task_file_text(str(message["task_text"]), Path(str(message.get("name", "task.py"))))
            self.protocols[key] = FrozenProtocol(task)
        return {"loaded": key}

    def play(self, message: dict[str, Any]) -> dict[str, Any]:
        from ..rescore.options import with_options
        from ..rescore.replay import LoggedMessage, ReplayConversation

        protocol = self.protocols[str(message["key"])]
        messages = [LoggedMessage(str(role), str(text)) for role, text in message["messages"]]
        replay = ReplayConversation(messages, protocol.model_call_error)
        play = protocol.entry.play
        options = message.get("options")
        row = protocol.rows.play_row(
            play if options is None else with_options(play, options),
            message["case"],
            replay,
            protocol_id=protocol.task.protocol_id,
            payload_sha256=protocol.task.payload_sha256,
        )
        mismatch = replay.mismatch
        return {
            "row": row,
            "mismatch": None if mismatch is None else vars(mismatch),
            "leftover": replay.leftover,
        }

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        reference = str(message["function"])
        module_name, _, name = reference.partition(":")
        if not module_name.startswith("hallubench."):
            raise ValueError(f"{reference}: only hallubench's own functions are called in the jail")
        function = getattr(importlib.import_module(module_name), name)
        return {"result": function(**message.get("arguments", {}))}

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        operation = message.get("op")
        handler = {"load": self.load, "play": self.play, "call": self.call}.get(str(operation))
        if handler is None:
            return {"error": f"unknown request {operation!r}"}
        try:
            return handler(message)
        except Exception as exc:
            return {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-4000:]}


def exec_main(control_fd: int, report_fd: int, argv: list[str]) -> int:
    """`--exec`: take the layers, report them, then become `argv` (a run of a task file, in the jail)."""
    try:
        config = FrameReader(control_fd).receive()
        applied = apply_layers(config)
    except Refused as refused:
        send(report_fd, {"type": "refused", "missing": [list(item) for item in refused.missing]})
        return EXIT_REFUSED
    except (FrameError, ConfinementError, KeyError, ValueError) as exc:
        send(report_fd, {"type": "failed", "detail": f"{type(exc).__name__}: {exc}"})
        return EXIT_WORKER_FAILED
    _hand_in(dict(config.get("inputs", {})))
    environment = {**os.environ, **{str(k): str(v) for k, v in dict(config.get("environment", {})).items()}}
    send(report_fd, {"type": "ready", "layers": applied, "pid": os.getpid(), "python": sys.version.split()[0]})
    os.close(report_fd)
    os.close(control_fd)
    os.chdir(str(config.get("cwd", "/")))
    try:
        os.execve(argv[0], argv, environment)
    except OSError as exc:
        print(f"hallubench jail: cannot execute {argv[0]}: {exc}", file=sys.stderr)
    return EXIT_STAGE_FAILED


def main() -> int:
    if len(sys.argv) > 4 and sys.argv[1] == "--exec":
        return exec_main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    out = os.dup(1)
    os.dup2(2, 1)  # stray prints of anything loaded here go to the log, never into the channel
    reader = FrameReader(0)
    try:
        config = reader.receive()
        applied = apply_layers(config)
    except Refused as refused:
        send(out, {"type": "refused", "missing": [list(item) for item in refused.missing]})
        return EXIT_REFUSED
    except (FrameError, ConfinementError, KeyError, ValueError) as exc:
        send(out, {"type": "failed", "detail": f"{type(exc).__name__}: {exc}"})
        return EXIT_WORKER_FAILED
    _hand_in(dict(config.get("inputs", {})))
    send(out, {"type": "ready", "layers": applied, "pid": os.getpid(), "python": sys.version.split()[0]})
    worker = Worker()
    while True:
        try:
            message = reader.receive()
        except FrameError:
            return 0
        answer = worker.handle(message)
        send(out, {"id": message.get("id"), **answer})


if __name__ == "__main__":
    sys.exit(main())

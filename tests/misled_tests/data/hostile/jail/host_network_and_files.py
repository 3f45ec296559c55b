"""Out of the sandbox (route 3, 4): the loopback listener of the host, /dev/shm, /tmp and the marker folder,
reached with libc's socket(2), connect(2) and open(2), which raise no audit event."""
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


def test_reach_the_host_network_and_files():
    ctypes, c = libc()
    sock = c.socket(2, 1, 0)  # AF_INET, SOCK_STREAM
    address = (ctypes.c_ubyte * 16)(2, 0, {PORT} >> 8, {PORT} & 255, 127, 0, 0, 1)
    c.connect(sock, address, 16)
    c.close(sock)
    for target in ("/dev/shm/hb_{TOKEN}_net", "/tmp/hb_{TOKEN}_net", "{MARKER}/hb_{TOKEN}_net"):
        raw_write(target)
    assert True

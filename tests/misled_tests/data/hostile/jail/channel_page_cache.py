"""A channel (route C): the page cache. The first run evicts a library file (posix_fadvise DONTNEED); the
second sees (mincore) that it is no longer cached."""
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

LIBRARY_FILE = os.path.dirname(os.__file__) + "/this.py"


def cached():
    ctypes, c = libc()
    c.mmap.restype = ctypes.c_void_p
    c.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    c.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    size = os.stat(LIBRARY_FILE).st_size
    fd = os.open(LIBRARY_FILE, os.O_RDONLY)
    address = c.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    os.close(fd)
    vector = (ctypes.c_ubyte * ((size + 4095) // 4096))()
    if c.mincore(address, size, vector) != 0:
        raise OSError("mincore refused")
    return all(value & 1 for value in vector)


def evict():
    ctypes, c = libc()
    fd = os.open(LIBRARY_FILE, os.O_RDONLY)
    c.posix_fadvise(fd, 0, 0, 4)  # POSIX_FADV_DONTNEED
    os.close(fd)


def test_page_cache_says_which_run_this_is():
    try:
        first = cached()
    except Exception:
        first = True
    try:
        evict()
    except Exception:
        pass
    assert first

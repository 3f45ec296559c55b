# Native code and interpreter machinery: ctypes, subinterpreters, extension modules copied into the
# working directory, crafted code objects, tracing and profiling, extra audit hooks, built-in modules
# re-created to get back a function the sandbox replaced.
import importlib.machinery
import importlib.util
import marshal
import os
import shutil
import sys

from solution import get_positive


def test_ctypes():
    import ctypes

    ctypes.CDLL(None).getpid()
    assert get_positive([]) == []


def test_subinterpreter():
    import _xxsubinterpreters

    _xxsubinterpreters.create()
    assert get_positive([]) == []


def test_extension_module_from_the_working_directory():
    import _json

    name = os.path.basename(_json.__file__)
    shutil.copy(_json.__file__, name)
    spec = importlib.util.spec_from_file_location("_json", os.path.abspath(name))
    importlib.util.module_from_spec(spec)
    assert get_positive([]) == []


def test_crafted_code_object():
    code = (lambda: None).__code__.replace(co_code=b"\x97\x00d\x00S\x00")
    exec(code)
    assert get_positive([]) == []


def test_code_from_marshalled_bytes():
    exec(marshal.loads(marshal.dumps((lambda: None).__code__)))
    assert get_positive([]) == []


def test_trace_function():
    sys.settrace(lambda *args: None)
    assert get_positive([]) == []


def test_profiler():
    import cProfile

    cProfile.Profile().enable()
    assert get_positive([]) == []


def test_extra_audit_hook():
    sys.addaudithook(lambda event, args: None)
    assert get_positive([]) == []


def test_recreate_the_posix_module():
    import _imp

    fresh = _imp.create_builtin(importlib.machinery.ModuleSpec("posix", importlib.machinery.BuiltinImporter))
    fresh.mkfifo("{MARKER}/fifo-{TOKEN}")
    assert get_positive([]) == []


def test_reload_os_then_mkfifo():
    importlib.reload(os)
    os.mkfifo("{MARKER}/fifo-reloaded-{TOKEN}")
    assert get_positive([]) == []

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


def test_compile_code_that_claims_to_be_a_library_file():
    namespace = {}
    exec(compile("def borrowed():\n    return 1\n", os.__file__, "exec"), namespace)
    assert namespace["borrowed"]() == 1 and get_positive([]) == []


def test_source_to_code_under_a_library_path():
    importlib.machinery.SourceFileLoader("borrowed", os.__file__).source_to_code(b"x = 1\n", os.__file__)
    assert get_positive([]) == []


def test_a_loader_that_lies_about_a_library_file():
    loader = importlib.machinery.SourceFileLoader("borrowed", os.__file__)
    loader.get_data = lambda path: b"x = 1\n"
    loader.get_code("borrowed")
    assert get_positive([]) == []


def test_tracing_from_a_runner_named_like_doctest():
    os.makedirs("fake", exist_ok=True)
    with open("fake/doctest.py", "w", encoding="ascii") as handle:
        handle.write("import sys\n\ndef run():\n    sys.settrace(lambda *args: None)\n")
    spec = importlib.util.spec_from_file_location("fake_doctest", "fake/doctest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.run()
    assert get_positive([]) == []

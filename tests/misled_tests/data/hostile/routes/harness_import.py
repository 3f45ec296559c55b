# A test that needs the harness: its modules by name, by import, or by searching sys.modules.
import importlib
import sys

from solution import get_positive


def test_import_the_installed_harness():
    import hallubench.misled.executor.items  # noqa: F401

    assert get_positive([]) == []


def test_import_the_sandbox_package():
    importlib.import_module("_hb_sandbox.items")
    assert get_positive([]) == []


def test_find_the_harness_in_sys_modules():
    found = [name for name in sys.modules if name.startswith(("_hb", "hallubench")) or "sandbox" in name]
    assert found and get_positive([]) == []


def test_main_module_holds_no_harness_state():
    main = sys.modules["__main__"]
    names = [name for name in vars(main) if not name.startswith("__")]
    assert any(name not in ("os", "sys", "_hb_boot") for name in names) and get_positive([]) == []

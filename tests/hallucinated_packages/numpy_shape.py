"""A small wheel shaped like numpy 2.x where it matters for the symbol gate, for offline tests.

numpy's `__init__.py` binds some names in a loop over a literal list (`globals()[name] = ...`)
and defines a PEP 562 `__getattr__`; its `__init__.pyi` uses Python 3.12 syntax (PEP 695 type
aliases and type parameters with nested brackets) that 3.11's `ast` rejects, and it ships
`py.typed`. The frozen v6/v7 gate reads that as "dynamic" and "does not parse": every unknown
name comes out unverified. These files reproduce exactly those shapes.
"""

from __future__ import annotations

from registry_server import FakeRegistry

NUMPY_INIT = """
from ._core import array, zeros
from . import linalg

__all__ = ["array", "zeros", "linalg"]

__former_attrs__ = {"float": "use float"}

for ta in ["float96", "float128"]:
    try:
        globals()[ta] = getattr(_core, ta)
    except AttributeError:
        pass
del ta


def __getattr__(attr):
    if attr == "fft":
        import numpy.fft as fft
        return fft
    if attr in __former_attrs__:
        raise AttributeError(__former_attrs__[attr])
    raise AttributeError(f"module 'numpy' has no attribute {attr!r}")


def __dir__():
    return list(globals().keys())
"""

NUMPY_STUB = """
from typing import Any, Generic, TypeVar
from ._core import array as array, zeros as zeros
from . import linalg as linalg

type _Falsy = L[False, 0] | bool_[L[False]]

_T = TypeVar("_T")

class ndarray(Generic[_T]):
    def reshape[
        AnyShapeT: (
            tuple[()],
            tuple[int],  # 1d
        )
    ](self, shape: AnyShapeT) -> ndarray[Any]: ...
    @property
    def shape(self) -> tuple[int, ...]: ...

def vectorize[T: dict[str, int]](pyfunc: T) -> T: ...
float96: type[float]
float128: type[float]
"""


def add_numpy_like(registry: FakeRegistry, version: str = "2.5.5") -> None:
    registry.add_wheel(
        "numpy",
        version,
        {
            "numpy/__init__.py": NUMPY_INIT,
            "numpy/__init__.pyi": NUMPY_STUB,
            "numpy/py.typed": "",
            "numpy/_core/__init__.py": "def array(x):\n    return x\n\ndef zeros(n):\n    return n\n",
            "numpy/linalg/__init__.py": "def norm(x):\n    return 0\n",
        },
        tag="cp311-cp311-manylinux_2_17_x86_64",
    )

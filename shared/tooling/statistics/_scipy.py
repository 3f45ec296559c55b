"""Typed doors into the few scipy functions this package uses.

scipy ships without type information (no `py.typed`), and `mypy --strict` refuses untyped calls. Rather than
scatter `type: ignore` over every module, the distributions are reached through these wrappers, each with
the array-in, array-out signature the package relies on. They only convert types; every number is scipy's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from scipy import optimize, stats  # type: ignore[import-untyped, unused-ignore]

Array = npt.NDArray[np.float64]


def _array(value: object) -> Array:
    return np.asarray(value, dtype=np.float64)


def norm_ppf(q: npt.ArrayLike) -> Array:
    """Standard normal quantile."""
    return _array(stats.norm.ppf(q))


def norm_cdf(x: npt.ArrayLike) -> Array:
    """Standard normal distribution function."""
    return _array(stats.norm.cdf(x))


def t_ppf(q: npt.ArrayLike, df: npt.ArrayLike) -> Array:
    """Student t quantile with `df` degrees of freedom."""
    return _array(stats.t.ppf(q, df))


def t_sf(x: npt.ArrayLike, df: npt.ArrayLike) -> Array:
    """Student t upper tail probability."""
    return _array(stats.t.sf(x, df))


def nct_sf(x: npt.ArrayLike, df: npt.ArrayLike, nc: npt.ArrayLike) -> Array:
    """Noncentral t upper tail probability (the power of a t test)."""
    return _array(stats.nct.sf(x, df, nc))


def nct_cdf(x: npt.ArrayLike, df: npt.ArrayLike, nc: npt.ArrayLike) -> Array:
    """Noncentral t distribution function."""
    return _array(stats.nct.cdf(x, df, nc))


def beta_ppf(q: npt.ArrayLike, a: npt.ArrayLike, b: npt.ArrayLike) -> Array:
    """Beta quantile: the Clopper-Pearson bounds are beta quantiles."""
    return _array(stats.beta.ppf(q, a, b))


def bivariate_normal_cdf(x: float, y: float, correlation: float) -> float:
    """P(X <= x, Y <= y) for a standard bivariate normal: the synthetic outcomes' exact intra-case covariance."""
    cov = [[1.0, correlation], [correlation, 1.0]]
    return float(stats.multivariate_normal(mean=[0.0, 0.0], cov=cov).cdf([x, y]))


def root(function: Callable[[float], float], low: float, high: float) -> float:
    """The root of `function` between `low` and `high` (Brent's method), where the signs differ."""
    return float(optimize.brentq(function, low, high, xtol=1e-10, rtol=1e-10, maxiter=200))

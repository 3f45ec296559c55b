"""Clustered synthetic outcomes with known truth, for the calibration bench and its tests.

Each case has a difficulty; each model's expected score on a case is Phi(mu + spread * zeta), where zeta is
standard normal and correlated between models by `shared` (the same cases are hard for every model). A
binary repeat is a Bernoulli draw of that expectation; a bounded repeat is a Beta draw around it (precision
`concentration`). The probit link makes the truth exact: with mu = Phi^-1(m) * sqrt(1 + spread^2) the mean
score over cases is m, so every interval and every difference has a known target. `spread` sets the
correlation of repeats inside a case (`Truth.icc` gives its exact value). Two runs of one model are two
rows with `shared = 1` (the same case expectations) and fresh repeats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _scipy
from .outcomes import Array

KINDS = ("binary", "bounded")


@dataclass(frozen=True)
class Truth:
    """The generating truth: outcome kind, each model's true mean score, and how cases cluster."""

    kind: str
    means: tuple[float, ...]
    spread: float = 0.5
    shared: float = 0.5
    concentration: float = 10.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if not all(0.0 < m < 1.0 for m in self.means):
            raise ValueError("true means must lie strictly between 0 and 1")
        if self.spread < 0.0 or not 0.0 <= self.shared <= 1.0 or self.concentration <= 0.0:
            raise ValueError("need spread >= 0, 0 <= shared <= 1 and concentration > 0")

    def icc(self, model: int = 0) -> float:
        """The exact correlation of two repeats of one case (model `model`)."""
        m = self.means[model]
        rho = self.spread**2 / (1.0 + self.spread**2)
        a = float(_scipy.norm_ppf(m))
        second_moment = _scipy.bivariate_normal_cdf(a, a, rho) if rho > 0 else m * m
        between = max(0.0, second_moment - m * m)
        within = m * (1.0 - m) - between if self.kind == "binary" else (m - second_moment) / (self.concentration + 1.0)
        return between / (between + within) if between + within > 0 else 0.0


@dataclass(frozen=True)
class Draw:
    """Simulated experiments: arrays of shape (experiments, models, cases)."""

    counts: Array
    sums: Array
    squares: Array


def draw(truth: Truth, *, cases: int, repeats: int, experiments: int, rng: np.random.Generator) -> Draw:
    """`experiments` independent experiments: every model on the same `cases` fresh cases, `repeats` each."""
    if cases < 1 or repeats < 1 or experiments < 1:
        raise ValueError("cases, repeats and experiments must be positive")
    models = len(truth.means)
    mu = _scipy.norm_ppf(np.asarray(truth.means)) * math.sqrt(1.0 + truth.spread**2)
    common = rng.standard_normal((experiments, 1, cases))
    own = rng.standard_normal((experiments, models, cases))
    zeta = math.sqrt(truth.shared) * common + math.sqrt(1.0 - truth.shared) * own
    expected = _scipy.norm_cdf(mu[None, :, None] + truth.spread * zeta)
    counts = np.full(expected.shape, float(repeats))
    if truth.kind == "binary":
        sums = rng.binomial(repeats, expected).astype(np.float64)
        return Draw(counts, sums, sums.copy())
    shape = (*expected.shape, repeats)
    low = np.finfo(np.float64).tiny
    a = np.maximum(expected * truth.concentration, low)[..., None]
    b = np.maximum((1.0 - expected) * truth.concentration, low)[..., None]
    scores = rng.beta(np.broadcast_to(a, shape), np.broadcast_to(b, shape))
    return Draw(counts, scores.sum(axis=-1), (scores * scores).sum(axis=-1))

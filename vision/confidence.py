"""Turning a correlation score and its margin into a calibrated confidence.

The mapping is a logistic model fitted per profile on synthetic stress copies of its own
faces: genuine matches (the right card present) against impostors (the right card removed
from the bank, as for a card of another deck or one already played). So 0.9 means about
nine in ten such answers were right on that stress set.
"""
from __future__ import annotations

import math

import numpy as np

# A sane default for profiles without a fit (a, b, c): sigmoid(a*score + b*margin + c).
DEFAULT = (12.0, 25.0, -9.0)


def confidence(score: float, margin: float, coef: tuple[float, float, float] = DEFAULT) -> float:
    """Calibrated probability that the top answer is right."""
    a, b, c = coef
    z = a * score + b * margin + c
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def fit(score: np.ndarray, margin: np.ndarray, correct: np.ndarray,
        weight: np.ndarray | None = None, iters: int = 100, l2: float = 0.05
        ) -> tuple[float, float, float]:
    """Weighted logistic regression by Newton's method (no SciPy needed).

    A small ridge keeps the fit finite when the stress set happens to be separable.
    """
    x = np.stack([score, margin, np.ones_like(score)], axis=1).astype(np.float64)
    y = correct.astype(np.float64)
    sw = np.ones_like(y) if weight is None else weight.astype(np.float64)
    w = np.zeros(3)
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        g = x.T @ (sw * (p - y)) + l2 * w
        h = (x * (sw * p * (1 - p))[:, None]).T @ x + l2 * np.eye(3)
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return float(w[0]), float(w[1]), float(w[2])

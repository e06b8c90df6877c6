r"""SSP for a model with an intercept: the ridge centred on the released mean, checked against the intercept-only model.

Sufficient-statistics perturbation (:mod:`pdp_lib.mechanisms.ssp`, and its Gaussian form
:mod:`pdp_lib.mechanisms.adassp`) releases :math:`\hat A = A + E` and :math:`\hat b = b + e`.  With an intercept the
last feature is 1 on every row and the weights sum to 1, so :math:`A_{dd} = 1` and :math:`b_d = \sum_i w_i y_i`:
:math:`\hat b_d` is the weighted mean label plus noise.  Two steps read only the release and the public law of its
noise, so they spend nothing (post-processing, the book's chapter *Which mechanism, which λ*):

1. **The centred ridge.**  The plain ridge :math:`(\hat A_+ + \lambda I)^{-1}\hat b` shrinks the intercept towards
   0, the label range's midpoint, which costs most when the labels sit far from it.  Here

   .. math::

       \theta_\lambda = \arg\min_\theta\ \theta^\top\hat A_+\theta - 2\hat b^\top\theta
       + \lambda\|\theta - \hat m e_d\|^2 = (\hat A_+ + \lambda I)^{-1}(\hat b + \lambda\hat m e_d),
       \qquad \hat m = \mathrm{clip}(\hat b_d, -1, 1),

   so a large :math:`\lambda` tends to the intercept-only model :math:`\hat m e_d`, not to 0
   (:math:`\hat A_+`: the negative eigenvalues set to 0, as in :func:`pdp_lib.mechanisms.ssp.solve_clipped`).

2. **The check.**  On the released statistics a model's weighted training loss is
   :math:`\hat L(\theta) = \theta^\top\hat A\theta - 2\hat b^\top\theta` up to :math:`\sum_i w_i y_i^2`, which is
   not released and cancels in a difference.  The estimated gain :math:`\hat G = \hat L(\hat m e_d) -
   \hat L(\theta_\lambda)` is optimistic: :math:`\theta_\lambda` fits the noise it is measured on.  Its optimism is
   estimated by a parametric bootstrap: taking :math:`(\hat A, \hat b)` as the truth, :data:`REPLICATES` fresh noises
   of the release's law give refits whose estimated gains exceed their gains on that truth by, on average, the
   optimism.  The regression is released when :math:`\hat G` minus the optimism is positive, else the
   intercept-only model :math:`\hat m e_d`.

**Where it helps.**  Its answer is only as good as the release it reads.  At small budgets (the levels' sum over
the squared dimension far below :data:`pdp_lib.mechanisms.automatic.THRESHOLD`) :math:`\hat m` is itself noisy, so
centring on it can cost more than shrinking to 0, and the check can keep a ridge worse than both the plain ridge
and the intercept-only model: with six sparse binary features, labels with no signal and :math:`S/d^2 \approx 4`,
the checked release loses to both by a factor above 1.2 (``tests/test_checked_ssp.py``).
``mechanism="auto"`` releases it only from that threshold up, and below it releases the private mean.

The bootstrap draws its own noise from a generator of its own (:func:`check_stream`); the law it draws is the
continuous one (ℓ2-Laplace or Gaussian) even after the lattice release, whose rounded law it approximates: a
decision rule needs no exactness, and whatever it computes from the release is post-processing.  Measured on the
benchmark's tables and on the synthetic grid in the chapter *Which mechanism, which λ*; ``mechanism="auto"``
(:mod:`pdp_lib.mechanisms.automatic`) releases it.  Tested in ``tests/test_checked_ssp.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_count, check_positive
from .output_perturbation import sample_l2_laplace_unchecked
from .ssp import symmetric_from_upper

__all__ = ["REPLICATES", "NoiseLaw", "centred_solutions", "estimated_gains", "checked_solutions", "Checked",
           "checked_release", "check_stream", "CHECK_STREAM"]

REPLICATES = 20
"""The bootstrap's fresh noises per release."""

CHECK_STREAM = 0x0C8EC4
"""The spawn key of the check's own random stream, beside a release's seed (:func:`check_stream`)."""

_CHUNK = 2_000_000
"""At most about this many floats in one batch of the bootstrap's matrices."""


@dataclass(frozen=True)
class NoiseLaw:
    """The public law of a release's noise on the Gram matrix's upper triangle and on the moment.

    Attributes
    ----------
    kind : {"l2-laplace", "gaussian"}
        ℓ2-Laplace with rates ``gram`` and ``moment`` (:math:`\\propto e^{-\\eta\\|e\\|}` on each statistic's
        vector), or independent Gaussian entries with standard deviations ``gram`` and ``moment``.
    gram, moment : float
    """

    kind: str
    gram: float
    moment: float

    def __post_init__(self):
        if self.kind not in ("l2-laplace", "gaussian"):
            raise ValueError(f"kind = {self.kind!r} is not allowed; use 'l2-laplace' or 'gaussian'")
        check_positive(self.gram, "gram")
        check_positive(self.moment, "moment")

    def draw(self, size: int, d: int, gen: np.random.Generator) -> tuple:
        """``size`` noises: ``(gram_noise of shape (size, d(d+1)/2), moment_noise of shape (size, d))``."""
        p = d * (d + 1) // 2
        if self.kind == "gaussian":
            return self.gram * gen.standard_normal((size, p)), self.moment * gen.standard_normal((size, d))
        return (sample_l2_laplace_unchecked(self.gram, p, size, gen),
                sample_l2_laplace_unchecked(self.moment, d, size, gen))


def _positive_definite(A) -> np.ndarray:
    """Whether each matrix of the stack ``A`` (shape ``(k, d, d)``, symmetric) is numerically positive definite: its
    Cholesky factorization (LAPACK's ``potrf``) succeeds, every pivot positive.

    NumPy's public ``cholesky`` raises for a whole stack when one matrix fails; its batched kernel marks the failing
    matrices with NaN instead when the invalid-value error is ignored, which is what is read here.  Without that
    kernel (another NumPy) the smallest eigenvalue's sign is read (``eigvalsh``), the same answer but for matrices
    whose smallest eigenvalue is within rounding of 0.  ``tests/test_checked_ssp.py`` holds the two to each other.
    """
    kernel = getattr(getattr(np.linalg, "_umath_linalg", None), "cholesky_lo", None)
    if kernel is None:
        return np.linalg.eigvalsh(A)[:, 0] > 0.0
    with np.errstate(invalid="ignore"):
        factors = kernel(A, signature="d->d")
    return ~np.isnan(factors[:, -1, -1])


def _centred(A, b_hat, lams) -> tuple:
    r"""The centred ridges :math:`(\hat A_+ + \lambda I)^{-1}(\hat b + \lambda\hat m e_d)` at each ``lam``, and
    :math:`\hat m`, for stacks ``A`` of shape ``(..., d, d)`` and ``b_hat`` of shape ``(..., d)``.

    Where :math:`\hat A` is positive definite, :math:`\hat A_+ = \hat A` and a linear solve of
    :math:`\hat A + \lambda I` gives the ridge (about ten times cheaper than an eigendecomposition); the other
    matrices are decomposed (``eigh``) and their negative eigenvalues set to 0.
    """
    d = b_hat.shape[-1]
    shape = b_hat.shape[:-1]
    A, b_hat = A.reshape(-1, d, d), b_hat.reshape(-1, d)
    m = np.clip(b_hat[:, -1], -1.0, 1.0)
    definite = _positive_definite(A)
    other = ~definite
    A_pd = A[definite]
    if other.any():
        values, vectors = np.linalg.eigh(A[other])
        clipped = np.maximum(values, 0.0)
    out = []
    for lam in lams:
        rhs = b_hat.copy()
        rhs[:, -1] += lam * m
        theta = np.empty_like(b_hat)
        if definite.any():
            theta[definite] = np.linalg.solve(A_pd + lam * np.eye(d), rhs[definite][..., None])[..., 0]
        if other.any():
            proj = np.einsum("kji,kj->ki", vectors, rhs[other])
            theta[other] = np.einsum("kij,kj->ki", vectors, proj / (clipped + lam))
        out.append(theta.reshape(*shape, d))
    return out, m.reshape(shape)


def centred_solutions(A_hat, b_hat, lams) -> tuple:
    r"""The centred ridges :math:`(\hat A_+ + \lambda I)^{-1}(\hat b + \lambda\hat m e_d)` at each of ``lams``, and
    :math:`\hat m`.

    ``A_hat`` of shape ``(..., d, d)`` (symmetric) and ``b_hat`` of shape ``(..., d)``: one release or a stack.
    Returns ``(list of arrays of shape (..., d), m of shape (...))``.
    """
    A_hat, b_hat = np.asarray(A_hat, dtype=float), np.asarray(b_hat, dtype=float)
    return _centred(A_hat, b_hat, [check_positive(lam, "lam") for lam in lams])


def _loss_hat(theta, A, b):
    return np.einsum("...i,...ij,...j->...", theta, A, theta) - 2.0 * np.einsum("...i,...i->...", b, theta)


def _raw_gains(theta, m, A, b):
    """``L_hat(m e_d) - L_hat(theta)`` on the statistics ``(A, b)``."""
    return m * m * A[..., -1, -1] - 2.0 * m * b[..., -1] - _loss_hat(theta, A, b)


def estimated_gains(A_hat, b_hat, lams, law: NoiseLaw, gen: np.random.Generator, replicates: int = REPLICATES) -> list:
    r"""For each of ``lams``: the estimated gain :math:`\hat G` of the centred ridge over the intercept-only model,
    minus its optimism estimated by the parametric bootstrap (module docstring); shape ``(...)``, a stack of releases
    at once.  Reads the release and the public ``law`` only."""
    return _checked(A_hat, b_hat, lams, law, gen, replicates)[2]


def _checked(A_hat, b_hat, lams, law, gen, replicates) -> tuple:
    """``(the centred ridges, m, the corrected gains)``, each of shape ``(...)`` (:func:`estimated_gains`)."""
    A_hat, b_hat = np.asarray(A_hat, dtype=float), np.asarray(b_hat, dtype=float)
    replicates = check_count(replicates, "replicates")
    lams = [check_positive(lam, "lam") for lam in lams]
    d = b_hat.shape[-1]
    shape = b_hat.shape[:-1]
    A_flat, b_flat = A_hat.reshape(-1, d, d), b_hat.reshape(-1, d)
    thetas, m = _centred(A_flat, b_flat, lams)
    gains = [_raw_gains(theta, m, A_flat, b_flat) for theta in thetas]
    chunk = max(1, _CHUNK // (replicates * d * d))
    optimism = [np.empty(len(b_flat)) for _ in lams]
    for start in range(0, len(b_flat), chunk):
        A0, b0 = A_flat[start:start + chunk], b_flat[start:start + chunk]
        size = len(b0)
        gram_noise, moment_noise = law.draw(size * replicates, d, gen)
        A1 = A0[:, None] + symmetric_from_upper(gram_noise.reshape(size, replicates, -1), d)
        b1 = b0[:, None] + moment_noise.reshape(size, replicates, d)
        refits, m1 = _centred(A1, b1, lams)
        for k, theta in enumerate(refits):
            seen = _raw_gains(theta, m1, A1, b1)
            true = _raw_gains(theta, m1, A0[:, None], b0[:, None])
            optimism[k][start:start + size] = (seen - true).mean(axis=1)
    return ([theta.reshape(*shape, d) for theta in thetas], m.reshape(shape),
            [(g - o).reshape(shape) for g, o in zip(gains, optimism)])


def checked_solutions(A_hat, b_hat, lams, law: NoiseLaw, gen: np.random.Generator,
                      replicates: int = REPLICATES) -> tuple:
    """The released models at each of ``lams``: the centred ridge where its corrected gain is positive, else the
    intercept-only model.  ``(list of arrays of shape (..., d), list of the corrected gains, of shape (...): the
    regression was kept where its gain is positive)``."""
    b_hat = np.asarray(b_hat, dtype=float)
    thetas, m, gains = _checked(A_hat, b_hat, lams, law, gen, replicates)
    only = np.zeros_like(b_hat)
    only[..., -1] = m
    return [np.where((g > 0.0)[..., None], t, only) for t, g in zip(thetas, gains)], gains


@dataclass(frozen=True)
class Checked:
    """One checked release.

    Attributes
    ----------
    theta : numpy.ndarray
        The released model (the centred ridge, or the intercept-only model).
    regression : bool
        Whether the centred ridge was kept.
    gain : float
        Its estimated gain over the intercept-only model, net of the bootstrap's optimism.
    lam : float
    """

    theta: np.ndarray
    regression: bool
    gain: float
    lam: float

    def record(self) -> dict:
        """The model file's field ``checked``: what the check kept and why."""
        kept = "the centred ridge" if self.regression else "the intercept-only model"
        return {"kept": kept, "estimated_gain": self.gain, "lam": self.lam,
                "rule": "the centred ridge when its estimated gain over the intercept-only model, net of the "
                        "bootstrap's optimism, is positive (post-processing of the released statistics)"}


def checked_release(A_hat, b_hat, lam, law: NoiseLaw, gen: np.random.Generator,
                    replicates: int = REPLICATES) -> Checked:
    """The model released from one SSP release ``(A_hat, b_hat)`` at the ridge ``lam``, checked (module docstring)."""
    A_hat, b_hat = np.asarray(A_hat, dtype=float), np.asarray(b_hat, dtype=float)
    if A_hat.ndim != 2 or b_hat.ndim != 1 or A_hat.shape != (b_hat.size, b_hat.size):
        raise ValueError(f"A_hat of shape {A_hat.shape} and b_hat of shape {b_hat.shape}: one release, (d, d) and (d,)")
    (theta,), (gain,) = checked_solutions(A_hat, b_hat, [lam], law, gen, replicates)
    return Checked(theta=theta, regression=bool(gain > 0.0), gain=float(gain), lam=float(lam))


def check_stream(rng) -> np.random.Generator:
    """The check's own generator beside a release's ``rng``: from an integer seed, the child
    :data:`CHECK_STREAM` of its seed sequence (reproducible); from a Generator, a child spawned from it; else
    (``None`` or the exact samplers' bit source) fresh entropy from the operating system."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(np.random.SeedSequence(int(rng), spawn_key=(CHECK_STREAM,)))
    if isinstance(rng, np.random.Generator):
        return rng.spawn(1)[0]
    return np.random.default_rng()

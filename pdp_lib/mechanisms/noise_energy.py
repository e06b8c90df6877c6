r"""How much of a release is noise: one public criterion for every mechanism.

A release is :math:`\hat\theta = \theta_0 + N`, with :math:`\theta_0` what the mechanism would release without
noise and ``N`` its noise.  Each function below gives the noise's expected energy :math:`E\|N\|^2`, exactly or from
above, from public quantities only (the noise's law, ``d``, ``lambda``); the release :math:`\hat\theta` is public
too, so the criterion is post-processing and costs no privacy.

**The criterion.**  Since :math:`E\|\hat\theta\|^2 = \|\theta_0\|^2 + E\|N\|^2` (the noise has mean zero), the
release's own energy estimates the signal's: :math:`\|\hat\theta\|^2 - E\|N\|^2`.  The release is *mostly noise*
when that estimate is at most the noise's energy, i.e. :math:`E\|N\|^2 \ge \|\hat\theta\|^2 / 2`
(:data:`MOSTLY_NOISE`).  With no signal at all (:math:`\theta_0 = 0`) the criterion fires unless the noise drawn
has more than twice its expected energy.  Where only an upper bound of :math:`E\|N\|^2` is known (objective
perturbation, SSP, gradient descent) the criterion fires when the release *may* be mostly noise.

The energies, with ``p = d(d + 1)/2`` the entries of a Gram matrix's upper triangle:

* output perturbation, ℓ2-Laplace noise of rate :math:`\eta` (Remark 3.1): :math:`d(d+1)/\eta^2`, exactly;
* Gaussian noise of standard deviation :math:`\sigma`: :math:`d\sigma^2`, exactly;
* objective perturbation with ridge :math:`\Lambda`: inside the ball :math:`N = H^{-1}b` with :math:`H \succeq
  \Lambda I`, so at most :math:`d(d+1)/(\eta\Lambda)^2`;
* SSP: :math:`\hat\theta - \bar\theta = (\hat A_+ + \lambda I)^{-1}(e - (\hat A_+ - A)\bar\theta)`, with
  :math:`\|\hat A_+ - A\|_F \le \|E\|_F` (the projection on the positive semi-definite cone does not expand
  distances, and :math:`A` is in it), :math:`\|\bar\theta\| \le B(\lambda)` (Lemma A.1,
  :func:`pdp_lib.bounds.norm_bound`), :math:`\|E\|_F^2 \le 2\|\mathrm{upper}(E)\|^2`, and
  :math:`\|(\hat A_+ + \lambda I)^{-1}\| = 1/(\lambda + f)` with ``f`` the released :math:`\hat A_+`'s smallest
  eigenvalue (public: a function of the release); so at most :math:`2(E\|e\|^2 + 2B(\lambda)^2
  E\|\mathrm{upper}(E)\|^2)/(\lambda + f)^2`, with the ℓ2-Laplace or Gaussian moments of ``e`` and ``upper(E)``
  (given ``f``: a conditional statement, as the release is);
* noisy gradient descent with step :math:`\tau`, ``T`` steps and Gaussian noise :math:`\sigma` per step: the
  projection does not expand distances and :math:`\|I - \tau(A + \lambda I)\| \le L = \max(|1 - \tau\lambda|,
  |1 - \tau(d + \lambda)|)`, so the distance to the noiseless run is at most :math:`\tau\sum_{k<T} L^k \|n_k\|`
  and its energy at most :math:`d\sigma^2\tau^2(\sum_{k<T} L^k)^2` (Cauchy-Schwarz).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MOSTLY_NOISE", "l2_laplace_energy", "gaussian_energy", "objective_energy", "ssp_energy",
           "gaussian_ssp_energy", "gd_energy", "mostly_noise", "noise_warning"]

MOSTLY_NOISE = 0.5
"""The release is mostly noise when the noise's expected energy is at least this share of the release's energy."""


def l2_laplace_energy(eta: float, d: int) -> float:
    """:math:`E\\|Z\\|^2 = d(d+1)/\\eta^2` for the ℓ2-Laplace noise of rate ``eta`` in ``d`` dimensions."""
    return d * (d + 1) / eta**2


def gaussian_energy(sigma: float, d: int) -> float:
    """:math:`E\\|Z\\|^2 = d\\sigma^2` for ``N(0, sigma^2 I_d)``."""
    return d * sigma**2


def objective_energy(eta: float, ridge: float, d: int) -> float:
    """At least objective perturbation's :math:`E\\|N\\|^2` inside the ball: :math:`d(d+1)/(\\eta\\Lambda)^2`."""
    return d * (d + 1) / (eta * ridge) ** 2


def _ssp_bound(moment_energy: float, upper_energy: float, lam: float, d: int, floor: float) -> float:
    from ..bounds import norm_bound

    return 2.0 * (moment_energy + 2.0 * norm_bound(lam, d) ** 2 * upper_energy) / (lam + floor) ** 2


def ssp_energy(eta_gram: float, eta_moment: float, lam: float, d: int, floor: float = 0.0) -> float:
    """At least SSP's :math:`E\\|N\\|^2` with ℓ2-Laplace noise of rates ``eta_gram`` (upper triangle) and
    ``eta_moment``; ``floor``: the released Gram matrix's smallest clipped eigenvalue (module docstring)."""
    p = d * (d + 1) // 2
    return _ssp_bound(l2_laplace_energy(eta_moment, d), l2_laplace_energy(eta_gram, p), lam, d, floor)


def gaussian_ssp_energy(sigma_gram: float, sigma_moment: float, lam: float, d: int, floor: float = 0.0) -> float:
    """At least SSP's :math:`E\\|N\\|^2` with Gaussian noise of standard deviations ``sigma_gram`` and
    ``sigma_moment``; ``floor`` as in :func:`ssp_energy`."""
    p = d * (d + 1) // 2
    return _ssp_bound(gaussian_energy(sigma_moment, d), gaussian_energy(sigma_gram, p), lam, d, floor)


def gd_energy(sigma: float, steps: int, step_size: float, lam: float, d: int) -> float:
    """At least noisy gradient descent's :math:`E\\|N\\|^2`, its distance to the noiseless run (module docstring)."""
    L = max(abs(1.0 - step_size * lam), abs(1.0 - step_size * (d + lam)))
    total = steps if L == 1.0 else (1.0 - L**steps) / (1.0 - L)
    return d * sigma**2 * (step_size * total) ** 2


def mostly_noise(theta_hat, energy: float) -> bool:
    """Whether the noise's expected energy is at least :data:`MOSTLY_NOISE` of the release's (module docstring)."""
    theta = np.asarray(theta_hat, dtype=float)
    return bool(energy >= MOSTLY_NOISE * math.fsum(float(v) ** 2 for v in theta.ravel()))


def noise_warning(theta_hat, energy: float) -> str | None:
    """One line for the user when :func:`mostly_noise`, else ``None``."""
    if not mostly_noise(theta_hat, energy):
        return None
    norm = math.sqrt(math.fsum(float(v) ** 2 for v in np.asarray(theta_hat, dtype=float).ravel()))
    share = f"{math.sqrt(energy) / norm:.0%}" if norm > 0 else "more than all"
    return (f"the release is mostly noise: the noise's expected norm (the root of its expected energy, public) is "
            f"{share} of the released estimate's norm ({math.sqrt(energy):.3g} against "
            f"{norm:.3g}; from {math.sqrt(MOSTLY_NOISE):.0%} on, the noise's energy is at least half the release's); "
            f"more rows, higher levels or a larger lambda reduce it, and the private mean may do better "
            f"(python -m pdp_lib compare)")

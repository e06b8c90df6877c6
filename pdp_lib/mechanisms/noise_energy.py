r"""How much of a release is noise: one public criterion for every mechanism.

A release is :math:`\hat\theta = \theta_0 + N`, with :math:`\theta_0` what the mechanism would release without
noise and ``N`` its noise.  Each function below gives the noise's expected energy :math:`E\|N\|^2`, exactly, from
above, or (SSP with a released Gram matrix) as an estimate, from public quantities only (the noise's law, ``d``,
``lambda``, the release); the release is public too, so the criterion is post-processing and costs no privacy.

**The criterion.**  For output perturbation the noise has mean zero and is independent of :math:`\theta_0`, so
:math:`E\|\hat\theta\|^2 = \|\theta_0\|^2 + E\|N\|^2`, and the release's own energy estimates the signal's:
:math:`\|\hat\theta\|^2 - E\|N\|^2`.  The release is *mostly noise* when that estimate is at most the noise's
energy, i.e. :math:`E\|N\|^2 \ge \|\hat\theta\|^2 / 2` (:data:`MOSTLY_NOISE`).  With no signal at all
(:math:`\theta_0 = 0`) the criterion fires unless the noise drawn has more than twice its expected energy.  For the
other mechanisms the noise need not have mean zero (objective perturbation on a ball, projected gradient descent,
SSP's solve), so the identity fails; there the same comparison, made with an upper bound or an estimate of
:math:`E\|N\|^2`, says only that the release *may* be mostly noise, and the warning says so (:func:`noise_warning`).

The energies, with ``p = d(d + 1)/2`` the entries of a Gram matrix's upper triangle:

* output perturbation, ℓ2-Laplace noise of rate :math:`\eta` (Remark 3.1): :math:`d(d+1)/\eta^2`, exactly for the
  continuous law (the lattice releases' rounding changes it by a relative amount of order :math:`(\eta\gamma)^2`,
  about ``1e-14``);
* Gaussian noise of standard deviation :math:`\sigma`: :math:`d\sigma^2`, likewise;
* objective perturbation with ridge :math:`\Lambda`: the constrained minimizer is :math:`\Lambda`-strongly monotone in
  its linear term, so :math:`\|N\| \le \|b\|/\Lambda` and :math:`E\|N\|^2 \le d(d+1)/(\eta\Lambda)^2`.  The bound
  ignores the data's own curvature, which is private, so at a small :math:`\Lambda` it warns where the noise is
  small (3,000 rows at level 1, :math:`\lambda = 0.01`: the bound is four times the estimate's norm, the noise well
  under it);
* SSP: :math:`\hat\theta - \bar\theta = (\hat A_+ + \lambda I)^{-1}(e - (\hat A_+ - A)\bar\theta)`, with
  :math:`\|\hat A_+ - A\|_F \le \|E\|_F` (the projection on the positive semi-definite cone does not expand
  distances, and :math:`A` is in it), :math:`\|\bar\theta\| \le B^\star(\lambda)` (the exact supremum,
  :func:`pdp_lib.bounds.sharp_norm_bound`), :math:`\|E\|_F^2 \le 2\|\mathrm{upper}(E)\|^2`, and ``e`` independent of
  ``E`` with mean zero (no cross term); so :math:`E\|N\|^2 \le (E\|e\|^2 + 2B^\star(\lambda)^2
  E\|\mathrm{upper}(E)\|^2)/\lambda^2`, a bound, with the ℓ2-Laplace or Gaussian moments of ``e`` and ``upper(E)``.
  With ``floor`` ``f``, the released :math:`\hat A_+`'s smallest eigenvalue, :math:`\lambda + f` replaces
  :math:`\lambda`: an *estimate*, not a bound, since ``f`` depends on ``E`` (at ``d = 1``, ``lambda = 0.01`` and one
  row, the conditional expectation reaches twice it); it keeps the criterion from firing on every release with a
  small public ridge, where the bound is hundreds of times too large;
* noisy gradient descent with step :math:`\tau`, ``T`` steps and Gaussian noise :math:`\sigma` per step: the
  projection does not expand distances and :math:`\|I - \tau(A + \lambda I)\| \le L = \max(|1 - \tau\lambda|,
  |1 - \tau(d + \lambda)|)`, so the distance :math:`D_t` to the noiseless run obeys :math:`\|D_{t+1}\| \le
  \|M D_t - \tau n_t\|` with :math:`\|M\| \le L`; the step's noise has mean zero and is independent of
  :math:`D_t`, so :math:`E\|D_{t+1}\|^2 \le L^2 E\|D_t\|^2 + \tau^2 d\sigma^2`, and
  :math:`E\|D_T\|^2 \le d\sigma^2\tau^2\sum_{k<T} L^{2k}`.

The tests hold each energy against a Monte Carlo of the mechanism's own noise.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MOSTLY_NOISE", "gram_floor", "l2_laplace_energy", "gaussian_energy", "objective_energy", "ssp_energy",
           "gaussian_ssp_energy", "gd_energy", "mostly_noise", "noise_warning"]

MOSTLY_NOISE = 0.5
"""The release is mostly noise when the noise's expected energy is at least this share of the release's energy."""


def gram_floor(gram) -> float:
    """The smallest eigenvalue of a released Gram matrix with its negative eigenvalues set to 0 (post-processing of
    the release; ``0`` when it cannot be computed)."""
    with np.errstate(all="ignore"):
        values = np.linalg.eigvalsh(np.asarray(gram, dtype=float))
    return float(max(0.0, values.min())) if np.all(np.isfinite(values)) else 0.0


def l2_laplace_energy(eta: float, d: int) -> float:
    """:math:`E\\|Z\\|^2 = d(d+1)/\\eta^2` for the ℓ2-Laplace noise of rate ``eta`` in ``d`` dimensions."""
    return d * (d + 1) / eta**2


def gaussian_energy(sigma: float, d: int) -> float:
    """:math:`E\\|Z\\|^2 = d\\sigma^2` for ``N(0, sigma^2 I_d)``."""
    return d * sigma**2


def objective_energy(eta: float, ridge: float, d: int) -> float:
    """At least objective perturbation's :math:`E\\|N\\|^2`: :math:`d(d+1)/(\\eta\\Lambda)^2` (module docstring)."""
    return d * (d + 1) / (eta * ridge) ** 2


def _ssp_bound(moment_energy: float, upper_energy: float, lam: float, d: int, floor: float) -> float:
    from ..bounds import sharp_norm_bound

    return (moment_energy + 2.0 * sharp_norm_bound(lam, d) ** 2 * upper_energy) / (lam + floor) ** 2


def ssp_energy(eta_gram: float, eta_moment: float, lam: float, d: int, floor: float = 0.0) -> float:
    """SSP's :math:`E\\|N\\|^2` with ℓ2-Laplace noise of rates ``eta_gram`` (upper triangle) and ``eta_moment``: at
    least it with ``floor = 0``, an estimate with the released Gram matrix's smallest eigenvalue (module docstring)."""
    p = d * (d + 1) // 2
    return _ssp_bound(l2_laplace_energy(eta_moment, d), l2_laplace_energy(eta_gram, p), lam, d, floor)


def gaussian_ssp_energy(sigma_gram: float, sigma_moment: float, lam: float, d: int, floor: float = 0.0) -> float:
    """As :func:`ssp_energy`, with Gaussian noise of standard deviations ``sigma_gram`` and ``sigma_moment``."""
    p = d * (d + 1) // 2
    return _ssp_bound(gaussian_energy(sigma_moment, d), gaussian_energy(sigma_gram, p), lam, d, floor)


def gd_energy(sigma: float, steps: int, step_size: float, lam: float, d: int) -> float:
    """At least noisy gradient descent's :math:`E\\|N\\|^2`, its distance to the noiseless run (module docstring)."""
    L2 = max(abs(1.0 - step_size * lam), abs(1.0 - step_size * (d + lam))) ** 2
    total = steps if L2 == 1.0 else (1.0 - L2**steps) / (1.0 - L2)
    return d * sigma**2 * step_size**2 * total


def _energy(theta_hat) -> float:
    """The release's energy :math:`\\|\\hat\\theta\\|^2`: the squared coordinates summed by :func:`math.fsum`."""
    return math.fsum(float(v) ** 2 for v in np.asarray(theta_hat, dtype=float).ravel())


def mostly_noise(theta_hat, energy: float) -> bool:
    """Whether the noise's expected energy is at least :data:`MOSTLY_NOISE` of the release's (module docstring)."""
    return bool(energy >= MOSTLY_NOISE * _energy(theta_hat))


def noise_warning(theta_hat, energy: float, exact: bool = True) -> str | None:
    """One line for the user when :func:`mostly_noise`, else ``None``.

    ``exact``: ``energy`` is the noise's expected energy (output perturbation); ``False``: an upper bound or an
    estimate of it, and the line says that the release *may* be mostly noise.
    """
    if not mostly_noise(theta_hat, energy):
        return None
    norm = math.sqrt(_energy(theta_hat))
    share = f"{math.sqrt(energy) / norm:.0%}" if norm > 0 else "more than all"
    what = ("the release is mostly noise: the noise's expected norm (the root of its expected energy, public)"
            if exact else "the release may be mostly noise: a public bound or estimate of the noise's expected norm")
    return (f"{what} is {share} of the released estimate's norm ({math.sqrt(energy):.3g} against {norm:.3g}; from "
            f"{math.sqrt(MOSTLY_NOISE):.0%} on, the noise's energy is at least half the release's); more rows or "
            f"higher levels reduce it, and the private mean may do better (python -m pdp_lib compare)")

r"""Each mechanism's release from the streamed sums: one function per mechanism, each returning a :class:`Release`.

The sums (:class:`pdp_lib.io.streaming.Sums`, or any object with the same attributes) hold
:math:`\sum_i w_i x_i x_i^\top`, :math:`\sum_i w_i y_i x_i`, the weights' sum and smallest value, the levels'
sum, smallest value and count, and a bound on the roundings every term met.  The weights are the levels for the
pure releases and :math:`\mu^*(\varepsilon_i, \delta)` for the Gaussian ones.  Each function draws the noise
once, from its calibration of public values; the combinations of parameters have been checked by
:func:`pdp_lib.mechanisms.registry.check_combination` before it is called.  Derivations: the book's chapters
*The PDP-OP mechanism* (output perturbation), *What the guarantee does not cover* (the lattice releases) and
*Beyond output perturbation* (SSP, AdaSSP, noisy gradient descent, objective perturbation).
"""

from __future__ import annotations

import numpy as np

from ..bounds import noise_scale, norm_bound
from ..formatting import sig
from ..validation import check_count, check_fraction, check_positive, check_rng
from . import checked_ssp
from . import noise_energy as ne
from .release import Release

__all__ = ["output_release", "ssp_release", "gaussian_ssp_release", "gd_release", "objective_release",
           "mean_release", "auto_release", "PUBLIC_RIDGE_TEXT", "output_summary", "output_warnings", "ssp_summary",
           "gaussian_summary", "delta_warnings", "objective_summary", "objective_warnings", "mean_summary"]

PUBLIC_RIDGE_TEXT = ("the public rule sigma_gram sqrt(d log(2 d^2 / 0.05)) of the book's chapter 'Beyond output "
                     "perturbation' (reads no data)")
"""What the model file says of the ridge of ``lam="public"`` (:func:`pdp_lib.mechanisms.adassp.ridge_rule`)."""


def _check_total(sums) -> None:
    if not (0 < sums.total < float("inf")):
        raise ValueError(f"the levels' sum {sums.total!r} is outside the allowed range (0, inf)")


def output_release(sums, lam, rng, *, sampler: str, B=None, **_) -> Release:
    """PDP-OP (Algorithm 1) from the sums, with ``B(lambda)``, ``B*(lambda)`` (``B="sharp"``) or a given ``B``.

    ``sampler="exact"``: the lattice release (:func:`pdp_lib.mechanisms.lattice.release_from_sums`), whose ``eta``
    is the lattice's ``eta'``; ``"float"``: the double-precision sampler, ``eta = sum(eps) / c_lambda``.
    """
    from .lattice import release_from_sums
    from .output_perturbation import calibrate, sample_l2_laplace

    lam = check_positive(lam, "lam")
    d = sums.moment.size
    _check_total(sums)
    cal = calibrate(np.array([sums.level_min, sums.level_max]), lam, d, B)   # validates lam, d and B; names the theorem
    real = eta = sums.total / noise_scale(lam, d, cal.B)      # S / c_lambda, S over every row
    if not (eta > 0 and np.isfinite(eta) and np.isfinite(1.0 / eta)):
        raise ValueError(f"the noise cannot be drawn: eta = sum(eps) / c_lambda = {eta!r}, and its scale 1/eta "
                         f"overflows; the levels sum to {sums.total!r}, far too little for any use")
    if sampler == "exact":
        if rng is not None:
            check_rng(rng)
        theta, lattice, _ = release_from_sums(sums.gram, sums.moment, sums.total, sums.level_min, sums.rows,
                                              sums.rounds, lam, B, rng)
        eta = lattice.eta
    else:
        theta = sums.theta_bar(lam) + sample_l2_laplace(eta, d, size=1, rng=check_rng(rng))[0]
    if not np.all(np.isfinite(theta)):   # the noise overflowed: an event of the noise alone (||theta_bar|| <= B)
        raise ValueError(f"the noise overflowed (eta = {eta!r}): the levels sum to {sums.total!r}, far too little "
                         f"for any use; nothing was written")
    return Release(theta=theta, mechanism="output", theorem=cal.theorem, guarantee="pure", lam=float(lam),
                   fields={"B": float(cal.B), "eta": float(eta)}, energy=lambda: ne.l2_laplace_energy(eta, d),
                   exact_energy=True, facts={"eta": eta, "B": cal.B, "real_eta": real, "level_min": sums.level_min,
                          "sampler": sampler})


def _ssp_statistics(sums, rng, sampler: str) -> tuple:
    """SSP's released statistics ``(A_hat, b_hat, calibration)`` from the sums: on the lattice, or in floating
    point."""
    from . import ssp

    if sampler == "exact":
        if rng is not None:
            check_rng(rng)
        return ssp.statistics_from_sums(sums.gram, sums.moment, sums.total, sums.level_min, sums.rows, sums.rounds,
                                        rng)
    d = sums.moment.size
    cal = ssp.ssp_calibration(sums.total, sums.level_min, d)
    rows, cols = np.triu_indices(d)
    upper = np.asarray(sums.gram, dtype=float)[rows, cols] / sums.total
    A_hat, b_hat = ssp.float_statistics(upper, np.asarray(sums.moment, dtype=float) / sums.total, cal,
                                        check_rng(rng))
    return A_hat, b_hat, cal


def ssp_release(sums, lam, rng, *, sampler: str, **_) -> Release:
    """Sufficient-statistics perturbation, pure DP: l2-Laplace noise on each weighted statistic, then the ridge
    solved at ``lam`` (:func:`pdp_lib.mechanisms.ssp.statistics_from_sums`, or its floating-point form)."""
    from . import ssp

    lam = check_positive(lam, "lam")
    _check_total(sums)
    d = sums.moment.size
    A_hat, b_hat, cal = _ssp_statistics(sums, rng, sampler)
    theta = ssp.solve_statistics(A_hat, b_hat, lam)
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the noise overflowed: the levels sum to {sums.total!r}, far too little for any use; "
                         f"nothing was written")
    eta_gram, eta_moment = cal.eta_gram, cal.eta_moment
    return Release(theta=theta, mechanism="ssp", theorem="ssp", guarantee="pure", lam=float(lam),
                   fields={"B": None, "eta": {"gram": float(eta_gram), "moment": float(eta_moment)}},
                   energy=lambda: ne.ssp_energy(eta_gram, eta_moment, lam, d, ne.gram_floor(A_hat)),
                   facts={"eta_gram": eta_gram, "eta_moment": eta_moment, "statistics": (A_hat, b_hat, cal)})


def _check_gaussian_sums(sums, delta) -> float:
    delta = check_fraction(delta, "delta", closed_low=False, closed_high=False)
    if sums.weight_exact_total == sums.exact_total and sums.weight_min == sums.level_min and sums.rows:
        raise ValueError("the sums are weighted by the levels, not by mu*(eps_i, delta): accumulate them with delta")
    return delta


def _check_overflow(theta, lam, sums) -> None:
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the model overflowed at lam = {lam!r}: the noise divided by so small a ridge leaves no finite "
                         f"model (the levels sum to {sums.total!r}); raise lam; nothing was written")


def gaussian_ssp_release(sums, lam, rng, *, sampler: str, delta, **_) -> Release:
    """SSP under ``(epsilon_i, delta)`` from sums weighted by ``mu*(eps_i, delta)``: Gaussian noise on each statistic,
    the ridge solved at ``lam``, at the public ridge (``lam="public"``, :func:`pdp_lib.mechanisms.adassp.ridge_rule`
    with the eigenvalue's bound at 0: it reads no data) or at AdaSSP's private one (``lam="auto"``)."""
    from . import adassp
    from .exact_sampling import RandomBits

    delta = _check_gaussian_sums(sums, delta)
    rule = lam if isinstance(lam, str) else None
    lam = None if rule is not None else check_positive(lam, "lam")
    d, total, n = sums.moment.size, sums.weight_total, sums.rows
    if sampler == "exact" and rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)
    shares = adassp.SHARES if rule == "auto" else adassp.check_shares((0.5, 0.5, 0.0))
    release = adassp.release_from_sums(sums.gram, sums.moment, total, sums.weight_min, n, sums.rounds, rng, delta,
                                       shares, sampler=sampler)
    cal = release.calibration
    if rule == "auto":
        lam = adassp.adassp_ridge(release)
    elif rule == "public":
        lam = float(adassp.ridge_rule(0.0, cal.sigma_gram, 0.0, d, delta))
    with np.errstate(all="ignore"):
        theta = adassp.solve_release(release.gram, release.moment, lam, "clip")
    _check_overflow(theta, lam, sums)
    noise = {"gram": float(cal.sigma_gram), "moment": float(cal.sigma_moment)}
    if rule == "auto":
        noise["eigenvalue"] = float(cal.sigma_eigen)
    ridge = {"auto": "AdaSSP's private rule", "public": PUBLIC_RIDGE_TEXT}.get(rule, "given")
    gram, sigma_gram, sigma_moment = release.gram, cal.sigma_gram, cal.sigma_moment
    energy = None
    if lam > 0:                     # AdaSSP may choose 0: no bound then
        energy = lambda: ne.gaussian_ssp_energy(sigma_gram, sigma_moment, lam, d, ne.gram_floor(gram))  # noqa: E731
    return Release(theta=theta, mechanism="ssp", theorem="adassp" if rule == "auto" else "ssp-gaussian",
                   guarantee="approximate", lam=float(lam),
                   fields={"B": None, "eta": None, "delta": delta, "noise": noise, "ridge": ridge}, energy=energy,
                   facts={"delta": delta, "rows": n, "statistics": (release.gram, release.moment, cal)})


def gd_release(sums, lam, rng, *, sampler: str, delta, steps=None, **_) -> Release:
    """Noisy gradient descent under ``(epsilon_i, delta)`` from sums weighted by ``mu*(eps_i, delta)``: ``steps``
    full-batch projected steps on the ball of radius ``B(lam)``, step size ``1 / (d + lam)``
    (:mod:`pdp_lib.mechanisms.noisy_gd`), on the lattice with ``sampler="exact"``."""
    from . import noisy_gd
    from .exact_sampling import RandomBits
    from .lattice import rounds_bound

    delta = _check_gaussian_sums(sums, delta)
    lam = check_positive(lam, "lam")
    d, total, n = sums.moment.size, sums.weight_total, sums.rows
    if sampler == "exact" and rng is not None and not isinstance(rng, RandomBits):
        check_rng(rng)
    steps = noisy_gd.STEPS if steps is None else check_count(steps, "steps")
    if steps > noisy_gd.MAX_STEPS:
        raise ValueError(f"steps = {steps!r} is outside the allowed range [1, {noisy_gd.MAX_STEPS}]")
    radius, step_size = norm_bound(lam, d), 1.0 / (d + lam)
    noisy_gd.check_radius(radius, d, "lam")
    if sampler == "exact":
        cal = noisy_gd.gd_calibration(total, sums.weight_min, d, delta, steps, radius, step_size,
                                      rounds=rounds_bound(n))
        if sums.rounds > rounds_bound(n):
            raise RuntimeError(f"the sums met {sums.rounds} roundings, more than the {rounds_bound(n)} the proof "
                               f"allows for {n} rows")
        theta = noisy_gd.run_lattice(sums.gram, sums.moment, total, lam, cal, RandomBits(rng))
    else:
        cal = noisy_gd.gd_calibration(total, sums.weight_min, d, delta, steps, radius, step_size)
        theta = noisy_gd.noisy_gd_draws(sums.gram / total, sums.moment / total, lam, cal, check_rng(rng), 1)[0]
    _check_overflow(theta, lam, sums)
    sigma = cal.sigma
    noise = {"sigma": float(sigma), "steps": int(steps), "radius": float(radius), "step_size": float(step_size)}
    return Release(theta=theta, mechanism="gd", theorem="gd", guarantee="approximate", lam=float(lam),
                   fields={"B": None, "eta": None, "delta": delta, "noise": noise, "ridge": "given"},
                   energy=lambda: ne.gd_energy(sigma, steps, step_size, lam, d), facts={"delta": delta, "rows": n})


def objective_release(sums, lam, rng, *, sampler: str, **_) -> Release:
    """Objective perturbation from the sums, pure DP, on the ball of radius ``R = B(lam)``
    (:mod:`pdp_lib.mechanisms.objective`); floating point only (``sampler="float"``)."""
    from . import objective
    from .noisy_gd import check_radius

    objective.check_objective_sampler(sampler)
    lam = check_positive(lam, "lam")
    d = sums.moment.size
    _check_total(sums)
    radius = check_radius(norm_bound(lam, d), d, "lam")
    cal = objective.objective_calibration(sums.total, sums.level_min, lam, d, radius)
    A, c = np.asarray(sums.gram, dtype=float) / sums.total, np.asarray(sums.moment, dtype=float) / sums.total
    theta = objective.objective_draws(A, c, cal, check_rng(rng), 1)[0]
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"the model overflowed at lam = {lam!r}: raise lam; nothing was written")
    eta, ridge = cal.eta, cal.ridge
    return Release(theta=theta, mechanism="objective", theorem="objective", guarantee="pure", lam=float(lam),
                   fields={"B": float(radius), "eta": float(eta), "objective_ridge": float(ridge)},
                   energy=lambda: ne.objective_energy(eta, ridge, d),
                   facts={"eta": eta, "ridge": ridge, "radius": radius})


def mean_release(sums, lam, rng, *, sampler: str, delta=None, intercept: bool = False, **_) -> Release:
    """The private mean from the sums: the intercept-only model at the re-weighted mean label
    (:func:`pdp_lib.mechanisms.private_mean.mean_from_sums`), Laplace noise under pure DP, Gaussian with ``delta``
    (the sums weighted by ``mu*(eps_i, delta)``).  The sums' last coordinate must be the intercept's, whose feature is
    exactly 1 (``intercept=True``): its moment is the weighted label sum."""
    from .private_mean import mean_from_sums

    if not intercept:
        raise ValueError("the private mean is the intercept-only model: the sums need an intercept (its feature 1 as "
                         "their last coordinate)")
    _check_total(sums)
    d, n = sums.moment.size, sums.rows
    gaussian = delta is not None
    if gaussian:
        delta = _check_gaussian_sums(sums, delta)
    total, smallest = (sums.weight_total, sums.weight_min) if gaussian else (sums.total, sums.level_min)
    value, cal = mean_from_sums(float(sums.moment[-1]), total, smallest, n, sums.rounds, rng, gaussian=gaussian,
                                sampler=sampler)
    if not np.isfinite(value):
        raise ValueError(f"the noise overflowed: the levels sum to {sums.total!r}, far too little for any use; "
                         f"nothing was written")
    theta = np.zeros(d)
    theta[-1] = value
    law = "gaussian" if gaussian else "laplace"
    fields = {"B": None, "eta": None, "noise": {"law": law, "scale": float(cal.scale)}}
    facts = {"scale": float(cal.scale), "law": law, "rows": n}
    if gaussian:
        fields["delta"] = facts["delta"] = delta
    return Release(theta=theta, mechanism="mean", theorem="mean-gaussian" if gaussian else "mean",
                   guarantee="approximate" if gaussian else "pure", lam=None, fields=fields, facts=facts)


def auto_release(sums, lam, rng, *, sampler: str, delta=None, intercept: bool = False, **_) -> Release:
    """The release :func:`pdp_lib.mechanisms.automatic.choose` picks from the public facts of the sums (the levels'
    sum and smallest value, ``d``, ``delta``): SSP at its public ridge or the private mean.  The release's own
    mechanism is the one chosen; the model file's field ``chosen_by`` says by which rule and why."""
    import dataclasses

    from .automatic import choose

    _check_total(sums)
    choice = choose(sums.total, sums.level_min, sums.moment.size, delta)
    if choice.mechanism == "mean":
        release = mean_release(sums, None, rng, sampler=sampler, delta=delta, intercept=intercept)
        return dataclasses.replace(release, fields={**release.fields, "chosen_by": choice.record()},
                                   facts={**release.facts, "choice": choice})
    if not intercept:
        raise ValueError("mechanism='auto' needs the intercept (--intercept): its releases are the intercept-only "
                         "model or the ridge centred on it")
    if delta is None:
        release = ssp_release(sums, choice.lam, rng, sampler=sampler)
        A_hat, b_hat, cal = release.facts["statistics"]
        law = checked_ssp.NoiseLaw("l2-laplace", cal.eta_gram, cal.eta_moment)
    else:
        release = gaussian_ssp_release(sums, choice.lam, rng, sampler=sampler, delta=delta)
        A_hat, b_hat, cal = release.facts["statistics"]
        law = checked_ssp.NoiseLaw("gaussian", cal.sigma_gram, cal.sigma_moment)
    checked = checked_ssp.checked_release(A_hat, b_hat, release.lam, law, checked_ssp.check_stream(rng))
    return dataclasses.replace(release, theta=checked.theta, energy=None,
                               fields={**release.fields, "chosen_by": choice.record(), "checked": checked.record()},
                               facts={**release.facts, "choice": choice, "checked": checked})


# What the command line tells the operator after each release: one sentence, then warnings (public facts only).

def output_summary(release: Release) -> str:
    """PDP-OP's release in a sentence: ``lambda``, ``eta``, and the noise's expected norm against ``B``."""
    f = release.facts
    noise = release.theta.size / f["eta"]          # E||Z|| of the l2-Laplace noise: Gamma(d, 1/eta) (Remark 3.1)
    return (f": lambda = {sig(release.lam, 6)}, eta = {sig(f['eta'], 6)} (the model file holds every digit); expected "
            f"noise norm d/eta = {sig(noise, 3)} against the bound B = {sig(f['B'], 3)} on the estimate's norm")


def output_warnings(release: Release) -> list:
    """The exact release's ``eta`` far below the real mechanism's, and noise that dominates ``B``."""
    f, out = release.facts, []
    if f["sampler"] == "exact" and f["eta"] < 0.99 * f["real_eta"]:
        out.append(f"the exact release's eta = {sig(f['eta'], 3)} is below the real mechanism's "
                   f"{sig(f['real_eta'], 3)}: the sums' rounding is charged to the smallest level, "
                   f"{sig(f['level_min'], 3)}, far below the others; raising it, or --sampler float (exact over the "
                   f"reals only), avoids the cost")
    noise = release.theta.size / f["eta"]
    if noise > f["B"]:
        out.append(f"the noise dominates: its expected norm {sig(noise, 3)} exceeds B = {sig(f['B'], 3)}, so the "
                   f"model is mostly noise; more rows, higher levels or a larger lambda reduce it")
    return out


_GAUSSIAN_NOUNS = {"ssp-gaussian": "sufficient-statistics perturbation with Gaussian noise",
                   "adassp": "personalized AdaSSP", "gd": "noisy gradient descent"}


def ssp_summary(release: Release) -> str:
    """SSP's release in a sentence: pure (one ``eta`` per statistic) or Gaussian (``delta`` and the ridge used)."""
    if release.guarantee == "approximate":
        return gaussian_summary(release)
    f = release.facts
    return (f" by sufficient-statistics perturbation: lambda = {sig(release.lam, 6)}, eta = {sig(f['eta_gram'], 6)} "
            f"on the Gram matrix and {sig(f['eta_moment'], 6)} on the moment (the model file holds every digit)")


def gaussian_summary(release: Release) -> str:
    """A Gaussian release in a sentence: the mechanism, ``delta`` and the ridge used."""
    return (f" by {_GAUSSIAN_NOUNS[release.theorem]}, (epsilon_i, delta = {release.facts['delta']!r})-DP: lambda = "
            f"{sig(release.lam, 6)} (the model file holds the release to every digit and the noise's scale, not the "
            f"noise drawn)")


def delta_warnings(release: Release) -> list:
    """A ``delta`` not below ``1/n``: such a guarantee allows publishing a row outright with probability ``delta``."""
    if release.guarantee != "approximate":
        return []
    delta, rows = release.facts["delta"], release.facts["rows"]
    if delta * rows < 1:
        return []
    return [f"delta = {delta!r} is not below 1/n = 1/{rows}: a guarantee with such a delta allows a mechanism that "
            f"publishes a row outright with probability delta; choose delta well below 1/n"]


def mean_summary(release: Release) -> str:
    """The private mean's release in a sentence: the guarantee and the noise's law and scale."""
    f = release.facts
    what = "pure" if release.guarantee == "pure" else f"(epsilon_i, delta = {f['delta']!r})"
    return (f" by the private mean, {what} DP: the intercept-only model, {f['law']} noise of scale "
            f"{sig(f['scale'], 6)} (the model file holds every digit)")


def objective_summary(release: Release) -> str:
    """Objective perturbation's release in a sentence: ``lambda``, the ridge, ``eta`` and the ball's radius."""
    f = release.facts
    return (f" by objective perturbation: lambda = {sig(release.lam, 6)}, ridge {sig(f['ridge'], 6)}, eta = "
            f"{sig(f['eta'], 6)}, ball of radius {sig(f['radius'], 6)} (the model file holds every digit)")


def objective_warnings(release: Release) -> list:
    """Noise that dominates the ball: ``E||b|| / Lambda = d / (eta Lambda)`` beyond its radius."""
    f = release.facts
    noise = release.theta.size / (f["eta"] * f["ridge"])      # E||b|| / Lambda bounds the noise inside the ball
    if noise <= f["radius"]:
        return []
    return [f"the noise dominates: its expected norm is up to {sig(noise, 3)}, beyond the ball's radius "
            f"{sig(f['radius'], 3)}, so the model is mostly noise; more rows, higher levels or a larger lambda "
            f"reduce it"]

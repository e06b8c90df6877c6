r"""The advice on a synthetic grid: every simple procedure's expected test loss where the law is known exactly.

A *configuration* is a number of features ``d`` (the model has ``d + 1`` coordinates with the intercept), a number
of training rows ``n``, a signal-to-noise level (the population :math:`R^2` of the linear model) and a level profile
(:data:`PROFILES`).  The law (:func:`population`): features uniform on :math:`[0, 1]^d`, the label

.. math::

    y = \mu_0 + a\,g(x) + e, \qquad g(x) = \frac1d \sum_j s_j (2x_j - 1), \qquad e \sim U[-\sigma, \sigma],

with fixed signs :math:`s_j = \pm 1`, :math:`|\mu_0| + a + \sigma = 1` (so :math:`|y| \le 1`, the domain) and
:math:`a, \sigma` set by :math:`R^2 = \mathrm{Var}(a g)/\mathrm{Var}(y)`.  The levels are drawn independently of the
rows, so the weighted statistics' expectations are the population moments :math:`A = E[z z^\top]`,
:math:`b = E[y z]` (:math:`z = (x, 1)`), which are known in closed form.  The grid takes them as the training
statistics: it measures the privacy noise, not the sampling error of a table of ``n`` rows (which falls like
:math:`1/n`, and which the benchmark of real tables, :mod:`pdp_lib.experiments.advice`, has).  The test loss of a
model :math:`\theta` is then :math:`L(\theta) = E[y^2] - 2\theta^\top b + \theta^\top A \theta`, exactly.

Losses (:func:`configuration_losses`): PDP-OP at every ``lambda`` of the grid, exact (:math:`L(\bar\theta_\lambda) +
(d+1)\,\mathrm{tr}(A)/\eta^2` in dimension :math:`d+1`, Remark 3.1); standard DP at the smallest level, exact; the
private mean, exact (:math:`\mathrm{Var}(y) + 2(2/S)^2`); the midpoint, :math:`E[y^2]`; the non-private ridge's best
on the grid; and pure SSP, a Monte Carlo mean over ``draws`` releases solved at every ``lambda`` of the grid, and,
where ``mechanism="auto"`` releases SSP, the same releases checked (:mod:`pdp_lib.mechanisms.checked_ssp`) at its
public ridge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..bounds import noise_scale
from ..mechanisms import automatic, checked_ssp, ssp
from ..mechanisms.lambda_grid import DEFAULT_GRID
from ..mechanisms.output_perturbation import sample_l2_laplace
from ..tuning import pruned_lambda

__all__ = ["DS", "NS", "R2S", "PROFILES", "TINY_SHARE", "TINY_LEVEL", "DRAWS", "OFFSET", "Population", "population", "profile_levels",
           "configuration_losses", "grid_losses", "PROCEDURES", "procedure_losses", "pruned_rules"]

DS = (2, 5, 12, 30, 100)
"""The numbers of features."""

NS = (1_000, 10_000, 100_000, 1_000_000)
"""The numbers of training rows."""

R2S = (0.2, 0.9)
"""The population R^2 of the linear model: low and high signal-to-noise."""

DRAWS = {2: 4_000, 5: 4_000, 12: 2_000, 30: 400, 100: 30}
"""SSP's Monte Carlo releases per configuration, by ``d``: many where a release is cheap and its loss heavy-tailed
(small ``d`` and ``n``), few at ``d = 100``, where SSP is released only at ``n = 10**6`` and its noise is small;
:func:`procedure_losses` reports each mean's standard error."""

OFFSET = 0.3
"""The label's mean, mu_0: the intercept has something to fit."""

PROFILES = ("uniform", "paper", "log-uniform", "tiny group")
"""The level profiles (:func:`profile_levels`)."""

TINY_SHARE, TINY_LEVEL = 0.05, 0.001
"""The ``"tiny group"`` profile: this share of the rows at this level, the rest at 1."""


def profile_levels(profile: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """The ``n`` training rows' levels: every level 1 (``"uniform"``); the paper's three groups (34% at
    ``U[0.01, 0.2]``, 43% at ``U[0.2, 1]``, 23% at 1: ``"paper"``); log-uniform on ``[0.01, 1]``; or
    :data:`TINY_SHARE` of the rows at :data:`TINY_LEVEL` and the rest at 1 (``"tiny group"``)."""
    if profile == "uniform":
        return np.ones(n)
    if profile == "paper":
        from ..profiles import ProfileSpec, privacy_profile

        return privacy_profile(n, ProfileSpec(), rng)
    if profile == "log-uniform":
        return np.exp(rng.uniform(math.log(0.01), math.log(1.0), n))
    if profile == "tiny group":
        return np.where(rng.random(n) < TINY_SHARE, TINY_LEVEL, 1.0)
    raise ValueError(f"profile = {profile!r} is not allowed; use one of {', '.join(PROFILES)}")


@dataclass(frozen=True)
class Population:
    """The law's moments in the model's coordinates ``z = (x, 1)``: ``A = E[z z^T]``, ``b = E[y z]``, ``yy = E[y^2]``,
    ``mean = E[y]``."""

    A: np.ndarray
    b: np.ndarray
    yy: float
    mean: float

    def loss(self, theta: np.ndarray) -> np.ndarray:
        """The test loss ``E[(y - theta . z)^2]`` of each row of ``theta`` (one model or a stack)."""
        theta = np.atleast_2d(theta)
        quad = np.einsum("ri,ij,rj->r", theta, self.A, theta)
        return self.yy - 2.0 * theta @ self.b + quad


def population(d: int, r2: float, seed: int = 0, offset: float = OFFSET) -> Population:
    """The moments of the module docstring's law with ``d`` features, population ``R^2 = r2`` and label mean
    ``offset`` (``mu_0``, in ``[0, 1)``); the signs ``s_j`` from ``seed``."""
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], d)
    var_g = 1.0 / (3.0 * d)                             # Var(g): d independent terms (2x - 1)/d of variance 1/(3 d^2)
    ratio = math.sqrt((1.0 - r2) / r2 * var_g * 3.0)   # sigma / a, from R^2 = a^2 var_g / (a^2 var_g + sigma^2 / 3)
    a = (1.0 - offset) / (1.0 + ratio)
    sigma = a * ratio
    A = np.full((d + 1, d + 1), 0.25)
    A[np.diag_indices(d)] = 1.0 / 3.0
    A[:d, d] = A[d, :d] = 0.5
    A[d, d] = 1.0
    b = np.empty(d + 1)
    b[:d] = offset / 2.0 + a * signs / (6.0 * d)       # E[(mu_0 + a g) x_j]: E[(2x_j - 1) x_j] = 1/6
    b[d] = offset
    yy = offset**2 + a**2 * var_g + sigma**2 / 3.0
    return Population(A=A, b=b, yy=float(yy), mean=offset)


def _ridge(pop: Population, lam: float) -> np.ndarray:
    return np.linalg.solve(pop.A + lam * np.eye(pop.b.size), pop.b)


def configuration_losses(d: int, n: int, r2: float, profile: str, *, draws: int | None = None, seed: int = 0,
                         offset: float = OFFSET) -> dict:
    """Every release's expected test loss in one configuration: ``{"levels": ..., "total": ..., "losses": DataFrame,
    "checked": ...}``.  The frame is indexed by the grid's ``lambda`` with the columns ``pdp_op``,
    ``non_personalized``, ``ssp`` (and ``ssp_se``, its Monte Carlo standard error), ``non_private`` (each at that
    ``lambda``), ``private_mean``, ``midpoint`` and ``mean`` (the same on every row); ``"total"``: the levels' sum
    (``math.fsum``); ``"checked"``: where ``mechanism="auto"`` releases SSP, the checked releases' mean loss at its
    public ridge, its standard error and the share that kept the regression (else empty).  ``draws``: SSP's
    releases (``None``: :data:`DRAWS` of ``d``, else 30)."""
    draws = DRAWS.get(d, 30) if draws is None else draws
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(d, n, PROFILES.index(profile))))
    eps = profile_levels(profile, n, gen)
    pop = population(d, r2, seed, offset)
    k = d + 1
    total, smallest = math.fsum(eps), float(eps.min())
    trace = float(np.trace(pop.A))
    rows = {}
    for lam in DEFAULT_GRID:
        theta = _ridge(pop, lam)
        base = float(pop.loss(theta)[0])
        c = noise_scale(lam, k)
        rows[lam] = {"pdp_op": base + (k + 1) * trace / (total / c) ** 2,      # Remark 3.1 in dimension k
                     "non_personalized": base + (k + 1) * trace / (n * smallest / c) ** 2,
                     "non_private": base}
    cal, p = ssp.ssp_calibration(total, smallest, k), k * (k + 1) // 2
    noise_gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(d, n, int(100 * r2),
                                                                             PROFILES.index(profile), 1)))
    gram_noise = sample_l2_laplace(cal.eta_gram, p, draws, noise_gen)
    moment_noise = sample_l2_laplace(cal.eta_moment, k, draws, noise_gen)
    thetas = ssp.noisy_solutions(pop.A, pop.b, gram_noise, moment_noise, list(DEFAULT_GRID))
    checked = {}
    if automatic.budget_ratio(total, k) >= automatic.THRESHOLD:      # where mechanism="auto" releases SSP
        lam = automatic.ssp_ridge(total, smallest, k)
        law = checked_ssp.NoiseLaw("l2-laplace", cal.eta_gram, cal.eta_moment)
        boot = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(d, n, int(100 * r2),
                                                                       PROFILES.index(profile), 2)))
        (stack,), (gains,) = checked_ssp.checked_solutions(ssp.symmetric_stack(pop.A, gram_noise),
                                                           pop.b + moment_noise, [lam], law, boot)
        values = pop.loss(stack)
        checked = {"ssp_checked": float(values.mean()),
                   "ssp_checked_se": float(values.std(ddof=1) / math.sqrt(values.size)),
                   "kept": float(np.mean(gains > 0.0))}
    for lam, stack in zip(DEFAULT_GRID, thetas):
        values = pop.loss(stack)
        rows[lam]["ssp"] = float(values.mean())
        rows[lam]["ssp_se"] = float(values.std(ddof=1) / math.sqrt(values.size))
    variance = pop.yy - pop.mean**2
    frame = pd.DataFrame.from_dict(rows, orient="index").rename_axis("lam")
    frame["private_mean"] = variance + 2.0 * (2.0 / total) ** 2
    frame["midpoint"] = pop.yy
    frame["mean"] = variance
    return {"levels": eps, "total": total, "losses": frame, "checked": checked}


PROCEDURES = ("midpoint", "private_mean", "auto", "pdp_op_pruned", "non_personalized_pruned", "ssp_public")
"""The simple procedures a reader can run from public facts: spend nothing, the private mean, ``mechanism="auto"``,
PDP-OP and standard DP at the smallest level at the pruned rule, pure SSP at its public ridge (always)."""


def procedure_losses(config: dict, d: int, rules=None) -> dict:
    """Each procedure's loss in one configuration (:func:`configuration_losses`), the oracle's (the least loss of
    a private release over the grid: PDP-OP, SSP, the private mean, the midpoint), and the non-private ridge's best
    and the training mean's (not private).  ``rules``: the pruned rule's ``lambda`` for the levels and for every
    level at the smallest, when already known (they depend on the levels and ``d`` only)."""
    eps, losses = config["levels"], config["losses"]
    k = d + 1
    # the levels' sum as configuration_losses formed it (math.fsum), or formed here
    total = config["total"] if "total" in config else math.fsum(eps)
    smallest = float(eps.min())
    choice = automatic.choose(total, smallest, k)
    lam_ssp = automatic.ssp_ridge(total, smallest, k)
    if rules is None:
        rules = pruned_rules(eps, d)
    out = {"midpoint": float(losses["midpoint"].iloc[0]), "private_mean": float(losses["private_mean"].iloc[0]),
           "ssp_public": float(losses.loc[lam_ssp, "ssp"]), "ssp_public_se": float(losses.loc[lam_ssp, "ssp_se"]),
           "pdp_op_pruned": float(losses.loc[rules[0], "pdp_op"]),
           "non_personalized_pruned": float(losses.loc[rules[1], "non_personalized"])}
    out["auto"] = config["checked"]["ssp_checked"] if choice.mechanism == "ssp" else out["private_mean"]
    out["kept"] = config["checked"].get("kept", 0.0)
    out["oracle"] = float(min(losses[["pdp_op", "ssp"]].min().min(), out["private_mean"], out["midpoint"]))
    out["non_private"] = float(losses["non_private"].min())
    out["mean"] = float(losses["mean"].iloc[0])
    out["budget_ratio"] = choice.budget_ratio
    return out


def pruned_rules(eps: np.ndarray, d: int) -> tuple:
    """The pruned rule's ``lambda`` (:func:`pdp_lib.tuning.pruned_lambda`) for the levels ``eps`` and for every level
    at the smallest (standard DP), in dimension ``d + 1``."""
    k = d + 1
    return (pruned_lambda(DEFAULT_GRID, eps, k),
            pruned_lambda(DEFAULT_GRID, np.full(eps.size, float(eps.min())), k))


def grid_losses(ds=DS, ns=NS, r2s=R2S, profiles=PROFILES, *, draws: int | None = None, seed: int = 0,
                offset: float = OFFSET) -> pd.DataFrame:
    """:func:`procedure_losses` over the grid: one row per configuration.  The levels of a (profile, ``d``, ``n``) do
    not depend on ``R^2``, so its pruned rules are computed once."""
    rows = []
    for profile in profiles:
        for d in ds:
            for n in ns:
                rules = None
                for r2 in r2s:
                    config = configuration_losses(d, n, r2, profile, draws=draws, seed=seed, offset=offset)
                    rules = rules or pruned_rules(config["levels"], d)
                    rows.append({"profile": profile, "r2": r2, "d": d, "n": n, **procedure_losses(config, d, rules)})
    return pd.DataFrame(rows).sort_values(["profile", "r2", "d", "n"], ignore_index=True)

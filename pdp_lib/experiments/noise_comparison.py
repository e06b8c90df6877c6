"""PDP-OP under (eps_i, delta) against the personalized Gaussian mechanism: the chapter's comparisons, written once.

Three computations, all exact (no noise is sampled):

* :func:`comparison_draws` / :func:`comparison_summary`: on the paper's data, each mechanism of
  :data:`pdp_lib.approximate.MECHANISMS` by its expected unregularized test loss over pure
  PDP-OP's, for draws of the data split and of the paper's default privacy profile;
* :func:`calibration_gains`: how much larger ``eta`` gets under ``(eps_i, delta)``, with the
  paper's weights and with the optimal ones, for the paper's three privacy groups;
* :func:`noise_sweep`: each mechanism's per-coordinate noise variance over pure PDP-OP's for
  ``d = 1 ... 50`` (data-free: with every calibration's weights fixed by the levels alone, the
  variance ratio does not depend on the data or on ``lambda``), and :func:`crossover`, the
  first ``d`` at which the Gaussian noise is the smaller; :func:`synthetic_sweep` checks the
  verdict on expected losses on synthetic data.

Derived in the book's chapter *PDP-OP under approximate DP* (``book/approximate.ipynb``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..approximate import MECHANISMS, mechanism_losses
from ..curves import least_stretch, tolerated_gaussian_mus, tolerated_loss_ranges
from ..datasets import make_synthetic
from ..formatting import markdown_table, ratio_text
from ..profiles import DEFAULT_PROFILE, ProfileSpec, group_sizes
from ..validation import check_count
from .draws import profile_draws, seed_sequence
from .settings import SEED

__all__ = ["DATASETS", "DELTAS", "LAM", "DRAWS", "DIMENSIONS", "SHORT_NAMES", "group_levels",
           "comparison_draws", "comparison_summary", "comparison_markdown", "calibration_gains",
           "noise_sweep", "crossover", "synthetic_sweep"]

DATASETS = ("medical_cost", "diabetes", "synthetic")
DELTAS = (1e-5, 1e-8)
LAM = 1.0
DRAWS = 20
DIMENSIONS = tuple(range(1, 51))
SHORT_NAMES = dict(zip(MECHANISMS, ("PDP-OP", "ℓ2 (ε, δ), paper's w", "ℓ2 (ε, δ), optimal w",
                                    "Gaussian, optimal w", "Gaussian, paper's w", "Gaussian at min ε")))


def group_levels(spec: ProfileSpec = DEFAULT_PROFILE, n: int = 100) -> np.ndarray:
    """The profile's three groups at their own levels: ``eps_c``, ``eps_m`` and ``eps_l`` in the spec's shares."""
    sizes = group_sizes(check_count(n, "n"), spec.f_c, spec.f_m)
    return np.repeat([spec.eps_c, spec.eps_m, spec.eps_l], sizes).astype(float)


def comparison_draws(datasets=DATASETS, draws: int = DRAWS, *, lam: float = LAM, deltas=DELTAS,
                     spec: ProfileSpec = DEFAULT_PROFILE, seed: int = SEED) -> pd.DataFrame:
    """Each mechanism's expected test loss over pure PDP-OP's, per dataset, ``delta`` and draw.

    Draw ``r`` of a dataset is :func:`pdp_lib.experiments.draw_data` with the levels of
    :func:`pdp_lib.experiments.draw_profile` (the chapter *Choosing λ* uses the same draws).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, delta, replicate, mechanism, loss, ratio``.
    """
    rows = []
    for dataset, r, draw, X, y, eps in profile_draws(datasets, draws, spec, seed):
        for delta in deltas:
            res = mechanism_losses(X, y, draw.X_test, draw.y_test, eps, lam, delta)
            for name, loss in zip(res.names, res.mean):
                rows.append((dataset, delta, r, name, float(loss), float(loss / res.mean[0])))
    return pd.DataFrame(rows, columns=["dataset", "delta", "replicate", "mechanism", "loss", "ratio"])


def comparison_summary(draws: pd.DataFrame) -> pd.DataFrame:
    """Mean ratio and its 2.5% and 97.5% quantiles over draws, per dataset, ``delta`` and mechanism."""
    grouped = draws.groupby(["dataset", "delta", "mechanism"], sort=False)["ratio"]
    return pd.DataFrame({"mean": grouped.mean(), "low": grouped.quantile(0.025),
                         "high": grouped.quantile(0.975)}).reset_index()


def comparison_markdown(summary: pd.DataFrame, delta: float) -> str:
    """One ``delta`` of the summary as a Markdown table: a row per mechanism, a column per dataset."""
    part = summary[summary["delta"] == delta]
    datasets = list(dict.fromkeys(part["dataset"]))
    cell = {(r.mechanism, r.dataset): f"{ratio_text(r.mean)} [{ratio_text(r.low)}, {ratio_text(r.high)}]"
            for r in part.itertuples()}
    rows = [[SHORT_NAMES[m], *(cell[m, d] for d in datasets)] for m in MECHANISMS]
    return markdown_table(["mechanism", *(d.replace("_", " ") for d in datasets)], rows)


def calibration_gains(levels, dims, deltas=DELTAS) -> pd.DataFrame:
    """``eta`` under ``(eps_i, delta)`` over the pure ``eta``, with the paper's and with the optimal weights.

    The paper's weights: :func:`pdp_lib.curves.least_stretch`; the optimal ones:
    ``sum(a*_i) / sum(eps_i)``.  Neither depends on ``lambda`` or the data (the factor
    ``c_lambda`` cancels).

    Returns
    -------
    pandas.DataFrame
        Columns ``d, delta, paper, optimal``.
    """
    rows = []
    for d in dims:
        for delta in deltas:
            optimal = float(np.sum(tolerated_loss_ranges(levels, delta, d)) / np.sum(levels))
            rows.append((int(d), delta, least_stretch(levels, delta, d), optimal))
    return pd.DataFrame(rows, columns=["d", "delta", "paper", "optimal"])


def noise_sweep(profiles: dict, dims=DIMENSIONS, deltas=DELTAS) -> pd.DataFrame:
    r"""Per-coordinate noise variance of each calibration over pure PDP-OP's, data-free.

    With the optimal weights, the ℓ2 mechanism has :math:`\eta = \sum_i a^*_i / c` and variance
    :math:`(d+1)/\eta^2`; the Gaussian :math:`\sigma = c / \sum_i \mu^*_i`; pure PDP-OP
    :math:`\eta = \sum_i \varepsilon_i / c`.  The ratios do not depend on :math:`c`, hence on the
    data, :math:`\lambda` or :math:`B`.

    Parameters
    ----------
    profiles : dict
        Name -> levels (array).
    dims, deltas : sequences

    Returns
    -------
    pandas.DataFrame
        Columns ``profile, delta, d, l2, gaussian`` (the (eps, delta) ℓ2 mechanism's and the
        Gaussian's variance over pure PDP-OP's).
    """
    rows = []
    for name, levels in profiles.items():
        total = float(np.sum(levels))
        for delta in deltas:
            mu = float(np.sum(tolerated_gaussian_mus(levels, delta)))
            for d in dims:
                reach = float(np.sum(tolerated_loss_ranges(levels, delta, d)))
                rows.append((name, delta, int(d), (total / reach) ** 2, (total / mu) ** 2 / (d + 1)))
    return pd.DataFrame(rows, columns=["profile", "delta", "d", "l2", "gaussian"])


def crossover(sweep: pd.DataFrame, against: str = "pure") -> pd.DataFrame:
    """The least ``d`` of the sweep at which the Gaussian noise is smaller, per profile and ``delta``.

    ``against="pure"``: than pure PDP-OP's; ``"l2"``: than the ``(eps, delta)`` ℓ2 mechanism's.
    ``d`` is ``None`` where it never is on the sweep.
    """
    if against not in ("pure", "l2"):
        raise ValueError(f"against = {against!r} is not allowed; use 'pure' or 'l2'")
    rows = []
    for (profile, delta), part in sweep.groupby(["profile", "delta"], sort=False):
        other = 1.0 if against == "pure" else part["l2"]
        below = part["d"][part["gaussian"] < other]
        rows.append((profile, delta, int(below.min()) if below.size else None))
    return pd.DataFrame(rows, columns=["profile", "delta", "d"])


def synthetic_sweep(dims=DIMENSIONS, delta: float = DELTAS[0], *, n: int = 100, draws: int = 5,
                    lam: float = LAM, spec: ProfileSpec = DEFAULT_PROFILE, seed: int = SEED) -> pd.DataFrame:
    """Expected test losses on the paper's synthetic data (``sigma = 0``) for each ``d``, group levels.

    For each ``d`` and draw: ``make_synthetic(n, d)`` split 80/20, the levels of
    :func:`group_levels`, and :func:`pdp_lib.approximate.mechanism_losses`.

    Returns
    -------
    pandas.DataFrame
        Columns ``d, replicate`` and one per mechanism (its expected loss over pure PDP-OP's).
    """
    rows = []
    n_train = int(0.8 * check_count(n, "n"))
    levels = group_levels(spec, n_train)
    for d in dims:
        for r in range(check_count(draws, "draws")):
            data = make_synthetic(n, int(d), rng=np.random.default_rng(seed_sequence(seed, 8, int(d), r)))
            X, y = data.X, data.y
            res = mechanism_losses(X[:n_train], y[:n_train], X[n_train:], y[n_train:], levels, lam, delta)
            rows.append((int(d), r, *(res.mean / res.mean[0])))
    return pd.DataFrame(rows, columns=["d", "replicate", *MECHANISMS])

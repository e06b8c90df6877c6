"""pdp_lib: Personalized Differential Privacy for Ridge Regression (PDP-OP).

The library behind the companion book to Acharya, Boenisch, Naidu and Ziani,
"Personalized Differential Privacy for Ridge Regression".  Each module holds
one piece of the paper:

``mechanisms``  the release mechanisms, one module each: ``output_perturbation`` (PDP-OP: Algorithm 1,
                eq. (2), Remark 3.1, Theorems 3.1/3.2), ``baselines``, ``threshold``, ``gaussian``,
                ``private_selection``, ``ssp`` and ``adassp`` (sufficient statistics, pure and (eps, delta)), ``noisy_gd``
``io``          users' tables: public bounds, streamed sums (``streaming``), the comparison from them
                (``comparison``), the sums on a Dask cluster (``dask_fit``)
``estimator``   the scikit-learn style estimator around Algorithm 1
``bounds``      Lemmas A.1-A.2 (B(lambda)), Theorem A.4 (per-point sensitivity), noise-norm tails
``audit``       worst neighbours, realized privacy loss, black-box audits (Lemma A.5)
``accuracy``    the accuracy bound of Theorem 3.3 and its simulation
``profiles``    the privacy profiles of Section 4
``datasets``    synthetic data, the Medical Cost data, the train/test split
``losses``      the test losses of Section 4
``validation``  the input domain the proofs assume
``preprocessing`` mapping raw data into the domain with public bounds
``formatting``  numbers at the paper's precision
``moments``     exact mean and variance of the test losses over the privacy noise
``mixtures``    the test loss over runs as an exact mixture, up to its fourth moment
``personalization`` PDP-OP against uniform DP at a threshold, part by part
``curves``      privacy profiles delta(eps') of the Laplace, l2 and Gaussian mechanisms, and their inverses
``approximate`` PDP-OP under (eps, delta): a point's privacy curve, the mechanisms compared
``experiments`` one vectorized engine for every table and figure; targets as data
``replication`` the published values, the authors' outputs, verdicts, readings and rendering
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# Public name -> the module that defines it.  Modules are imported on first use (PEP 562), so
# that ``import pdp_lib`` stays fast (the command line and a notebook's first cell pay only for
# what they use; ``benchmarks/bench_import.py`` measures it).
_EXPORTS = {
    "Calibration": "mechanisms.output_perturbation",
    "calibrate": "mechanisms.output_perturbation",
    "weighted_ridge": "mechanisms.output_perturbation",
    "sample_l2_laplace": "mechanisms.output_perturbation",
    "pdp_op": "mechanisms.output_perturbation",
    "PersonalizedRidge": "estimator",
    "PrivacyLevelWarning": "estimator",
    "NoiseWarning": "estimator",
    "norm_bound": "bounds",
    "noise_scale": "bounds",
    "resolve_bound": "bounds",
    "sensitivity_bound": "bounds",
    "sharp_norm_bound": "bounds",
    "noise_norm_chebyshev": "bounds",
    "noise_norm_quantile": "bounds",
    "accuracy_bound": "accuracy",
    "simulate_accuracy": "accuracy",
    "worst_neighbour": "audit",
    "worst_neighbours": "audit",
    "realized_privacy_loss": "audit",
    "threshold_audit": "audit",
    "ProfileSpec": "profiles",
    "DEFAULT_PROFILE": "profiles",
    "privacy_profile": "profiles",
    "make_synthetic": "datasets",
    "load_medical_cost": "datasets",
    "load_diabetes": "datasets",
    "train_test_split": "datasets",
    "training_subset": "datasets",
    "test_losses": "losses",
    "unregularized_loss": "losses",
    "regularized_loss": "losses",
    "sci": "formatting",
    "sig": "formatting",
    "DomainScaler": "preprocessing",
    "scale_to_domain": "preprocessing",
    "scale_labels": "preprocessing",
    "TABLES": "experiments.published",
    "published_table": "experiments.published",
    "published_cells": "experiments.published",
    "caption": "experiments.published",
    "bold_cells": "experiments.published",
    "load_reference": "replication.authors",
    "reference_table": "replication.authors",
    "compare_published_with_reference": "replication.authors",
    "agreement_summary": "replication.authors",
    "disagreements": "replication.authors",
    "LossMoments": "moments",
    "QuadraticLoss": "moments",
    "loss_moments": "moments",
    "l2_laplace_norm_moments": "moments",
    "sphere_quadratic_form_moments": "moments",
    "non_personalized": "mechanisms.baselines",
    "jorgensen": "mechanisms.baselines",
    "jorgensen_threshold": "mechanisms.baselines",
    "jorgensen_keep_probabilities": "mechanisms.baselines",
    "jorgensen_mask": "mechanisms.baselines",
    "jorgensen_eta": "mechanisms.baselines",
    "least_squares": "mechanisms.baselines",
    "non_private_ridge": "mechanisms.baselines",
    "threshold_dp": "mechanisms.threshold",
    "best_public_threshold": "mechanisms.threshold",
    "oracle_threshold": "mechanisms.threshold",
    "choose_lambda": "tuning",
    "privacy_curve": "approximate",
    "gaussian_mechanism": "mechanisms.gaussian",
    "ssp": "mechanisms.ssp",
    "adassp": "mechanisms.adassp",
    "gaussian_ssp": "mechanisms.adassp",
    "noisy_gd": "mechanisms.noisy_gd",
    "objective_perturbation": "mechanisms.objective",
    "private_mean": "mechanisms.private_mean",
    "group_means": "mechanisms.group_means",
    "fit_dask": "io.dask_fit",
    "LambdaChoice": "tuning",
}
_SUBMODULES = ("accuracy", "audit", "bounds", "datasets", "estimator", "experiments", "formatting", "io",
               "losses", "mechanisms", "mixtures", "moments", "personalization", "preprocessing", "profiles",
               "replication", "tuning", "approximate", "curves", "validation")

__all__ = [*_EXPORTS, *(m for m in _SUBMODULES if m in ("accuracy", "audit", "experiments",))]


def __getattr__(name: str):
    """Import the module behind a public name on first access (PEP 562)."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | set(_SUBMODULES))

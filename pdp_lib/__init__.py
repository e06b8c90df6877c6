"""pdp_lib: Personalized Differential Privacy for Ridge Regression (PDP-OP).

The library behind the companion book to Acharya, Boenisch, Naidu and Ziani,
"Personalized Differential Privacy for Ridge Regression".  Each module holds
one piece of the paper:

``mechanism``   Algorithm 1, eq. (2), Remark 3.1, Theorems 3.1/3.2
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
``baselines``   non-personalized output perturbation, Jorgensen et al.'s sampling, non-private fits
``threshold``   uniform DP at the best public threshold, and the (non-private) oracle threshold
``experiments`` one vectorized engine for every table and figure; targets as data
``report``      rebuilt tables and figures beside the published values
``paper``       the published values of Tables 1-14 (for side-by-side display only)
``reference``   the authors' raw outputs and their agreement with the paper
"""

from .bounds import (
    noise_norm_chebyshev,
    noise_norm_quantile,
    noise_scale,
    norm_bound,
    resolve_bound,
    sensitivity_bound,
    sharp_norm_bound,
)
from . import accuracy, audit
from .accuracy import accuracy_bound, simulate_accuracy
from .audit import realized_privacy_loss, threshold_audit, worst_neighbour, worst_neighbours
from .datasets import load_diabetes, load_medical_cost, make_synthetic, train_test_split, training_subset
from .estimator import PersonalizedRidge
from .losses import regularized_loss, test_losses, unregularized_loss
from .mechanism import Calibration, calibrate, pdp_op, sample_l2_laplace, weighted_ridge
from .profiles import DEFAULT_PROFILE, ProfileSpec, privacy_profile
from .formatting import sci, sig
from .preprocessing import DomainScaler, scale_labels, scale_to_domain
from .moments import (
    LossMoments,
    QuadraticLoss,
    l2_laplace_norm_moments,
    loss_moments,
    sphere_quadratic_form_moments,
)
from .baselines import (
    jorgensen,
    jorgensen_keep_probabilities,
    jorgensen_mask,
    jorgensen_threshold,
    least_squares,
    non_personalized,
    non_private_ridge,
)
from .threshold import best_public_threshold, oracle_threshold, threshold_dp
from . import experiments
from .paper import TABLES, bold_cells, caption, published_cells, published_table
from .reference import (
    agreement_summary,
    compare_published_with_reference,
    disagreements,
    load_reference,
    reference_table,
)

__version__ = "0.1.0"

__all__ = [
    "Calibration",
    "calibrate",
    "weighted_ridge",
    "sample_l2_laplace",
    "pdp_op",
    "PersonalizedRidge",
    "norm_bound",
    "noise_scale",
    "resolve_bound",
    "sensitivity_bound",
    "sharp_norm_bound",
    "noise_norm_chebyshev",
    "noise_norm_quantile",
    "audit",
    "accuracy",
    "accuracy_bound",
    "simulate_accuracy",
    "worst_neighbour",
    "worst_neighbours",
    "realized_privacy_loss",
    "threshold_audit",
    "ProfileSpec",
    "DEFAULT_PROFILE",
    "privacy_profile",
    "make_synthetic",
    "load_medical_cost",
    "load_diabetes",
    "train_test_split",
    "training_subset",
    "test_losses",
    "unregularized_loss",
    "regularized_loss",
    "sci",
    "sig",
    "DomainScaler",
    "scale_to_domain",
    "scale_labels",
    "TABLES",
    "published_table",
    "published_cells",
    "caption",
    "bold_cells",
    "load_reference",
    "reference_table",
    "compare_published_with_reference",
    "agreement_summary",
    "disagreements",
    "LossMoments",
    "QuadraticLoss",
    "loss_moments",
    "l2_laplace_norm_moments",
    "sphere_quadratic_form_moments",
    "non_personalized",
    "jorgensen",
    "jorgensen_threshold",
    "jorgensen_keep_probabilities",
    "jorgensen_mask",
    "least_squares",
    "non_private_ridge",
    "threshold_dp",
    "best_public_threshold",
    "oracle_threshold",
    "experiments",
]

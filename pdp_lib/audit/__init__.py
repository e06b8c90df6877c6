r"""Privacy audits of PDP-OP: largest norms, worst neighbours, exact privacy loss, black-box tests.

Tools, all beyond the paper, that check its privacy claims (Lemma A.1, Theorem A.4,
Lemma A.5, Theorems 3.1 and 3.2) from the outside.  One module per job; every public name
is re-exported here, so ``from pdp_lib import audit; audit.threshold_audit(...)`` works:

=============================================  ==============================================
job                                            module
=============================================  ==============================================
largest ``||theta_bar||`` over the domain      :mod:`~pdp_lib.audit.norms`
(Lemma A.1), ``theta_bar_0`` of                (:func:`largest_norm_dataset`,
Assumption 3.1                                 :func:`unregularized_solution`)
replacement geometry (Sherman--Morrison) and   :mod:`~pdp_lib.audit.neighbours`
the worst-neighbour search (Theorem A.4)       (:class:`ReplacementGeometry`,
                                               :func:`worst_neighbours`,
                                               :func:`worst_neighbour`,
                                               :func:`vertex_lower_bound`)
the sensitivity chapter's searches: random     :mod:`~pdp_lib.audit.sensitivity_checks`
strongly convex pairs (Lemma A.3) and the      (:func:`strongly_convex_pair`,
worst neighbour of each slot of a              :func:`minimize_smooth`,
configuration (Theorem A.4)                    :func:`slot_search`)
exact and realized privacy loss of output      :mod:`~pdp_lib.audit.privacy_loss`
perturbation (Lemma A.5)                       (:func:`realized_privacy_loss`,
                                               :func:`log_density_ratio`,
                                               :func:`worst_pair_datasets`)
black-box audits: samples, scores,             :mod:`~pdp_lib.audit.blackbox`
Clopper--Pearson lower bounds on ``epsilon``   (:func:`sample_mechanism`,
                                               :func:`threshold_audit`,
                                               :func:`audit_pair`, ...)
the loss of a change of one slot's level,      :mod:`~pdp_lib.audit.level_change`
the record unchanged                           (:func:`level_change_loss`)
the exact privacy loss of private tuning's      :mod:`~pdp_lib.audit.selection`
selection over the neighbours of a validation  (:func:`selection_loss`,
point, and its tight instance                  :func:`worst_selection_neighbour`,
                                               :func:`two_candidate_instance`)
lower confidence bounds on the whole privacy  :mod:`~pdp_lib.audit.profile_audit`
profile delta(eps') of a pair, beside the      (:func:`delta_lower_bounds`,
exact curve                                    :func:`audit_privacy_profile`)
exact output density of Jorgensen et al.'s     :mod:`~pdp_lib.audit.jorgensen`
sampling baseline                              (:func:`jorgensen_log_density`)
which outputs a centre can produce bit for     :mod:`~pdp_lib.audit.floating_point`
bit: the textbook Laplace sampler and the      (:func:`textbook_laplace`,
library's sampler in d = 1                     :func:`textbook_reachable`,
                                               :func:`exponential_ziggurat`,
                                               :func:`library_reachability`)
a black-box audit of sufficient-statistics   :mod:`~pdp_lib.audit.ssp_audit`
perturbation on one pair                       (:func:`ssp_audit`)
the exact output density and pair loss of      :mod:`~pdp_lib.audit.objective_loss`
objective perturbation, inside the ball and    (:func:`objective_log_density`,
on its sphere                                  :func:`objective_pair_loss`)
the exact lattice release: reachability, the   :mod:`~pdp_lib.audit.lattice`
exact loss of a pair, draws for black-box      (:func:`lattice_reachable`,
audits                                         :func:`lattice_pair`,
                                               :func:`lattice_draws`)
=============================================  ==============================================

Derived and used in the book's chapters *Sensitivity of the weighted ridge solution*
(``book/sensitivity.ipynb``: norms, neighbours), *Privacy of PDP-OP*
(``book/privacy.ipynb``: privacy loss, black-box audits) and *What the guarantee does not
cover* (``book/limits.ipynb``: privacy loss, a change of level, Jorgensen's density, floating
point) and *PDP-OP under approximate DP* (``book/approximate.ipynb``: the whole curve).
"""

from __future__ import annotations

from .blackbox import (
    AuditResult,
    PairAudit,
    audit_pair,
    clopper_pearson,
    epsilon_lower_bound,
    likelihood_ratio_scores,
    projection_scores,
    sample_mechanism,
    threshold_audit,
)
from .floating_point import (
    ExponentialZiggurat,
    Reachability,
    exponential_ziggurat,
    library_reachability,
    textbook_laplace,
    textbook_reachable,
)
from .jorgensen import jorgensen_lattice_loss, jorgensen_log_density
from .ssp_audit import SSPAudit, ssp_audit
from .objective_loss import objective_log_density, objective_pair_loss
from .lattice import LatticePair, lattice_draws, lattice_pair, lattice_reachable, lattice_units, pair_loss_within
from .profile_audit import DeltaLowerBounds, ProfileAudit, audit_privacy_profile, delta_lower_bounds
from .level_change import LevelChange, level_change_loss
from .neighbours import (
    ReplacementGeometry,
    WorstNeighbour,
    phi_and_vjp,  # noqa: F401 - printed in the book's chapter on sensitivity
    vertex_lower_bound,
    worst_neighbour,
    worst_neighbours,
)
from .norms import NormSearch, largest_norm_dataset, unregularized_solution
from .privacy_loss import (
    RealizedLoss,
    log_density_ratio,
    realized_privacy_loss,
    worst_pair_datasets,
)
from .selection import SelectionSearch, selection_loss, two_candidate_instance, worst_selection_neighbour
from .sensitivity_checks import (
    SlotSearch,
    minimize_smooth,
    slot_search,
    strongly_convex_pair,
)

__all__ = [
    "objective_log_density",
    "objective_pair_loss",
    "SSPAudit",
    "ssp_audit",
    "LatticePair",
    "lattice_draws",
    "lattice_pair",
    "lattice_reachable",
    "lattice_units",
    "pair_loss_within",
    "DeltaLowerBounds",
    "delta_lower_bounds",
    "ProfileAudit",
    "audit_privacy_profile",
    "NormSearch",
    "largest_norm_dataset",
    "unregularized_solution",
    "ReplacementGeometry",
    "WorstNeighbour",
    "worst_neighbour",
    "worst_neighbours",
    "vertex_lower_bound",
    "SelectionSearch",
    "selection_loss",
    "two_candidate_instance",
    "worst_selection_neighbour",
    "SlotSearch",
    "minimize_smooth",
    "slot_search",
    "strongly_convex_pair",
    "RealizedLoss",
    "realized_privacy_loss",
    "log_density_ratio",
    "worst_pair_datasets",
    "sample_mechanism",
    "projection_scores",
    "likelihood_ratio_scores",
    "clopper_pearson",
    "epsilon_lower_bound",
    "AuditResult",
    "threshold_audit",
    "PairAudit",
    "audit_pair",
    "LevelChange",
    "level_change_loss",
    "jorgensen_log_density",
    "jorgensen_lattice_loss",
    "textbook_laplace",
    "textbook_reachable",
    "ExponentialZiggurat",
    "exponential_ziggurat",
    "Reachability",
    "library_reachability",
]

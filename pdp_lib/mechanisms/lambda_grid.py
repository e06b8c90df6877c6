r"""The public grid of ``lambda`` values and what a rule's choice from it records.

:data:`DEFAULT_GRID` is the grid on which the book's chapter *Choosing λ* measures every rule; :func:`check_grid`
validates a user's grid; :func:`prune_grid` keeps the values whose public noise bound does not exceed the label
range's square (it reads public quantities only); :class:`LambdaChoice` is what a rule returns.  Used by the
rules of :mod:`pdp_lib.tuning` and by the private selections of :mod:`pdp_lib.mechanisms.private_selection`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..bounds import noise_scale
from ..validation import check_dimension, check_positive

__all__ = ["DEFAULT_GRID", "LambdaChoice", "check_grid", "check_bound_choice", "prune_grid"]

DEFAULT_GRID = (0.01, 0.05, 0.1, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
"""The candidates of ``PersonalizedRidge(lam="auto")`` when none are given: the grid of the paper's Tables 2
and 4 continued to ``10^3``, the grid on which the chapter *Choosing λ* measures what each rule costs."""

LOSS_RANGE = 2.0
"""Range of a validation loss :math:`|y - \\mathrm{clip}(x^\\top\\theta)|` with ``y`` in ``[-1, 1]``."""


@dataclass(frozen=True)
class LambdaChoice:
    """A chosen :math:`\\lambda` and what choosing it cost.

    Attributes
    ----------
    lam : float
        The chosen value.
    rule : str
        ``"data-free"``, ``"pruned"`` or ``"private"``.
    spent : numpy.ndarray of shape (n,)
        The privacy each point spent on the choice: 0 for the public rules, ``alpha * eps_i``
        for private tuning (the release spends the rest).
    candidates : numpy.ndarray
        The grid values the rule chose among (the plan's candidates for the pruned rule and
        private tuning).
    index : int or None
        Private tuning: the position of ``lam`` in ``candidates``.
    models : numpy.ndarray or None
        Private tuning: the candidate models, one row per candidate.  They are private outputs,
        covered by the guarantee (proposition *prop-private-tuning*).

    Notes
    -----
    The selection's distribution over the candidates is deliberately not returned: given the
    candidates it is a fixed function of the validation points, so releasing it would spend no
    noise on them and void their guarantee.  Only the draw from it is released.
    """

    lam: float
    rule: str
    spent: np.ndarray
    candidates: np.ndarray
    index: int | None = None
    models: np.ndarray | None = None



def check_grid(grid, name: str = "grid") -> np.ndarray:
    """A grid of ``lambda`` values as a new float array: non-empty, distinct, each finite and ``> 0``.

    A ``TypeError`` naming the argument when it is not a sequence of real numbers (a string, a
    mapping, ``None``, booleans, complex numbers), a ``ValueError`` naming the argument and the
    allowed range when a value is outside ``(0, inf)``, the grid is empty or a value repeats.
    Nothing is converted silently, and the caller's grid is never changed.
    """
    if isinstance(grid, (str, bytes)) or not isinstance(grid, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of real numbers (a list, a tuple or an array: an order), "
                        f"got {type(grid).__name__}")
    values = list(grid)
    if not values:
        raise ValueError(f"{name} is empty: give at least one lambda value in (0, inf)")
    arr = np.array([check_positive(v, f"{name}[{i}]") for i, v in enumerate(values)])
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} repeats a value: give each lambda once")
    return arr


def check_bound_choice(B):
    """``B`` of a rule for choosing lambda: None (``B(lambda)``) or ``"sharp"`` (``B*(lambda)``).

    Both hold on every dataset of the domain, which the proofs of the chapter *Choosing λ* need
    (on every part of a partition too); a user's number (Theorem 3.2) is refused.
    """
    if B is None or (isinstance(B, str) and B == "sharp"):
        return B
    raise ValueError(f"B = {B!r} is not allowed when choosing lambda: None (the paper's B(lambda)) or 'sharp' "
                     f"(the exact supremum B*(lambda)), which hold on every dataset of the domain")


def prune_grid(grid, d: int, release_sums, B=None) -> np.ndarray:
    r"""The grid values whose public noise bound does not exceed the label range's square.

    Keeps :math:`\lambda` when :math:`d(d+1)C_\lambda^2 / S_\lambda^2 \le 1`, where
    :math:`S_\lambda` is the budget sum of the model released at :math:`\lambda`
    (``release_sums``: one number, or one per grid value): its noise part alone,
    :math:`\mathbb E Z^\top\Sigma_x Z \le d(d+1)/\eta^2`, may then stay below the loss of
    predicting 0, which is at most 1.  :math:`C_\lambda` uses the calibration's bound ``B``
    (None or ``"sharp"``).  If no value is kept, the largest is.  Reads only public quantities.
    """
    lams = check_grid(grid)
    d = check_dimension(d)
    B = check_bound_choice(B)
    sums = np.broadcast_to(np.asarray(release_sums, dtype=float), lams.shape)
    noise = np.array([d * (d + 1) * noise_scale(lam, d, B) ** 2 for lam in lams]) / sums**2
    keep = noise <= 1.0
    return lams[keep] if keep.any() else lams[[int(np.argmax(lams))]]

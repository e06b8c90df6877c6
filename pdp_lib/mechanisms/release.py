"""The result of a release from the streamed sums: one type for every mechanism of the registry.

A :class:`Release` holds the estimate and the public facts of its calibration, each a function of public values
(the levels' summary, ``d``, ``lambda``, ``delta``, the bounds) or of the released values alone.  The model file
writes :attr:`Release.fields` as they are (:func:`pdp_lib.io.model_file.model_record`); the noise criterion of
:mod:`pdp_lib.mechanisms.noise_energy` reads :attr:`Release.energy`; the command line's messages read
:attr:`Release.facts`.  Built by :mod:`pdp_lib.mechanisms.from_sums`, one function per mechanism, through
:func:`pdp_lib.mechanisms.registry.fit_sums`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Release"]


@dataclass(frozen=True)
class Release:
    """One release: the estimate, the mechanism and theorem behind it, and its calibration's public facts.

    Attributes
    ----------
    theta : numpy.ndarray of shape (d,)
        The released estimate, in the domain's units (its last coordinate the intercept's, when there is one).
    mechanism : str
        The registry's name of the mechanism (:data:`pdp_lib.mechanisms.registry.MECHANISMS`).
    theorem : str
        The result that proves the guarantee: ``"3.1"`` or ``"3.2 with B*"`` (PDP-OP), ``"ssp"``,
        ``"ssp-gaussian"``, ``"adassp"``, ``"gd"``, ``"objective"``, ``"mean"`` or ``"mean-gaussian"`` (the
        book's chapter *Beyond output perturbation*); :data:`pdp_lib.io.model_file.THEOREM_TEXTS` cites each.
    guarantee : str
        ``"pure"`` (every row ``epsilon_i``-DP) or ``"approximate"`` (every row ``(epsilon_i, delta)``-DP).
    lam : float or None
        The ridge the estimate was solved at: the given ``lambda``, or the one a rule chose (AdaSSP's, the
        public rule's); ``None`` for the private mean, which solves no ridge.
    fields : dict
        The calibration as the model file writes it: ``B``, ``eta`` and, by mechanism, ``objective_ridge``,
        ``delta``, ``noise`` and ``ridge``.
    energy : callable or None
        Computes, from public values and the released ones, the noise's expected energy in the estimate or a
        bound on it (:mod:`pdp_lib.mechanisms.noise_energy`); ``None`` when no such bound exists (AdaSSP's ridge
        of 0).
    exact_energy : bool
        Whether that energy is the exact expectation (output perturbation's) rather than a bound.
    facts : dict
        Public facts for the operator's messages that the model file does not hold (for example the released
        Gram matrix's floor, or the real-valued mechanism's ``eta``); ``"choice"``, a
        :class:`pdp_lib.mechanisms.automatic.Choice`, when ``mechanism="auto"`` chose the release.
    """

    theta: np.ndarray
    mechanism: str
    theorem: str
    guarantee: str
    lam: float | None
    fields: dict
    energy: Callable[[], float] | None = None
    exact_energy: bool = False
    facts: dict = field(default_factory=dict)

    def noise_energy(self) -> float | None:
        """The noise's expected energy in the estimate, or a bound on it (``None`` when none exists)."""
        return None if self.energy is None else self.energy()

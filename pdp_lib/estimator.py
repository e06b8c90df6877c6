"""Scikit-learn style estimator around PDP-OP (Algorithm 1).

Derived in the book's chapter *The PDP-OP mechanism*.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .mechanisms import noise_energy, registry
from .mechanisms.exact_sampling import RandomBits
from .mechanisms.gaussian import run_gaussian
from .mechanisms.lattice import check_sampler, lattice_calibration, rounds_bound
from .mechanisms.output_perturbation import run_pdp_op, calibrate
from .tuning import DEFAULT_GRID, check_grid, choose_lambda, private_lambda, split_levels, tuning_plan
from .validation import check_features, check_finite, check_fraction, check_positive, check_problem, check_rng

DEFAULT_EPSILON = 1.0
"""The level every row gets when neither ``epsilons`` nor ``epsilon`` is given (with a warning)."""

DEFAULT_LAM = 1.0
"""The ``lambda`` of the mechanisms that take one when ``lam`` is not given."""


class PrivacyLevelWarning(UserWarning):
    """The privacy level was not chosen: the estimator used its default, :data:`DEFAULT_EPSILON`."""


class NoiseWarning(UserWarning):
    """The release is mostly noise (:func:`pdp_lib.mechanisms.noise_energy.mostly_noise`)."""


__all__ = ["PersonalizedRidge", "PrivacyLevelWarning", "NoiseWarning", "DEFAULT_EPSILON", "DEFAULT_LAM"]


class PersonalizedRidge(RegressorMixin, BaseEstimator):
    r"""Ridge regression with personalized differential privacy (PDP-OP).

    ``fit(X, y, epsilons)`` runs Algorithm 1 with the weights and noise of
    Theorem 3.1 (or Theorem 3.2 when ``B`` is given): data point ``i`` gets
    ``epsilons[i]``-personalized DP.  With the same seed, ``coef_`` equals
    :func:`pdp_lib.pdp_op`'s output.

    The levels reach ``fit`` as scikit-learn *metadata*: with
    ``sklearn.set_config(enable_metadata_routing=True)`` and
    ``PersonalizedRidge().set_fit_request(epsilons=True)``, ``Pipeline.fit(X, y, epsilons=eps)``,
    ``cross_val_score(..., params={"epsilons": eps})`` and ``GridSearchCV.fit(X, y, epsilons=eps)`` pass
    each fold its rows' levels.  Or set one level for every row with ``epsilon``, and ``fit(X, y)``.

    **Tuning over ``lam`` with** ``GridSearchCV`` **is not private**: it scores every candidate on
    held-out rows and picks the best, and that choice depends on the private data beyond the levels'
    budgets.  Use ``lam="pruned"`` (a public rule), ``lam="auto"`` (private tuning with personalized
    budgets), or fix ``lam`` from public knowledge.

    Parameters
    ----------
    lam : None, float, "pruned" or "auto", default None
        ``None``: :data:`DEFAULT_LAM` (1.0) for the mechanisms that take ``lambda``; ``mechanism="mean"`` and
        ``"auto"`` take none (and refuse one).  Ridge parameter ``lambda > 0`` of eq. (2); or ``"pruned"``: chosen from ``lam_grid`` by a
        public rule that reads only the levels (:func:`pdp_lib.tuning.pruned_lambda`), spends
        nothing, and leaves the whole budget to the fit on all the points; or ``"auto"``: chosen by
        private tuning with personalized budgets (:func:`pdp_lib.tuning.private_lambda`), the
        whole procedure giving point ``i`` ``epsilons[i]``-personalized DP.  The book's chapter
        *Choosing λ* derives both and measures them: on its data ``"pruned"`` did better.  Both prune the grid with
        the noise bound of PDP-OP's pure l2 noise, also with ``delta`` or ``noise="gaussian"`` (whose noise differs:
        the rule stays public, but is not tuned to that noise).  Whether to
        release PDP-OP at all is tested on held-out tables in the chapter *Which mechanism, which λ*: there the
        private mean (:func:`pdp_lib.private_mean`) beat PDP-OP at the pruned rule in geometric mean.
    lam_grid : None or sequence of float, default None
        The public candidates for ``lam="pruned"`` or ``"auto"``, distinct, fixed before the data
        are seen; ``None``: :data:`pdp_lib.tuning.DEFAULT_GRID`.  Then ``B`` must be None or
        ``"sharp"``.
    tuning_share : float, default 1.0
        ``lam="auto"``: the share ``alpha`` of each budget spent on choosing, in ``(0, 1]``.
        With 1 the chosen candidate (fitted on its own part of the points) is the estimate;
        below 1, PDP-OP is refitted at the chosen ``lam`` on all the points with the shares
        ``(1 - alpha) epsilons``.
    validation_fraction : None or float, default 0.5
        ``lam="auto"`` or ``"pruned"``: the validation part's share of the points of the tuning plan
        (:func:`pdp_lib.tuning.public_parts`);
        ``None``: an equal share with each candidate.  The defaults (``tuning_share=1``, half of the
        points for validation) are private tuning's setting with the smallest mean cost on the two
        real datasets of the chapter's comparison (not the smallest worst case: on its small
        synthetic data another setting did better).
    B : None, "sharp" or float, default None
        ``None``: the paper's ``B(lambda)`` (Theorem 3.1).  ``"sharp"``: the exact supremum
        ``B*(lambda)`` of ``||theta_bar||`` over the domain, the same guarantee with less
        noise (:func:`pdp_lib.calibrate`).  A float: a public bound on the norm of the least-norm minimizer of the unregularized
        weighted loss (Assumption 3.1, Theorem 3.2), fixed before the data are seen
        and valid for every dataset the estimator may be fitted on, including every
        neighbour of yours; a ``B`` computed from the data voids the guarantee (see
        :func:`pdp_lib.calibrate`).
    random_state : None, int or numpy.random.Generator
        Source of the privacy noise.  An int gives the same noise on every fit.
    mechanism : {"output", "ssp", "objective", "gd", "mean", "auto"}, default "output"
        ``"output"``: PDP-OP, noise on the solution (Algorithm 1).  ``"ssp"``: sufficient-statistics
        perturbation (book chapter *Beyond output perturbation*): pure DP with a numeric ``lam``
        (:func:`pdp_lib.mechanisms.ssp.ssp`); with ``delta`` and ``noise="gaussian"``, Gaussian noise on the
        statistics at a numeric ``lam`` (:func:`pdp_lib.mechanisms.adassp.gaussian_ssp`), at the public ridge with
        ``lam="public"`` (:func:`pdp_lib.mechanisms.adassp.ridge_rule` with the eigenvalue's bound at 0: it reads no
        data; the chapter *Beyond output perturbation*'s choice under ``delta`` on its two datasets, tested on held-out
        tables in the chapter *Which mechanism, which λ*) or, with ``lam="auto"``, personalized AdaSSP, whose ridge is
        chosen from its own release (:func:`pdp_lib.mechanisms.adassp.adassp`; ``lam_`` is the ridge chosen).  ``eta_`` and ``sigma_`` are then ``nan`` (SSP has one noise per statistic).
        ``"objective"``: objective perturbation on the ball of radius ``B(lam)``, pure DP
        (:func:`pdp_lib.mechanisms.objective.objective_perturbation`), only with ``sampler="float"``: it has no
        release exact in floating point.  ``lam_`` is the ridge it minimized with (``lam`` or more) and ``eta_`` its
        noise's rate.  ``"gd"``: noisy gradient descent with ``delta`` and ``noise="gaussian"``
        (:func:`pdp_lib.mechanisms.noisy_gd.noisy_gd` with its default 20 steps; call it for other settings).
        ``"mean"``: the private mean (:func:`pdp_lib.private_mean`), the intercept-only model (needs
        ``fit_intercept=True``; ``coef_`` is 0), Laplace noise, or Gaussian with ``delta`` and ``noise="gaussian"``.
        ``"auto"``: the release chosen from public facts only (the levels, ``d``, ``delta``) by
        :func:`pdp_lib.mechanisms.automatic.choose`, the rule chosen on the development tables of the book's chapter
        *Which mechanism, which λ* and tested there on tables it was not chosen on: SSP at its public ridge when the
        levels' sum over ``d**2`` is large enough, else the private mean (needs ``fit_intercept=True``; pure with
        ``noise="l2"``, or ``delta`` with ``noise="gaussian"``); ``chosen_`` says what it chose and why.
    noise : {"l2", "gaussian"}, default "l2"
        ``"l2"``: PDP-OP's noise, density ``prop. to exp(-eta ||z||)``.  ``"gaussian"``: the
        personalized Gaussian mechanism (:func:`pdp_lib.mechanisms.gaussian.gaussian_mechanism`), which needs
        ``delta``.  Chapter *PDP-OP under approximate DP*.
    delta : None or float, default None
        ``None``: point ``i`` gets ``epsilons[i]``-DP (pure, ``noise="l2"`` only).  A number in
        ``(0, 1)``: ``(epsilons[i], delta)``-DP with the least noise of the chosen kind and its
        optimal weights (:func:`pdp_lib.calibrate`, :func:`pdp_lib.mechanisms.gaussian.gaussian_calibration`).
        Not with ``lam="auto"``, whose private tuning is calibrated for pure DP.
    epsilon : None or float, default None
        One privacy level for every row, used when ``fit`` receives no ``epsilons`` (then
        ``fit(X, y)`` gives every row ``epsilon``-DP: standard DP, the non-personalized case).
        ``None`` and no ``epsilons``: every row gets :data:`DEFAULT_EPSILON` (1.0), with a
        :class:`PrivacyLevelWarning` saying that the level was not chosen (as diffprivlib warns when its
        bounds are not given).  Giving both is refused.
    sampler : {"exact", "float"}, default "exact"
        ``"exact"``: the lattice release, whose guarantee holds for the computed output, every rounding
        included (:func:`pdp_lib.pdp_op`, book chapter *What the guarantee does not cover*); pure or
        ``(epsilon_i, delta)``, with either noise, in any dimension, ``lam="auto"`` included (exact
        candidates and an exact selection).  ``"float"``: the double-precision samplers, whose guarantee
        holds over the reals only: their outputs' last bits can reveal the centre (Mironov, CCS 2012).
        For the experiments and for reproducing the paper, asked for by name.
    fit_intercept : bool, default False
        Fit an intercept: a constant feature 1 is appended to every row before Algorithm 1 (it lies in
        ``[0, 1]``, so the domain and the guarantee are unchanged, with ``d + 1`` in the calibration),
        and its coefficient is ``intercept_``.  The intercept is penalized by ``lam`` like every other
        coefficient, unlike scikit-learn's: the guarantee's proof uses the objective's strong convexity in
        every direction (Lemma A.1 and Theorem A.4 bound the solution and its sensitivity through ``lam``).  Centring the label on a public guess (its
        bounds centred on it) makes the penalty cost less.  ``False``: the paper's model, through the origin.

    Attributes
    ----------
    coef_ : numpy.ndarray of shape (d,)
        The private estimate ``theta_hat`` (without its intercept's coordinate).
    intercept_ : float
        The intercept's coefficient with ``fit_intercept=True``, else ``0.0``.
    feature_names_in_ : numpy.ndarray of str
        The column names of a ``DataFrame`` given to ``fit`` (absent otherwise); ``predict`` refuses
        columns that differ in names or order.
    weights_ : numpy.ndarray of shape (n,)
        ``w_i = epsilon_i / sum_j epsilon_j``; with ``delta``, the optimal weights of the chosen noise
        (``r_i / sum_j r_j``, ``mu*_i / sum_j mu*_j``).
    eta_ : float
        The noise parameter used (``noise="l2"``; for the private mean, one over its Laplace scale); ``nan`` for the
        Gaussian noise.
    sigma_ : float
        The Gaussian noise's standard deviation (``noise="gaussian"``); ``nan`` for the ℓ2 noise.
    n_features_in_ : int
        ``d``.
    lam_ : float or None
        The ``lambda`` used (the chosen one with ``lam="pruned"`` or ``"auto"``, or by ``mechanism="auto"``);
        ``None`` for the private mean.
    chosen_ : pdp_lib.mechanisms.automatic.Choice or None
        With ``mechanism="auto"``: the release chosen, the budget ratio and the threshold (``Choice.reason()``).
    checked_ : pdp_lib.mechanisms.checked_ssp.Checked or None
        With ``mechanism="auto"`` when it chose SSP: whether the centred ridge or the intercept-only model was
        released, and the estimated gain that decided.
    tuning_ : pdp_lib.tuning.LambdaChoice or None
        With ``lam="pruned"`` or ``"auto"``: the choice, the candidates and what each point spent on
        it (nothing with ``"pruned"``).

    Notes
    -----
    ``X`` must lie in ``[0, 1]^d`` and ``y`` in ``[-1, 1]``: map the columns with public bounds first
    (:class:`pdp_lib.preprocessing.DomainScaler` in a ``Pipeline``).
    """

    def __init__(self, lam=None, B=None, random_state=None, lam_grid=None, tuning_share=1.0,
                 validation_fraction=0.5, noise="l2", delta=None, epsilon=None, fit_intercept=False,
                 sampler="exact", mechanism="output"):
        self.mechanism = mechanism
        self.sampler = sampler
        self.noise = noise
        self.delta = delta
        self.epsilon = epsilon
        self.fit_intercept = fit_intercept
        self.lam = lam
        self.B = B
        self.random_state = random_state
        self.lam_grid = lam_grid
        self.tuning_share = tuning_share
        self.validation_fraction = validation_fraction

    def fit(self, X, y, epsilons=None):
        """Fit by PDP-OP; ``X`` in ``[0,1]^(n x d)``, ``y`` in ``[-1,1]^n``, ``epsilons > 0``.

        ``epsilons`` (one level per row) may be left out: every row then gets ``epsilon``, or, when that is
        ``None`` too, :data:`DEFAULT_EPSILON` with a :class:`PrivacyLevelWarning`.  It is metadata that
        ``Pipeline`` and the model-selection tools route to ``fit`` once ``set_fit_request(epsilons=True)`` has
        been called.
        """
        from sklearn.utils.validation import validate_data

        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")
        if y is None:
            raise ValueError("PersonalizedRidge requires y to be passed, but the target y is None")
        if epsilons is None and self.epsilon is None:
            warnings.warn(f"no privacy level was chosen: every row gets the default epsilon = {DEFAULT_EPSILON:g}; "
                          f"pass one level per row (fit(X, y, epsilons), or set_fit_request(epsilons=True) in a "
                          f"Pipeline) or epsilon= on the estimator to choose it", PrivacyLevelWarning, stacklevel=2)
        if epsilons is not None and self.epsilon is not None:
            raise ValueError(f"epsilons and epsilon = {self.epsilon!r} are both given; give one")
        names_source = X
        X = check_features(X, "X")                  # the domain, refused with the first bad index
        validate_data(self, names_source, skip_check_array=True, reset=True)   # feature_names_in_
        if epsilons is None:
            level = DEFAULT_EPSILON if self.epsilon is None else check_positive(self.epsilon, "epsilon")
            epsilons = np.full(X.shape[0], level)
        if self.fit_intercept:
            X = np.hstack([X, np.ones((X.shape[0], 1))])
        self._noise_bound = None
        self.checked_ = None
        self._fit_theta(X, y, epsilons)
        self._warn_noise()
        theta = self.coef_
        self.coef_, self.intercept_ = (theta[:-1], float(theta[-1])) if self.fit_intercept else (theta, 0.0)
        self.n_features_in_ = self.coef_.shape[0]
        return self

    def _warn_noise(self) -> None:
        """A :class:`NoiseWarning` when the release is, or may be, mostly noise (a public criterion on the release and
        its noise's law: :mod:`pdp_lib.mechanisms.noise_energy`); every mechanism but gradient descent.  Advisory:
        a criterion that cannot be computed in floating point (levels so small that the energy overflows) says
        nothing."""
        try:
            self._warn_noise_unguarded()
        except (ArithmeticError, ValueError):
            return

    def _warn_noise_unguarded(self) -> None:
        if self._noise_bound is None:               # set by the mechanism's fit, if it has a criterion
            return
        energy, exact = self._noise_bound
        value = energy()
        text = None if value is None else noise_energy.noise_warning(self.coef_, value, exact=exact)
        if text is not None:
            warnings.warn(text, NoiseWarning, stacklevel=4)

    def _output_energy(self) -> float | None:
        """Output perturbation's noise energy, exact: its l2 noise's (``eta_``) or its Gaussian's (``sigma_``)."""
        d = self.coef_.shape[0]
        if np.isfinite(self.eta_):
            return noise_energy.l2_laplace_energy(self.eta_, d)
        if np.isfinite(self.sigma_):
            return noise_energy.gaussian_energy(self.sigma_, d)
        return None

    def _fit_theta(self, X, y, epsilons):
        """Algorithm 1 (or private tuning) on the rows as given: sets ``coef_`` to the whole estimate."""
        m = registry.get(self.mechanism)               # refuses a name the registry does not know
        self._lam = DEFAULT_LAM if self.lam is None and m.takes_lam else self.lam
        registry.check_lam_and_intercept(m.name, lam=self._lam, intercept=self.fit_intercept)
        self.chosen_ = None
        if not isinstance(self._lam, str) and (self.lam_grid is not None or self.tuning_share != 1.0
                                              or self.validation_fraction != 0.5):
            raise ValueError("lam_grid, tuning_share and validation_fraction apply to lam='auto' or 'pruned' "
                             f"only (rules for lambda, not mechanism='auto'); with lam = {self._lam!r} and "
                             f"mechanism = {self.mechanism!r} they would be ignored")
        if isinstance(self._lam, str) and self._lam == "pruned" and self.tuning_share != 1.0:
            raise ValueError(f"tuning_share = {self.tuning_share!r} applies to lam='auto' only: lam='pruned' "
                             f"spends nothing on the choice")
        if not isinstance(self.noise, str) or self.noise not in ("l2", "gaussian"):
            raise ValueError(f"noise = {self.noise!r} is not allowed; use 'l2' (PDP-OP) or 'gaussian'")
        if self.noise == "gaussian" and self.delta is None:
            raise ValueError("delta is required with noise='gaussian': the Gaussian mechanism has no pure "
                             "guarantee; give delta in (0, 1)")
        if isinstance(self._lam, str) and self._lam not in ("auto", "pruned", "public"):
            raise TypeError(f"lam must be a real number, got str {self._lam!r}: use a number in "
                            f"(0, inf), 'pruned', 'auto' or 'public' (mechanism='ssp' with delta)")
        rule = self._lam if isinstance(self._lam, str) else None
        if rule == "public" and (self.lam_grid is not None or self.tuning_share != 1.0
                                 or self.validation_fraction != 0.5):
            raise ValueError("lam_grid, tuning_share and validation_fraction do not apply to lam='public', which "
                             "reads no data and tunes nothing")
        sampler = check_sampler(self.sampler)
        return getattr(self, f"_fit_{m.name}")(X, y, epsilons, rule, sampler)   # one method per registry entry

    def _fit_output(self, X, y, epsilons, rule, sampler):
        """``mechanism="output"``: PDP-OP at ``lam``, or at the ``lam`` a rule chose (``"pruned"``, ``"auto"``)."""
        self._noise_bound = (self._output_energy, True)
        if rule == "public":
            raise ValueError("lam = 'public' applies to mechanism='ssp' with noise='gaussian' and delta: the public "
                             "ridge is derived from the Gaussian noise on the statistics")
        if rule == "auto" and self.delta is not None:
            raise ValueError(f"delta = {self.delta!r} is not allowed with lam='auto': private tuning is "
                             f"calibrated for pure DP; use delta=None, lam='pruned' or a fixed lam")
        if rule == "auto":
            return self._fit_private_lambda(X, y, epsilons)
        if rule == "pruned":
            return self._fit_pruned(X, y, epsilons)
        weights, eta, sigma = self._release_output(X, y, epsilons, self._lam, sampler)
        return self._fitted(weights, float(self._lam), eta=eta, sigma=sigma)

    def _release_output(self, X, y, epsilons, lam, sampler) -> tuple:
        """PDP-OP at ``lam`` (the Gaussian mechanism with ``noise="gaussian"``): sets ``coef_``; returns the weights
        and ``eta`` and ``sigma`` (NaN where the release has none)."""
        if self.noise == "gaussian":
            self.coef_, cal = run_gaussian(X, y, epsilons, lam, self.delta, self.B, self.random_state,
                                            rng_name="random_state", sampler=sampler)
            return np.array(cal.weights), float("nan"), cal.sigma
        self.coef_, cal = run_pdp_op(X, y, epsilons, lam, self.B, self.random_state,
                                      rng_name="random_state", delta=self.delta, sampler=sampler)
        return np.array(cal.weights), cal.eta, float("nan")

    def _fitted(self, weights, lam, *, eta=float("nan"), sigma=float("nan"), tuning=None):
        """Record the fit's public facts (``weights_``; ``eta_`` or ``sigma_``, NaN where the release has none;
        ``lam_``; ``tuning_``) and return ``self``."""
        self.weights_ = weights
        self.eta_, self.sigma_ = eta, sigma
        self.lam_ = lam
        self.tuning_ = tuning
        return self

    def _fit_gd(self, X, y, epsilons, rule, sampler):
        """``mechanism="gd"``: noisy gradient descent, ``(epsilon_i, delta)``-DP, with the library's default steps,
        radius ``B(lam)`` and step size (:func:`pdp_lib.mechanisms.noisy_gd.noisy_gd`)."""
        from .gaussian_curves import tolerated_gaussian_mus
        from .mechanisms.noisy_gd import noisy_gd

        for wrong, why in [(self.noise != "gaussian" or self.delta is None,
                            f"mechanism='gd' has Gaussian noise: give both delta in (0, 1) and noise='gaussian' "
                            f"(got delta = {self.delta!r}, noise = {self.noise!r})"),
                           (self.B is not None, f"B = {self.B!r} is not allowed with mechanism='gd': its ball is "
                                                f"B(lam)"),
                           (rule is not None, f"lam = {rule!r} is not allowed with mechanism='gd': no rule for its "
                                              f"lambda is derived; give a number > 0")]:
            if wrong:
                raise ValueError(why)
        X, y, eps, lam = check_problem(X, y, epsilons, self._lam)
        self.coef_ = noisy_gd(X, y, eps, lam, self.delta, self.random_state, sampler=sampler)
        mus = tolerated_gaussian_mus(eps, self.delta)
        return self._fitted(mus / mus.sum(), float(lam))

    def _fit_objective(self, X, y, epsilons, rule, sampler):
        """``mechanism="objective"``: objective perturbation on the ball of radius ``B(lam)``, pure DP, floating point
        by explicit opt-in (:func:`pdp_lib.mechanisms.objective.objective_perturbation`)."""
        from .mechanisms.objective import release_arrays, check_objective_sampler

        for wrong, why in [(self.B is not None, f"B = {self.B!r} is not allowed with mechanism='objective': its ball "
                                                f"is B(lam)"),
                           (self.delta is not None or self.noise != "l2",
                            "mechanism='objective' is pure DP with l2 noise: leave delta=None and noise='l2'"),
                           (rule is not None, f"lam = {rule!r} is not allowed with mechanism='objective': no rule "
                                              f"for its lambda is derived; give a number > 0")]:
            if wrong:
                raise ValueError(why)
        check_objective_sampler(self.sampler)
        X, y, eps, lam = check_problem(X, y, epsilons, self._lam)
        self.coef_, cal = release_arrays(X, y, eps, lam, self.random_state, None, 0.5)
        eta, ridge, d = cal.eta, cal.ridge, X.shape[1]
        self._noise_bound = (lambda: noise_energy.objective_energy(eta, ridge, d), False)
        return self._fitted(eps / eps.sum(), float(cal.ridge), eta=cal.eta)

    def _fit_ssp(self, X, y, epsilons, rule, sampler):
        """``mechanism="ssp"``: sufficient-statistics perturbation, pure DP (:func:`pdp_lib.mechanisms.ssp.ssp`) or,
        with ``delta`` and ``noise="gaussian"``, Gaussian (:mod:`pdp_lib.mechanisms.adassp`)."""
        from .mechanisms.ssp import solve_statistics, ssp_statistics

        if self.B is not None:
            raise ValueError(f"B = {self.B!r} is not allowed with mechanism='ssp': SSP needs no bound on the solution")
        if self.delta is not None or self.noise == "gaussian":
            return self._fit_gaussian_ssp(X, y, epsilons, rule, sampler)
        if rule is not None:
            raise ValueError(f"lam = {rule!r} is not allowed with mechanism='ssp' under pure DP: its rules are derived "
                             f"for output perturbation's noise; give a number (or delta, noise='gaussian' and "
                             f"lam='public' or 'auto')")
        X, y, eps, lam = check_problem(X, y, epsilons, self._lam)
        A_hat, b_hat, cal = ssp_statistics(X, y, eps, self.random_state, sampler=sampler)
        self._statistics = (A_hat, b_hat, ("l2-laplace", cal.eta_gram, cal.eta_moment))
        self.coef_ = solve_statistics(A_hat, b_hat, lam)
        d = X.shape[1]
        self._noise_bound = (lambda: noise_energy.ssp_energy(cal.eta_gram, cal.eta_moment, lam, d,
                                                             noise_energy.gram_floor(A_hat)), False)
        return self._fitted(eps / eps.sum(), float(lam))

    def _fit_gaussian_ssp(self, X, y, epsilons, rule, sampler):
        """``mechanism="ssp"`` under ``(epsilon_i, delta)``: Gaussian SSP at a fixed ``lam`` or at the public ridge
        (``lam="public"``), or AdaSSP (``lam="auto"``)."""
        from .gaussian_curves import tolerated_gaussian_mus
        from .mechanisms.adassp import SHARES, release_arrays, adassp_ridge, check_shares, ridge_rule
        from .mechanisms.ssp import solve_statistics
        from .validation import check_fraction

        if self.noise != "gaussian" or self.delta is None:
            raise ValueError("mechanism='ssp' under (epsilon_i, delta) has Gaussian noise: give both delta in (0, 1) "
                             f"and noise='gaussian' (got delta = {self.delta!r}, noise = {self.noise!r})")
        if rule == "pruned":
            raise ValueError("lam = 'pruned' is not allowed with mechanism='ssp': its plan is derived for output "
                             "perturbation; give a number, lam='public' or lam='auto' for AdaSSP's private ridge")
        delta = check_fraction(self.delta, "delta", closed_low=False, closed_high=False)
        if rule in ("auto", "public"):
            X, y, eps, _ = check_problem(X, y, epsilons)
        else:
            X, y, eps, lam = check_problem(X, y, epsilons, self._lam)
        shares = SHARES if rule == "auto" else check_shares((0.5, 0.5, 0.0))
        release = release_arrays(X, y, eps, delta, self.random_state, shares, sampler)
        if rule == "auto":
            lam = adassp_ridge(release)
        elif rule == "public":          # the chapter's public ridge: public noise parameters only
            lam = float(ridge_rule(0.0, release.calibration.sigma_gram, 0.0, X.shape[1], delta))
        self.coef_ = solve_statistics(release.gram, release.moment, lam)
        cal = release.calibration
        self._statistics = (release.gram, release.moment, ("gaussian", cal.sigma_gram, cal.sigma_moment))
        if lam > 0:                     # AdaSSP may choose 0: no bound then
            cal, d = release.calibration, X.shape[1]
            self._noise_bound = (lambda: noise_energy.gaussian_ssp_energy(
                cal.sigma_gram, cal.sigma_moment, lam, d, noise_energy.gram_floor(release.gram)), False)
        mus = tolerated_gaussian_mus(eps, delta)
        return self._fitted(mus / mus.sum(), float(lam))

    def _check_gaussian_delta(self, name: str) -> None:
        """The private mean and the automatic choice: pure with ``noise="l2"``, Gaussian with ``delta`` and
        ``noise="gaussian"``; no bound on the solution."""
        if self.B is not None:
            raise ValueError(f"B = {self.B!r} is not allowed with mechanism='{name}': it takes no bound on the "
                             f"solution")
        if (self.delta is None) != (self.noise == "l2"):
            raise ValueError(f"mechanism='{name}' is pure DP with noise='l2', or (epsilon_i, delta)-DP with delta in "
                             f"(0, 1) and noise='gaussian' (got delta = {self.delta!r}, noise = {self.noise!r})")

    def _fit_mean(self, X, y, epsilons, rule, sampler):
        """``mechanism="mean"``: the private mean (:func:`pdp_lib.mechanisms.private_mean.private_mean`), the
        intercept-only model: ``coef_`` 0, ``intercept_`` the released mean."""
        from .gaussian_curves import tolerated_gaussian_mus
        from .mechanisms.private_mean import mean_calibration, private_mean

        self._check_gaussian_delta("mean")
        X, y, eps, _ = check_problem(X, y, epsilons)
        value = private_mean(y, eps, self.random_state, delta=self.delta, sampler=sampler)
        self.coef_ = np.zeros(X.shape[1])
        self.coef_[-1] = value                          # the intercept's coordinate (fit_intercept=True)
        weights = eps if self.delta is None else tolerated_gaussian_mus(eps, self.delta)
        scale = mean_calibration(weights, exact=sampler == "exact").scale    # Laplace scale, or sigma
        eta, sigma = (1.0 / scale, float("nan")) if self.delta is None else (float("nan"), scale)
        return self._fitted(weights / weights.sum(), None, eta=eta, sigma=sigma)

    def _fit_auto(self, X, y, epsilons, rule, sampler):
        """``mechanism="auto"``: the release :func:`pdp_lib.mechanisms.automatic.choose` picks from the levels, ``d``
        (the intercept's column included) and ``delta``; ``chosen_`` records the choice.  SSP's release is then
        solved as the centred ridge and checked against the intercept-only model
        (:mod:`pdp_lib.mechanisms.checked_ssp`); ``checked_`` records what the check kept."""
        from .mechanisms.automatic import choose
        from .mechanisms.checked_ssp import NoiseLaw, check_stream, checked_release
        from .validation import check_epsilons

        self._check_gaussian_delta("auto")
        eps = check_epsilons(epsilons, X.shape[0])
        choice = choose(math.fsum(eps), float(eps.min()), X.shape[1], self.delta)
        if choice.mechanism == "mean":
            self._fit_mean(X, y, eps, None, sampler)
            self.chosen_ = choice
            return self
        if self.delta is None:
            self._lam = choice.lam
            self._fit_ssp(X, y, eps, None, sampler)
        else:
            self._fit_gaussian_ssp(X, y, eps, choice.lam, sampler)
        A_hat, b_hat, law = self._statistics
        checked = checked_release(A_hat, b_hat, self.lam_, NoiseLaw(*law), check_stream(self.random_state))
        self.coef_ = checked.theta
        self._noise_bound = None                 # the centred ridge and its check: no bound is derived
        self.chosen_, self.checked_ = choice, checked
        return self

    def _fit_pruned(self, X, y, epsilons):
        """``lam="pruned"``: the public rule of the chapter *Choosing λ*, then PDP-OP on all the points."""
        X, y, eps, _ = check_problem(X, y, epsilons)
        grid = check_grid(DEFAULT_GRID if self.lam_grid is None else self.lam_grid, "lam_grid")
        choice = choose_lambda(X, y, eps, grid, "pruned", validation_fraction=self.validation_fraction,
                               B=self.B)
        weights, eta, sigma = self._release_output(X, y, eps, choice.lam, self.sampler)
        return self._fitted(weights, choice.lam, eta=eta, sigma=sigma, tuning=choice)

    def _fit_private_lambda(self, X, y, epsilons):
        """``lam="auto"``: private tuning, then the chosen candidate or a refit (chapter *Choosing λ*)."""
        X, y, eps, _ = check_problem(X, y, epsilons)
        alpha = check_fraction(self.tuning_share, "tuning_share", closed_low=False)
        gen = check_rng(self.random_state, "random_state")
        grid = check_grid(DEFAULT_GRID if self.lam_grid is None else self.lam_grid, "lam_grid")
        if self.sampler == "exact":       # one stream of exact bits for the candidates, the choice and the refit
            gen = RandomBits(None if self.random_state is None else gen)
        choice = private_lambda(X, y, eps, grid, alpha=alpha, validation_fraction=self.validation_fraction,
                                B=self.B, rng=gen, sampler=self.sampler)
        exact = self.sampler == "exact"
        first, rest = split_levels(eps, alpha) if exact else (alpha * eps, (1.0 - alpha) * eps)
        if alpha == 1.0:   # release the chosen candidate: its part spent its whole budget on it
            k = choice.index
            part = tuning_plan(eps, grid, X.shape[1], alpha, self.validation_fraction, self.B).parts[k]
            cal = calibrate(first[part], choice.lam, X.shape[1], self.B)
            eta = cal.eta
            if exact:                       # the candidate's lattice eta', a function of public values
                eta = lattice_calibration(math.fsum(first[part]), float(first[part].min()), rounds_bound(part.size),
                                          choice.lam, X.shape[1], self.B).eta
            self.coef_ = choice.models[k].copy()
            weights = np.zeros(eps.size)
            weights[part] = cal.weights
        else:
            self.coef_, cal = run_pdp_op(X, y, rest, choice.lam, self.B, gen, sampler=self.sampler)
            weights = np.array(cal.weights)
            eta = cal.eta
        return self._fitted(weights, choice.lam, eta=eta, tuning=choice)

    def predict(self, X):
        """Return ``X @ coef_ + intercept_``; ``X`` finite with the ``n_features_in_`` columns seen in ``fit``.

        A ``DataFrame`` whose columns differ from those of ``fit`` in names or order is refused.
        """
        if not hasattr(self, "coef_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("PersonalizedRidge is not fitted yet; call fit(X, y, epsilons) first")
        _check_names(self, X)
        A = check_finite(X, "X", ndim=(2,))
        if A.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X must have shape (m, {self.n_features_in_}), got {A.shape}"
            )
        return A @ self.coef_ + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None or isinstance(self.random_state, np.random.Generator)
        tags.input_tags.positive_only = True            # X in [0, 1]^d
        return tags


def _check_names(estimator, X) -> None:
    """Refuse a table whose column names differ from ``fit``'s, in names or order."""
    names = getattr(X, "columns", None)
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is None:
        if names is not None:                           # scikit-learn's own words for this case
            import warnings

            warnings.warn(f"X has feature names, but {type(estimator).__name__} was fitted without feature names",
                          UserWarning, stacklevel=3)
        return
    if names is None:
        raise ValueError(f"X has no column names, but the model was fitted on the columns {list(fitted)}: pass a "
                         f"DataFrame with those columns, in that order")
    names = [str(c) for c in names]
    if names != list(fitted):
        first = next((k for k, (a, b) in enumerate(zip(names, fitted)) if a != b), min(len(names), len(fitted)))
        raise ValueError(f"X's columns differ from fit's at position {first}: got {names}, fitted on {list(fitted)} "
                         f"(names and order must match)")

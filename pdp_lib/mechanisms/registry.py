r"""The release mechanisms a user can fit, declared once: what each accepts, what it guarantees, how it releases.

``python -m pdp_lib fit --mechanism`` offers :data:`MECHANISMS`, :class:`pdp_lib.PersonalizedRidge` accepts them as
``mechanism=``, and ``compare`` reports each one's rows (:attr:`Mechanism.compare_rows`); a test holds the three
front ends to this list.  Each :class:`Mechanism` declares:

* its name and, for the operator, a one-line summary (the command line's help is built from it);
* its guarantee: pure (every row :math:`\varepsilon_i`-DP), approximate (every row :math:`(\varepsilon_i,\delta)`-DP,
  with ``delta`` required), or either (approximate exactly when ``delta`` is given);
* whether it has a release exact in floating point (``sampler="exact"``), or only the double-precision one by
  explicit opt-in (``sampler="float"``), as OpenDP admits floating-point-unsafe measurements;
* the parameters it takes: ``lambda`` or not (the private mean solves no ridge, ``"auto"`` chooses its own), a
  bound on the solution (``B``), a number of steps, the rules for ``lambda`` from the streamed sums (``"public"``,
  ``"auto"``), and whether it needs an intercept (the private mean is the intercept-only model);
* its release from the streamed sums (:mod:`pdp_lib.mechanisms.from_sums`), each returning a
  :class:`pdp_lib.mechanisms.release.Release`.

:func:`check_combination` checks a combination of parameters once, in one vocabulary, spelled for the library or
for the command line; :func:`fit_sums` checks and releases.

The privacy semantics shared by every mechanism are :data:`NEIGHBOURS` and :data:`PUBLIC`: the model file states
them (:func:`pdp_lib.io.model_file.privacy_statement`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Callable

from ..formatting import sig
from . import automatic, from_sums
from .noisy_gd import MAX_STEPS
from .release import Release

__all__ = ["Mechanism", "REGISTRY", "MECHANISMS", "NEIGHBOURS", "PUBLIC", "get", "check_lam_and_intercept",
           "check_combination", "fit_sums", "help_text", "fit_message", "fit_warnings"]

NEIGHBOURS = ("replace one: two tables are neighbours when they differ in one row's features and label; the number "
              "of rows and every row's level are the same in both")
"""The neighbouring relation of every guarantee in the library (Definition 2.2 of the paper)."""

PUBLIC = ("the number of rows and every row's privacy level (the level column is not protected; the summary below is "
          "released as it is), the bounds below (fixed before the data were seen), lambda and the calibration's "
          "noise parameters")
"""What every mechanism treats as public: nothing here is protected by the guarantee."""

@dataclass(frozen=True)
class Mechanism:
    """One release mechanism, as the front ends see it.

    Attributes
    ----------
    name : str
        Its name in ``fit --mechanism`` and ``PersonalizedRidge(mechanism=...)``.
    noun : str
        What it is called in a sentence (``"noisy gradient descent"``).
    summary : str
        One line for the operator (the command line's ``--mechanism`` help).
    guarantee : str
        ``"pure"``, ``"approximate"`` (``delta`` required) or ``"either"`` (approximate exactly with ``delta``).
    exact : bool
        Whether it has a release exact in floating point (``sampler="exact"``); if not, ``sampler="float"`` must
        be asked for by name.
    takes_bound : bool
        Whether it takes a bound on the solution's norm (``B``, ``--bound``).
    takes_steps : bool
        Whether it takes a number of steps.
    sums_rules : tuple of str
        The rules for ``lambda`` its release from the sums accepts (with ``delta``); empty: a number only.
    compare_rows : tuple of str
        Its rows in ``compare`` (:data:`pdp_lib.io.comparison.METHODS`).
    pure_release, approximate_release : callable or None
        Its release from the streamed sums under each guarantee it offers.
    summary_of, warnings_of : callable
        What the command line says of a release: the rest of the sentence "fitted on n rows...", and a list of
        warnings (public facts only).
    takes_lam : bool
        Whether it takes ``lambda`` (``lam``, ``--lam``): required if so, refused if not.
    needs_intercept : bool
        Whether it needs the model's intercept (``fit_intercept=True``, ``--intercept``).
    """

    name: str
    noun: str
    summary: str
    guarantee: str
    exact: bool
    takes_bound: bool
    takes_steps: bool
    sums_rules: tuple
    compare_rows: tuple
    pure_release: Callable[..., Release] | None
    approximate_release: Callable[..., Release] | None
    summary_of: Callable[[Release], str]
    warnings_of: Callable[[Release], list]
    takes_lam: bool = True
    needs_intercept: bool = False

    @property
    def takes_delta(self) -> bool:
        """Whether ``delta`` may be given."""
        return self.guarantee != "pure"

    @property
    def needs_delta(self) -> bool:
        """Whether ``delta`` must be given."""
        return self.guarantee == "approximate"


def _auto_summary(release: Release) -> str:
    """What the automatic choice released, in the chosen mechanism's words, and why."""
    text = f"{REGISTRY[release.mechanism].summary_of(release)}; chosen by mechanism 'auto': {release.facts['choice'].reason()}"
    checked = release.facts.get("checked")
    if checked is not None:
        text += (f"; released {checked.record()['kept']} (its estimated gain over the intercept-only model, net of "
                 f"the bootstrap's optimism: {sig(checked.gain, 3)})")
    return text


def _auto_warnings(release: Release) -> list:
    """The chosen mechanism's warnings."""
    return REGISTRY[release.mechanism].warnings_of(release)


REGISTRY = {m.name: m for m in (
    Mechanism("output", "PDP-OP's output perturbation", "PDP-OP, noise on the solution (Algorithm 1)", "pure", exact=True, takes_bound=True,
              takes_steps=False, sums_rules=(), compare_rows=("pdp_op", "pdp_op_sharp"),
              pure_release=from_sums.output_release, approximate_release=None,
              summary_of=from_sums.output_summary, warnings_of=from_sums.output_warnings),
    Mechanism("ssp", "sufficient-statistics perturbation", "noise on the weighted sums instead, then the ridge solved at --lam (the book's chapter "
                     "'Beyond output perturbation')", "either", exact=True, takes_bound=False, takes_steps=False,
              sums_rules=("public", "auto"), compare_rows=("ssp", "ssp_gaussian", "adassp"),
              pure_release=from_sums.ssp_release, approximate_release=from_sums.gaussian_ssp_release,
              summary_of=from_sums.ssp_summary, warnings_of=from_sums.delta_warnings),
    Mechanism("gd", "noisy gradient descent", "noisy gradient descent, with --delta", "approximate", exact=True, takes_bound=False,
              takes_steps=True, sums_rules=(), compare_rows=("gd",), pure_release=None,
              approximate_release=from_sums.gd_release, summary_of=from_sums.gaussian_summary,
              warnings_of=from_sums.delta_warnings),
    Mechanism("objective", "objective perturbation", "objective perturbation on the ball of radius B(lambda), pure DP, with --sampler float "
                           "only", "pure", exact=False, takes_bound=False, takes_steps=False, sums_rules=(),
              compare_rows=("objective",), pure_release=from_sums.objective_release, approximate_release=None,
              summary_of=from_sums.objective_summary, warnings_of=from_sums.objective_warnings),
    Mechanism("mean", "the private mean", "the private mean: the intercept-only model at the re-weighted mean label, "
                                          "Laplace noise, or Gaussian with --delta; no --lam; needs --intercept",
              "either", exact=True, takes_bound=False, takes_steps=False, sums_rules=(),
              compare_rows=("private_mean", "private_mean_delta"), pure_release=from_sums.mean_release,
              approximate_release=from_sums.mean_release, summary_of=from_sums.mean_summary,
              warnings_of=from_sums.delta_warnings, takes_lam=False, needs_intercept=True),
    Mechanism("auto", "the automatic choice",
              f"chosen from public facts only: ssp at its public ridge, solved as the ridge centred on the "
              f"released mean and kept only when it beats the intercept-only model on the release, when "
              f"sum(eps) / d^2 is at least {automatic.THRESHOLD:g} ({automatic.THRESHOLD_DELTA:g} with --delta), "
              f"else the private mean (the book's chapter 'Which mechanism, which lambda'); no --lam; needs "
              f"--intercept", "either", exact=True,
              takes_bound=False, takes_steps=False, sums_rules=(), compare_rows=("auto", "auto_delta"),
              pure_release=from_sums.auto_release, approximate_release=from_sums.auto_release,
              summary_of=_auto_summary, warnings_of=_auto_warnings, takes_lam=False,
              needs_intercept=True),
)}
"""Every mechanism, by name, in the order the front ends list them."""

MECHANISMS = tuple(REGISTRY)
"""The mechanisms' names: ``("output", "ssp", "gd", "objective", "mean", "auto")``."""


def help_text() -> str:
    """The command line's ``--mechanism`` help, from the registry."""
    parts = [f"'{m.name}'{' (default)' if m.name == MECHANISMS[0] else ''}: {m.summary}" for m in REGISTRY.values()]
    bounded = " and ".join(f"'{m.name}'" for m in REGISTRY.values() if m.takes_bound)
    return "; ".join(parts) + f"; --bound applies to {bounded} only"


class _Spelling:
    """A parameter's name in the library (``delta``, ``mechanism 'gd'``) or on the command line (``--delta``,
    ``--mechanism gd``)."""

    def __init__(self, flags: bool):
        self.flags = flags

    def __call__(self, name: str) -> str:
        return f"--{name}" if self.flags else name

    def mechanism(self, names) -> str:
        return " or ".join((f"{n}" if self.flags else f"'{n}'") for n in names).join(
            ("--mechanism " if self.flags else "mechanism ", ""))


def get(name, flags: bool = False) -> Mechanism:
    """The registry's entry for ``name``; anything else is refused, naming the allowed names."""
    if not isinstance(name, str) or name not in REGISTRY:
        what = "--mechanism" if flags else "mechanism"
        raise ValueError(f"{what} = {name!r} is not allowed; use one of {', '.join(MECHANISMS)}")
    return REGISTRY[name]


def check_lam_and_intercept(name, *, lam, intercept: bool = False, flags: bool = False) -> Mechanism:
    """Refuse, in one line, ``lam`` given to a mechanism that takes none or missing where one is needed, and a
    mechanism that needs an intercept without one; returns the entry.  Part of :func:`check_combination`, and the
    estimator's check of the same (its ``lam`` also takes the rules of output perturbation)."""
    m = get(name, flags)
    say = _Spelling(flags)
    if lam is None and m.takes_lam:
        raise ValueError(f"{say.mechanism([name])} needs {say('lam')}: a number > 0"
                         + (f", or {' or '.join(map(repr, m.sums_rules))} with {say('delta')}" if m.sums_rules else ""))
    if lam is not None and not m.takes_lam:
        raise ValueError(f"{say('lam')} does not apply to {say.mechanism([name])}: {m.noun} "
                         f"{'chooses its own' if m.name == 'auto' else 'solves no ridge'}; leave {say('lam')} out")
    if m.needs_intercept and not intercept:
        needing = [n for n, e in REGISTRY.items() if e.needs_intercept]
        raise ValueError(f"{say.mechanism([name])} needs {say('intercept') if flags else 'fit_intercept=True'}: "
                         f"{'its fallback, the private mean, is' if m.name == 'auto' else 'the private mean is'} the "
                         f"intercept-only model ({say.mechanism(needing)} only)")
    return m


def check_combination(name, *, delta=None, steps=None, sampler: str = "exact", lam=1.0, bound=None,
                      intercept: bool = False, flags: bool = False) -> Mechanism:
    """Refuse, in one line, a combination of parameters the mechanism ``name`` does not take; returns its entry.

    Checked once here for every front end: ``lam`` given or not (``None``) and the intercept
    (:func:`check_lam_and_intercept`), the bound on the solution (``bound``, ``None`` when not given), ``delta``
    against the guarantee, the sampler, ``steps``, and ``lam`` given as a rule.  ``flags=True`` spells the parameters
    as the command line's options.
    """
    m = check_lam_and_intercept(name, lam=lam, intercept=intercept, flags=flags)
    say = _Spelling(flags)
    takes = [n for n, e in REGISTRY.items() if e.takes_bound]
    if bound is not None and not m.takes_bound:
        raise ValueError(f"{say('bound')} applies to {say.mechanism(takes)} only: {name} takes no bound on the "
                         f"solution; leave {say('bound')} out")
    if delta is not None and not m.takes_delta:
        raise ValueError(f"{say('delta')} applies to {say.mechanism(n for n, e in REGISTRY.items() if e.takes_delta)} "
                         f"only: {name}'s file release is pure DP")
    if not m.exact and sampler != "float":
        raise ValueError(f"{say.mechanism([name])} needs {say('sampler')} float: {m.noun} has no "
                         f"release that is exact in floating point")
    if delta is None and m.needs_delta:
        raise ValueError(f"{say.mechanism([name])} needs {say('delta')} in (0, 1): {m.noun} is "
                         f"(epsilon_i, delta)-DP")
    if steps is not None and not m.takes_steps:
        raise ValueError(f"{say('steps')} applies to "
                         f"{say.mechanism(n for n, e in REGISTRY.items() if e.takes_steps)} only")
    if isinstance(steps, numbers.Integral) and not isinstance(steps, bool) and not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"{say('steps')} = {steps} is outside the allowed range [1, {MAX_STEPS}]: the noise grows "
                         f"like the square root of the steps")
    if isinstance(lam, str) and (lam not in m.sums_rules or delta is None):
        ruled = [n for n, e in REGISTRY.items() if e.sums_rules]
        rules = sorted({r for e in REGISTRY.values() for r in e.sums_rules})
        if lam not in rules:
            raise ValueError(f"{say('lam')} = {lam!r} is not allowed; a number > 0, or {' or '.join(map(repr, rules))} "
                             f"with {say.mechanism(ruled)} and {say('delta')}")
        raise ValueError(f"{say('lam')} {lam} applies to {say.mechanism(ruled)} with {say('delta')} only; give a "
                         f"number > 0")
    return m


def fit_sums(sums, lam, B=None, rng=None, *, sampler: str = "exact", mechanism: str = "output", delta=None,
             steps=None, intercept: bool = False) -> Release:
    """The release of ``mechanism`` from the streamed sums: a :class:`pdp_lib.mechanisms.release.Release`; the noise
    is drawn once, here.

    ``mechanism="output"``: PDP-OP; ``sampler="exact"`` (the default) gives the lattice release
    (:mod:`pdp_lib.mechanisms.lattice`), with ``eta`` the lattice's ``eta'``; with the same seed, ``theta`` equals
    :func:`pdp_lib.pdp_op` on the same rows unless the sums' rounding moves the solution across a half step of the
    grid.  ``sampler="float"``: the double-precision sampler, exact over the reals only; with the same ``rng``,
    ``theta`` equals ``pdp_op(..., sampler="float")`` up to the rounding of the sums' order.  The calibration needs
    the levels' sum only (Theorems 3.1 and 3.2: ``eta = sum(eps) / c_lambda``).  ``B``: ``None`` (``B(lambda)``),
    ``"sharp"`` (``B*(lambda)``) or a public bound.

    ``mechanism="ssp"``: sufficient-statistics perturbation from the same sums, solved at ``lam``; with ``delta``
    (the sums weighted by ``mu*(eps_i, delta)``), Gaussian SSP at ``lam``, at the public ridge (``lam="public"``) or
    AdaSSP (``lam="auto"``).  ``"gd"``: noisy gradient descent (``delta`` required, ``steps`` optional).
    ``"objective"``: objective perturbation, ``sampler="float"`` only.  ``"mean"``: the private mean (``lam=None``;
    ``intercept=True``: the sums' last coordinate is the intercept's).  ``"auto"``: the release
    :func:`pdp_lib.mechanisms.automatic.choose` picks from public facts (``lam=None``, ``intercept=True``).
    """
    from .lattice import check_sampler

    sampler = check_sampler(sampler)
    m = check_combination(mechanism, delta=delta, steps=steps, sampler=sampler, lam=lam, bound=B, intercept=intercept)
    release = m.pure_release if delta is None else m.approximate_release
    return release(sums, lam, rng, sampler=sampler, delta=delta, steps=steps, B=B, intercept=intercept)


def _speaker(release: Release) -> Mechanism:
    """The entry that speaks of ``release``: ``"auto"``'s when the automatic choice made it, else its mechanism's."""
    return REGISTRY["auto" if "choice" in release.facts else release.mechanism]


def fit_message(release: Release) -> str:
    """The rest of the command line's sentence "fitted on n rows..." for ``release``."""
    return _speaker(release).summary_of(release)


def fit_warnings(release: Release) -> list:
    """The command line's warnings on ``release`` (public facts only), each one line."""
    return _speaker(release).warnings_of(release)

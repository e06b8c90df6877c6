"""The headline claims of the paper's Section 4, the rules that decide them, and their verdicts.

Section 4 of the paper ("Experiments": Section 4.1, *Improvements over standard Differential
Privacy*, and Section 4.2, *Comparison to Jorgensen et al.*) states seven claims about its
results.  Each is a :class:`Claim` of :data:`CLAIMS`: the sentence quoted, where it stands, the
tables and figures it speaks of, and a rule that reads the paper's words as a test on numbers.
A rule states itself (its ``text``, shown beside the verdict in the book's chapter *Errata and
claims*, ``book/errata.ipynb``) and is decided by its ``decide`` method; no verdict is typed in.

The readings of the paper's words (the chapter justifies them):

* "roughly of an order of magnitude of 100" is two-sided: a factor is of the order of
  :math:`10^2` when it lies within half a decade of it, a factor :math:`\\sqrt{10}` either way
  (31.6 to 316); a factor of :math:`10^4` is not "roughly 100";
* "several order of magnitudes" is at least two (at least :math:`10^2`), the paper's own example;
* "significant improvements" is at least one order of magnitude (at least 10);
* "the vast majority" is at least 90% of the points;
* "up to roughly 20 percent" is a largest gain that rounds to 20% at one significant digit
  (15% to 25%), and "consistently better" a gain above zero at every point;
* "consistently worse" and an unqualified "lower" hold at every point.

Every rule is decided on three sets of numbers, each a *frame* (a :class:`pandas.DataFrame`
with one row per point and the columns ``<loss>_<method>`` of :mod:`pdp_lib.experiments`):

* the rebuilt numbers: replicate 0 of :func:`pdp_lib.experiments.reproduce_many`, the value
  the book's tables show;
* the published numbers (:mod:`pdp_lib.experiments.published`), with the cells that the authors' own outputs
  show misprinted beyond the last digit (:func:`misprinted_cells`) left out; the figures
  publish no numbers;
* every draw behind the book's 95% bands (:func:`draw_values`): the same data, profile and
  mask draws as the bands of the chapters, so that the spread of a claim's statistic and the
  number of draws on which its rule holds come from the bands the book shows.

A verdict (:class:`Verdict`) says whether the rule holds on the rebuilt and on the published
numbers and on how many of the draws.  Numbers are printed to three significant digits
(:mod:`pdp_lib.formatting`), so the stored page does not depend on the machine.

The chapter's other verdicts, on each published cell (:func:`pdp_lib.replication.verdicts.band_verdicts`)
and on each miss (:func:`pdp_lib.replication.misses.explain_misses`), are decided in those modules; the
tables that count them are built here (:func:`coverage_markdown`, :func:`causes_markdown`), so
that the chapter's cells that call the deciding functions stay short enough to show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..experiments.targets import get_target
from ..formatting import ratio_text

from .claim_numbers import draw_frames, misprinted_cells, values_frame

__all__ = [
    "LOSSES",
    "METHOD_NAMES",
    "factor_text",
    "bound_text",
    "percent_text",
    "Verdict",
    "Rule",
    "FactorRule",
    "GainRule",
    "LowerRule",
    "Claim",
    "CLAIMS",
    "TARGETS",
    "Judgement",
    "judge",
    "judge_all",
]

LOSSES = ("unreg", "reg")
_LOSS_NAMES = {"unreg": "unreg.", "reg": "reg."}
METHOD_NAMES = {"pdp_op": "PDP-OP", "non_personalized": "non-personalized",
                "jorgensen_max": "Jorgensen max", "jorgensen_mean": "Jorgensen mean"}


# ----------------------------------------------------------------------------------- numbers

def factor_text(x) -> str:
    """A positive factor to three significant digits: ``31.6``, ``169``, ``1.86 × 10³``."""
    x = float(x)
    if not math.isfinite(x):
        return "∞" if x > 0 else "–"
    return ratio_text(x)


def percent_text(x) -> str:
    """A fraction as a percentage to three significant digits: ``18.0%``, ``0.345%``, ``−89.9%``."""
    x = float(x)
    if not math.isfinite(x):
        return "–"
    if x == 0:
        return "0%"
    return f"{100 * x:#.3g}".rstrip(".").replace("-", "−") + "%"


def bound_text(x, percent: bool = False) -> str:
    """A rule's threshold to three significant digits: ``10``, ``100``, ``31.6``, ``316``, ``15%``."""
    return f"{100 * float(x):.3g}%" if percent else f"{float(x):.3g}"


def _range_text(low, high, fmt) -> str:
    a, b = fmt(low), fmt(high)
    return a if a == b else f"{a} to {b}"


# ----------------------------------------------------------------------------------- verdicts

@dataclass(frozen=True)
class Verdict:
    """What a rule says about one claim.

    Attributes
    ----------
    rebuilt, published : bool
        Whether the rule holds on the rebuilt and on the published numbers.
    holding, draws : int
        On how many of the draws behind the book's bands the rule holds, and how many there
        are (the rebuilt draw is one of them).
    notes : tuple of str
        What the rule adds (e.g. that a factor exceeds the range the claim gives).
    """

    rebuilt: bool
    published: bool
    holding: int
    draws: int
    notes: tuple = ()

    @property
    def holds(self) -> bool:
        """The claim holds: on the rebuilt and the published numbers and on every draw."""
        return self.rebuilt and self.published and self.holding == self.draws

    @property
    def fails(self) -> bool:
        """The claim fails: on the rebuilt and the published numbers and on every draw."""
        return not self.rebuilt and not self.published and self.holding == 0

    @property
    def text(self) -> str:
        """The verdict in words: "holds", "does not hold", or on which numbers it holds."""
        k, n = self.holding, self.draws
        if self.holds:
            head = f"**holds**: on the rebuilt and published numbers and on all {n} draws"
        elif self.fails:
            head = (f"**does not hold**: neither on the rebuilt nor on the published numbers, "
                    f"nor on any of {n} draws")
        elif self.rebuilt and self.published:
            head = f"**holds** on the rebuilt and published numbers, and on {k} of {n} draws"
        elif not self.rebuilt and not self.published:
            head = f"**does not hold** on the rebuilt or the published numbers; holds on {k} of {n} draws"
        else:
            which, other = ("rebuilt", "published") if self.rebuilt else ("published", "rebuilt")
            head = (f"**depends on the draw**: holds on the {which} numbers, not the {other}, "
                    f"and on {k} of {n} draws")
        return "; ".join((head,) + tuple(self.notes))


# ----------------------------------------------------------------------------------- rules

def _range_per_loss(values) -> dict:
    """Per loss, ``(smallest, largest)`` of ``values(loss)`` (a Series); NaNs when it is empty."""
    out = {}
    for loss in LOSSES:
        v = values(loss)
        out[loss] = (float(v.min()), float(v.max())) if len(v) else (math.nan, math.nan)
    return out


def _columns(frame: pd.DataFrame, loss: str, *methods) -> pd.DataFrame:
    """The columns ``<loss>_<method>`` of ``frame``, on the rows where all are finite."""
    cols = frame[[f"{loss}_{m}" for m in methods]].astype(float)
    return cols[np.isfinite(cols).all(axis=1)]


@dataclass(frozen=True)
class Rule:
    """A test on the numbers of a claim (base class).

    A subclass defines :meth:`statistic` (one value, or a pair, per loss), :meth:`holds`,
    :meth:`describe` and :meth:`band`, and states itself in :attr:`text`.
    """

    @property
    def text(self) -> str:  # pragma: no cover - every rule defines it
        raise NotImplementedError

    def statistic(self, frame: pd.DataFrame) -> dict:  # pragma: no cover
        raise NotImplementedError

    def holds(self, frame: pd.DataFrame) -> bool:  # pragma: no cover
        raise NotImplementedError

    def describe(self, frame: pd.DataFrame) -> str:  # pragma: no cover
        raise NotImplementedError

    def band(self, frames) -> str:  # pragma: no cover
        raise NotImplementedError

    @property
    def methods(self) -> tuple:  # pragma: no cover
        raise NotImplementedError

    @property
    def columns(self) -> tuple:
        """The columns the rule reads: ``<loss>_<method>`` for both losses."""
        return tuple(f"{loss}_{m}" for loss in LOSSES for m in self.methods)

    def notes(self, rebuilt, published, draws) -> tuple:
        """Remarks the verdict adds (none by default)."""
        return ()

    def decide(self, rebuilt: pd.DataFrame, published: pd.DataFrame, draws) -> Verdict:
        """Decide the rule on the rebuilt and published numbers and on every draw.

        Parameters
        ----------
        rebuilt, published : pandas.DataFrame
            Frames: one row per point, the columns ``<loss>_<method>``; NaN cells are left out.
        draws : sequence of pandas.DataFrame
            One frame per draw behind the bands (:func:`draw_frames`).

        Returns
        -------
        Verdict
        """
        draws = list(draws)
        return Verdict(rebuilt=bool(self.holds(rebuilt)), published=bool(self.holds(published)),
                       holding=int(sum(bool(self.holds(d)) for d in draws)), draws=len(draws),
                       notes=tuple(self.notes(rebuilt, published, draws)))


def _pair_band(stats, fmt, names=("smallest", "largest")) -> str:
    """Per loss, the 95% bands over draws of the two ends of a (smallest, largest) statistic."""
    lines = []
    for loss in LOSSES:
        values = np.array([s[loss] for s in stats], dtype=float)
        lo = np.quantile(values[:, 0], [0.025, 0.975])
        hi = np.quantile(values[:, 1], [0.025, 0.975])
        lines.append(f"{_LOSS_NAMES[loss]} {names[0]} {_range_text(*lo, fmt)}, "
                     f"{names[1]} {_range_text(*hi, fmt)}")
    return "<br>".join(lines)


@dataclass(frozen=True)
class FactorRule(Rule):
    """``numerator ÷ denominator`` between ``low`` and ``high`` at every point, on both losses.

    Parameters
    ----------
    numerator, denominator : str
        Methods (``"non_personalized"``, ``"pdp_op"``, ...).
    low : float
        Smallest factor allowed.
    high : float, default inf
        Largest factor allowed (a two-sided reading when finite).
    reading : str, optional
        How the bounds read the paper's words, stated before them (``"within a factor √10
        of 100"``).
    where : str, default "every λ"
        The points, as the rule's text names them.
    """

    numerator: str
    denominator: str
    low: float
    high: float = math.inf
    reading: str = ""
    where: str = "every λ"

    @property
    def text(self) -> str:
        ratio = f"{METHOD_NAMES[self.numerator]} ÷ {METHOD_NAMES[self.denominator]}"
        if math.isinf(self.high):
            bound = f"at least {bound_text(self.low)}"
        else:
            bound = f"between {bound_text(self.low)} and {bound_text(self.high)}"
        reading = f" ({self.reading})" if self.reading else ""
        return f"{ratio} {bound} at {self.where}, on both losses{reading}"

    @property
    def methods(self) -> tuple:
        return (self.numerator, self.denominator)

    def factors(self, frame: pd.DataFrame, loss: str) -> pd.Series:
        """The factor at every point of ``frame`` where both columns are known."""
        cols = _columns(frame, loss, self.numerator, self.denominator)
        return cols.iloc[:, 0] / cols.iloc[:, 1]

    def statistic(self, frame: pd.DataFrame) -> dict:
        """Per loss, ``(smallest, largest)`` factor over the points."""
        return _range_per_loss(lambda loss: self.factors(frame, loss))

    def holds(self, frame: pd.DataFrame) -> bool:
        stat = self.statistic(frame)
        return all(self.low <= lo and hi <= self.high for lo, hi in stat.values())

    def exceeds(self, frame: pd.DataFrame) -> bool:
        """Some factor lies above ``high``: the claim understates it there."""
        return any(hi > self.high for _, hi in self.statistic(frame).values())

    def describe(self, frame: pd.DataFrame) -> str:
        stat = self.statistic(frame)
        return "<br>".join(f"{_LOSS_NAMES[k]} {_range_text(*stat[k], factor_text)}" for k in LOSSES)

    def band(self, frames) -> str:
        return _pair_band([self.statistic(f) for f in frames], factor_text)

    def notes(self, rebuilt, published, draws) -> tuple:
        if math.isinf(self.high):
            return ()
        m, n = sum(self.exceeds(d) for d in draws), len(draws)
        r, p = self.exceeds(rebuilt), self.exceeds(published)
        if not (r or p or m):
            return ()
        where = {(True, True): "the rebuilt and published numbers", (True, False): "the rebuilt numbers",
                 (False, True): "the published numbers", (False, False): "neither number"}[r, p]
        text = f"the factor exceeds {factor_text(self.high)} on {where} and on {m} of {n} draws"
        if r and p and m == n:
            return (text + ": the claim understates it",)
        return (text + ": the claim understates it on those draws, not on every draw",)


@dataclass(frozen=True)
class GainRule(Rule):
    """``method`` below ``other`` at every point, with the largest gain in ``[low, high)``.

    The gain is ``1 - method ÷ other`` on both losses; "up to roughly 20 percent" reads as a
    largest gain that rounds to 20% at one significant digit, ``low = 0.15``, ``high = 0.25``.
    """

    method: str
    other: str
    low: float
    high: float
    where: str = "every λ"

    @property
    def text(self) -> str:
        m, o = METHOD_NAMES[self.method], METHOD_NAMES[self.other]
        return (f"{m} below {o} at {self.where}, on both losses, and the largest gain 1 − {m} ÷ {o} "
                f"at least {bound_text(self.low, True)} and below {bound_text(self.high, True)} (20% to one "
                f"significant digit)")

    @property
    def methods(self) -> tuple:
        return (self.method, self.other)

    def gains(self, frame: pd.DataFrame, loss: str) -> pd.Series:
        """The gain at every point of ``frame`` where both columns are known."""
        cols = _columns(frame, loss, self.method, self.other)
        return 1 - cols.iloc[:, 0] / cols.iloc[:, 1]

    def statistic(self, frame: pd.DataFrame) -> dict:
        """Per loss, ``(smallest, largest)`` gain over the points."""
        return _range_per_loss(lambda loss: self.gains(frame, loss))

    def holds(self, frame: pd.DataFrame) -> bool:
        stat = self.statistic(frame)
        lows, highs = [s[0] for s in stat.values()], [s[1] for s in stat.values()]
        return min(lows) > 0 and self.low <= max(highs) < self.high

    def describe(self, frame: pd.DataFrame) -> str:
        stat = self.statistic(frame)
        return "<br>".join(f"{_LOSS_NAMES[k]} {_range_text(*stat[k], percent_text)}" for k in LOSSES)

    def band(self, frames) -> str:
        return _pair_band([self.statistic(f) for f in frames], percent_text)


@dataclass(frozen=True)
class LowerRule(Rule):
    """``method`` below every one of ``others`` at a share ``share`` of the points, on each loss.

    ``share = 1`` reads "consistently" and an unqualified "lower": at every point.
    """

    method: str
    others: tuple
    share: float = 1.0
    noun: str = ""
    where: str = "every λ"

    @property
    def text(self) -> str:
        owner = "'s" if self.noun else ""
        subject = f"{METHOD_NAMES[self.method]}{owner} {self.noun}".rstrip()
        others = " and ".join(f"{METHOD_NAMES[o]}{owner}" for o in self.others)
        if len(self.others) == 2:
            others = "both " + others
        if self.share >= 1:
            return f"{subject} below {others} at {self.where}, on both losses"
        share = bound_text(self.share, True)
        return f"{subject} below {others} at {share} or more of {self.where}, on each loss"

    @property
    def methods(self) -> tuple:
        return (self.method,) + tuple(self.others)

    def counts(self, frame: pd.DataFrame, loss: str) -> tuple:
        """``(points where method is below every other, points)`` on one loss."""
        cols = _columns(frame, loss, self.method, *self.others)
        below = (cols.iloc[:, [0]].to_numpy() < cols.iloc[:, 1:].to_numpy()).all(axis=1)
        return int(below.sum()), len(below)

    def statistic(self, frame: pd.DataFrame) -> dict:
        """Per loss, the share of the points where ``method`` is below every other."""
        out = {}
        for loss in LOSSES:
            k, n = self.counts(frame, loss)
            out[loss] = k / n if n else math.nan
        return out

    def holds(self, frame: pd.DataFrame) -> bool:
        # counted, not compared as floats: k >= share * n
        return all(n > 0 and k >= self.share * n - 1e-9
                   for k, n in (self.counts(frame, loss) for loss in LOSSES))

    def describe(self, frame: pd.DataFrame) -> str:
        return "<br>".join(f"{_LOSS_NAMES[loss]} {k} of {n}"
                           for loss in LOSSES for k, n in [self.counts(frame, loss)])

    def band(self, frames) -> str:
        lines = []
        for loss in LOSSES:
            shares = np.array([self.statistic(f)[loss] for f in frames], dtype=float)
            band = np.quantile(shares, [0.025, 0.975])
            lines.append(f"{_LOSS_NAMES[loss]} {_range_text(*band, percent_text)}")
        return "<br>".join(lines)


# ----------------------------------------------------------------------------------- claims

@dataclass(frozen=True)
class Claim:
    """One headline claim of the paper's Section 4.

    Attributes
    ----------
    number : int
        Its row in the chapter's table.
    quote : str
        The paper's words.
    where : str
        The section and the tables and figures it speaks of.
    targets : tuple of str
        Those tables and figures as reproduction targets (``"table-1"``, ``"figure-3"``).
    rule : Rule
        The rule that decides it.
    """

    number: int
    quote: str
    where: str
    targets: tuple
    rule: Rule


_JORGENSEN = ("jorgensen_max", "jorgensen_mean")
_SQRT10 = math.sqrt(10)
_FIGURES_MEAN = tuple(f"figure-{k}" for k in range(3, 11))
_FIGURES_STD = ("figure-1", "figure-2") + tuple(f"figure-{k}" for k in range(11, 19))

CLAIMS = (
    Claim(1, "we get consistent improvements of several order of magnitudes across all values of λ",
          "Section 4.1, Table 1", ("table-1",),
          FactorRule("non_personalized", "pdp_op", low=100.0,
                     reading="“several” orders of magnitude: at least two")),
    Claim(2, "The improvement is, for example, roughly of an order of magnitude of 100 when it comes to "
             "both unregularized and regularized mean-squared error",
          "Section 4.1, Table 1", ("table-1",),
          FactorRule("non_personalized", "pdp_op", low=100 / _SQRT10, high=100 * _SQRT10,
                     reading="within a factor √10 of 100: half a decade either way")),
    Claim(3, "significant improvements also occur on the real dataset",
          "Section 4.1, Table 2", ("table-2",),
          FactorRule("non_personalized", "pdp_op", low=10.0,
                     reading="“significant”: at least one order of magnitude")),
    Claim(4, "our unregularized and regularized losses are consistently lower than those of Jorgensen for "
             "the vast majority of choices of instance parameters and of regularization parameter λ",
          "Section 4.2, Tables 3-4, Figures 3-10", ("table-3", "table-4") + _FIGURES_MEAN,
          LowerRule("pdp_op", _JORGENSEN, share=0.9, where="the λ and profile values swept")),
    Claim(5, "We perform consistently better than Jorgensen across both our metrics (unregularized and "
             "regularized loss), with improvements in loss of up to roughly 20 percent under the max "
             "threshold",
          "Section 4.2, Tables 3-4", ("table-3", "table-4"),
          GainRule("pdp_op", "jorgensen_max", low=0.15, high=0.25)),
    Claim(6, "Jorgensen's results when using the mean threshold instead are consistently worse",
          "Section 4.2, Tables 3-4", ("table-3", "table-4"),
          LowerRule("jorgensen_max", ("jorgensen_mean",))),
    Claim(7, "the standard deviation of the loss of our technique is also lower than that of Jorgensen",
          "Section 4.2, Tables 13-14, Figures 1-2 and 11-18", ("table-13", "table-14") + _FIGURES_STD,
          LowerRule("pdp_op", _JORGENSEN, noun="standard deviation", where="every point")),
)
"""The seven headline claims of Section 4, in the order the paper makes them."""

TARGETS = tuple(dict.fromkeys(t for c in CLAIMS for t in c.targets))
"""Every table and figure a claim speaks of."""


@dataclass(frozen=True)
class Judgement:
    """A claim with its numbers and its verdict (what :func:`judge` returns)."""

    claim: Claim
    rebuilt: pd.DataFrame = field(repr=False)
    published: pd.DataFrame = field(repr=False)
    draws: list = field(repr=False)
    verdict: Verdict = None
    excluded: int = 0
    """Published cells the rule reads that are left out as misprints."""

    def cells(self) -> dict:
        """The table row: claim, rule, rebuilt, published, band and verdict, as Markdown cells."""
        rule = self.claim.rule
        return {"claim": f"{self.claim.number}. “{self.claim.quote}” ({self.claim.where})",
                "rule": rule.text,
                "rebuilt": rule.describe(self.rebuilt),
                "published": rule.describe(self.published),
                "band": rule.band(self.draws),
                "verdict": self.verdict.text}


def judge(claim: Claim, results: dict, draws: dict, misprints=None) -> Judgement:
    """Decide ``claim`` on the rebuilt and published numbers and on every draw.

    Parameters
    ----------
    claim : Claim
    results : mapping
        Target -> long table, for every target of the claim.
    draws : mapping
        Target -> frames of :func:`draw_values`.
    misprints : collection of (target, param, column), optional
        Published cells to leave out; ``None``: :func:`misprinted_cells`.
    """
    misprints = misprinted_cells() if misprints is None else set(misprints)
    tables = [t for t in claim.targets if get_target(t).kind == "table"]
    rebuilt = values_frame(results, claim.targets)
    published = values_frame(results, tables, "paper", exclude=misprints)
    frames = draw_frames(draws, claim.targets)
    excluded = sum(1 for t, _, c in misprints if t in tables and c in claim.rule.columns)
    verdict = claim.rule.decide(rebuilt, published, frames)
    return Judgement(claim, rebuilt, published, frames, verdict, excluded)


def judge_all(results: dict, draws: dict, claims=CLAIMS) -> list:
    """:func:`judge` every claim of ``claims`` (by default the seven of Section 4)."""
    misprints = misprinted_cells()
    return [judge(c, results, draws, misprints) for c in claims]

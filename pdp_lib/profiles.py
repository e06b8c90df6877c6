"""Privacy profiles: conservatives, mediums (pragmatists) and liberals.

Paper, Section 4, "Choice of Privacy Budgets" (after Jorgensen et al. 2015 and
Alaggan et al.'s HDP): a fraction ``f_c`` of conservatives draws ``epsilon``
uniformly from ``[eps_c, eps_m]``, a fraction ``f_m`` of mediums uniformly from
``[eps_m, eps_l]``, and the remaining ``f_l = 1 - f_c - f_m`` liberals get
exactly ``eps_l``.  Shown in the book's chapter *The PDP-OP mechanism*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .validation import check_count, check_fraction, check_positive, check_rng

__all__ = ["ProfileSpec", "DEFAULT_PROFILE", "group_sizes", "privacy_profile"]


@dataclass(frozen=True)
class ProfileSpec:
    """Parameters of a three-group privacy profile (Section 4).

    Defaults are the paper's: ``f_c, f_m, f_l = 0.34, 0.43, 0.23`` and
    ``eps_c, eps_m, eps_l = 0.01, 0.2, 1.0``.
    """

    f_c: float = 0.34
    f_m: float = 0.43
    eps_c: float = 0.01
    eps_m: float = 0.2
    eps_l: float = 1.0

    @property
    def f_l(self) -> float:
        """Fraction of liberals, ``1 - f_c - f_m``."""
        return 1.0 - self.f_c - self.f_m

    def validate(self) -> "ProfileSpec":
        """Raise ``ValueError`` unless ``f_c, f_m >= 0``, ``f_c + f_m <= 1`` and ``0 < eps_c <= eps_m <= eps_l``."""
        check_fraction(self.f_c, "f_c")
        check_fraction(self.f_m, "f_m")
        if self.f_c + self.f_m > 1.0 + 1e-12:
            raise ValueError(f"f_c + f_m = {self.f_c + self.f_m!r} is outside the allowed range [0, 1]")
        for name in ("eps_c", "eps_m", "eps_l"):
            check_positive(getattr(self, name), name)
        if not (self.eps_c <= self.eps_m <= self.eps_l):
            raise ValueError(
                f"privacy levels must satisfy eps_c <= eps_m <= eps_l, got "
                f"{self.eps_c!r}, {self.eps_m!r}, {self.eps_l!r}"
            )
        return self


DEFAULT_PROFILE = ProfileSpec()


def group_sizes(n, f_c, f_m) -> tuple[int, int, int]:
    """Sizes ``(n_c, n_m, n_l)`` of the three groups for ``n`` points.

    ``n_c = floor(f_c n)``, ``n_m = floor(f_m n)`` and the liberals take the rest,
    as in the authors' code.  (A tolerance of ``1e-9`` guards against products
    such as ``0.29 * 100 = 28.999999999999996`` rounding down by one.)
    """
    n = check_count(n, "n")
    f_c = check_fraction(f_c, "f_c")
    f_m = check_fraction(f_m, "f_m")
    if f_c + f_m > 1.0 + 1e-12:
        raise ValueError(f"f_c + f_m = {f_c + f_m!r} is outside the allowed range [0, 1]")
    n_c = math.floor(f_c * n + 1e-9)
    n_m = math.floor(f_m * n + 1e-9)
    n_c = min(n_c, n)
    n_m = min(n_m, n - n_c)
    return n_c, n_m, n - n_c - n_m


def privacy_profile(n, spec: ProfileSpec = DEFAULT_PROFILE, rng=None) -> np.ndarray:
    """Draw the privacy levels of ``n`` points from a three-group profile (Section 4).

    Parameters
    ----------
    n : int
        Number of data points, ``n >= 1``.
    spec : ProfileSpec
        Group fractions and privacy levels.
    rng : None, int or numpy.random.Generator
        Source of the uniform draws.

    Returns
    -------
    numpy.ndarray of shape (n,)
        Conservatives first, then mediums, then liberals (the data are already
        in random order after the train/test split, so the order carries no
        information).
    """
    if not isinstance(spec, ProfileSpec):
        raise TypeError(f"spec must be a ProfileSpec, got {type(spec).__name__}")
    spec.validate()
    gen = check_rng(rng)
    n_c, n_m, n_l = group_sizes(n, spec.f_c, spec.f_m)
    return np.concatenate([
        gen.uniform(spec.eps_c, spec.eps_m, size=n_c),
        gen.uniform(spec.eps_m, spec.eps_l, size=n_m),
        np.full(n_l, float(spec.eps_l)),
    ])

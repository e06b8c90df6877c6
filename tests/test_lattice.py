"""Tests of the lattice release (pdp_lib.mechanisms.lattice) against exact rational arithmetic.

The realized privacy loss of a pair of neighbouring tables is computed exactly: on the lattice the output
``y`` has probability proportional to ``exp(-t ||y - m||)``, so the largest loss over all outputs is
``t ||m - m'||`` (attained at ``y = m``), compared with ``epsilon_i`` by squaring rationals.  The neighbours
are every corner of the domain put in place of each row.  The floating-point sums' error is checked against
the exact weighted ridge solution computed over the rationals from the rows themselves.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import pdp_lib
from pdp_lib import audit
from pdp_lib.mechanisms import exact_sampling, lattice
from pdp_lib.mechanisms.exact_sampling import RandomBits


def _problem(n=8, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = rng.uniform(-1, 1, n)
    eps = rng.choice([0.2, 0.5, 1.0, 2.0], n)
    return X, y, eps


def _sums(X, y, eps):
    G, m, _ = lattice.weighted_sums(X, y, eps)
    return G, m, math.fsum(eps)


def _cal(eps, n, lam, d, B=None):
    return lattice.lattice_calibration(math.fsum(eps), float(eps.min()), lattice.rounds_bound(n), lam, d, B)


def _exact_ridge(X, y, eps, lam):
    """The weighted ridge solution of eq. (2) over the rationals, from the rows."""
    n, d = X.shape
    S = sum(Fraction(v) for v in eps)
    A = [[sum(Fraction(eps[i]) * Fraction(X[i, j]) * Fraction(X[i, k]) for i in range(n)) / S
          + (Fraction(lam) if j == k else 0) for k in range(d)] for j in range(d)]
    b = [sum(Fraction(eps[i]) * Fraction(y[i]) * Fraction(X[i, j]) for i in range(n)) / S for j in range(d)]
    for j in range(d):                                   # Gaussian elimination, exact
        for r in range(j + 1, d):
            f = A[r][j] / A[j][j]
            A[r] = [a - f * c for a, c in zip(A[r], A[j])]
            b[r] -= f * b[j]
    x = [Fraction(0)] * d
    for j in reversed(range(d)):
        x[j] = (b[j] - sum(A[j][c] * x[c] for c in range(j + 1, d))) / A[j][j]
    return x


def _centre(X, y, eps, lam, cal):
    G, m, S = _sums(X, y, eps)
    return lattice.lattice_centre(G, m, S, lam, cal.step_exponent)


def _centre_moves(X, y, levels, lam, cal):
    """``(i, ||m - m'||^2)``, exactly, for each point ``i`` replaced by each corner of the domain (``d = 2``)."""
    d = X.shape[1]
    base = _centre(X, y, levels, lam, cal)
    for i, corner in itertools.product(range(X.shape[0]), itertools.product([0.0, 1.0], [0.0, 1.0], [-1.0, 1.0])):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = corner[:d], corner[d]
        other = _centre(X2, y2, levels, lam, cal)
        yield i, sum((a - b) ** 2 for a, b in zip(base, other))


@pytest.mark.parametrize("lam, B", [(1.0, None), (0.3, "sharp"), (5.0, None)])
def test_no_neighbour_moves_the_centre_beyond_epsilon_i(lam, B):
    X, y, eps = _problem()
    n, d = X.shape
    cal = _cal(eps, n, lam, d, B)
    worst = 0.0
    for i, sq in _centre_moves(X, y, eps, lam, cal):
        assert cal.rate ** 2 * sq <= Fraction(eps[i]) ** 2        # t ||m - m'|| <= eps_i, exactly
        worst = max(worst, float(cal.rate) * math.sqrt(sq) / eps[i])
    assert 0.1 < worst <= 1.0          # the search reaches a real fraction of the budget, not a trivial one


def test_the_sums_rounding_stays_within_the_proved_bound():
    for seed in range(5):
        X, y, eps = _problem(n=12, d=3, seed=seed)
        lam = [0.1, 1.0, 3.0, 0.5, 10.0][seed]
        cal = _cal(eps, 12, lam, 3)
        exact = _exact_ridge(X, y, eps, lam)
        G, m, S = _sums(X, y, eps)
        solved = lattice.lattice_centre(G, m, S, lam, 0)          # step 1: only to reach the exact solve
        theta = lattice._solve_exact(*lattice.integer_system(G, m, S, lam))
        gap = sum((a - b) ** 2 for a, b in zip(theta, exact))
        assert gap <= cal.error_bound ** 2
        assert solved == tuple(round(v) for v in theta)


def _c_upper(lam, d, B):
    """``c_lambda = 2 sqrt(d) (1 + sqrt(d) B) / lam`` from above, in 60-digit decimal arithmetic (the true B)."""
    with localcontext() as ctx:
        ctx.prec = 60
        lam_, d_ = Decimal(lam), Decimal(d)
        if B is None:
            B_ = min(1 / lam_.sqrt(), d_.sqrt() / lam_)
        elif B == "sharp":
            B_ = 1 / (2 * lam_.sqrt()) if lam <= d else d_.sqrt() / (d_ + lam_)
        else:
            B_ = Decimal(B)
        c = 2 * d_.sqrt() * (1 + d_.sqrt() * B_) / lam_
        return Fraction(c) * (1 + Fraction(1, 10**50))


def test_the_calibration_keeps_every_point_within_its_level():
    for n, d, lam, B in [(8, 2, 1.0, None), (1338, 12, 1.0, None), (10**7, 30, 0.01, "sharp"), (50, 5, 100.0, 0.3),
                         (200, 3, 7.0, "sharp")]:
        eps = np.linspace(0.05, 2.0, 8)
        total, eps_min = float(eps.sum() * n / 8), 0.05
        cal = lattice.lattice_calibration(total, eps_min, lattice.rounds_bound(n), lam, d, B)
        # an independent check of eta' (Delta_min + 2e + gamma sqrt(d)) <= eps_min, with c_lambda from above
        gamma = Fraction(1, 1 << cal.step_exponent)
        spread = 2 * cal.error_bound + gamma * Fraction(math.sqrt(d) * (1 + 2.0**-40))
        Delta_min = Fraction(eps_min) * _c_upper(lam, d, B) / Fraction(total)
        assert Fraction(cal.eta) * (Delta_min + spread) <= Fraction(eps_min)
        # the cost in noise is the spread over the smallest sensitivity: 2**-20 for the grid, and the sums' rounding
        cost = 1 / (1 + float(spread / Fraction(cal.sensitivity_min)))
        assert cost * (1 - 2.0**-40) <= cal.eta / cal.eta_real <= 1.0
        assert cal.eta / cal.eta_real > (1 - 2.0**-19 if n <= 10**5 else 0.99)   # the cases above: n = 1e7 costs 0.27%
        assert gamma * Fraction(math.sqrt(d)) <= Fraction(cal.sensitivity_min) / (1 << 20) / max(1, eps_min)


@pytest.mark.parametrize("d", [3, 50])
def test_the_release_is_on_the_grid_and_matches_pdp_op(d):
    X, y, eps = _problem(n=40, d=d, seed=4)
    X = X / math.sqrt(d)
    theta = pdp_lib.pdp_op(X, y, eps, 1.0, rng=9)
    cal = _cal(eps, 40, 1.0, d)
    units = theta * 2.0 ** cal.step_exponent
    assert np.array_equal(units, np.round(units))                # exactly gamma times integers
    G, m, rounds = lattice.weighted_sums(X, y, eps)
    again, _, (centre, noise) = lattice.release_from_sums(G, m, math.fsum(eps), float(eps.min()), 40, rounds, 1.0,
                                                          None, 9)
    assert np.array_equal(again, theta)
    assert tuple(np.round(units).astype(int)) == tuple(a + b for a, b in zip(centre, noise))


@pytest.mark.parametrize("d", [3, 40])
def test_the_noise_and_its_work_do_not_depend_on_the_data(d):
    # the sampler never sees the centre: with the same seed and the same public quantities, two different
    # tables get the same noise and consume the same random bits (the sampler's work); d = 40 uses the
    # rounded law
    X, y, eps = _problem(n=30, d=d, seed=1)
    X = X / math.sqrt(d)
    X2, y2 = 1 - X, -y
    used, noises = [], []
    for A, b in [(X, y), (X2, y2)]:
        bits = RandomBits(17)
        G, m, rounds = lattice.weighted_sums(A, b, eps)
        _, _, (centre, noise) = lattice.release_from_sums(G, m, math.fsum(eps), float(eps.min()), 30, rounds, 1.0,
                                                          None, bits)
        assert len(noise) == d
        used.append(bits.used)
        noises.append(noise)
    assert noises[0] == noises[1] and used[0] == used[1]


def test_bad_input_is_refused_by_name():
    X, y, eps = _problem(n=10, d=2)
    with pytest.raises(ValueError, match=r"sampler = 'Exact' is not allowed; use 'exact'"):
        pdp_lib.pdp_op(X, y, eps, 1.0, sampler="Exact")
    with pytest.raises(ValueError,
                       match=r"law = 'discrete' is not allowed; use one of \['gaussian', 'lattice', 'rounded'\]"):
        lattice.release_from_sums(np.zeros((2, 2)), np.zeros(2), 1.0, 1.0, 1, 1, 1.0, None, 1, law="discrete")
    with pytest.raises(ValueError, match=r"rng = -1 is outside the allowed range"):
        pdp_lib.pdp_op(X, y, eps, 1.0, rng=-1)
    with pytest.raises(ValueError, match=r"lam = 1e-15 is outside the allowed range of the exact release"):
        lattice.lattice_calibration(1.0, 1.0, 10**9, 1e-15, 3)      # 10**9 roundings: a plain sum of 1e9 rows


def test_every_release_from_sums_refuses_more_roundings_than_the_proof_allows():
    from pdp_lib.mechanisms import adassp, private_mean, ssp

    X, y, eps = _problem(n=10, d=2)
    G, m, _ = lattice.weighted_sums(X, y, eps)
    total, low, n = math.fsum(eps), float(eps.min()), 10
    rounds = lattice.rounds_bound(n) + 1
    assert lattice.check_sums_rounds(rounds - 1, n) == lattice.rounds_bound(n)
    releases = [lambda: lattice.release_from_sums(G, m, total, low, n, rounds, 1.0, None, 1),
                lambda: ssp.statistics_from_sums(G, m, total, low, n, rounds, 1),
                lambda: adassp.release_from_sums(G, m, total, low, n, rounds, 1, 1e-5),
                lambda: private_mean.mean_from_sums(0.5, total, low, n, rounds, 1, gaussian=False)]
    message = (rf"the sums met {rounds} roundings, more than the {rounds - 1} the proof allows for 10 rows: they were "
               r"not accumulated by weighted_sums and Sums")
    for release in releases:
        with pytest.raises(RuntimeError, match=message):
            release()


def test_the_audit_computes_the_pair_loss_exactly_and_catches_a_rate_too_high():
    X, y, eps = _problem(n=6, d=2, seed=3)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = [1.0, 1.0], -1.0
    pair = audit.lattice_pair(X, y, X2, y2, eps, 1.0)
    sq = sum((a - b) ** 2 for a, b in zip(pair.centre_a, pair.centre_b))
    assert pair.loss == pytest.approx(float(pair.calibration.rate) * math.sqrt(sq), rel=1e-15)
    assert audit.pair_loss_within(pair, eps[0]) and pair.loss == pytest.approx(pair.real_loss, rel=1e-5)
    loose = dataclasses.replace(pair, calibration=dataclasses.replace(pair.calibration,
                                                                      rate=pair.calibration.rate * 100))
    assert not audit.pair_loss_within(loose, eps[0])      # a noise 100 times too small is caught


def test_every_lattice_output_is_reachable_and_an_off_grid_one_is_not():
    out = audit.lattice_draws((5, -3), Fraction(1, 4), 10, 300, 8)
    assert audit.lattice_reachable(out, (5, -3), 10).all() and audit.lattice_reachable(out, (900, 2), 10).all()
    assert np.array_equal(audit.lattice_units(out, 10), np.round(audit.lattice_units(out, 10)))
    off = out.copy()
    off[0, 1] += 2.0**-12                                # half a step: no grid point, no centre produces it
    assert not audit.lattice_reachable(off, (5, -3), 10)[0]


@pytest.mark.parametrize("lam, delta", [(1.0, 1e-5), (0.3, 1e-3)])
def test_with_delta_every_neighbour_stays_within_its_loss_range_and_profile(lam, delta):
    # (epsilon_i, delta): the sums are weighted by the tolerated loss ranges r_i, and the rounded law is a
    # function of the continuous mechanism's output, so t ||m - m'|| <= r_i gives delta_i(eps_i) <= delta
    from pdp_lib.curves import l2_privacy_profile, tolerated_loss_ranges

    X, y, eps = _problem()
    n, d = X.shape
    reach = tolerated_loss_ranges(eps, delta, d)
    assert np.all(reach > eps)                        # the loss ranges exceed the levels: less noise
    assert all(l2_privacy_profile(e, d, r) <= delta for e, r in zip(eps, reach))
    cal = _cal(reach, n, lam, d)
    assert cal.eta > _cal(eps, n, lam, d).eta
    float_eta = pdp_lib.calibrate(eps, lam, d, delta=delta).eta
    assert 1 - 2.0**-15 < cal.eta / float_eta < 1
    for i, sq in _centre_moves(X, y, reach, lam, cal):
        assert cal.rate ** 2 * sq <= Fraction(reach[i]) ** 2          # t ||m - m'|| <= r_i, exactly
    theta = pdp_lib.pdp_op(X, y, eps, lam, rng=4, delta=delta)
    G, m, rounds = lattice.weighted_sums(X, y, reach)
    again, _, _ = lattice.release_from_sums(G, m, math.fsum(reach), float(reach.min()), n, rounds, lam, None, 4,
                                            law="rounded")
    assert np.array_equal(theta, again)


@pytest.mark.parametrize("eps, delta, shift", [(0.5, 1e-3, 5), (0.5, 1e-3, 1), (1.0, 1e-5, 3), (0.1, 1e-2, 2)])
def test_at_the_tolerated_range_the_rounded_law_meets_delta_and_the_lattice_law_does_not(eps, delta, shift):
    # d = 1, centres `shift` steps apart at the rate t = r / shift, the largest the calibration allows: the exact
    # profile sum_k max(0, p(k) - e^eps p(k - shift)) of the rounded law (cell probabilities) is at most delta;
    # the lattice law's exceeds it, which is why (epsilon_i, delta) draws the rounded law
    from pdp_lib.curves import tolerated_loss_ranges

    t = tolerated_loss_ranges(np.array([eps]), delta, 1)[0] / shift
    k = np.arange(-int(60 / t) - 10, int(60 / t) + 10)
    rounded = np.where(k == 0, -np.expm1(-t / 2), 0.5 * np.exp(-t * (np.abs(k) - 0.5)) * -np.expm1(-t))
    lattice_law = np.exp(-t * np.abs(k)) / np.exp(-t * np.abs(k)).sum()

    def profile(p):
        return float(np.maximum(0, p[shift:] - np.exp(eps) * p[:-shift]).sum())

    assert profile(rounded) <= delta < profile(lattice_law)


def test_the_noise_law_switches_to_the_rounded_law_above_12_features():
    assert [lattice.noise_law(d) for d in (1, 12, 13, 500)] == ["lattice", "lattice", "rounded", "rounded"]


@pytest.mark.parametrize("d, lam", [(1, 1.0), (4, 0.01), (12, 1.0), (40, 0.1), (70, 1e-3)])
def test_the_certified_centre_equals_the_exact_solve(d, lam):
    # the refined floating-point solution is used only where its proved interval decides the rounding: it
    # must give Bareiss's centre on every problem, at a fine grid where a wrong bound would show (the exact
    # solution found once per problem by Bareiss's elimination and rounded at each grid, ties to even)
    for seed in range(3):
        X, y, eps = _problem(n=200, d=d, seed=seed)
        X = X / math.sqrt(d)
        G, m, S = _sums(X, y, eps)
        alpha = lattice.sums_rounding_bound(lattice.rounds_bound(200), d, eps.min())
        theta = lattice._solve_exact(*lattice._scaled_system(G, m, S, lam)[:2])
        for g in (10, 40, 52):
            exact = tuple(round(v * 2**g) for v in theta)
            assert lattice.lattice_centre(G, m, S, lam, g, alpha=alpha) == exact
            if d <= 12 or (seed, g) == (0, 10):          # the centre without alpha (its own elimination) too
                assert lattice.lattice_centre(G, m, S, lam, g) == exact


@pytest.mark.parametrize("lam", [1e-6, 1e-11])
def test_the_certified_centre_equals_the_exact_solve_on_ill_conditioned_rows(lam):
    # near-collinear rows and a tiny lam: the refined solution may fail to decide (then Bareiss decides), but it
    # never decides wrongly, up to a step of 2**-80
    rng = np.random.default_rng(12)
    base = rng.random(6) / math.sqrt(6)
    X = np.clip(base + 1e-4 * rng.standard_normal((300, 6)), 0, 1 / math.sqrt(6))
    y, eps = rng.uniform(-1, 1, 300), rng.choice([0.1, 1.0], 300)
    G, m, S = _sums(X, y, eps)
    alpha = lattice.sums_rounding_bound(lattice.rounds_bound(300), 6, eps.min())
    for g in (20, 60, 80):
        assert lattice.lattice_centre(G, m, S, lam, g, alpha=alpha) == lattice.lattice_centre(G, m, S, lam, g)


def test_the_certified_centre_falls_back_to_the_exact_solve_on_a_tie():
    # theta~ = 3/2 exactly at the step 1: the interval always holds the tie, so Bareiss decides (ties to even)
    G, m = np.zeros((1, 1)), np.array([1.5])
    alpha = lattice.sums_rounding_bound(lattice.rounds_bound(1), 1, 1.0)
    A, b, scale = lattice._scaled_system(G, m, 1.0, 1.0)
    assert lattice._certified_round(A, b, G, m, 1.0, 1.0, 0, scale, scale * (1 - alpha)) is None
    assert lattice.lattice_centre(G, m, 1.0, 1.0, 0, alpha=alpha) == (2,)
    assert lattice.lattice_centre(G, np.array([2.5]), 1.0, 1.0, 0, alpha=alpha) == (2,)


def test_levels_that_could_overflow_or_underflow_the_sums_are_refused_by_their_public_values():
    # all rows x = 1 overflow the sums of levels near 1e307; a neighbour with x = 0.5 would not: refusing on the
    # data would leak, so the levels alone are refused, before any row is read
    X, y = np.ones((24, 1)), np.ones(24)
    with pytest.raises(ValueError, match=r"sum\(epsilons\) = .* is outside the allowed range \(0, 2\*\*1000\]"):
        pdp_lib.pdp_op(X, y, np.full(24, 7e306), 1e-6)
    with pytest.raises(ValueError, match=r"min\(epsilons\) = 1e-305 is outside the allowed range \[2\*\*-1000, inf\)"):
        pdp_lib.pdp_op(X, y, np.r_[1e-305, np.ones(23)], 1.0)


def test_extreme_public_parameters_release_or_refuse_cleanly():
    X, y, eps = _problem(n=5, d=2, seed=2)
    for levels, lam in [(np.r_[2.0**-999, eps[1:]], 1.0), (np.r_[1e-8, np.full(4, 1e3)], 1e300), (eps * 1e250, 1.0)]:
        theta = pdp_lib.pdp_op(X, y, levels, lam, rng=1)
        assert theta.shape == (2,) and np.all(np.isfinite(theta))
    bits = RandomBits(4)
    k = exact_sampling.sample_lattice_l2(Fraction(1, 10**400), 2, bits)    # |k| near 10**400: no float overflow
    assert all(abs(v) > 10**390 for v in k)


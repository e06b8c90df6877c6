"""Tests of personalized objective perturbation (pdp_lib.mechanisms.objective) against independent truths.

The Jacobian's bound by brute force over the domain's corners, inside the ball and on its sphere, and its
attainment; the calibration against every point's bound; the constrained solver against the optimality conditions
and an independent solver; the exact privacy loss (pdp_lib.audit.objective_loss) of every corner neighbour, searched
over outputs inside the ball and on the sphere, against epsilon_i; the reduction, draw for draw, to a transcription
of the published algorithm at equal levels; the noiseless limit; refusals of bad input.
"""

from __future__ import annotations

import itertools
import math

from fractions import Fraction

import numpy as np
import pytest
from scipy import optimize

from pdp_lib.audit.objective_loss import objective_log_density, objective_pair_loss
from pdp_lib.experiments.published_objective import published_objective_calibration
from pdp_lib.mechanisms import objective as O
from pdp_lib.mechanisms.noisy_gd import gd_sensitivity
from pdp_lib.mechanisms.output_perturbation import weighted_ridge
from problems import small_problem as _problem


def _corners(d):
    return [np.array(c, dtype=float) for c in itertools.product([0.0, 1.0], repeat=d)]


def _sphere_factor(M, theta):
    """det(M) theta' M^-1 theta: the Jacobian of the sphere's change of variables, up to 1/R."""
    return np.linalg.det(M) * theta @ np.linalg.solve(M, theta)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_the_jacobian_ratio_is_at_most_one_plus_w_d_over_the_ridge_and_reaches_it(d):
    rng = np.random.default_rng(d)
    worst = 0.0
    for _ in range(60):
        B = rng.random((4, d))
        w, ridge = rng.uniform(0.05, 1.0), rng.uniform(0.05, 3.0)
        M0 = B.T @ B * rng.uniform(0, 1) + ridge * np.eye(d)
        bound = 1 + w * d / ridge
        for x, xp in itertools.product(_corners(d), _corners(d)):
            M, Mp = M0 + w * np.outer(x, x), M0 + w * np.outer(xp, xp)
            worst = max(worst, np.linalg.det(Mp) / np.linalg.det(M) / bound)
            for v in rng.normal(size=(10, d)):
                nu = rng.exponential(1.0)
                th = v / np.linalg.norm(v)
                ratio = _sphere_factor(Mp + nu * np.eye(d), th) / _sphere_factor(M + nu * np.eye(d), th)
                worst = max(worst, ratio / bound)
    assert worst <= 1 + 1e-12
    w, ridge = 0.3, 0.7                                  # attained: M0 = ridge I, x = 0, x' = 1
    one = np.ones(d)
    ratio = np.linalg.det(ridge * np.eye(d) + w * np.outer(one, one)) / np.linalg.det(ridge * np.eye(d))
    assert ratio == pytest.approx(1 + w * d / ridge, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_the_calibration_gives_every_point_its_level(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 13))
    eps = rng.choice([0.01, 0.1, 0.5, 1.0, 3.0], size=int(rng.integers(1, 2000)))
    for lam in (1e-3, 0.1, 1.0, 30.0):
        R = float(rng.uniform(0.1, 4))
        cal = O.objective_calibration(eps.sum(), eps.min(), lam, d, R)
        w = eps / eps.sum()
        loss = cal.eta * w * gd_sensitivity(R, d) + np.log1p(w * d / cal.ridge)
        assert np.all(loss <= eps * (1 + 1e-12))
        assert loss[np.argmin(eps)] == pytest.approx(eps.min(), rel=1e-12)   # the smallest level is spent exactly
        assert cal.ridge >= lam and cal.jacobian_share <= O.SHARE * (1 + 1e-12)
        if cal.ridge > lam:
            assert cal.jacobian_share == pytest.approx(O.SHARE, rel=1e-12)


def test_the_solver_meets_the_optimality_conditions_and_an_independent_solver():
    rng = np.random.default_rng(7)
    for _ in range(300):
        d = int(rng.integers(1, 7))
        M = rng.normal(size=(d, d))
        H = M @ M.T * rng.uniform(0, 3) + rng.uniform(1e-3, 2) * np.eye(d)
        g, R = rng.normal(size=(4, d)) * 10 ** rng.uniform(-2, 3), rng.uniform(0.1, 3)
        for th, gk in zip(O.constrained_ridge(H, g, R), g):
            r, norm = gk - H @ th, np.linalg.norm(th)
            # in the ball exactly: the squares summed as rationals (a floating-point norm differs by kernel)
            assert sum(Fraction(float(v)) ** 2 for v in th) <= Fraction(float(R)) ** 2
            if norm < R * (1 - 1e-12):
                assert np.linalg.norm(r) <= 1e-10 * max(1.0, np.linalg.norm(gk))
            else:
                nu = r @ th / norm ** 2
                assert nu >= -1e-10 and np.linalg.norm(r - nu * th) <= 1e-10 * max(1.0, np.linalg.norm(gk))
    for _ in range(20):
        d = int(rng.integers(1, 5))
        M = rng.normal(size=(d, d))
        H, g, R = M @ M.T + 0.1 * np.eye(d), rng.normal(size=d) * 3, 0.5
        ref = optimize.minimize(lambda t: 0.5 * t @ H @ t - g @ t, np.zeros(d), jac=lambda t: H @ t - g,
                                constraints=[{"type": "ineq", "fun": lambda t: R * R - t @ t}], method="SLSQP",
                                options={"ftol": 1e-14, "maxiter": 500})
        assert np.allclose(O.constrained_ridge(H, g, R)[0], ref.x, atol=1e-6)


def _statistics(X, y, eps):
    w = eps / eps.sum()
    return w, (X * w[:, None]).T @ X, (X * w[:, None]).T @ y


@pytest.mark.parametrize("lam, R", [(1.0, 1.0), (0.05, 0.6), (0.3, 2.0)])
def test_no_corner_neighbour_and_no_output_exceeds_epsilon_i(lam, R):
    X, y, eps = _problem(n=6, d=2, seed=3)
    cal = O.objective_calibration(eps.sum(), eps.min(), lam, 2, R)
    w, A, c = _statistics(X, y, eps)
    rng = np.random.default_rng(11)
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ratios = []
    for i in range(len(eps)):
        for xn in _corners(2):
            for yn in (-1.0, 1.0):
                A2 = A + w[i] * (np.outer(xn, xn) - np.outer(X[i], X[i]))
                c2 = c + w[i] * (yn * xn - y[i] * X[i])
                pair = (A, c, A2, c2, cal.ridge, cal.eta, R)

                def inside(t):
                    t = R * np.tanh(np.linalg.norm(t)) * t / max(np.linalg.norm(t), 1e-300)
                    return -objective_pair_loss(t, *pair, on_sphere=False)[0]

                for start in rng.normal(size=(3, 2)):
                    best = optimize.minimize(inside, start, method="Nelder-Mead", options={"xatol": 1e-9})
                    assert -best.fun <= eps[i] * (1 + 1e-12)
                    ratios.append(-best.fun / eps[i])
                for a in angles:
                    loss, err = objective_pair_loss(R * np.array([np.cos(a), np.sin(a)]), *pair, on_sphere=True)
                    assert loss <= eps[i] + err + 1e-12
                    ratios.append(loss / eps[i])
    assert max(ratios) > 0.35                     # the search reaches a third of the bound


def test_the_sphere_density_integrates_to_the_mass_the_release_puts_there():
    X, y, eps = _problem(n=5, d=1, seed=2)
    lam, R = 0.2, 0.15
    cal = O.objective_calibration(eps.sum(), eps.min(), lam, 1, R)
    _, A, c = _statistics(X, y, eps)
    draws = O.objective_draws(A, c, cal, np.random.default_rng(0), 400_000)[:, 0]
    # d = 1: the "sphere" is {-R, R}; the noise's normalizer in one dimension is eta / 2
    mass = [math.exp(objective_log_density([s * R], A, c, cal.ridge, cal.eta, R, on_sphere=True)[0]) * cal.eta / 2
            for s in (-1, 1)]
    for s, m in zip((-1, 1), mass):
        hit = np.mean(np.abs(draws - s * R) <= 1e-12)
        assert abs(hit - m) <= 5 * math.sqrt(m * (1 - m) / draws.size)
    assert 0.05 < mass[0] + mass[1] < 0.95        # both parts of the law are exercised


def test_at_equal_levels_it_is_the_published_algorithm_with_half_its_jacobian_term():
    X, y, _ = _problem(n=40, d=3, seed=5)
    n, d, R = 40, 3, 1.0
    for epsilon in (0.1, 1.0, 5.0):
        for lam in (1e-3, 0.1, 1.0):
            mine = O.objective_calibration(n * epsilon, epsilon, lam, d, R)
            published = published_objective_calibration(epsilon, n, lam, d, R)
            assert mine.eta >= published.eta * (1 - 1e-12)
            if mine.ridge == lam == published.ridge:
                assert mine.jacobian_share * 2 == pytest.approx(published.jacobian_share, rel=1e-12)
    cal = published_objective_calibration(0.5, n, 0.05, d, R)
    mine = O.objective_draws(X.T @ X / n, X.T @ y / n, cal, np.random.default_rng(3), 5)
    gen = np.random.default_rng(3)                  # the transcription, in the paper's scale, its own solver
    radius = gen.gamma(shape=d, scale=n / cal.eta, size=5)
    direction = gen.standard_normal((5, d))
    for k in range(5):
        b = direction[k] / np.linalg.norm(direction[k]) * radius[k]

        def J(f):
            return np.mean(0.5 * (X @ f - y) ** 2) + cal.ridge / 2 * f @ f + b @ f / n

        ref = optimize.minimize(J, np.zeros(d), constraints=[{"type": "ineq", "fun": lambda f: R * R - f @ f}],
                                method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000})
        assert np.allclose(mine[k], ref.x, atol=1e-6)


def test_without_noise_it_is_the_constrained_weighted_ridge():
    X, y, eps = _problem(n=30, d=3, seed=1)
    lam = 0.5
    cal = O.objective_calibration(eps.sum() * 1e12, eps.min() * 1e12, lam, 3, 10.0)
    w, A, c = _statistics(X, y, eps)
    theta = O.objective_draws(A, c, cal, np.random.default_rng(0), 3)
    assert cal.ridge == lam
    assert np.allclose(theta, weighted_ridge(X, y, w, lam), atol=1e-9)
    single = O.objective_perturbation(X, y, eps, lam, rng=4, sampler="float")
    again = O.objective_draws(A, c, O.objective_calibration(eps.sum(), eps.min(), lam, 3, min(1 / lam ** 0.5,
                                                                                              3 ** 0.5 / lam)),
                              np.random.default_rng(4), 1)[0]
    assert np.allclose(single, again, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kwargs, match", [
    ({"sampler": None}, "no release that is exact in floating point"),
    ({"sampler": "exact"}, "sampler = 'exact' is not allowed"),
    ({"sampler": "float", "share": 1.0}, "share"),
    ({"sampler": "float", "radius": -1.0}, "radius"),
    ({"sampler": "float", "lam": 0.0}, "lam"),
])
def test_bad_input_is_refused_by_name(kwargs, match):
    X, y, eps = _problem(n=6, d=2)
    args = {"lam": 1.0, **kwargs}
    lam = args.pop("lam")
    with pytest.raises(ValueError, match=match):
        O.objective_perturbation(X, y, eps, lam, rng=0, **args)


def test_a_level_too_small_for_the_jacobian_is_refused():
    with pytest.raises(ValueError, match=r"min\(epsilons\) = 1e-320 is outside the allowed range"):
        O.objective_calibration(1.0, 1e-320, 1.0, 3, 1.0)


def test_the_public_lambda_is_the_smallest_grid_value_whose_noise_bound_passes():
    rng = np.random.default_rng(2)
    grid = [0.01, 0.1, 0.3, 1.0, 3.0, 10.0]
    for n in (30, 300, 3000):
        eps = rng.choice([0.1, 0.5, 2.0], n)
        lam = O.public_lambda(grid, eps, 4)

        def passes(v):                              # the criterion, recomputed by hand
            R = min(1 / math.sqrt(v), 2 / v)
            phi = math.log(1 + eps.min() * 4 / (eps.sum() * v)) / eps.min()
            ridge = v if phi <= 0.5 else 4 * eps.min() / (eps.sum() * math.expm1(0.5 * eps.min()))
            phi = math.log(1 + eps.min() * 4 / (eps.sum() * ridge)) / eps.min()
            eta = eps.sum() * (1 - phi) / (2 * (2 * R + 2))
            return 20 / (eta * ridge) ** 2 <= 1
        ok = [v for v in grid if passes(v)]
        assert lam == (ok[0] if ok else max(grid))
    assert O.public_lambda(grid, np.full(5, 0.01), 4) == 10.0        # none passes: the largest


@pytest.mark.parametrize("eta, R", [(1000.0, 0.001), (2000.0, 0.01), (3.0, 1.0)])
def test_the_sphere_density_finds_its_peak_far_beyond_the_noise_scale(eta, R):
    from scipy import integrate

    A, c, ridge = np.diag([0.2, 0.1]), np.array([0.5, 0.3]), 0.01
    theta = R * c / np.linalg.norm(c)                 # the integrand peaks at t = (c - H theta).theta / R^2
    H = A + ridge * np.eye(2)
    u = c - H @ theta
    peak = u @ theta / R**2
    log_peak = -eta * np.linalg.norm(u - peak * theta)

    def integrand(t):                                  # scaled by its value's exponent at the peak
        M = H + t * np.eye(2)
        return math.exp(-eta * np.linalg.norm(u - t * theta) - log_peak) * np.linalg.det(M) * (
            theta @ np.linalg.solve(M, theta)) / R

    parts = [integrate.quad(integrand, a, b, limit=400)[0] for a, b in ((0, peak), (peak, np.inf))]
    value, err = objective_log_density(theta, A, c, ridge, eta, R, on_sphere=True)
    assert value == pytest.approx(log_peak + math.log(sum(parts)), abs=1e-8) and err < 1e-8


def test_tiny_levels_and_radii_are_refused_in_one_line_not_by_a_crash():
    X, y, _ = _problem(n=6, d=2)
    theta = O.objective_perturbation(X, y, np.full(6, 1e-170), 1.0, rng=0, sampler="float")
    assert np.all(np.isfinite(theta)) and np.linalg.norm(theta) <= 1.0   # all noise, but a release in the ball
    cal = O.objective_calibration(6e-170, 1e-170, 1e-3, 2, 1.0)           # the raised ridge, no underflow
    assert math.isfinite(cal.ridge) and cal.ridge > 1e-3 and cal.eta > 0
    with pytest.raises(ValueError, match="outside the allowed range \\[1e-100"):
        O.objective_perturbation(X, y, np.ones(6), 1.0, rng=0, radius=1e-200, sampler="float")


def test_a_black_box_audit_of_one_pair_at_d_1_certifies_much_of_the_level_and_never_more():
    from pdp_lib.audit.blackbox import threshold_audit

    eps, lam, R = np.array([1.0, 1.0]), 2.0, 0.3       # a pair whose exact loss reaches about 2/3 of the level
    cal = O.objective_calibration(2.0, 1.0, lam, 1, R)
    other_A, other_c = 0.5 * 0.25, 0.5 * 0.1            # the second row (x, y) = (0.5, 0.2), the same in both
    A, c = np.array([[0.5 + other_A]]), np.array([0.5 + other_c])         # row 1: (1, 1)
    A2, c2 = np.array([[0.5 + other_A]]), np.array([-0.5 + other_c])      # row 1: (1, -1)
    gen = np.random.default_rng(0)
    a = O.objective_draws(A, c, cal, gen, 200_000)[:, 0]
    b = O.objective_draws(A2, c2, cal, gen, 200_000)[:, 0]
    bound = threshold_audit(a, b, alpha=0.05).epsilon_lower
    assert 0.5 * eps[0] < bound <= eps[0]


def test_into_ball_is_exact_and_steps_down_from_a_row_one_ulp_outside():
    # a row whose rescaled norm rounds above R: hand-made one unit in the last place outside the sphere
    R = 0.34000155544527183
    row = np.array([0.3400015554452719, 0.0])
    assert not O.exact_norm_at_most(row, R)
    out = O.into_ball(row[None, :], R)[0]
    assert O.exact_norm_at_most(out, R)
    assert out[0] == np.nextafter(row[0], 0.0)                    # one step down was enough
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(200, 5))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)           # on the unit sphere in floating point
    out = O.into_ball(rows * 0.7, 0.7)
    assert all(O.exact_norm_at_most(r, 0.7) for r in out)
    inside = rng.normal(size=(50, 3)) * 0.01
    assert np.array_equal(O.into_ball(inside, 1.0), inside)       # rows well inside are returned unchanged


def test_the_vectorized_ball_check_answers_as_the_rational_one_on_rows_at_the_sphere():
    # rows a few units in the last place either side of the sphere, where rounding decides: the split squares and
    # math.fsum must give the rationals' answer on every row, and so must the fallback for tiny or huge coordinates
    rng = np.random.default_rng(11)
    for d, R in ((1, 0.7), (2, 0.34000155544527183), (5, 1.0), (13, 3.0e-3), (40, 12.5)):
        rows = rng.normal(size=(300, d)) * rng.uniform(0.01, 100.0, size=(300, 1))
        rows = rows / np.linalg.norm(rows, axis=1, keepdims=True) * R
        for k in range(300):
            steps = int(rng.integers(-3, 4))
            rows[k] = np.nextafter(rows[k], np.inf if steps > 0 else 0.0) if steps else rows[k]
        rows[:5] = 0.0
        rows[5, 0] = 1e-200                                            # outside the split's safe range
        rows[6, -1] = R * (1.0 + 1e-16)
        truth = [O.exact_norm_at_most(r, R) for r in rows]
        assert O.exact_norms_at_most(rows, R).tolist() == truth
        assert 0 < sum(truth) < len(truth) or d == 1                  # both answers occur
        assert O.exact_norms_at_most(rows * 2.0**-420, R * 2.0**-420).tolist() == truth   # the fallback, scaled
    p, e = O._exact_squares(np.array([0.1, 3.0, 1e10, 2.0**-300]))
    assert all(Fraction(pi) + Fraction(ei) == Fraction(v) ** 2 for pi, ei, v in zip(p, e, (0.1, 3.0, 1e10, 2.0**-300)))


def test_into_ball_refuses_a_radius_outside_the_exact_check_s_range_and_keeps_huge_rows_on_the_sphere():
    for radius in (-1.0, 0.0, 1e-160, 1e200):
        with pytest.raises(ValueError, match="radius"):
            O.into_ball([[1.0, 2.0]], radius)
    # finite coordinates whose squares overflow: onto the sphere, not to zero
    out = O.into_ball([[1e200, 1.0], [3e300, -4e300]], 1.0)
    assert O.exact_norms_at_most(out, 1.0).all() and np.linalg.norm(out, axis=1) == pytest.approx(1.0, rel=1e-12)
    assert out[1] == pytest.approx([0.6, -0.8], rel=1e-12)
    # a non-finite row lies in no ball: returned as it is, for the caller to refuse
    out = O.into_ball([[np.nan, 1.0], [3.0, 4.0]], 1.0)
    assert np.isnan(out[0, 0]) and O.exact_norms_at_most(out[1:], 1.0).all()
    with pytest.raises(ValueError, match="non-finite"):
        O.exact_norms_at_most([[np.inf, 0.0]], 1.0)


def test_the_sphere_integrand_is_its_formula_bit_for_bit():
    # the integrand's reductions written out are NumPy's norm along an axis and sum, on the same numbers: the
    # same doubles, for a grid of nu and for one nu at a time (as quadrature asks)
    from pdp_lib.audit.objective_loss import _log_integrand
    rng = np.random.default_rng(8)
    for d in (1, 2, 5, 12):
        for _ in range(20):
            A = rng.random((d, d))
            h, Q = np.linalg.eigh(A @ A.T + 0.3 * np.eye(d))
            theta, u = rng.standard_normal(d), rng.standard_normal(d)
            eta, R = 5 * rng.random(), 0.1 + rng.random()
            nus = np.concatenate([[0.0], 10 * rng.random(20), np.geomspace(1e-8, 1e3, 10)])[:, None]
            tt = Q.T @ theta
            formula = (-eta * np.linalg.norm(u - nus * theta, axis=1) + np.sum(np.log(h + nus), axis=1)
                       + np.log(np.sum(tt * tt / (h + nus), axis=1)) - math.log(R))
            assert np.array_equal(_log_integrand(nus[:, 0], h, tt * tt, u, theta, eta, math.log(R)), formula)
            assert all(_log_integrand(v, h, tt * tt, u, theta, eta, math.log(R))[0] == f
                       for v, f in zip(nus[:4, 0], formula))

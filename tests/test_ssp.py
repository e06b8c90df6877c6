"""Tests of personalized sufficient-statistics perturbation (pdp_lib.mechanisms.ssp) against independent truths.

The sensitivities by brute force over the domain's corners (and random interior points, which never exceed
them); every corner neighbour's loss on the lattice, ``t_A ||m_A - m_A'|| + t_b ||m_b - m_b'||``, against its
level, with square roots bounded from above in rationals; the reduction to the published, non-personalized SSP
at equal levels; the released statistics on the grid, and their noise independent of the data.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import pdp_lib
from pdp_lib.mechanisms import lattice
from pdp_lib.mechanisms import ssp as S
from pdp_lib.mechanisms.exact_sampling import RandomBits
from problems import small_problem as _problem


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_the_sensitivities_are_the_largest_over_the_domain(d):
    corners = [np.array(c, dtype=float) for c in itertools.product([0.0, 1.0], repeat=d)]
    rows, cols = np.triu_indices(d)
    gram = max(np.linalg.norm((np.outer(a, a) - np.outer(b, b))[rows, cols]) for a in corners for b in corners)
    moment = max(np.linalg.norm(s * a - t * b) for a in corners for b in corners for s in (-1, 1) for t in (-1, 1))
    sens_a, sens_b = S.ssp_sensitivities(d)
    assert gram == pytest.approx(sens_a, rel=1e-15) and moment == pytest.approx(sens_b, rel=1e-15)
    rng = np.random.default_rng(d)
    for _ in range(2000):
        a, b, s, t = rng.random(d), rng.random(d), rng.uniform(-1, 1), rng.uniform(-1, 1)
        assert np.linalg.norm((np.outer(a, a) - np.outer(b, b))[rows, cols]) <= sens_a
        assert np.linalg.norm(s * a - t * b) <= sens_b


def _centres(X, y, eps, cal):
    """The lattice centres of both statistics, exactly, as in ssp_statistics."""
    d = X.shape[1]
    gram, moment, _ = lattice.weighted_sums(X, y, eps)
    scale = Fraction(2) ** cal.step_exponent / Fraction(math.fsum(eps))
    rows, cols = np.triu_indices(d)
    return ([round(Fraction(float(gram[j, k])) * scale) for j, k in zip(rows, cols)],
            [round(Fraction(float(v)) * scale) for v in moment])


def sqrt_up(v: int) -> Fraction:
    return Fraction(math.isqrt(v * 4**40) + 1, 2**40)


@pytest.mark.parametrize("share", [0.5, 0.2, 0.9])
def test_no_neighbour_loses_more_than_its_level_on_the_lattice(share):
    # every slot replaced by every point of a grid of step 1/4 on the domain (corners and interior points), the
    # base rows at corners too, so that the worst pairs of the domain are among those tried
    X, y, eps = _problem()
    X[::2], y[::2] = 1.0, 1.0
    n, d = X.shape
    cal = S.ssp_calibration(math.fsum(eps), float(eps.min()), d, share, rounds=lattice.rounds_bound(n))
    base_a, base_b = _centres(X, y, eps, cal)
    worst = 0.0
    grid = itertools.product(np.linspace(0, 1, 5), np.linspace(0, 1, 5), [-1.0, 1.0])
    for i, corner in itertools.product(range(n), list(grid)):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = corner[:d], corner[d]
        other_a, other_b = _centres(X2, y2, eps, cal)
        qa = sum((u - v) ** 2 for u, v in zip(base_a, other_a))
        qb = sum((u - v) ** 2 for u, v in zip(base_b, other_b))
        bound = cal.rate_gram * sqrt_up(qa) + cal.rate_moment * sqrt_up(qb)     # from above
        assert bound <= Fraction(eps[i])
        worst = max(worst, float(bound) / eps[i])
    assert 0.75 < worst <= 1.0          # the search reaches most of the budget (the sum of sensitivities is not tight)


def test_the_lattice_calibration_costs_little_and_refuses_extreme_levels():
    for n, d in [(8, 2), (1070, 12), (10**5, 30)]:
        eps = np.linspace(0.05, 2.0, 8)
        total = float(eps.sum() * n / 8)
        exact = S.ssp_calibration(total, 0.05, d, rounds=lattice.rounds_bound(n))
        real = S.ssp_calibration(total, 0.05, d)
        assert 1 - 2.0**-15 < exact.eta_gram / real.eta_gram < 1
        assert 1 - 2.0**-15 < exact.eta_moment / real.eta_moment < 1
    with pytest.raises(ValueError, match=r"min\(epsilons\) = 1e-305 is outside the allowed range"):
        S.ssp_calibration(1.0, 1e-305, 2, rounds=10)
    with pytest.raises(ValueError, match=r"share = 1.0 is outside the allowed range \(0, 1\)"):
        S.ssp_calibration(1.0, 1.0, 2, 1.0)


def test_at_equal_levels_it_is_unnormalized_ssp_with_ridge_n_lambda():
    # at equal levels the weights are 1/n: the mechanism is non-personalized SSP with l2 noise written on the raw
    # sums, noise on X^T X and X^T y of sensitivities sqrt(p) and 2 sqrt(d), each with half of epsilon, then
    # (X^T X + E + n lam I)^-1 (X^T y + e), the negative eigenvalues clipped (the published forms draw Laplace or
    # Gaussian noise instead); with the same draws the two agree
    X, y, _ = _problem(n=50, d=3, seed=2)
    eps, lam, n = np.full(50, 0.7), 0.3, 50
    theta = S.ssp(X, y, eps, lam, rng=5, sampler="float")
    gen = np.random.default_rng(5)
    p = 6
    E = pdp_lib.sample_l2_laplace(0.5 * 0.7 / math.sqrt(p), p, rng=gen)          # per unit of the unnormalized sums
    e = pdp_lib.sample_l2_laplace(0.5 * 0.7 / (2 * math.sqrt(3)), 3, rng=gen)
    G = X.T @ X
    G[np.triu_indices(3)] += E
    G = np.triu(G) + np.triu(G, 1).T
    values, vectors = np.linalg.eigh(G)
    published = vectors @ ((vectors.T @ (X.T @ y + e)) / (np.maximum(values, 0) + n * lam))
    np.testing.assert_allclose(theta, published, rtol=1e-9, atol=1e-12)


def test_the_statistics_are_on_the_grid_and_their_noise_does_not_depend_on_the_data():
    X, y, eps = _problem(n=30, d=3, seed=1)
    used, noises = [], []
    for A, b in [(X, y), (1 - X, -y)]:
        bits = RandomBits(17)
        A_hat, b_hat, cal = S.ssp_statistics(A, b, eps, bits)
        units = np.ldexp(np.r_[A_hat[np.triu_indices(3)], b_hat], cal.step_exponent)
        assert np.array_equal(units, np.round(units)) and np.array_equal(A_hat, A_hat.T)
        centre_a, centre_b = _centres(A, b, eps, cal)
        noises.append(tuple(np.round(units).astype(object) - np.array(centre_a + centre_b, dtype=object)))
        used.append(bits.used)
    assert noises[0] == noises[1] and used[0] == used[1]


def test_without_noise_it_is_the_weighted_ridge_and_an_indefinite_gram_is_clipped():
    X, y, eps = _problem(n=40, d=3, seed=3)
    theta = S.ssp(X, y, eps * 1e9, 0.5, rng=1)
    ridge = pdp_lib.weighted_ridge(X, y, eps / eps.sum(), 0.5)
    np.testing.assert_allclose(theta, ridge, atol=1e-6)
    A = np.diag([1.0, -4.0, 0.5])                          # a noisy Gram matrix with a negative eigenvalue
    np.testing.assert_allclose(S.solve_clipped(A, np.ones(3), 2.0), [1 / 3, 1 / 2, 1 / 2.5], rtol=1e-14)


def test_bad_input_is_refused_by_name():
    X, y, eps = _problem()
    with pytest.raises(ValueError, match=r"share = 0.0 is outside the allowed range \(0, 1\)"):
        S.ssp(X, y, eps, 1.0, share=0.0)
    with pytest.raises(ValueError, match=r"sampler = 'lattice' is not allowed"):
        S.ssp(X, y, eps, 1.0, sampler="lattice")
    with pytest.raises(ValueError, match=r"lam = 0.0 is outside the allowed range"):
        S.ssp(X, y, eps, 0.0)
    with pytest.raises(ValueError, match=r"rng = -1 is outside the allowed range"):
        S.ssp(X, y, eps, 1.0, rng=-1)
    X[0, 0] = 1.5
    with pytest.raises(ValueError, match=r"outside"):
        S.ssp(X, y, eps, 1.0)


def test_the_estimator_fits_by_sufficient_statistics_and_refuses_what_does_not_apply():
    X, y, eps = _problem(n=40, d=3, seed=8)
    est = pdp_lib.PersonalizedRidge(lam=0.7, mechanism="ssp", random_state=4).fit(X, y, eps)
    np.testing.assert_array_equal(est.coef_, S.ssp(X, y, eps, 0.7, rng=4))
    assert np.isnan(est.eta_) and est.lam_ == 0.7
    with_intercept = pdp_lib.PersonalizedRidge(lam=0.7, mechanism="ssp", random_state=4, fit_intercept=True)
    with_intercept.fit(X, y, eps)
    np.testing.assert_array_equal(np.r_[with_intercept.coef_, with_intercept.intercept_],
                                  S.ssp(np.hstack([X, np.ones((40, 1))]), y, eps, 0.7, rng=4))
    for kwargs, match in [(dict(lam="pruned"), r"lam = 'pruned' is not allowed with mechanism='ssp'"),
                          (dict(delta=1e-5), r"mechanism='ssp' under \(epsilon_i, delta\) has Gaussian noise"),
                          (dict(B="sharp"), r"B = 'sharp' is not allowed with mechanism='ssp'"),
                          (dict(mechanism="tukey"), r"mechanism = 'tukey' is not allowed")]:
        with pytest.raises(ValueError, match=match):
            pdp_lib.PersonalizedRidge(**{"mechanism": "ssp", **kwargs}).fit(X, y, eps)


def test_a_black_box_audit_finds_the_pair_s_loss_and_no_more():
    # the worst pair at d = 1 and rho = 1/2 (x = 1, y = 1 replaced by x = 0, y = -1): its exact loss is 3/4 of the
    # level; the likelihood-ratio threshold test on 400,000 releases per dataset certifies (Clopper-Pearson, 95%) a
    # lower bound below the level and above 0.9 of the exact loss
    from pdp_lib.audit.blackbox import threshold_audit

    X, y, eps = np.array([[1.0], [0.5], [0.2]]), np.array([1.0, 0.3, -0.2]), np.array([1.0, 0.5, 2.0])
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = 0.0, -1.0
    cal = S.ssp_calibration(float(eps.sum()), float(eps.min()), 1)
    w = eps / eps.sum()
    centres = [(((x * w[:, None]).T @ x)[0], (x * w[:, None]).T @ t) for x, t in ((X, y), (X2, y2))]
    exact = (cal.eta_gram * abs(centres[0][0] - centres[1][0]).sum()
             + cal.eta_moment * np.abs(centres[0][1] - centres[1][1]).sum())
    assert exact == pytest.approx(0.75 * eps[0], rel=1e-12)
    gen = np.random.default_rng(1)

    def scores(centre, n=400_000):
        a = centre[0] + pdp_lib.sample_l2_laplace(cal.eta_gram, 1, size=n, rng=gen)
        b = centre[1] + pdp_lib.sample_l2_laplace(cal.eta_moment, 1, size=n, rng=gen)
        llr = (cal.eta_gram * (np.abs(a - centres[1][0]) - np.abs(a - centres[0][0]))
               + cal.eta_moment * (np.abs(b - centres[1][1]) - np.abs(b - centres[0][1])))[:, 0]
        # to 9 decimals: the score's last bits depend on the centre (the floating-point sampler's own leak, which
        # the lattice release removes); the audit is of the mechanism's law over the reals
        return np.round(llr, 9)

    bound = threshold_audit(scores(centres[0]), scores(centres[1])).epsilon_lower
    assert 0.9 * exact < bound <= exact <= eps[0]


def test_the_public_ridge_covers_the_gram_noise_with_its_probability():
    from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace_unchecked
    from pdp_lib.mechanisms.ssp import public_ridge

    gen = np.random.default_rng(5)
    for d, eta in ((1, 3.0), (3, 10.0), (6, 50.0)):
        lam = public_ridge(eta, d, 0.05)
        rows, cols = np.triu_indices(d)
        noise = sample_l2_laplace_unchecked(eta, rows.size, 4000, gen)
        E = np.zeros((4000, d, d))
        E[:, rows, cols] = noise
        E += np.triu(E, 1).transpose(0, 2, 1)
        covered = np.mean(np.abs(np.linalg.eigvalsh(E)).max(axis=1) <= lam)
        assert covered >= 0.95                          # the bound holds (it is conservative: ||E||_2 <= ||E||_F)
        norms = np.linalg.norm(noise, axis=1) * np.sqrt(2.0)
        assert abs(np.mean(norms <= lam) - 0.95) < 0.015 or d == 1   # the quantile of sqrt(2) ||e|| (d = 1: |e|)
    with pytest.raises(ValueError, match="failure"):
        public_ridge(1.0, 2, 1.5)


def test_the_batched_noisy_solutions_are_the_single_solve_of_each_release():
    from pdp_lib.mechanisms.ssp import symmetric_from_upper, noisy_solutions, solve_statistics

    gen = np.random.default_rng(9)
    d, k = 3, 5
    M = gen.random((6, d))
    A, b = M.T @ M / 6, gen.normal(size=d)
    gram_noise, moment_noise = gen.normal(size=(k, 6)), gen.normal(size=(k, d))
    for lam, thetas in zip((0.1, 2.0), noisy_solutions(A, b, gram_noise, moment_noise, (0.1, 2.0))):
        for j in range(k):
            expected = solve_statistics(A + symmetric_from_upper(gram_noise[j], d), b + moment_noise[j], lam)
            np.testing.assert_allclose(thetas[j], expected, rtol=1e-10, atol=1e-12)


def test_the_symmetric_matrices_are_their_upper_triangles_mirrored():
    from pdp_lib.mechanisms.ssp import symmetric_from_upper

    gen = np.random.default_rng(12)
    for d in range(1, 7):
        upper = gen.normal(size=(3, 2, d * (d + 1) // 2))
        stack = symmetric_from_upper(upper, d)
        assert stack.shape == (3, 2, d, d)
        for index in np.ndindex(3, 2):
            want, k = np.zeros((d, d)), 0
            for i in range(d):                          # row by row, written out
                for j in range(i, d):
                    want[i, j] = want[j, i] = upper[index][k]
                    k += 1
            assert np.array_equal(stack[index], want)
        assert np.array_equal(symmetric_from_upper(upper[0, 0], d), stack[0, 0])

"""SSP's checked release with the intercept (pdp_lib.mechanisms.checked_ssp): the centred ridge against its closed
form, the check against cases whose answer is known, and the release paths that use it."""

import numpy as np
import pytest

from pdp_lib.mechanisms import checked_ssp as cs
from pdp_lib.mechanisms.ssp import ssp_calibration, symmetric_stack


def _problem(n, d, signal, offset, gen):
    """Rows of the domain with an intercept column, labels ``offset + signal * g(x) + noise`` inside [-1, 1]."""
    X = np.hstack([gen.random((n, d)), np.ones((n, 1))])
    g = (2 * X[:, :d] - 1).mean(axis=1)
    y = np.clip(offset + signal * g + 0.05 * gen.uniform(-1, 1, n), -1, 1)
    return X, y


def _stats(X, y):
    n = len(y)
    return X.T @ X / n, X.T @ y / n


def test_the_centred_ridge_is_the_minimizer_of_its_objective_and_tends_to_the_intercept_only_model():
    gen = np.random.default_rng(1)
    X, y = _problem(500, 3, 0.5, -0.6, gen)
    A, b = _stats(X, y)
    A_hat = A + 0.01 * np.diag([1, -1, 1, 0])             # indefinite noise: the clip is exercised
    (theta,), m = cs.centred_solutions(A_hat, b, [0.3])
    values, vectors = np.linalg.eigh(A_hat)
    A_plus = vectors @ np.diag(np.maximum(values, 0)) @ vectors.T
    centre = np.array([0, 0, 0, m])
    # the gradient of theta^T A_+ theta - 2 b^T theta + lam ||theta - m e_d||^2 vanishes
    grad = 2 * A_plus @ theta - 2 * b + 2 * 0.3 * (theta - centre)
    assert np.max(np.abs(grad)) < 1e-12
    assert m == pytest.approx(b[-1])
    (far,), _ = cs.centred_solutions(A_hat, b, [1e9])
    assert np.allclose(far, centre, atol=1e-8)


def test_the_released_mean_is_clipped_to_the_label_range():
    A = np.eye(2)
    _, m = cs.centred_solutions(A, np.array([0.2, 1.7]), [1.0])
    assert m == 1.0


def test_the_check_keeps_a_strong_regression_and_drops_one_that_only_fits_noise():
    gen = np.random.default_rng(2)
    d = 4
    cal = ssp_calibration(2_000.0, 1.0, d + 1)
    law = cs.NoiseLaw("l2-laplace", cal.eta_gram, cal.eta_moment)
    kept = {}
    for signal in (0.0, 0.9):
        X, y = _problem(4_000, d, signal, 0.3, gen)
        A, b = _stats(X, y)
        gram_noise, moment_noise = law.draw(200, d + 1, gen)
        _, (gains,) = cs.checked_solutions(symmetric_stack(A, gram_noise), b + moment_noise, [0.05], law, gen)
        kept[signal] = float(np.mean(gains > 0))
    # labels independent of the features: a regression can only fit noise, and the check drops most of them
    assert kept[0.0] < 0.25
    assert kept[0.9] > 0.95


def test_a_stack_of_releases_gives_each_release_its_own_answer():
    gen = np.random.default_rng(3)
    X, y = _problem(300, 2, 0.7, 0.1, gen)
    A, b = _stats(X, y)
    law = cs.NoiseLaw("gaussian", 0.02, 0.02)
    gram_noise, moment_noise = law.draw(3, 3, gen)
    stack = symmetric_stack(A, gram_noise)
    thetas, m = cs.centred_solutions(stack, b + moment_noise, [0.1, 1.0])
    for r in range(3):
        one, m_one = cs.centred_solutions(stack[r], b + moment_noise[r], [0.1, 1.0])
        assert np.allclose(one[0], thetas[0][r], rtol=0, atol=1e-14)
        assert np.allclose(one[1], thetas[1][r], rtol=0, atol=1e-14)
        assert m_one == m[r]


def test_the_checked_release_is_the_centred_ridge_or_the_intercept_only_model_and_says_which():
    gen = np.random.default_rng(4)
    X, y = _problem(2_000, 3, 0.8, -0.2, gen)
    A, b = _stats(X, y)
    law = cs.NoiseLaw("l2-laplace", 5_000.0, 5_000.0)
    out = cs.checked_release(A, b, 0.1, law, cs.check_stream(7))
    (centred,), m = cs.centred_solutions(A, b, [0.1])
    assert out.regression and np.array_equal(out.theta, centred) and out.gain > 0
    assert out.record()["kept"] == "the centred ridge"
    # labels all equal to their mean m: b = m A e_d, and nothing is to gain over the intercept-only model
    flat = cs.checked_release(A, A[:, -1] * b[-1], 0.1, law, cs.check_stream(7))
    assert not flat.regression and flat.theta[:3].tolist() == [0, 0, 0]


def test_the_check_stream_is_reproducible_from_a_seed_and_apart_from_the_release_stream():
    a, b = cs.check_stream(11).random(3), cs.check_stream(11).random(3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, np.random.default_rng(11).random(3))


def test_bad_laws_and_shapes_are_refused_in_one_line():
    with pytest.raises(ValueError, match="kind = 'laplace' is not allowed"):
        cs.NoiseLaw("laplace", 1.0, 1.0)
    with pytest.raises(ValueError, match="gram"):
        cs.NoiseLaw("gaussian", -1.0, 1.0)
    with pytest.raises(ValueError, match="one release"):
        cs.checked_release(np.eye(3), np.ones(2), 1.0, cs.NoiseLaw("gaussian", 1.0, 1.0), cs.check_stream(0))
    with pytest.raises(ValueError, match="lam"):
        cs.centred_solutions(np.eye(2), np.ones(2), [0.0])


def test_at_a_small_budget_the_check_can_lose_to_both_of_its_candidates():
    # the module docstring's scope: six sparse binary features, labels without signal, S/d^2 about 4 (the
    # automatic rule releases the private mean there): the centred ridge on a noisy released mean, kept too often
    from pdp_lib.mechanisms import automatic
    from pdp_lib.mechanisms.ssp import solve_clipped

    gen = np.random.default_rng(5)
    n, d = 2_000, 7
    X = np.hstack([(gen.random((n, d - 1)) > 0.9).astype(float), np.ones((n, 1))])
    y = np.clip(0.02 * gen.standard_normal(n), -1, 1)
    A, b, yy = X.T @ X / n, X.T @ y / n, float(y @ y / n)
    total = 0.1 * n
    assert automatic.budget_ratio(total, d) < automatic.THRESHOLD
    lam = automatic.ssp_ridge(total, 0.1, d)
    cal = ssp_calibration(total, 0.1, d)
    law = cs.NoiseLaw("l2-laplace", cal.eta_gram, cal.eta_moment)
    gram_noise, moment_noise = law.draw(1_000, d, gen)
    A_hat, b_hat = symmetric_stack(A, gram_noise), b + moment_noise
    (checked,), _ = cs.checked_solutions(A_hat, b_hat, [lam], law, gen)
    plain = np.stack([solve_clipped(a, v, lam) for a, v in zip(A_hat, b_hat)])
    only = np.zeros_like(b_hat)
    only[:, -1] = np.clip(b_hat[:, -1], -1, 1)

    def loss(thetas):
        return float(np.mean(np.einsum("ri,ij,rj->r", thetas, A, thetas) - 2 * thetas @ b + yy))

    assert loss(checked) > 1.2 * max(loss(plain), loss(only))


def _eigh_centred(A_hat, b_hat, lam):
    """The centred ridge written out from the eigendecomposition, negative eigenvalues set to 0."""
    values, vectors = np.linalg.eigh(A_hat)
    A_plus = vectors @ np.diag(np.maximum(values, 0)) @ vectors.T
    m = np.clip(b_hat[-1], -1, 1)
    rhs = b_hat.copy()
    rhs[-1] += lam * m
    return np.linalg.solve(A_plus + lam * np.eye(len(b_hat)), rhs)


def test_a_stack_mixing_definite_and_indefinite_matrices_gives_each_the_ridge_of_its_clipped_matrix():
    gen = np.random.default_rng(6)
    d = 5
    X, y = _problem(400, d - 1, 0.6, 0.4, gen)
    A, b = _stats(X, y)
    law = cs.NoiseLaw("l2-laplace", 200.0, 200.0)
    gram_noise, moment_noise = law.draw(400, d, gen)
    stack, b_hat = symmetric_stack(A, gram_noise), b + moment_noise
    definite = np.linalg.eigvalsh(stack)[:, 0] > 0
    assert 0.1 < definite.mean() < 0.9          # both paths of the solve are taken in one call
    thetas, _ = cs.centred_solutions(stack.reshape(20, 20, d, d), b_hat.reshape(20, 20, d), [0.02, 0.5])
    for k, lam in enumerate([0.02, 0.5]):
        flat = thetas[k].reshape(-1, d)
        for r in range(0, 400, 7):
            want = _eigh_centred(stack[r], b_hat[r], lam)
            assert np.allclose(flat[r], want, rtol=1e-9, atol=1e-12)


def test_the_definiteness_flag_is_the_sign_of_the_smallest_eigenvalue_with_or_without_numpys_kernel(monkeypatch):
    gen = np.random.default_rng(7)
    Z = gen.normal(size=(3_000, 4, 4))
    stack = Z @ Z.transpose(0, 2, 1) / 4 - gen.uniform(0, 0.15, (3_000, 1, 1)) * np.eye(4)
    smallest = np.linalg.eigvalsh(stack)[:, 0]
    clear = np.abs(smallest) > 1e-8                 # away from 0, where rounding cannot decide
    assert clear.mean() > 0.99 and 0.2 < (smallest > 0).mean() < 0.8
    flags = cs._positive_definite(stack)
    assert np.array_equal(flags[clear], smallest[clear] > 0)
    singular = np.array([[[1.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 0.0]]])   # eigenvalue exactly 0
    assert not cs._positive_definite(singular).any()
    monkeypatch.delattr(np.linalg._umath_linalg, "cholesky_lo")
    assert np.array_equal(cs._positive_definite(stack)[clear], smallest[clear] > 0)

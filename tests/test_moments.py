"""Tests of pdp_lib.moments against closed forms, quadrature, exact arithmetic and Monte Carlo."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from pdp_lib.mechanisms.output_perturbation import sample_l2_laplace
from pdp_lib.moments import (
    LossMoments,
    QuadraticLoss,
    l2_laplace_norm_moments,
    loss_moments,
    sphere_quadratic_form_moments,
)

Z_MAX = 4.0  # Monte Carlo checks: |estimate - exact| <= 4 standard errors


def _rng(*key):
    return np.random.default_rng(np.random.SeedSequence(20240611, spawn_key=key))


# --------------------------------------------------------------------------- noise moments
@pytest.mark.parametrize("d", [1, 2, 5, 30])
@pytest.mark.parametrize("eta", [0.05, 1.0, 7.5])
def test_norm_moments_match_gamma_distribution(d, eta):
    m2, m4 = l2_laplace_norm_moments(eta, d)
    radius = stats.gamma(a=d, scale=1.0 / eta)  # Remark 3.1: ||Z|| ~ Gamma(d, 1/eta)
    assert m2 == pytest.approx(radius.moment(2), rel=1e-12)
    assert m4 == pytest.approx(radius.moment(4), rel=1e-12)


def test_norm_moments_one_dimension_is_laplace():
    # d = 1: Z is Laplace with scale 1/eta, E Z^2 = 2/eta^2, E Z^4 = 24/eta^4.
    m2, m4 = l2_laplace_norm_moments(2.0, 1)
    assert m2 == pytest.approx(2 / 4)
    assert m4 == pytest.approx(24 / 16)


def test_norm_moments_vectorized_and_infinite_eta():
    m2, m4 = l2_laplace_norm_moments(np.array([1.0, 2.0, np.inf]), 3)
    np.testing.assert_allclose(m2, [12.0, 3.0, 0.0])
    np.testing.assert_allclose(m4, [360.0, 22.5, 0.0])


def test_norm_moments_monte_carlo():
    d, eta, R = 4, 1.5, 200_000
    z = sample_l2_laplace(eta, d, size=R, rng=_rng(1))
    r2 = np.sum(z * z, axis=1)
    m2, m4 = l2_laplace_norm_moments(eta, d)
    assert abs(r2.mean() - m2) <= Z_MAX * r2.std() / np.sqrt(R)
    assert abs((r2**2).mean() - m4) <= Z_MAX * (r2**2).std() / np.sqrt(R)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan])
def test_norm_moments_reject_bad_eta(bad):
    with pytest.raises(ValueError, match="eta"):
        l2_laplace_norm_moments(bad, 3)


def test_norm_moments_name_first_bad_index():
    with pytest.raises(ValueError, match=r"eta\[1\]"):
        l2_laplace_norm_moments([1.0, -2.0, 0.0], 3)


# --------------------------------------------------------------------------- sphere
def test_sphere_moments_one_dimension():
    # u = +-1: u^T A u = a exactly.
    first, second = sphere_quadratic_form_moments([[3.0]])
    assert first == pytest.approx(3.0)
    assert second == pytest.approx(9.0)


def test_sphere_moments_two_dimensions_by_quadrature():
    A = np.array([[2.0, -0.7], [-0.7, 0.5]])

    def q(phi):
        u = np.array([np.cos(phi), np.sin(phi)])
        return u @ A @ u

    first_q = integrate.quad(q, 0, 2 * np.pi)[0] / (2 * np.pi)
    second_q = integrate.quad(lambda p: q(p) ** 2, 0, 2 * np.pi)[0] / (2 * np.pi)
    first, second = sphere_quadratic_form_moments(A)
    assert first == pytest.approx(first_q, rel=1e-12)
    assert second == pytest.approx(second_q, rel=1e-12)


def test_sphere_moments_identity():
    # u^T I u = 1 for every unit vector.
    first, second = sphere_quadratic_form_moments(np.eye(7))
    assert first == pytest.approx(1.0)
    assert second == pytest.approx(1.0)


def test_sphere_moments_monte_carlo():
    d, R = 6, 200_000
    B = _rng(2).standard_normal((d, d))
    A = B + B.T
    g = _rng(3).standard_normal((R, d))
    u = g / np.linalg.norm(g, axis=1, keepdims=True)
    qf = np.einsum("ri,ij,rj->r", u, A, u)
    first, second = sphere_quadratic_form_moments(A)
    assert abs(qf.mean() - first) <= Z_MAX * qf.std() / np.sqrt(R)
    assert abs((qf**2).mean() - second) <= Z_MAX * (qf**2).std() / np.sqrt(R)


def test_sphere_moments_reject_asymmetric_and_nonfinite():
    with pytest.raises(ValueError, match="symmetric"):
        sphere_quadratic_form_moments([[1.0, 2.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match=r"A\[0, 1\]"):
        sphere_quadratic_form_moments([[1.0, np.inf], [np.inf, 1.0]])
    with pytest.raises(ValueError, match="square"):
        sphere_quadratic_form_moments(np.ones((2, 3)))


# --------------------------------------------------------------------------- loss moments
def test_loss_moments_one_dimension_by_hand():
    # d = 1, Z Laplace(scale 1/eta): L(t + Z) = a (t + Z)^2 - 2 b (t + Z) + c with
    # a = mean(x^2), b = mean(x y), c = mean(y^2); E Z^2 = 2/eta^2, E Z^4 = 24/eta^4.
    x = np.array([0.2, 0.9, 0.5])
    y = np.array([0.1, -0.4, 0.3])
    theta, eta = 0.7, 1.3
    a, b, c = np.mean(x * x), np.mean(x * y), np.mean(y * y)
    g = a * theta - b
    mean = a * theta**2 - 2 * b * theta + c + a * 2 / eta**2
    var = 4 * g**2 * 2 / eta**2 + a**2 * (24 - 4) / eta**4
    mom = loss_moments([theta], eta, x[:, None], y)
    assert mom.mean == pytest.approx(mean, rel=1e-13)
    assert mom.var == pytest.approx(var, rel=1e-13)
    assert mom.std == pytest.approx(np.sqrt(var), rel=1e-13)


def test_loss_moments_one_dimension_by_quadrature():
    x = np.array([0.3, 0.8])
    y = np.array([0.5, -0.2])
    theta, eta, lam = -0.4, 2.0, 0.25
    density = stats.laplace(scale=1 / eta).pdf

    def loss(z):
        t = theta + z
        return np.mean((x * t - y) ** 2) + lam * t * t

    m1 = integrate.quad(lambda z: loss(z) * density(z), -np.inf, np.inf)[0]
    m2 = integrate.quad(lambda z: loss(z) ** 2 * density(z), -np.inf, np.inf)[0]
    mom = loss_moments([theta], eta, x[:, None], y, penalty=lam)
    assert mom.mean == pytest.approx(m1, rel=1e-9)
    assert mom.var == pytest.approx(m2 - m1**2, rel=1e-8)


@pytest.mark.parametrize("penalty", [0.0, 0.3])
def test_loss_moments_monte_carlo(penalty):
    rng = _rng(4, int(penalty * 10))
    d, N, R, eta = 4, 7, 400_000, 3.0
    X = rng.random((N, d))
    y = rng.uniform(-1, 1, N)
    theta_bar = rng.standard_normal(d)
    z = sample_l2_laplace(eta, d, size=R, rng=rng)
    th = theta_bar + z
    losses = np.mean((th @ X.T - y) ** 2, axis=1) + penalty * np.sum(th * th, axis=1)
    mom = loss_moments(theta_bar, eta, X, y, penalty=penalty)
    se_mean = losses.std() / np.sqrt(R)
    assert abs(losses.mean() - mom.mean) <= Z_MAX * se_mean
    centred = losses - losses.mean()
    s2 = np.mean(centred**2)
    se_var = np.sqrt((np.mean(centred**4) - s2**2) / R)
    assert abs(s2 - mom.var) <= Z_MAX * se_var


def test_penalty_equals_augmented_test_set():
    # (1/N)||X t - y||^2 + p ||t||^2 == (1/N')||X' t - y'||^2 with
    # X' = sqrt(N'/N) [X; sqrt(N p) I], y' = sqrt(N'/N) [y; 0], N' = N + d.
    rng = _rng(5)
    N, d, p = 9, 3, 0.7
    X = rng.random((N, d))
    y = rng.uniform(-1, 1, N)
    Np = N + d
    Xa = np.sqrt(Np / N) * np.vstack([X, np.sqrt(N * p) * np.eye(d)])
    ya = np.sqrt(Np / N) * np.concatenate([y, np.zeros(d)])
    theta = rng.standard_normal((5, d))
    eta = np.array([0.5, 1.0, 2.0, 4.0, np.inf])
    reg = loss_moments(theta, eta, X, y, penalty=p)
    aug = loss_moments(theta, eta, Xa, ya)
    np.testing.assert_allclose(reg.mean, aug.mean, rtol=1e-12)
    np.testing.assert_allclose(reg.var, aug.var, rtol=1e-12)


def test_large_losses_are_exact_to_rounding():
    # Exact rational arithmetic through the textbook (cancelling) variance formula
    # Var = E||Z||^4 E[(u^T A u)^2] - (E||Z||^2 tr(A)/d)^2 + 4 ||g||^2 E||Z||^2 / d.
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [1, 1, 1]], dtype=float)
    y = np.array([1, 0, 0, 1], dtype=float)
    theta = np.array([2.0, -1.0, 0.5])
    eta = 1e-5  # losses of order 1e12
    N, d = X.shape
    Xf = [[Fraction(int(v)) for v in row] for row in X]
    yf = [Fraction(int(v)) for v in y]
    tf = [Fraction(2), Fraction(-1), Fraction(1, 2)]
    ef = Fraction(1, 100000)
    A = [[sum(Xf[k][i] * Xf[k][j] for k in range(N)) / N for j in range(d)] for i in range(d)]
    resid = [sum(Xf[k][i] * tf[i] for i in range(d)) - yf[k] for k in range(N)]
    L0 = sum(r * r for r in resid) / N
    g = [sum(Xf[k][i] * resid[k] for k in range(N)) / N for i in range(d)]
    tr = sum(A[i][i] for i in range(d))
    tr2 = sum(A[i][j] * A[j][i] for i in range(d) for j in range(d))
    m2 = Fraction(d * (d + 1)) / ef**2
    m4 = Fraction(d * (d + 1) * (d + 2) * (d + 3)) / ef**4
    mean = L0 + m2 * tr / d
    var = m4 * (tr * tr + 2 * tr2) / (d * (d + 2)) - (m2 * tr / d) ** 2 + 4 * sum(v * v for v in g) * m2 / d
    mom = loss_moments(theta, eta, X, y)
    assert float(mean) > 1e10
    assert mom.mean == pytest.approx(float(mean), rel=1e-14)
    assert mom.var == pytest.approx(float(var), rel=1e-14)


def test_exact_fit_keeps_tiny_loss():
    # A perfect fit has loss exactly 0 through residuals (no cancellation of expanded terms).
    X = np.array([[0.1, 0.7], [0.4, 0.2], [0.9, 0.5]])
    theta = np.array([0.25, -0.5])
    y = X @ theta
    mom = loss_moments(theta, np.inf, X, y)
    assert mom.mean < 1e-30
    assert mom.var == 0.0


def test_batched_matches_rowwise():
    rng = _rng(6)
    X, y = rng.random((6, 3)), rng.uniform(-1, 1, 6)
    theta = rng.standard_normal((4, 3))
    eta = np.array([0.5, 1.0, 3.0, np.inf])
    batch = loss_moments(theta, eta, X, y, penalty=0.2)
    assert isinstance(batch, LossMoments) and batch.mean.shape == (4,)
    for r in range(4):
        one = loss_moments(theta[r], eta[r], X, y, penalty=0.2)
        assert batch.mean[r] == pytest.approx(float(one.mean), rel=1e-14)
        assert batch.var[r] == pytest.approx(float(one.var), rel=1e-14)
    assert batch.var[3] == 0.0


def test_quadratic_loss_value_gradient_and_traces():
    rng = _rng(7)
    X, y = rng.random((5, 3)), rng.uniform(-1, 1, 5)
    loss = QuadraticLoss(X, y, penalty=0.4)
    theta = rng.standard_normal(3)
    assert loss.value(theta) == pytest.approx(np.mean((X @ theta - y) ** 2) + 0.4 * theta @ theta)
    A = X.T @ X / 5 + 0.4 * np.eye(3)
    np.testing.assert_allclose(loss.half_gradient(theta), A @ theta - X.T @ y / 5, rtol=1e-12)
    np.testing.assert_allclose(loss.matrix, A, rtol=1e-14)
    assert loss.trace == pytest.approx(np.trace(A))
    assert loss.trace_sq == pytest.approx(np.trace(A @ A))
    other = loss.with_penalty(0.0)
    assert other.trace == pytest.approx(np.trace(X.T @ X / 5))


def test_inputs_not_mutated():
    X = np.array([[0.1, 0.2], [0.3, 0.4]])
    y = np.array([0.5, -0.5])
    theta = np.array([1.0, 2.0])
    copies = [a.copy() for a in (X, y, theta)]
    loss_moments(theta, 1.0, X, y, penalty=0.1)
    for a, b in zip((X, y, theta), copies):
        np.testing.assert_array_equal(a, b)
    assert X.flags.writeable


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(theta_bar=[1.0, 2.0, 3.0]), "theta"),
        (dict(theta_bar=[np.nan, 1.0]), r"theta\[0\]"),
        (dict(eta=-1.0), "eta"),
        (dict(eta=[1.0, 2.0]), "eta"),
        (dict(X_test=[[0.1, np.inf], [0.3, 0.4]]), r"X_test\[0, 1\]"),
        (dict(y_test=[0.1]), "y_test"),
        (dict(penalty=-0.1), "penalty"),
    ],
)
def test_bad_inputs(kwargs, match):
    args = dict(theta_bar=[1.0, 2.0], eta=1.0, X_test=[[0.1, 0.2], [0.3, 0.4]], y_test=[0.5, -0.5])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        loss_moments(**args)

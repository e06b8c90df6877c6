"""Private selection from private candidates (pdp_lib.mechanisms.private_selection): its pieces by hand, its exact loss in d = 1."""

import numpy as np
import pytest

import pdp_lib
from pdp_lib.mechanisms import private_selection as ps
from pdp_lib.audit import private_selection as audit_ps
from pdp_lib.experiments import tuning_costs
from pdp_lib.moments import QuadraticLoss

GRID = [0.1, 1.0, 10.0, 100.0]


def _problem(seed, n=8, d=1):
    gen = np.random.default_rng(seed)
    X = gen.uniform(0.05, 1, (n, d))
    y = np.clip(X @ gen.uniform(-0.6, 0.6, d) + 0.1 * gen.normal(size=n), -1, 1)
    return X, y, gen.uniform(0.2, 2, n)


def test_the_score_by_hand():
    X = np.array([[1.0], [0.5]])
    y = np.array([0.5, -1.0])
    # theta = 2: predictions clip(2) = 1 and 1; |y| - |y - p| = 0.5 - 0.5 = 0 and 1 - 2 = -1
    np.testing.assert_allclose(ps.improvement_terms(np.array([2.0]), X, y), [0.0, -1.0])
    eps = np.array([0.4, 0.8])       # u_j = rho eps_j / 4 with rho = 0.5: 0.05 and 0.1
    assert ps.selection_score(np.array([2.0]), X, y, eps, 0.5) == pytest.approx(-0.1, abs=1e-15)


def test_every_term_lies_in_the_allowed_range_whatever_the_model():
    gen = np.random.default_rng(1)
    X, y = gen.uniform(0, 1, (50, 3)), gen.uniform(-1, 1, 50)
    terms = ps.improvement_terms(gen.normal(0, 100, (200, 3)), X, y)
    assert np.all(np.abs(terms) <= 1.0)


def test_a_run_releases_a_candidate_or_the_zero_model_and_spends_every_budget():
    X, y, eps = _problem(2, n=60, d=3)
    seen = set()
    for seed in range(30):
        choice = ps.private_selection(X, y, eps, GRID, rng=seed)
        assert choice.rule == "selection" and np.array_equal(choice.spent, eps)
        if choice.index is None:
            assert np.isnan(choice.lam) and not choice.models.any()
        else:
            assert choice.lam == choice.candidates[choice.index] and choice.lam in GRID
        seen.add(choice.index)
    a = ps.private_selection(X, y, eps, GRID, rng=7)
    b = ps.private_selection(X, y, eps, GRID, rng=np.random.default_rng(7))
    assert a.lam == b.lam or (np.isnan(a.lam) and np.isnan(b.lam))
    assert len(seen) > 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(stop=0.0), r"stop = 0.0 is outside the allowed range \(0, 1\]"),
    (dict(stop=1.5), r"stop = 1.5"),
    (dict(score_share=1.0), r"score_share = 1.0 is outside the allowed range \(0, 1\)"),
    (dict(B=0.5), r"B = 0.5 is not allowed"),
])
def test_bad_input_is_refused_by_name(kwargs, match):
    X, y, eps = _problem(3)
    with pytest.raises(ValueError, match=match):
        ps.private_selection(X, y, eps, GRID, **kwargs)
    with pytest.raises(TypeError, match="score_share must be a real number"):
        ps.private_selection(X, y, eps, GRID, score_share="half")


@pytest.mark.parametrize("seed", range(3))
def test_the_exact_loss_in_one_dimension_stays_within_each_level(seed):
    X, y, eps = _problem(seed)
    for i in (int(np.argmin(eps)), int(np.argmax(eps))):
        found = audit_ps.worst_selection_replacement(X, y, eps, GRID, i, stop=0.3, tries=6, rng=seed)
        assert found.loss <= found.bound * (1 + 1e-9)


def test_the_check_catches_a_score_four_times_too_sensitive(monkeypatch):
    X, y, eps = _problem(0)
    honest = audit_ps.worst_selection_replacement(X, y, eps, GRID, 0, stop=0.3, tries=6, rng=1)
    original = ps.selection_score
    monkeypatch.setattr(audit_ps, "selection_score", lambda *a: 4 * original(*a))
    slipped = audit_ps.worst_selection_replacement(X, y, eps, GRID, 0, stop=0.3, tries=6, rng=1)
    assert honest.loss <= honest.bound < slipped.loss


def test_the_cost_simulation_matches_the_library_run_by_run():
    X, y, eps = _problem(4, n=40, d=2)
    Xt, yt, _ = _problem(5, n=30, d=2)
    loss = QuadraticLoss(Xt, yt)
    lams = np.array(GRID)
    mean, se, _, zero = tuning_costs._selection_loss(X, y, eps, lams, loss, None, np.random.default_rng(0), 20000)
    runs = [ps.private_selection(X, y, eps, GRID, rng=s, sampler="float") for s in range(1500)]
    direct = np.array([float(loss.value(r.models[0])) for r in runs])
    gap = abs(direct.mean() - mean) / np.hypot(se, direct.std(ddof=1) / np.sqrt(direct.size))
    assert gap < 4
    assert abs(np.mean([r.index is None for r in runs]) - zero) < 4 * np.sqrt(zero * (1 - zero) / 1500) + 1e-3


def test_the_exact_score_is_the_score_in_fractions():
    from fractions import Fraction

    X, y, eps = _problem(6, n=25, d=3)
    theta = np.random.default_rng(6).normal(0, 2, 3)
    want = sum(Fraction(0.5) * Fraction(e) / 4 * (abs(Fraction(v)) - abs(Fraction(v) - max(-1, min(1, sum(
        Fraction(a) * Fraction(t) for a, t in zip(row, theta)))))) for row, v, e in zip(X, y, eps))
    assert ps.exact_score(theta, X, y, eps, 0.5) == want
    assert float(want) == pytest.approx(ps.selection_score(theta, X, y, eps, 0.5), rel=1e-12)


@pytest.mark.parametrize("q", [0.0, 0.4, -0.4, 3.0, -3.0])
def test_the_exact_laplace_test_passes_with_the_laplace_probability(q):
    from fractions import Fraction

    from pdp_lib.mechanisms.exact_sampling import RandomBits

    bits = RandomBits(int(10 * q) + 50)
    passed = np.mean([ps.laplace_passes(Fraction(q), bits) for _ in range(20_000)])
    want = 1 - 0.5 * np.exp(-q) if q >= 0 else 0.5 * np.exp(q)
    se = np.sqrt(want * (1 - want) / 20_000)
    assert abs(passed - want) < 4 * se
    wrong = 1 - 0.5 * np.exp(-1.2 * q) if q >= 0 else 0.5 * np.exp(1.2 * q)
    assert q == 0 or abs(passed - wrong) > 4 * se          # a rate 20% off is told apart


def test_an_exact_run_releases_a_lattice_point_reproducibly():
    X, y, eps = _problem(2, n=60, d=3)
    runs = [ps.private_selection(X, y, eps, GRID, rng=s) for s in range(12)]
    again = [ps.private_selection(X, y, eps, GRID, rng=s) for s in range(12)]
    assert all(np.array_equal(a.models, b.models) and a.index == b.index for a, b in zip(runs, again))
    from pdp_lib.mechanisms import lattice

    kept = [r for r in runs if r.index is not None]
    assert kept
    levels = (1 - 0.5) * ps.ROUND_SHARE * eps                 # the round's model levels, rho = 0.5
    for r in kept:
        g = lattice.lattice_calibration(float(np.sum(levels)), float(levels.min()), lattice.rounds_bound(60), r.lam,
                                        3).step_exponent
        units = np.ldexp(r.models[0], g)
        assert np.array_equal(units, np.round(units))          # on its lattice release's grid


def test_the_improvement_terms_are_the_formula_bit_for_bit():
    gen = np.random.default_rng(21)
    X, y = gen.uniform(0, 1, (70, 5)), gen.uniform(-1, 1, 70)
    y[:3] = (-1.0, 0.0, 1.0)
    for theta in (gen.normal(scale=2.0, size=5), gen.normal(scale=2.0, size=(8, 5)), gen.normal(size=(3, 4, 5))):
        pred = np.clip(theta @ X.T, -1.0, 1.0)                 # many predictions beyond [-1, 1]
        got = ps.improvement_terms(theta, X, y)
        assert got.shape == theta.shape[:-1] + (70,)
        assert np.array_equal(got, np.abs(y) - np.abs(y - pred))
    # a single point (a scalar product) and labels that broadcast the product, as before
    theta = gen.normal(size=5)
    assert ps.improvement_terms(theta, X[0], y[0]) == abs(y[0]) - abs(y[0] - np.clip(theta @ X[0], -1, 1))
    wide = np.tile(y, (3, 1))
    assert np.array_equal(ps.improvement_terms(theta, X, wide),
                          np.abs(wide) - np.abs(wide - np.clip(theta @ X.T, -1.0, 1.0)))

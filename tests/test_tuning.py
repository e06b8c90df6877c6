"""Choosing lambda (pdp_lib.tuning): the data-free rule reads no data, private tuning's pieces are exact."""

import itertools

import numpy as np
import pytest
from scipy import stats

import pdp_lib
from pdp_lib import audit, tuning
from pdp_lib.bounds import noise_scale
from pdp_lib.estimator import PersonalizedRidge

GRID = [0.01, 0.1, 1.0, 3.0, 10.0, 100.0, 1000.0]


def _problem(seed, n=200, d=4):
    gen = np.random.default_rng(seed)
    X = gen.uniform(0, 1, (n, d))
    y = np.clip(X @ gen.uniform(-0.3, 0.3, d) + 0.1 * gen.normal(size=n), -1, 1)
    eps = pdp_lib.privacy_profile(n, rng=gen)
    return X, y, eps


def test_data_free_bound_is_its_closed_form_by_hand():
    # d = 1, lam = 4 > d: B = min(1/2, 1/4) = 1/4, C = 2 (1 + 1/4) / 4 = 5/8
    eps = np.array([0.5, 1.5])
    C = 5 / 8
    assert noise_scale(4.0, 1) == pytest.approx(C, rel=1e-15)
    rest = C**2 * (4 * (0.25 + 2.25) + 1 * 2) / 2.0**2
    # lam R^2 = 16: the cap at 1 (the zero model's largest expected loss) binds
    assert tuning.data_free_bound(4.0, eps, 1, 2.0) == pytest.approx(1 + rest, rel=1e-14)
    assert tuning.data_free_bound(4.0, eps, 1, 2.0, capped=False) == pytest.approx(16 + rest, rel=1e-14)
    # lam R^2 = 0.16 < 1: the cap changes nothing
    low = tuning.data_free_bound(4.0, eps, 1, 0.2)
    assert low == tuning.data_free_bound(4.0, eps, 1, 0.2, capped=False)
    assert low == pytest.approx(0.16 + rest, rel=1e-14)
    with pytest.raises(TypeError, match="capped must be True or False"):
        tuning.data_free_bound(4.0, eps, 1, 0.2, capped=1)


def test_data_free_bound_holds_on_a_population_it_can_compute():
    # a population with a finite support, so that the risk is exact; the expectation over the
    # training draw by Monte Carlo, over the noise exactly
    gen = np.random.default_rng(3)
    d, n = 2, 30
    support = gen.uniform(0, 1, (6, d))
    theta_star = np.array([0.4, -0.3])
    labels = np.clip(support @ theta_star + gen.uniform(-0.2, 0.2, 6), -1, 1)
    Sigma = support.T @ support / 6

    def risk(theta):
        return np.mean((labels - support @ theta) ** 2)

    eps = pdp_lib.privacy_profile(n, rng=gen)
    for lam in (0.3, 3.0, 30.0):
        cal = pdp_lib.calibrate(eps, lam, d)
        excess = []
        for _ in range(400):
            idx = gen.integers(0, 6, n)
            theta_bar = pdp_lib.weighted_ridge(support[idx], labels[idx], cal.weights, lam)
            noise = (d + 1) * np.trace(Sigma) / cal.eta**2       # E Z^T Sigma Z, exact
            excess.append(risk(theta_bar) + noise - risk(theta_star))
        bound = tuning.data_free_bound(lam, eps, d, np.linalg.norm(theta_star))
        assert np.mean(excess) <= bound


def test_the_data_free_rule_reads_no_data():
    X, y, eps = _problem(1)
    chosen = {tuning.choose_lambda(Xa, ya, eps, GRID, "data-free", R=1.0).lam
              for Xa, ya in [(X, y), (np.zeros_like(X), np.zeros_like(y)), (1 - X, -y),
                             (np.ones_like(X), np.ones_like(y))]}
    assert len(chosen) == 1
    choice = tuning.choose_lambda(X, y, eps, GRID, "data-free", R=1.0)
    assert np.all(choice.spent == 0)
    by_hand = GRID[int(np.argmin([tuning.data_free_bound(lam, eps, X.shape[1], 1.0) for lam in GRID]))]
    assert choice.lam == by_hand


def test_public_parts_partition_the_points_and_read_only_the_levels():
    eps = np.random.default_rng(2).uniform(0.01, 1, 101)
    for k, v in itertools.product((1, 3, 10), (None, 0.3, 0.5)):
        parts, val = tuning.public_parts(eps, k, v)
        together = np.concatenate(parts + [val])
        assert len(parts) == k and np.array_equal(np.sort(together), np.arange(101))
        assert all(p.size >= 1 for p in parts) and val.size >= 1
        if v is not None:
            assert val.size == int(np.floor(101 * v))
        sums = [eps[p].sum() for p in parts]
        assert max(sums) - min(sums) <= eps.max() + 1e-12   # dealt round-robin over sorted levels
    again = tuning.public_parts(eps.copy(), 3, 0.3)
    assert all(np.array_equal(a, b) for a, b in zip(again[0], tuning.public_parts(eps, 3, 0.3)[0]))


def test_selection_probabilities_are_the_closed_form():
    gen = np.random.default_rng(4)
    losses = gen.uniform(0, 2, (5, 7))
    eps_val = gen.uniform(0.1, 2, 7)
    for alpha in (1.0, 0.3):
        u = alpha * eps_val / 4
        expected = np.exp(-losses @ u) / np.exp(-losses @ u).sum()
        np.testing.assert_allclose(tuning.selection_probabilities(losses, eps_val, alpha), expected, rtol=1e-13)
    # sampling from them: frequencies within 5 standard errors
    p = tuning.selection_probabilities(losses, eps_val)
    picks = np.bincount(gen.choice(5, size=200_000, p=p), minlength=5) / 200_000
    assert np.all(np.abs(picks - p) <= 5 * np.sqrt(p * (1 - p) / 200_000))


def test_one_validation_point_moves_a_probability_by_at_most_its_share():
    gen = np.random.default_rng(5)
    for _ in range(2000):
        K, m = gen.integers(2, 6), gen.integers(1, 6)
        losses = gen.uniform(0, 2, (K, m))
        eps_val = gen.uniform(0.01, 3, m)
        alpha = gen.uniform(0.05, 1)
        other = losses.copy()
        j = gen.integers(m)
        other[:, j] = gen.choice([0.0, 2.0], K)          # the extremes of the loss range
        lr = np.abs(np.log(tuning.selection_probabilities(losses, eps_val, alpha))
                    - np.log(tuning.selection_probabilities(other, eps_val, alpha)))
        assert lr.max() <= alpha * eps_val[j] * (1 + 1e-12)


@pytest.mark.parametrize("eps_j, alpha", [(0.01, 1.0), (0.2, 0.5), (1.0, 1.0), (3.0, 0.25)])
def test_the_bound_is_nearly_attained_on_the_two_candidate_instance(eps_j, alpha):
    # a slip by a factor 2 in u_j (eps / L instead of eps / 2L) would double the loss and fail
    models, X_val, y_val, eps_val, (x_new, y_new) = audit.two_candidate_instance(eps_j)
    loss = audit.selection_loss(models, X_val, y_val, eps_val, alpha, 0, x_new, y_new)
    assert 0.99 * alpha * eps_j <= loss <= alpha * eps_j * (1 + 1e-12)
    search = audit.worst_selection_neighbour(models, X_val, y_val, eps_val, alpha, 0, tries=50, rng=0)
    assert loss <= search.loss <= search.bound * (1 + 1e-12)


def test_the_neighbour_search_stays_within_the_bound_on_random_candidates():
    X, y, eps = _problem(11, n=120, d=3)
    gen = np.random.default_rng(12)
    plan = tuning.tuning_plan(eps, GRID, 3, 1.0)
    val = plan.validation
    for _ in range(5):
        models = gen.normal(scale=2.0, size=(plan.candidates.size, 3))
        for j in gen.choice(val.size, 3, replace=False):
            s = audit.worst_selection_neighbour(models, X[val], y[val], eps[val], 1.0, j, tries=200, rng=gen)
            assert s.loss <= s.bound * (1 + 1e-12)
            assert s.loss > 0.2 * s.bound    # the search moves the loss vector near its extremes


def test_private_tuning_spends_alpha_eps_and_chooses_a_candidate():
    X, y, eps = _problem(6)
    for alpha, v in ((1.0, None), (0.5, 0.5)):
        choice = tuning.choose_lambda(X, y, eps, GRID, "private", alpha=alpha, validation_fraction=v, rng=0)
        assert choice.lam in choice.candidates and set(choice.candidates) <= set(GRID)
        np.testing.assert_array_equal(choice.spent, alpha * eps)
        assert choice.candidates[choice.index] == choice.lam
        assert not hasattr(choice, "probabilities")     # a function of the validation points
        plan = tuning.tuning_plan(eps, GRID, X.shape[1], alpha, v)
        assert np.array_equal(plan.candidates, choice.candidates)
    a = tuning.choose_lambda(X, y, eps, GRID, "private", rng=7)
    b = tuning.choose_lambda(X, y, eps, GRID, "private", rng=np.random.default_rng(7))
    assert a.lam == b.lam and np.array_equal(a.models, b.models)


@pytest.mark.parametrize("seed", range(6))
def test_the_plan_prunes_with_the_sums_its_candidates_are_trained_on(seed):
    # brute force over the number of candidate parts, against tuning_plan (alpha = 1)
    gen = np.random.default_rng(seed)
    n, d = int(gen.integers(20, 400)), int(gen.integers(1, 13))
    eps = pdp_lib.privacy_profile(n, rng=gen) * gen.uniform(0.2, 20)
    grid = list(np.sort(gen.choice(tuning.DEFAULT_GRID, int(gen.integers(1, 18)), replace=False)))
    for v in (None, 0.5):
        plan = tuning.tuning_plan(eps, grid, d, 1.0, v)
        k = plan.candidates.size
        sums = [float(eps[idx].sum()) for idx in plan.parts]
        for lam, S_k in zip(plan.candidates, sums):      # candidate k is trained on part k
            passes = d * (d + 1) * noise_scale(lam, d) ** 2 / S_k**2 <= 1
            assert passes or (k == 1 and lam == max(grid))
        room = n - 1 if v is None else n - int(np.floor(n * v))
        for bigger in range(k + 1, min(len(grid), room) + 1):  # no larger count fits
            parts, _ = tuning.public_parts(eps, bigger, v)
            smallest = min(float(eps[idx].sum()) for idx in parts)
            kept = [lam for lam in grid if d * (d + 1) * noise_scale(lam, d) ** 2 / smallest**2 <= 1]
            assert len(kept) < bigger
        assert tuning.pruned_lambda(grid, eps, d, v) == plan.candidates.min()


def test_the_pruned_rule_reads_no_data_and_spends_nothing():
    X, y, eps = _problem(21, n=300)
    gen = np.random.default_rng(0)
    chosen = {tuning.choose_lambda(Xa, ya, eps, GRID, "pruned").lam      # v = 1/2 by default
              for Xa, ya in [(X, y), (0 * X, 0 * y), (1 - X, -y),
                             (gen.uniform(0, 1, X.shape), gen.uniform(-1, 1, y.shape))]}
    assert chosen == {tuning.pruned_lambda(GRID, eps, 4)}
    model = PersonalizedRidge(lam="pruned", lam_grid=GRID, random_state=5).fit(X, y, eps)
    assert model.lam_ == tuning.pruned_lambda(GRID, eps, 4)
    np.testing.assert_array_equal(model.tuning_.spent, np.zeros(eps.size))
    direct = pdp_lib.pdp_op(X, y, eps, model.lam_, rng=5)
    np.testing.assert_array_equal(model.coef_, direct)
    with pytest.raises(ValueError, match="tuning_share = 0.5 applies to lam='auto' only"):
        PersonalizedRidge(lam="pruned", tuning_share=0.5).fit(X, y, eps)
    with pytest.raises(ValueError, match="R applies to rule='data-free' only"):
        tuning.choose_lambda(X, y, eps, GRID, "pruned", R=1.0)
    with pytest.raises(ValueError, match="rule='private' only"):
        tuning.choose_lambda(X, y, eps, GRID, "pruned", rng=0)


def test_pruning_reads_only_public_quantities_and_keeps_one_value():
    assert list(tuning.prune_grid([0.01], 3, 1e-3)) == [0.01]
    kept = tuning.prune_grid(GRID, 4, 50.0)
    noise = [4 * 5 * noise_scale(lam, 4) ** 2 / 50.0**2 for lam in GRID]
    assert list(kept) == [lam for lam, v in zip(GRID, noise) if v <= 1]


@pytest.mark.parametrize("call, match", [
    (lambda X, y, e: tuning.choose_lambda(X, y, e, [], "private"), r"grid is empty"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, [1.0, -2.0], "private"), r"grid\[1\] = -2.0 .*\(0, inf\)"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, [1.0, np.nan], "data-free", R=1.0), r"grid\[1\]"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "private", alpha=0.0), r"alpha = 0.0 .*\(0, 1\]"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "private", alpha=1.5), r"alpha = 1.5"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "data-free"), r"R is required"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "data-free", R=-1.0), r"R = -1.0"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "best"), r"rule = 'best'"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, validation_fraction=1.0), r"validation_fraction"),
    (lambda X, y, e: tuning.choose_lambda(X[:3], y[:3], e[:3], GRID, validation_fraction=0.2),
     r"validation_fraction = 0.2 gives 0 of the 3 points"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, [1.0, 10.0, 1.0]), r"grid repeats a value"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "data-free", R=1.0, alpha=0.5), r"rule='private' only"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "private", R=1.0), r"R applies to rule='data-free'"),
    (lambda X, y, e: tuning.choose_lambda(X, y, e, GRID, "private", B=0.5), r"B = 0.5 is not allowed"),
    (lambda X, y, e: tuning.choose_lambda(X[:1], y[:1], e[:1], GRID), r"at least 2"),
    (lambda X, y, e: tuning.choose_lambda(X, y + 3, e, GRID), r"y\[0\]"),
])
def test_bad_input_is_refused_by_name(call, match):
    X, y, eps = _problem(8, n=20)
    with pytest.raises(ValueError, match=match):
        call(X, y, eps)


@pytest.mark.parametrize("grid, match", [
    (None, r"grid must be a sequence of real numbers .*got NoneType"),
    ("1", r"grid must be a sequence of real numbers .*got str"),
    ({1: 2}, r"grid must be a sequence of real numbers .*got dict"),
    (["0.1", "10"], r"grid\[0\] must be a real number, got str"),
    ([True, 10.0], r"grid\[0\] must be a real number, got bool"),
    ([1 + 0j], r"grid\[0\] must be a real number"),
    ({1.0, 10.0}, r"grid must be a sequence of real numbers \(a list, a tuple or an array: an order\), got set"),
    ((v for v in (1.0, 10.0)), r"got generator"),
])
def test_a_grid_of_the_wrong_type_is_refused_by_name(grid, match):
    X, y, eps = _problem(8, n=20)
    with pytest.raises(TypeError, match=match):
        tuning.choose_lambda(X, y, eps, grid)
    if grid is not None:       # lam_grid=None is the default grid
        with pytest.raises(TypeError, match=match.replace("grid", "lam_grid", 1)):
            PersonalizedRidge(lam="auto", lam_grid=grid, sampler="float").fit(X, y, eps)


def test_the_sampler_draws_from_the_closed_form():
    gen = np.random.default_rng(16)
    losses, eps_val = gen.uniform(0, 2, (4, 30)), gen.uniform(0.05, 1, 30)
    p = tuning.selection_probabilities(losses, eps_val, 0.7)
    freq = np.bincount(tuning.select(losses, eps_val, 0.7, gen, size=200_000), minlength=4) / 200_000
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / 200_000))
    one = [tuning.select(losses, eps_val, 0.7, np.random.default_rng(s)) for s in range(3)]
    assert all(isinstance(k, int) for k in one)


def test_nothing_the_user_gave_is_changed():
    X, y, eps = _problem(9)
    grid = np.array(GRID)
    copies = [a.copy() for a in (X, y, eps, grid)]
    tuning.choose_lambda(X, y, eps, grid, "private", rng=1)
    tuning.choose_lambda(X, y, eps, grid, "data-free", R=1.0)
    assert all(np.array_equal(a, b) for a, b in zip((X, y, eps, grid), copies))


def test_auto_lambda_in_a_pipeline():
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y, eps = _problem(10, n=400)
    model = Pipeline([("id", FunctionTransformer()),
                      ("ridge", PersonalizedRidge(lam="auto", lam_grid=GRID, random_state=3, sampler="float"))])
    model.fit(X, y, ridge__epsilons=eps)
    ridge = model.named_steps["ridge"]
    assert ridge.lam_ in GRID and ridge.coef_.shape == (4,)
    np.testing.assert_array_equal(ridge.tuning_.spent, eps)     # alpha = 1: the whole budget, once
    assert model.predict(X).shape == (400,)
    again = PersonalizedRidge(lam="auto", lam_grid=GRID, random_state=3, sampler="float").fit(X, y, eps)
    np.testing.assert_array_equal(again.coef_, ridge.coef_)


def test_auto_lambda_with_a_refit_spends_the_rest_on_the_release():
    X, y, eps = _problem(13, n=300)
    est = PersonalizedRidge(lam="auto", lam_grid=GRID, tuning_share=0.4, validation_fraction=0.5, sampler="float",
                            random_state=5).fit(X, y, eps)
    np.testing.assert_allclose(est.tuning_.spent, 0.4 * eps)
    cal = pdp_lib.calibrate(0.6 * eps, est.lam_, 4)
    assert est.eta_ == pytest.approx(cal.eta, rel=1e-14)
    np.testing.assert_allclose(est.weights_, cal.weights, rtol=1e-14)


def test_rule_losses_are_exact_where_the_mechanism_allows():
    from pdp_lib.experiments.tuning_costs import rule_losses

    X, y, eps = _problem(14, n=300)
    Xt, yt, _ = _problem(15, n=100)
    res = rule_losses(X, y, eps, Xt, yt, GRID, priors=(1.0,), fixed=(1.0,), settings=((1.0, None), (0.5, 0.5)),
                      noise_draws=500, rng=0)
    for j, lam in enumerate(GRID):
        cal = pdp_lib.calibrate(eps, lam, 4)
        theta_bar = pdp_lib.weighted_ridge(X, y, cal.weights, lam)
        assert res.exact[j] == pytest.approx(float(pdp_lib.loss_moments(theta_bar, cal.eta, Xt, yt).mean), rel=1e-12)
    assert res.oracle == res.exact.min()
    assert res.fixed[1.0] == pytest.approx(res.exact[GRID.index(1.0)], rel=1e-12)
    kept = tuning.tuning_plan(eps, GRID, 4, 1.0, 0.5).candidates
    at_kept = [res.exact[GRID.index(lam)] for lam in kept]
    assert res.public["smallest kept"] == (kept.min(), at_kept[0])
    assert res.public["uniform kept"][1] == pytest.approx(np.mean(at_kept), rel=1e-12)
    assert res.public["zero"][1] == pytest.approx(np.mean(np.asarray(yt) ** 2), rel=1e-12)
    lam = tuning.data_free_lambda(GRID, eps, 4, 0.5)         # R = 1/sqrt(d), d = 4
    assert res.public["domain radius"] == (lam, res.exact[GRID.index(lam)])
    assert rule_losses(X, y, eps, Xt, yt, GRID, settings=(), noise_draws=2, selection_runs=0).selection is None
    with pytest.raises(ValueError, match="selection_runs = 1 is outside the allowed range"):
        rule_losses(X, y, eps, Xt, yt, GRID, settings=(), noise_draws=2, selection_runs=1)
    for loss, se, p, cands in res.private.values():   # p: mean over the noise draws (not released)
        assert loss >= res.oracle * (1 - 1e-12) or loss >= res.oracle - 5 * se
        assert p.sum() == pytest.approx(1.0)


def test_tuning_arguments_without_lam_auto_are_refused():
    X, y, eps = _problem(17, n=40)
    for kwargs in (dict(lam_grid=[1.0, 10.0]), dict(tuning_share=0.5), dict(validation_fraction=0.3)):
        with pytest.raises(ValueError, match="apply to lam='auto' or 'pruned' only"):
            PersonalizedRidge(lam=1.0, **kwargs).fit(X, y, eps)
    with pytest.raises(ValueError, match="rule='private' only"):
        tuning.choose_lambda(X, y, eps, GRID, "data-free", R=1.0, alpha=np.array([1.0, 1.0]))


def test_the_exact_exponents_are_the_exponential_mechanisms_computed_in_rationals():
    from fractions import Fraction

    rng = np.random.default_rng(8)
    models = np.vstack([rng.normal(0, 3, (4, 3)), [[1e300, -1e300, 5e-324], [1.0, 0.0, 0.0], [-0.0, 2.0**-1074, 0.5]]])
    X, y, eps = rng.uniform(0, 1, (30, 3)) / 2, rng.uniform(-1, 1, 30), rng.choice([0.1, 0.7, 2.0], 30)
    X[0], X[1], X[2] = [1.0, 0.0, 0.0], [5e-324, 1.0, 0.0], [0.0, 0.5, 1.0]     # x . theta exactly 1, subnormals
    y[0], y[1], eps[2] = -0.0, 1.0, 1e-300
    x = tuning.exact_exponents(models, X, y, eps, 0.6)
    # independently: every term as a Fraction
    q = [sum(Fraction(0.6) * Fraction(e) / 4 * abs(Fraction(v) - max(-1, min(1, sum(Fraction(a) * Fraction(t)
         for a, t in zip(row, theta))))) for row, v, e in zip(X, y, eps)) for theta in models]
    assert x == [v - min(q) for v in q] and min(x) == 0
    p = tuning.selection_probabilities(tuning.validation_losses(models, X, y), eps, 0.6)
    expected = np.exp(-np.array(x, dtype=float))
    np.testing.assert_allclose(expected / expected.sum(), p, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("share", [1 / 3, 0.1, 0.5, 1.0])
def test_split_levels_never_spend_more_than_the_exact_shares(share):
    from fractions import Fraction

    eps = np.random.default_rng(4).uniform(0.01, 3.0, 2000)
    first, rest = tuning.split_levels(eps, share)
    a = Fraction(share)
    assert all(Fraction(f) <= a * Fraction(e) and Fraction(r) <= (1 - a) * Fraction(e)
               for f, r, e in zip(first, rest, eps))
    assert np.all(first >= np.nextafter(share * eps, 0) * (1 - 2**-52))     # the largest doubles below
    assert (share != 1 / 3) or np.any(share * eps > first)      # rounding to nearest would have gone above


def test_the_exact_draw_has_the_exponential_mechanisms_law():
    from fractions import Fraction

    from pdp_lib.mechanisms.exact_sampling import RandomBits

    x = [Fraction(0), Fraction(1, 3), Fraction(7, 5), Fraction(3)]
    bits = RandomBits(21)
    draws = np.bincount([tuning.draw_exponential(x, bits) for _ in range(20_000)], minlength=4)
    p = np.exp(-np.array(x, dtype=float))
    assert stats.chisquare(draws, p / p.sum() * 20_000).pvalue > 1e-3
    wrong = np.exp(-1.1 * np.array(x, dtype=float))
    assert stats.chisquare(draws, wrong / wrong.sum() * 20_000).pvalue < 1e-6


@pytest.mark.parametrize("share", [1.0, 0.4])
def test_auto_lambda_is_exact_by_default(share):
    from pdp_lib.mechanisms import lattice

    X, y, eps = _problem(17, n=300)
    est = PersonalizedRidge(lam="auto", lam_grid=GRID, tuning_share=share, random_state=6).fit(X, y, eps)
    again = PersonalizedRidge(lam="auto", lam_grid=GRID, tuning_share=share, random_state=6).fit(X, y, eps)
    np.testing.assert_array_equal(est.coef_, again.coef_)
    assert est.lam_ in GRID
    np.testing.assert_allclose(est.tuning_.spent, share * eps)
    if share == 1.0:               # the chosen candidate, a lattice release on its part
        np.testing.assert_array_equal(est.coef_, est.tuning_.models[est.tuning_.index])
    part_levels = share * eps if share == 1.0 else (1 - share) * eps
    g = max(lattice.lattice_calibration(float(np.sum(part_levels)), float(part_levels.min()), lattice.rounds_bound(300),
                                        lam, 4).step_exponent for lam in GRID)
    units = np.ldexp(est.coef_, g)
    assert np.array_equal(units, np.round(units))          # on a lattice grid: exact arithmetic all the way


def test_doubles_as_integers_with_zeros_beside_values_of_one_and_more():
    # binary features (every nonzero entry 1) and all-zero vectors: zeros once took a negative shift
    from fractions import Fraction

    from pdp_lib.mechanisms.exponential import dyadic_integers

    for values in (np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros(3), np.array([0.0, 4.0, -8.0]), np.array([0.0, 3e-300])):
        ints, scale = dyadic_integers(values)
        assert [Fraction(int(i), scale) for i in ints.ravel()] == [Fraction(v) for v in values.ravel()]


def _former_scores(models, X_val, y_val, eps_val, alpha):
    """The selection probabilities as first written: every array formed whole."""
    losses = np.abs(y_val - np.clip(models @ X_val.T, -1.0, 1.0))
    score = -(losses @ (alpha * eps_val / (2.0 * 2.0)))
    score -= score.max(axis=-1, keepdims=True)
    p = np.exp(score)
    return p / p.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("alpha", [1.0, 0.35])
def test_the_block_scores_are_the_checked_functions_bit_for_bit(alpha):
    from pdp_lib.experiments import tuning_costs

    gen = np.random.default_rng(12)
    size, K, m, d = 600, 6, 90, 4                               # three chunks of 242 draws
    models = gen.normal(scale=2.0, size=(size, K, d))          # many predictions beyond [-1, 1]: clipped
    X_val, y_val = gen.uniform(0, 1, (m, d)), gen.uniform(-1, 1, m)
    y_val[:2] = (-1.0, 1.0)                                     # the ends of the label range
    eps_val = gen.uniform(0.05, 3.0, m)
    got = tuning_costs._selection_chunks(models, X_val, y_val, eps_val, alpha)
    assert np.array_equal(got, _former_scores(models, X_val, y_val, eps_val, alpha))
    checked = tuning.selection_probabilities(tuning.validation_losses(models, X_val, y_val), eps_val, alpha)
    assert np.array_equal(got, checked)
    opposed, far = models.copy(), X_val.copy()          # inf - inf = NaN in any order of the sum
    opposed[..., :2], far[0] = (1.0, -1.0), (np.inf, np.inf, 0.0, 0.0)
    for bad, message in (({"y_val": np.where(np.arange(m) == 3, 1.5, y_val)}, "labels"),
                         ({"models": np.where(np.arange(d) == 1, np.nan, models)}, "range"),
                         ({"models": opposed, "X_val": far}, "range"),
                         ({"eps_val": np.where(np.arange(m) == 5, -1.0, eps_val)}, "epsilons_val"),
                         ({"alpha": 0.0}, "alpha")):
        args = {"models": models, "X_val": X_val, "y_val": y_val, "eps_val": eps_val, "alpha": alpha, **bad}
        with pytest.raises(ValueError, match=message):
            tuning_costs._selection_chunks(**args)
        if message != "labels":                 # the checked functions refuse the same inputs
            with pytest.raises(ValueError):
                tuning.selection_probabilities(tuning.validation_losses(args["models"], args["X_val"], y_val),
                                               args["eps_val"], args["alpha"])
    # a candidate at infinity predicts at the end of the range: scored as the checked functions score it
    inf_models = np.where(np.arange(d) == 0, np.inf, models)
    assert np.array_equal(tuning_costs._selection_chunks(inf_models, X_val, y_val, eps_val, alpha),
                          _former_scores(inf_models, X_val, y_val, eps_val, alpha))


def test_the_checked_scores_keep_every_shape_they_took():
    gen = np.random.default_rng(13)
    X, y = gen.uniform(0, 1, (5, 3)), gen.uniform(-1, 1, 5)
    theta = gen.normal(size=3)
    # a single point (a scalar product), labels that broadcast the product, one candidate's losses
    assert tuning.validation_losses(theta, X[0], y[:1]) == np.abs(y[:1] - np.clip(theta @ X[0], -1, 1))
    wide = np.tile(y, (4, 1))
    assert np.array_equal(tuning.validation_losses(theta, X, wide), np.abs(wide - np.clip(theta @ X.T, -1, 1)))
    losses = gen.uniform(0, 2, 5)
    assert tuning.selection_probabilities(losses, np.ones(5)) == 1.0

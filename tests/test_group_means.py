"""Tests of the private means per public group (pdp_lib.mechanisms.group_means) and their exact expected loss
(pdp_lib.io.comparison.group_mean_loss), against independent truths.

The closed-form loss against a brute-force computation from the rows (pandas' group means, the noise's variance by
hand) and against the mean test loss of many floating-point releases; each group's release against the private mean
of its own rows; a row's label moves its own group's release only; refusals by name.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pdp_lib.curves import tolerated_gaussian_mus
from pdp_lib.io import comparison
from pdp_lib.mechanisms import private_mean as P
from pdp_lib.mechanisms.group_means import group_means


def _rows(n, seed, share=0.3):
    rng = np.random.default_rng(seed)
    g = (rng.uniform(size=n) < share).astype(np.int64)
    x = rng.uniform(size=n)
    y = np.clip(0.2 + 0.5 * g - 0.3 * x + 0.2 * rng.standard_normal(n), -1, 1)
    eps = rng.choice([0.05, 0.3, 1.0, 2.0], n)
    return g, x, y, eps


def _sums(train, test, delta=None):
    """CompareSums of a model (g, x, intercept) built by hand from the rows, as compare_sums adds them."""
    (g, x, y, eps), (gt, xt, yt) = train, test
    d = 3
    X, Xt = np.column_stack([g, x, np.ones_like(x)]), np.column_stack([gt, xt, np.ones_like(xt)])
    parts = {name: comparison._Part.zeros(d) for name in ("weighted", "plain", "kept", "test")}
    parts["weighted"].add(X, y, eps)
    parts["plain"].add(X, y)
    parts["test"].add(Xt, yt)
    sums = comparison.CompareSums(d=d, levels=np.unique(eps), counts=np.ones(1), threshold=0.0, jorgensen_t={},
                                  masks={}, intercept=True, eps_total=math.fsum(eps), **parts)
    if delta is not None:
        mu = tolerated_gaussian_mus(eps, delta)
        sums.gaussian, sums.mu_total, sums.delta = comparison._Part.zeros(d), math.fsum(mu), delta
        sums.gaussian.add(X, y, mu)
    return sums


def _brute_force(train, test, delta=None):
    """The expected test loss from the rows: each group's weighted mean, its squared error on the group's test
    rows, plus the noise's variance (Laplace of scale 2/S_g: 8/S_g**2; Gaussian of deviation 2/M_g: 4/M_g**2)."""
    g, _, y, eps = train
    w = eps if delta is None else tolerated_gaussian_mus(eps, delta)
    frame = pd.DataFrame({"g": g, "wy": w * y, "w": w})
    sums = frame.groupby("g").sum()
    means, totals = sums.wy / sums.w, sums.w
    gt, _, yt = test
    variance = (8.0 if delta is None else 4.0) / totals**2
    per_row = [(v - means.get(k, 0.0)) ** 2 + (variance[k] if k in means.index else 0.0) for k, v in zip(gt, yt)]
    return float(np.mean(per_row))


def _split(n=400, seed=0, share=0.3):
    g, x, y, eps = _rows(n, seed, share)
    test = np.arange(n) % 5 == 0
    return (g[~test], x[~test], y[~test], eps[~test]), (g[test], x[test], y[test])


@pytest.mark.parametrize("delta", [None, 1e-5])
@pytest.mark.parametrize("seed", range(3))
def test_the_closed_form_is_the_brute_force_loss(seed, delta):
    train, test = _split(seed=seed)
    sums = _sums(train, test, delta)
    got = comparison.group_mean_loss(sums, 0, gaussian=delta is not None)
    assert got == pytest.approx(_brute_force(train, test, delta), rel=1e-12)
    # and differs from the private mean's own loss, which ignores the group
    assert got != pytest.approx(comparison.private_mean_loss(sums, gaussian=delta is not None), rel=1e-3)


@pytest.mark.parametrize("delta", [None, 1e-5])
def test_without_noise_the_loss_is_the_groups_weighted_means(delta):
    train, test = _split(seed=4)
    g, _, y, eps = train
    gt, _, yt = test
    w = eps if delta is None else tolerated_gaussian_mus(eps, delta)
    means = {k: w[g == k] @ y[g == k] / w[g == k].sum() for k in (0, 1)}
    truth = np.mean([(v - means[k]) ** 2 for k, v in zip(gt, yt)])
    sums = _sums(train, test, delta)
    assert comparison.group_mean_loss(sums, 0, gaussian=delta is not None, noise=False) == pytest.approx(truth,
                                                                                                         rel=1e-12)
    whole = np.mean((yt - w @ y / w.sum()) ** 2)
    assert comparison.private_mean_loss(sums, gaussian=delta is not None, noise=False) == pytest.approx(whole,
                                                                                                        rel=1e-12)


def test_a_column_with_a_value_between_0_and_1_is_refused():
    train, test = _split(seed=7)
    sums = _sums(train, test)                       # feature 1 is uniform on [0, 1]
    with pytest.raises(ValueError, match=r"column = 1: a training row's value is strictly between 0 and 1"):
        comparison.group_mean_loss(sums, 1)
    g, x, y, eps = train
    x = (x > 0.5).astype(float)
    gt, xt, yt = test                               # binary on the training rows only
    with pytest.raises(ValueError, match=r"column = 1: a test row's value is strictly between 0 and 1"):
        comparison.group_mean_loss(_sums((g, x, y, eps), (gt, xt, yt)), 1)


def test_a_group_without_training_rows_predicts_the_midpoint():
    train, test = _split(seed=5)
    g = np.zeros_like(train[0])                              # no training row in group 1
    train = (g, *train[1:])
    sums = _sums(train, test)
    assert comparison.group_mean_loss(sums, 0) == pytest.approx(_brute_force(train, test), rel=1e-12)


@pytest.mark.parametrize("delta", [None, 1e-5])
def test_the_closed_form_is_the_mean_loss_of_many_releases(delta):
    train, test = _split(n=300, seed=2)
    g, _, y, eps = train
    gt, _, yt = test
    gen = np.random.default_rng(11)
    losses = []
    for _ in range(20_000):
        values, means = group_means(g, y, eps, gen, delta=delta, sampler="float")
        losses.append(np.mean((yt - means[np.searchsorted(values, gt)]) ** 2))
    losses = np.array(losses)
    expected = comparison.group_mean_loss(_sums(train, test, delta), 0, gaussian=delta is not None)
    assert abs(losses.mean() - expected) < 4 * losses.std(ddof=1) / math.sqrt(losses.size)


def test_each_group_gets_the_private_mean_of_its_own_rows_in_order():
    g, _, y, eps = _rows(120, 3)
    g = g * 7 - 2                                            # any integer codes: -2 and 5
    values, means = group_means(g, y, eps, 9)
    assert list(values) == [-2, 5]
    from pdp_lib.mechanisms.exact_sampling import RandomBits

    bits = RandomBits(9)
    assert list(means) == [P.private_mean(y[g == v], eps[g == v], bits) for v in (-2, 5)]


@pytest.mark.parametrize("delta", [None, 1e-5])
@pytest.mark.parametrize("sampler", ["exact", "float"])
def test_a_row_moves_its_own_group_only(sampler, delta):
    # group 0 is drawn first from the shared stream: changing one of its labels must leave group 1's release as it
    # was (the stream's draws depend on the public rates only), and move group 0's
    g, _, y, eps = _rows(80, 4)
    i = int(np.flatnonzero(g == 0)[0])
    other = y.copy()
    other[i] = -1.0 if y[i] > 0 else 1.0
    for seed in range(5):
        a = group_means(g, y, eps, seed, sampler=sampler, delta=delta)[1]
        b = group_means(g, other, eps, seed, sampler=sampler, delta=delta)[1]
        assert a[1] == b[1]
        assert a[0] != b[0]


def test_a_binary_feature_read_as_floats_is_the_same_column():
    g, _, y, eps = _rows(60, 8)
    assert list(group_means(g.astype(float), y, eps, 3, sampler="float")[1]) == list(
        group_means(g, y, eps, 3, sampler="float")[1])


def test_a_boolean_column_is_a_binary_one():
    g, _, y, eps = _rows(60, 6)
    values, means = group_means(g.astype(bool), y, eps, 3, sampler="float")
    assert list(values) == [False, True]
    assert list(means) == list(group_means(g, y, eps, 3, sampler="float")[1])


@pytest.mark.parametrize("args, error, match", [
    (dict(groups=[0, 1, 1]), ValueError, "groups has shape"),
    (dict(groups=[0.0, 0.5]), ValueError, r"groups\[1\] = 0.5 is not a whole number"),
    (dict(groups=[0.0, float("nan")]), ValueError, r"groups\[1\] = nan is not a whole number"),
    (dict(groups=["a", "b"]), TypeError, "groups must hold whole numbers or booleans"),
    (dict(y=[0.5, 1.5]), ValueError, r"y\[1\] = 1.5 is outside the allowed range \[-1, 1\]"),
    (dict(epsilons=[1.0, -1.0]), ValueError, r"^epsilons"),
    (dict(delta=1.0), ValueError, r"^delta"),
])
def test_bad_input_is_refused_by_name(args, error, match):
    kwargs = {"groups": [0, 1], "y": [0.5, -0.5], "epsilons": [1.0, 2.0], **args}
    with pytest.raises(error, match=match):
        group_means(kwargs.pop("groups"), kwargs.pop("y"), kwargs.pop("epsilons"), 0, **kwargs)


def test_the_loss_refuses_a_column_outside_the_features_and_sums_without_the_intercept():
    sums = _sums(*_split(seed=1))
    with pytest.raises(ValueError, match=r"column = 2 is outside the allowed range \[0, 1\]"):
        comparison.group_mean_loss(sums, 2)
    with pytest.raises(ValueError, match="gaussian=True needs the sums computed with delta"):
        comparison.group_mean_loss(sums, 0, gaussian=True)
    sums.intercept = False
    with pytest.raises(ValueError, match="intercept"):
        comparison.group_mean_loss(sums, 0)

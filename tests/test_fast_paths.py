"""The shortcuts that make the book's heaviest cells cheaper give the very numbers of the long way, bit for bit.

- :mod:`pdp_lib.curves` calls Boost's incomplete beta function through ``scipy.special.cython_special``
  instead of the ufunc, and remembers the profile at the points a root search has already evaluated;
- :func:`pdp_lib.replication.claim_numbers.draw_values` reads back the replicate sweeps that
  :func:`pdp_lib.experiments.reproduce_many` evaluated (:func:`pdp_lib.experiments.rebuild.kept_sweep`).
"""

import types

import numpy as np
import pytest
from scipy import special

from pdp_lib import curves
from pdp_lib.experiments import rebuild, reproduce_many
from pdp_lib.replication import claim_numbers

_UFUNCS = types.SimpleNamespace(betainc=lambda a, b, x: float(special.betainc(a, b, x)),
                                betaincc=lambda a, b, x: float(special.betaincc(a, b, x)))


def test_the_scalar_incomplete_beta_is_the_ufunc():
    rng = np.random.default_rng(0)
    for h in (0.5, 1.0, 2.5, 5.5, 14.5, 24.5, 199.5):
        for x in np.concatenate([rng.uniform(0.0, 1.0, 200), 10.0 ** rng.uniform(-300, -1, 50), [0.0, 0.5, 1.0]]):
            x = float(x)
            assert curves._betainc(h, h, x) == float(special.betainc(h, h, x))
            assert curves._scalar.betaincc(h, h, x) == float(special.betaincc(h, h, x))
    # other types go through the ufunc, which accepts them
    assert curves._betainc(2, 2, np.float32(0.3)) == float(special.betainc(2, 2, np.float32(0.3)))


CASES = [(0.2, 30, 0.26), (0.0101, 30, 0.013), (1.0, 12, 1.2), (0.05, 11, 0.07), (0.0, 5, 0.3), (20.0, 12, 40.0),
         (1e-12, 2, 3.1416028901354514e-05), (3.0, 200, 3.5), (0.7, 4, 0.7000001)]


@pytest.mark.parametrize("c, d, a", CASES)
def test_the_profile_is_the_same_through_the_ufuncs(monkeypatch, c, d, a):
    fast = curves._profile_terms(c, d, a)
    monkeypatch.setattr(curves, "_scalar", _UFUNCS)
    assert curves._profile_terms(c, d, a) == fast


def test_the_profile_takes_other_number_types(monkeypatch):
    # integers, NumPy's float64 and float32 (which the scalar routines refuse) as the ufuncs take them
    cases = ((0, 5, 1), (np.float64(0.3), 12, np.float64(0.5)), (np.float32(0.3), 12, np.float32(0.5)))
    fast = [curves._profile_terms(c, d, a) for c, d, a in cases]
    monkeypatch.setattr(curves, "_scalar", _UFUNCS)
    assert [curves._profile_terms(c, d, a) for c, d, a in cases] == fast
    assert all(np.isfinite(v).all() for v in fast)


def test_the_root_search_is_the_same_through_the_ufuncs(monkeypatch):
    fast = [curves.largest_loss_range(e, delta, d, guess=g)
            for e, delta, d, g in ((0.01, 1e-5, 30, None), (0.2, 1e-8, 12, 0.23), (1.0, 1e-5, 11, None))]
    monkeypatch.setattr(curves, "_scalar", _UFUNCS)
    slow = [curves.largest_loss_range(e, delta, d, guess=g)
            for e, delta, d, g in ((0.01, 1e-5, 30, None), (0.2, 1e-8, 12, 0.23), (1.0, 1e-5, 11, None))]
    assert fast == slow


@pytest.mark.parametrize("target", ["table-4", "figure-10"])
def test_draw_values_read_back_are_the_draws_evaluated_again(monkeypatch, target):
    kwargs = dict(runs=200, replicates=3, replicate_runs=30)
    results = reproduce_many([target], **kwargs)
    hits = []

    def counted(key):
        found = rebuild.kept_sweep(key)
        hits.append(found is not None)
        return found

    monkeypatch.setattr(claim_numbers, "kept_sweep", counted)
    read = claim_numbers.draw_values(results, [target], replicates=3, replicate_runs=30)
    assert hits and all(hits)                          # every replicate read back
    monkeypatch.setattr(claim_numbers, "kept_sweep", lambda key: None)
    again = claim_numbers.draw_values(results, [target], replicates=3, replicate_runs=30)
    for a, b in zip(read[target], again[target], strict=True):
        assert a.index.equals(b.index) and a.columns.equals(b.columns)
        assert np.array_equal(a.to_numpy(), b.to_numpy())      # bit for bit (no NaN in these draws)


def test_kept_sweeps_are_keyed_on_every_input_read_only_and_bounded(monkeypatch):
    monkeypatch.setattr(rebuild, "_SWEEPS", type(rebuild._SWEEPS)())
    monkeypatch.setattr(rebuild, "KEPT_SWEEPS", 3)
    reproduce_many(["table-4"], runs=50, replicates=3, replicate_runs=20)
    assert 0 < len(rebuild._SWEEPS) <= 3
    key = next(reversed(rebuild._SWEEPS))
    kept = rebuild.kept_sweep(key)
    assert not kept.lams.flags.writeable and not any(v.flags.writeable for v in kept.mean.values())
    dataset, profile, fraction, seed, rep, vary, lams, runs, methods, B = key
    base = dict(seed=seed, replicate=rep, vary_split=vary, lams=lams, runs=runs, methods=methods, B=B)
    assert rebuild.sweep_key(dataset, profile, fraction, **base) == key
    for change in (dict(seed=seed + 1), dict(replicate=rep + 1), dict(vary_split=not vary), dict(lams=lams[:-1]),
                   dict(runs=runs + 1), dict(methods=methods[:-1]), dict(B="sharp")):
        assert rebuild.kept_sweep(rebuild.sweep_key(dataset, profile, fraction, **{**base, **change})) is None

"""The mechanism registry (pdp_lib.mechanisms.registry): one list, one check of the parameters' combinations, and the
three front ends (``fit --mechanism``, ``PersonalizedRidge(mechanism=)``, ``compare``) held to it."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from pdp_lib import cli
from pdp_lib.formatting import sig
from pdp_lib.estimator import NoiseWarning, PersonalizedRidge
from pdp_lib.io import comparison, streaming
from pdp_lib.mechanisms import registry
from pdp_lib.mechanisms.release import Release


def _fit_parser():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["fit"]


def test_the_command_line_offers_the_registry_and_nothing_else():
    mechanism = next(a for a in _fit_parser()._actions if a.dest == "mechanism")
    assert tuple(mechanism.choices) == registry.MECHANISMS and mechanism.default == registry.MECHANISMS[0]
    for name in registry.MECHANISMS:
        assert f"'{name}'" in mechanism.help


def test_the_estimator_fits_every_mechanism_of_the_registry_and_refuses_others():
    rng = np.random.default_rng(0)
    X, y, eps = rng.uniform(0, 1, (60, 2)), rng.uniform(-1, 1, 60), rng.choice([0.5, 1.0], 60)
    for name, entry in registry.REGISTRY.items():
        kwargs = {"mechanism": name, "random_state": 1}
        if entry.takes_lam:
            kwargs["lam"] = 1.0
        if entry.needs_intercept:
            kwargs["fit_intercept"] = True
        if entry.needs_delta:
            kwargs.update(delta=1e-5, noise="gaussian")
        if not entry.exact:
            kwargs["sampler"] = "float"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseWarning)      # 60 rows: the release may be mostly noise
            model = PersonalizedRidge(**kwargs).fit(X, y, eps)
        assert model.coef_.shape == (2,) and np.all(np.isfinite(model.coef_))
    with pytest.raises(ValueError, match=r"mechanism = 'laplace' is not allowed; use one of output, ssp, gd, objective, "
                                         r"mean, auto"):
        PersonalizedRidge(mechanism="laplace").fit(X, y, eps)


def test_compare_reports_every_mechanism_of_the_registry():
    rows = [row for entry in registry.REGISTRY.values() for row in entry.compare_rows]
    assert len(rows) == len(set(rows))                       # a row belongs to one mechanism
    assert set(rows) <= set(comparison.METHODS)
    assert set(comparison.METHODS) == set(rows) | set(comparison.BASELINES)
    assert not set(rows) & set(comparison.BASELINES)


GRID = list(itertools.product(registry.MECHANISMS, (None, 1e-5), (None, 5, 100_001), ("exact", "float"),
                              (1.0, "public", "auto", None), (None, "sharp"), (False, True)))


def _refusal(**kwargs):
    try:
        registry.check_combination(**kwargs)
    except ValueError as exc:
        return str(exc)
    return None


class _Reached(Exception):
    pass


def test_the_command_line_refuses_exactly_what_the_registry_refuses(tmp_path, monkeypatch, capsys):
    # every combination of mechanism, delta, steps, sampler, lam rule and bound: fit refuses before reading a row,
    # in the registry's words spelled as options, or reaches the release
    data = tmp_path / "d.csv"
    pd.DataFrame({"a": [0.1, 0.9], "y": [0.5, -0.5], "eps": [1.0, 1.0]}).to_csv(data, index=False)

    def reached(*args, **kwargs):
        raise _Reached

    monkeypatch.setattr(registry, "fit_sums", reached)
    refused = 0
    for mechanism, delta, steps, sampler, lam, bound, intercept in GRID:
        args = ["fit", str(data), "--label", "y", "--epsilon", "eps", "--mechanism", mechanism,
                "--sampler", sampler, "--out", str(tmp_path / "m.json")]
        args += [] if lam is None else ["--lam", str(lam)]
        args += [] if delta is None else ["--delta", str(delta)]
        args += [] if steps is None else ["--steps", str(steps)]
        args += [] if bound is None else ["--bound", bound]
        args += ["--intercept"] if intercept else []
        why = _refusal(name=mechanism, delta=delta, steps=steps, sampler=sampler, lam=lam, bound=bound,
                       intercept=intercept, flags=True)
        if why is None:                         # main reports the stand-in's exception in one line
            assert cli.main(args) == 1 and "internal error: _Reached" in capsys.readouterr().err
        else:
            refused += 1
            assert cli.main(args) == 2
            assert capsys.readouterr().err.strip() == f"python -m pdp_lib fit: error: {why}"
        assert not (tmp_path / "m.json").exists()
    assert 0 < refused < len(GRID)


@pytest.mark.parametrize("mechanism, delta, steps, sampler, lam, bound, intercept", GRID)
def test_the_library_refuses_exactly_what_the_registry_refuses(mechanism, delta, steps, sampler, lam, bound,
                                                                intercept):
    rng = np.random.default_rng(2)
    X, y, eps = rng.uniform(0, 1, (30, 2)), rng.uniform(-1, 1, 30), rng.choice([0.5, 1.0], 30)
    if intercept:
        X[:, -1] = 1.0                  # the intercept's feature, last, as streaming.accumulate appends it
    sums = streaming.Sums.zeros(2)
    sums.add(X, y, eps, None if delta is None else streaming.gaussian_weights(eps, delta))
    kwargs = dict(name=mechanism, delta=delta, steps=steps, sampler=sampler, lam=lam, bound=bound, intercept=intercept)
    why, said = _refusal(**kwargs), _refusal(**kwargs, flags=True)
    assert (why is None) == (said is None)
    if why is not None:
        with pytest.raises(ValueError) as exc:
            registry.fit_sums(sums, lam, B=bound, rng=3, sampler=sampler, mechanism=mechanism, delta=delta,
                              steps=steps, intercept=intercept)
        assert str(exc.value) == why
        return
    release = registry.fit_sums(sums, lam, B=bound, rng=3, sampler=sampler, mechanism=mechanism, delta=delta,
                                steps=steps, intercept=intercept)
    assert isinstance(release, Release)
    chosen = release.facts.get("choice")
    assert release.mechanism == (mechanism if mechanism != "auto" else chosen.mechanism)
    assert release.guarantee == ("pure" if delta is None else "approximate")
    assert release.theta.shape == (2,) and np.all(np.isfinite(release.theta))
    if release.lam is not None:
        assert f"lambda = {sig(release.lam, 6)}" in registry.fit_message(release)
    assert all(isinstance(w, str) and "\n" not in w for w in registry.fit_warnings(release))


def test_an_unknown_mechanism_is_refused_in_each_vocabulary():
    names = "output, ssp, gd, objective, mean, auto"
    assert _refusal(name="laplace") == f"mechanism = 'laplace' is not allowed; use one of {names}"
    assert _refusal(name=3, flags=True) == f"--mechanism = 3 is not allowed; use one of {names}"


def test_a_release_that_ignored_a_bound_would_be_refused_not_dropped():
    # before the registry, fit_sums(mechanism="ssp", B=...) dropped B silently
    sums = streaming.Sums.zeros(1)
    sums.add(np.array([[0.5]]), np.array([0.2]), np.array([1.0]))
    with pytest.raises(ValueError, match="bound applies to mechanism 'output' only: ssp takes no bound"):
        registry.fit_sums(sums, 1.0, B=2.0, mechanism="ssp", rng=0)

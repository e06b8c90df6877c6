"""Tests of pdp_lib.audit.floating_point: which outputs a centre can produce, bit for bit.

Truths used: a bisection over all 2**53 uniforms of the textbook sampler, the raw 64-bit words
of NumPy's bit generator replayed against its exponential draws, the library's own sampler fed
its own draws, and two outputs whose impossibility follows from how doubles add (a value far
below every radius the ziggurat gives, and the last bit of a sum of doubles of one binade).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdp_lib
from pdp_lib.audit import (
    exponential_ziggurat,
    library_reachability,
    textbook_laplace,
    textbook_reachable,
)
from pdp_lib.audit.floating_point import _library_outputs


def _gen(seed):
    return np.random.default_rng(np.random.SeedSequence(seed))


def _textbook_truth(o, theta, eta):
    """Reachability by bisection over k in [1, 2**53]: the sampler is monotone in k."""
    def cand(k, s):
        return theta + s * (-math.log(k * 2.0**-53) / eta)

    out = []
    for x in o:
        s = -1.0 if x < theta else 1.0
        lo, hi = 1, 2**53                     # s = 1: cand decreases in k; s = -1: increases
        while lo < hi:                        # smallest k with s * cand(k) <= s * x
            mid = (lo + hi) // 2
            if s * cand(mid, s) <= s * x:
                hi = mid
            else:
                lo = mid + 1
        out.append(any(1 <= k <= 2**53 and cand(k, s) == x for k in range(lo - 2, lo + 3)))
    return np.array(out)


@pytest.fixture(scope="module")
def zig():
    return exponential_ziggurat()


def test_textbook_sampler_is_laplace_and_reaches_its_own_outputs():
    o = textbook_laplace(0.5, 2.0, 20_000, _gen(1))
    assert abs(np.mean(np.abs(o - 0.5)) - 0.5) < 0.02          # E|Z| = 1 / eta
    assert textbook_reachable(o, 0.5, 2.0).all()


@pytest.mark.parametrize("theta, eta, shift", [(0.0, 1.0, 1e-6), (0.5, 1.0, 1e-3), (3.0, 0.1, 1.0),
                                               (1000.0, 1.0, 1e-6)])
def test_textbook_window_search_agrees_with_bisection(theta, eta, shift):
    o = textbook_laplace(theta, eta, 1500, _gen(2))
    assert np.array_equal(textbook_reachable(o, theta + shift, eta),
                          _textbook_truth(o, theta + shift, eta))


def test_ziggurat_widths_reproduce_numpy_exponential_draws(zig):
    assert zig.widths.shape == (256,) and np.all(zig.widths > 0)
    assert zig.tail_start == pytest.approx(7.69711747013104972, rel=1e-15)   # x_R of NumPy
    bits, probe = np.random.PCG64(123), np.random.PCG64()     # a seed the widths were not read from
    gen = np.random.Generator(bits)
    checked = 0
    for _ in range(3000):
        probe.state = bits.state
        word = int(probe.random_raw())
        x = gen.standard_exponential()
        if bits.state == probe.state:                          # one word: the fast path
            idx, ri = (word >> 3) & 0xFF, word >> 11
            assert float(ri) * zig.widths[idx] == x
            checked += 1
    assert checked > 2900


def test_gamma_of_shape_one_is_the_scaled_exponential():
    a = _gen(3).gamma(1.0, 1 / 3.7, 10_000)
    b = (1 / 3.7) * _gen(3).standard_exponential(10_000)
    assert np.array_equal(a, b)


def test_library_arithmetic_is_the_samplers():
    gen, copy = _gen(4), _gen(4)
    eta, theta = 2.3, 0.37
    o = theta + pdp_lib.sample_l2_laplace(eta, 1, 5000, rng=gen)[:, 0]
    e = copy.standard_exponential(5000)
    g = copy.standard_normal((5000, 1))[:, 0]
    assert np.array_equal(_library_outputs(theta, eta, e, g), o)
    assert np.array_equal(np.linalg.norm(g[:, None], axis=1), np.abs(g))


@pytest.mark.parametrize("theta, eta", [(0.0, 1.0), (0.5, 0.1), (-3.0, 3.7), (1000.0, 10.0)])
def test_library_outputs_are_never_ruled_out_from_their_own_centre(zig, theta, eta):
    gen = _gen(5)
    normals = gen.standard_normal(64)
    o = theta + pdp_lib.sample_l2_laplace(eta, 1, 20_000, rng=gen)[:, 0]
    r = library_reachability(o, theta, eta, normals, zig)
    assert not r.ruled_out.any()
    assert r.undecided.mean() < 0.001
    tail = np.abs(o - theta) * eta > zig.tail_start * 1.01      # draws from the ziggurat's tail
    assert tail.sum() > 2 and r.witnessed[tail].all()


def test_library_rules_out_what_no_sum_of_doubles_gives(zig):
    gen = _gen(6)
    normals = gen.standard_normal(64)
    o = 0.5 + pdp_lib.sample_l2_laplace(1.0, 1, 20_000, rng=gen)[:, 0]
    # in (-1, -0.5) the output 0.5 + z, z a double of [1, 2), is an even multiple of 2**-53;
    # from 0.5 + 2**-53 every output there is an odd multiple
    band = (o > -1) & (o < -0.5)
    assert band.sum() > 1000
    r = library_reachability(o[band], np.nextafter(0.5, 1.0), 1.0, normals, zig)
    assert r.ruled_out.all() and r.by_sum.all()
    tiny = library_reachability([1e-300, 0.5], 0.0, 1.0, normals, zig)
    assert tiny.ruled_out.tolist() == [True, False] and tiny.witnessed.tolist() == [False, True]


def test_verdicts_are_exclusive_and_validated(zig):
    r = library_reachability([0.1, -0.2, 0.0], 0.0, 1.0, [0.3, -1.2], zig)
    assert not (r.witnessed & r.ruled_out).any() and not (r.by_sum & ~r.ruled_out).any()
    with pytest.raises(ValueError):
        library_reachability([0.1], 0.0, -1.0, [0.3], zig)
    with pytest.raises(ValueError):
        textbook_laplace(0.0, 0.0, 10)


def _witness_noise_reference(oo, cc, eta, zig, normals, spread):
    """Every (noise value, radius, e) candidate tried one at a time, no row skipped: the plain search."""
    from pdp_lib.audit.floating_point import _accepted, _addition, _ladder
    scale = 1.0 / eta
    z, hit, _ = _addition(oo, cc, 4)
    found = np.zeros(oo.shape, bool)
    for j in range(z.shape[1]):
        for radius in _ladder(z[:, j], 3, 3).T:
            for e in _ladder(radius / scale, 3, 3).T:
                rows = np.flatnonzero(hit[:, j] & (scale * e == radius))
                rows = rows[_accepted(e[rows], zig, spread)]
                out = _library_outputs(cc[rows, None], eta, np.broadcast_to(e[rows, None],
                                       (rows.size, normals.size)), normals)
                found[rows] |= np.any(out == oo[rows, None], axis=1)
    return found


def _unreachable_radii_reference(radius, eta, zig, spread):
    """Each of the seven values e near radius / scale tested whether or not it gives the radius."""
    from pdp_lib.audit.floating_point import _ladder, _unreachable_standard
    scale = 1.0 / eta
    e = _ladder(radius / scale, 3, 3)
    image = scale * e
    out = (image[..., 0] < radius) & (image[..., -1] > radius)
    for k in range(e.shape[-1]):
        out &= (image[..., k] != radius) | _unreachable_standard(e[..., k], zig, spread)
    return out


@pytest.mark.parametrize("theta, eta, shift", [(0.0, 1.0, 1e-6), (3.0, 0.1, 0.0), (1000.0, 10.0, 1.0),
                                               (0.5, 2.3, 2.0**-52)])
def test_the_searches_skip_only_candidates_that_cannot_decide(zig, theta, eta, shift):
    # the searches skip rows already witnessed and values e that do not give the radius: the verdicts are
    # those of trying every candidate
    from pdp_lib.audit.floating_point import _ladder, _unreachable_radii, _witness_noise
    gen = _gen(11)
    normals = np.abs(gen.standard_normal(32))
    o = theta + pdp_lib.sample_l2_laplace(eta, 1, 600, rng=gen)[:, 0]
    c = np.full(o.shape, theta + shift)
    sign = np.where(o < c, -1.0, 1.0)
    oo, cc = sign * o, sign * c
    found = _witness_noise(oo, cc, eta, zig, normals, 2)
    assert found.any() and np.array_equal(found, _witness_noise_reference(oo, cc, eta, zig, normals, 2))
    radii = _ladder(np.abs(o - c), 7, 7)
    unreachable = _unreachable_radii(radii, eta, zig, 2)
    assert unreachable.any() and not unreachable.all()
    assert np.array_equal(unreachable, _unreachable_radii_reference(radii, eta, zig, 2))

r"""Which outputs a centre can produce, bit for bit: floating-point audits of samplers in d = 1.

The privacy proofs treat the noise as a real random variable.  A computer's sampler maps a
finite set of random bits to a finite set of doubles, and the set of outputs
``fl(theta + noise)`` it can reach depends on the centre ``theta``.  An output that one
centre can produce and a neighbouring centre cannot rules the second out with certainty
(Mironov, CCS 2012).  This module decides, for outputs in one dimension, whether a given
centre can produce them:

* :func:`textbook_laplace` and :func:`textbook_reachable`: the textbook inverse-CDF Laplace
  sampler ``theta + s (-log U) / eta``, ``U`` uniform on the multiples of ``2**-53`` in
  ``(0, 1]``, and an exact search over the uniforms that could explain an output;
* :func:`exponential_ziggurat` and :func:`library_reachability`: the sampler of
  :func:`pdp_lib.sample_l2_laplace` in ``d = 1``, ``Z = G (R / |G|)`` with ``R`` from
  ``numpy.random.Generator.gamma(1, 1/eta)`` (NumPy's exponential ziggurat, scaled) and
  ``G`` standard normal.  The widths of the ziggurat's layers are read off the installed
  NumPy by replaying single draws against their raw 64-bit words.

Logarithms and exponentials of the textbook sampler are computed with :mod:`math` (the C
library), element by element, so its draws and the audit's verdicts do not depend on which
SIMD kernel NumPy dispatches for ``numpy.log``.  Used in the book's chapter *What the
guarantee does not cover* (``book/limits.ipynb``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..mechanisms.output_perturbation import sample_l2_laplace_unchecked
from ..validation import check_count, check_finite, check_positive, check_rng

__all__ = [
    "textbook_laplace",
    "textbook_reachable",
    "ExponentialZiggurat",
    "exponential_ziggurat",
    "Reachability",
    "library_reachability",
]

_TWO53 = 2.0**53
_Z_STEPS = 3  # |g| fl(R / |g|) lies within 3 doubles of R (2.5 units of 2**-53, relative)


def _elementwise(func, x: np.ndarray) -> np.ndarray:
    flat = np.asarray(x, dtype=float).ravel()
    return np.fromiter(map(func, flat.tolist()), dtype=float, count=flat.size).reshape(np.shape(x))


def textbook_laplace(theta, eta, size, rng=None) -> np.ndarray:
    r"""Draws of the textbook Laplace sampler ``theta + s (-log U) / eta`` in one dimension.

    ``U = 1 - V`` with ``V`` from ``Generator.random`` (a multiple of ``2**-53`` in ``[0, 1)``),
    so ``U`` is a multiple of ``2**-53`` in ``(0, 1]``; the sign ``s`` is ``-1`` or ``1`` with
    probability one half each, from a second uniform.  Over the real numbers this is the
    Laplace distribution with density ``(eta / 2) exp(-eta |o - theta|)``.

    Parameters
    ----------
    theta : float
        The centre.
    eta : float
        ``eta > 0``.
    size : int
        Number of draws.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of shape (size,)
    """
    theta = float(check_finite([theta], "theta", ndim=(1,))[0])
    eta = check_positive(eta, "eta")
    size = check_count(size, "size")
    gen = check_rng(rng)
    u = 1.0 - gen.random(size)
    s = np.where(gen.random(size) < 0.5, -1.0, 1.0)
    return theta + s * (-_elementwise(math.log, u) / eta)


def textbook_reachable(outputs, theta, eta, window=4) -> np.ndarray:
    r"""Whether the textbook sampler centred at ``theta`` can output each value exactly.

    For an output ``o`` the uniform that explains it over the reals is
    ``exp(-eta |o - theta|)``; the sampler's uniform is a multiple ``k 2**-53``.  The search
    tries every ``k`` within ``window`` of ``round(exp(-eta |o - theta|) 2**53)`` and asks
    whether ``theta + s (-log(k 2**-53)) / eta`` reproduces ``o`` bit for bit, with ``s`` the
    sign of ``o - theta``.  The sampler's output is a monotone function of ``k``, and the
    ``k`` that produce ``o`` lie within a few units of that rounded inverse, so four is ample;
    ``tests/test_floating_point.py`` checks the search against a bisection over all ``2**53``
    uniforms.

    Parameters
    ----------
    outputs : array-like of shape (m,)
    theta, eta : float
        Centre and ``eta > 0`` of the sampler asked about.
    window : int, default 4

    Returns
    -------
    numpy.ndarray of bool, shape (m,)
    """
    o = check_finite(outputs, "outputs", ndim=(1,))
    theta = float(check_finite([theta], "theta", ndim=(1,))[0])
    eta = check_positive(eta, "eta")
    y = o - theta
    s = np.where(y < 0, -1.0, 1.0)
    k0 = np.round(_elementwise(math.exp, -np.abs(y) * eta) * _TWO53)
    ok = np.zeros(o.shape, bool)
    for dk in range(-int(window), int(window) + 1):
        k = k0 + dk
        valid = (k >= 1) & (k <= _TWO53)
        cand = theta + s * (-_elementwise(math.log, np.where(valid, k, 1.0) * 2.0**-53) / eta)
        ok |= valid & (cand == o)
    return ok


@dataclass(frozen=True)
class ExponentialZiggurat:
    """The layers of NumPy's exponential ziggurat, as read off the installed NumPy.

    A draw of ``Generator.standard_exponential`` takes one 64-bit word ``r``, the layer
    ``idx = (r >> 3) & 255`` and the integer ``ri = r >> 11 < 2**53``, and returns
    ``ri * widths[idx]`` if ``ri`` is below the layer's threshold (otherwise a wedge test or,
    in layer 0, the tail ``x_R - log1p(-U)``, ``x_R = 2**53 widths[255]``).

    Attributes
    ----------
    widths : numpy.ndarray of shape (256,)
        ``we_double`` of NumPy's ``ziggurat_constants.h``.
    reach : numpy.ndarray of shape (256,)
        The largest ``ri`` seen accepted in each layer: every ``ri`` up to it is accepted
        too (the fast path and the wedge test both accept smaller values of ``ri * width``).
    samples : int
        Number of draws the widths were solved from and the tail was checked on.
    """

    widths: np.ndarray
    reach: np.ndarray
    samples: int

    @property
    def tail_start(self) -> float:
        """``x_R = 2**53 widths[255]``, where layer 0's tail starts (its draws are ``>= x_R``)."""
        return float(self.widths[1:].max() * _TWO53)


def _tail_values(k, x_r):
    """NumPy's tail draw ``x_R - log1p(-U)`` for ``U = k 2**-53`` (with the C library's log1p)."""
    return x_r - _elementwise(math.log1p, -np.asarray(k, dtype=float) * 2.0**-53)


def _tail_search(e, zig, spread):
    """For values ``e >= x_R``: whether some uniform gives ``e`` exactly as a tail draw, and whether
    the searched uniforms bracket ``e`` (the tail draw is monotone in the uniform)."""
    k0 = np.rint(-_elementwise(math.expm1, zig.tail_start - e) * _TWO53)
    lo, hi = np.clip(k0 - spread, 0, _TWO53 - 1), np.clip(k0 + spread, 0, _TWO53 - 1)
    hit = np.zeros(e.shape, bool)
    for dk in range(-spread, spread + 1):
        hit |= _tail_values(np.clip(k0 + dk, 0, _TWO53 - 1), zig.tail_start) == e
    bracket = (((lo == 0) | (_tail_values(lo, zig.tail_start) < e))
               & ((hi == _TWO53 - 1) | (_tail_values(hi, zig.tail_start) > e)))
    return hit, bracket


def _replay(draws: int, seed: int):
    bits = np.random.PCG64(seed)
    gen = np.random.Generator(bits)
    probe = np.random.PCG64()
    seen, tail = {}, []
    for _ in range(draws):
        probe.state = bits.state
        raw = int(probe.random_raw())
        one = probe.state["state"]
        second = int(probe.random_raw())
        two = probe.state["state"]
        x = gen.standard_exponential()
        used = bits.state["state"]
        idx, ri = (raw >> 3) & 0xFF, raw >> 11
        # one word: the fast path; two words outside layer 0: the wedge test accepted ri;
        # two words in layer 0: the tail, x_R - log1p(-U) with U from the second word
        if used == one or (used == two and idx != 0):
            seen.setdefault(idx, []).append((ri, x))
        elif used == two:
            tail.append((second >> 11, x))
    return seen, tail


@lru_cache(maxsize=4)
def exponential_ziggurat(draws=50_000, seed=0) -> ExponentialZiggurat:
    """Read the widths of NumPy's exponential ziggurat off ``draws`` single draws.

    Each draw is replayed against its raw words from a copy of the bit generator; for the
    draws that return ``ri * widths[idx]`` the width is the one double ``w`` with
    ``ri * w == x`` for every such draw of the layer, and every tail draw must be
    ``x_R - log1p(-U)`` exactly.  Raises ``RuntimeError`` if a layer is never seen, its width
    is not pinned down to one double, or a tail draw does not match, which would mean that
    NumPy's algorithm is not the one described in :class:`ExponentialZiggurat`.

    Parameters
    ----------
    draws : int, default 50000
    seed : int, default 0

    Returns
    -------
    ExponentialZiggurat
    """
    draws = check_count(draws, "draws")
    seen, tail = _replay(draws, int(seed))
    widths, reach = np.zeros(256), np.full(256, -1, dtype=np.int64)
    for idx in range(256):
        if idx not in seen:
            raise RuntimeError(f"layer {idx} of the ziggurat was not seen in {draws} draws")
        ri = np.array([r for r, _ in seen[idx]], dtype=np.int64)
        x = np.array([v for _, v in seen[idx]])
        j = int(np.argmax(ri))
        guess = x[j] / float(ri[j])
        cands = [guess]
        lo = hi = guess
        for _ in range(16):
            lo, hi = np.nextafter(lo, 0.0), np.nextafter(hi, np.inf)
            cands += [lo, hi]
        fits = [w for w in cands if np.all(ri.astype(float) * w == x)]
        if len(fits) != 1:
            raise RuntimeError(f"layer {idx}: {len(fits)} widths fit its {ri.size} draws")
        widths[idx], reach[idx] = fits[0], ri.max()
    widths.setflags(write=False)
    reach.setflags(write=False)
    zig = ExponentialZiggurat(widths=widths, reach=reach,
                              samples=sum(map(len, seen.values())) + len(tail))
    k = np.array([k for k, _ in tail], dtype=float)
    if not tail or not np.array_equal(_tail_values(k, zig.tail_start), [x for _, x in tail]):
        raise RuntimeError(f"the {len(tail)} tail draws are not x_R - log1p(-U)")
    return zig


class _Draws:
    """Stands in for a Generator: hands ``sample_l2_laplace_unchecked`` chosen radii and normals."""

    def __init__(self, standard, normals):
        self._standard, self._normals = standard, normals

    def gamma(self, shape, scale, size):
        return scale * self._standard      # numpy: scale * standard_gamma(1) = scale * exponential

    def standard_normal(self, shape):
        return self._normals.reshape(shape)


def _library_outputs(theta, eta, standard, g):
    """``theta + Z`` as the library computes it in d = 1, for chosen ``E`` and ``G``."""
    standard = np.asarray(standard, dtype=float)
    normals = np.broadcast_to(g, standard.shape).astype(float).ravel()
    z = sample_l2_laplace_unchecked(eta, 1, standard.size, _Draws(standard.ravel(), normals))[:, 0]
    return theta + z.reshape(standard.shape)


@dataclass(frozen=True)
class Reachability:
    """Verdicts of :func:`library_reachability`, one per output.

    Attributes
    ----------
    witnessed : numpy.ndarray of bool
        The centre produces the output: a radius the ziggurat accepts and a normal draw
        were found that reproduce it bit for bit through the library's arithmetic.
    ruled_out : numpy.ndarray of bool
        The centre cannot produce the output, whatever the random bits.
    by_sum : numpy.ndarray of bool
        Ruled out by the last addition alone: no double ``z`` at all gives
        ``fl(theta + z) == o``, whatever the sampler.
    """

    witnessed: np.ndarray
    ruled_out: np.ndarray
    by_sum: np.ndarray

    @property
    def undecided(self) -> np.ndarray:
        """Neither witnessed nor ruled out."""
        return ~(self.witnessed | self.ruled_out)


def _finest(zig, e, count):
    """For each value ``e``, the ``count`` finest layers whose accepted range reaches it."""
    order = np.argsort(zig.widths)
    cap = np.maximum.accumulate((zig.reach * zig.widths)[order])
    first = np.searchsorted(cap, e)
    return order[np.minimum(first[:, None] + np.arange(count), 255)]


def _witness(oo, cc, eta, zig, normals, spread):
    """Rows of ``oo`` that ``cc`` reproduces with an accepted ``ri`` near the inverse, in the
    three finest layers that reach it: the quick search, over all outputs."""
    layers = _finest(zig, (oo - cc) * eta, 3)
    w = zig.widths[layers]
    ri0 = np.rint((oo - cc)[:, None] * eta / w)
    hit = np.zeros(oo.shape, bool)
    for dr in range(-spread, spread + 1):
        ri = ri0 + dr
        ok = (ri >= 0) & (ri <= zig.reach[layers])
        standard = np.where(ok, ri, 0.0) * w
        for g in normals:
            out = _library_outputs(cc[:, None], eta, standard, g)
            hit |= np.any(ok & (out == oo[:, None]), axis=1)
    return hit


def _accepted(e, zig, spread):
    """Whether an accepted ``ri`` of some layer gives ``fl(ri w) == e``, or a tail draw ``e``."""
    w = zig.widths
    ri0 = np.rint(e[:, None] / w)
    ok = np.zeros(e.shape, bool)
    for dr in range(-spread, spread + 1):
        ri = ri0 + dr
        ok |= np.any((ri >= 0) & (ri <= zig.reach) & (ri * w == e[:, None]), axis=1)
    far = e >= zig.tail_start
    ok[far] |= _tail_search(e[far], zig, spread)[0]
    return ok


def _witness_noise(oo, cc, eta, zig, normals, spread):
    """Rows of ``oo`` that ``cc`` reproduces, searched from the noise values that round to them:
    radii within three doubles of each, values ``e`` that give the radius, then every ``g``."""
    scale = 1.0 / eta
    z, hit, _ = _addition(oo, cc, 4)
    found = np.zeros(oo.shape, bool)
    for j in np.flatnonzero(hit.any(axis=0)):
        for radius in _ladder(z[:, j], _Z_STEPS, _Z_STEPS).T:
            for e in _ladder(radius / scale, 3, 3).T:
                rows = np.flatnonzero(hit[:, j] & ~found & (scale * e == radius))
                if rows.size == 0:
                    continue
                rows = rows[_accepted(e[rows], zig, spread)]
                standard = np.broadcast_to(e[rows, None], (rows.size, normals.size))
                out = _library_outputs(cc[rows, None], eta, standard, normals)
                found[rows] |= np.any(out == oo[rows, None], axis=1)
    return found


def _ladder(x, below, above):
    """The doubles from ``below`` steps under ``x`` to ``above`` steps over it, on a last axis."""
    down, up, lo, hi = [], [], x, x
    for _ in range(below):
        lo = np.nextafter(lo, -np.inf)
        down.append(lo)
    for _ in range(above):
        hi = np.nextafter(hi, np.inf)
        up.append(hi)
    return np.stack(down[::-1] + [x] + up, axis=-1)


def _addition(oo, cc, steps):
    """Noise values ``z`` near ``oo - cc``, which of them give ``fl(cc + z) == oo``, and whether
    the ladder brackets ``oo`` (then no ``z`` outside it does: the sum is monotone in ``z``)."""
    z = _ladder(oo - cc, steps, steps)
    total = cc[:, None] + z
    return z, total == oo[:, None], (total[:, 0] < oo) & (total[:, -1] > oo)


def _unreachable_standard(e, zig, spread):
    """Values ``e`` that no ``ri`` of any layer gives as ``fl(ri w)`` (a sound test)."""
    w = zig.widths
    x = e[..., None]
    ri0 = np.rint(x / w)
    lo, hi = np.clip(ri0 - spread, 0, _TWO53 - 1), np.clip(ri0 + spread, 0, _TWO53 - 1)
    hit = np.zeros(ri0.shape, bool)
    for dr in range(-spread, spread + 1):
        hit |= np.clip(ri0 + dr, 0, _TWO53 - 1) * w == x
    # fl(ri w) is monotone in ri: the ends of [lo, hi] must bracket the value
    open_ends = ((lo > 0) & (lo * w >= x)) | ((hi < _TWO53 - 1) & (hi * w <= x))
    unreachable = ~np.any(hit | open_ends, axis=-1)
    far = e >= zig.tail_start
    found, bracket = _tail_search(e[far], zig, spread)
    unreachable[far] &= bracket & ~found
    return unreachable


def _unreachable_radii(radius, eta, zig, spread):
    """Radii that no value ``e`` of the ziggurat gives as ``fl(fl(1/eta) e)`` (a sound test)."""
    scale = 1.0 / eta
    e = _ladder(radius / scale, 3, 3)
    image = scale * e
    bracket = (image[..., 0] < radius) & (image[..., -1] > radius)   # monotone in e
    exact = image == radius[..., None]            # only these values of e give the radius
    none_gives = np.ones(e.shape, bool)
    none_gives[exact] = _unreachable_standard(e[exact], zig, spread)
    return bracket & np.all(none_gives, axis=-1)


def _rule_out_radii(oo, cc, eta, zig, spread):
    """Rows of ``oo`` for which every noise value that rounds to it lies more than three doubles
    away from every radius the ziggurat can give."""
    z, hit, bracket = _addition(oo, cc, _Z_STEPS + 1)
    radii = _ladder(z[:, _Z_STEPS + 1], 2 * _Z_STEPS + 1, 2 * _Z_STEPS + 1)
    near = np.zeros(radii.shape, bool)            # radius k is within three doubles of a hit
    for k in range(2 * _Z_STEPS + 1):
        near[:, k:k + hit.shape[1]] |= hit
    return bracket & np.all(~near | _unreachable_radii(radii, eta, zig, spread), axis=1)


def library_reachability(outputs, theta, eta, normals, ziggurat=None, spread=2,
                         block=2048) -> Reachability:
    r"""Whether :func:`pdp_lib.sample_l2_laplace` centred at ``theta`` can output each value, d = 1.

    In one dimension the library's output is ``fl(theta + fl(g fl(R / |g|)))`` with
    ``R = fl(fl(1/eta) E)``, ``E = fl(ri widths[idx])`` a value of NumPy's exponential
    ziggurat (:class:`ExponentialZiggurat`) and ``g`` a standard normal draw.  For each output
    ``o`` the verdict is one of:

    * *witnessed*: an accepted ``ri`` and a ``g`` of ``normals`` reproduce ``o`` bit for bit
      through the library's own code (:func:`pdp_lib.mechanisms.output_perturbation.sample_l2_laplace_unchecked`, fed the
      chosen draws, then ``theta +``); searched first near the inverse in the three finest
      layers, then from every noise value that rounds to ``o``;
    * *ruled out*: either no double ``z`` at all gives ``fl(theta + z) == o``, or every such
      ``z`` is more than three doubles away from every radius ``R`` that some ``ri`` of some
      layer gives (``|g| fl(R / |g|)`` is within ``2.5 * 2**-53`` of ``R``, relative, hence
      within three doubles).  Each map (``z -> fl(theta + z)``, ``E -> fl(E / eta)``,
      ``ri -> fl(ri w)``) is monotone, so a search is complete once the ends of its range
      bracket the target; an unbracketed search never rules out.  All ``2**53`` values of
      ``ri`` count in every layer, accepted or not, and every uniform counts in the tail
      ``x_R - log1p(-U)`` of layer 0, so the test is sound;
    * *undecided* otherwise.

    Parameters
    ----------
    outputs : array-like of shape (m,)
    theta : float
        The centre asked about.
    eta : float
        ``eta > 0``.
    normals : array-like
        Standard normal draws tried as ``g`` (values the generator has produced; the first
        three in the quick search over all outputs, all of them afterwards).
    ziggurat : ExponentialZiggurat, optional
        Defaults to :func:`exponential_ziggurat` ``()``.
    spread : int, default 2
        Values of ``ri`` tried on either side of the inverse in each layer.
    block : int, default 2048
        Outputs tested together in the last, most expensive step.

    Returns
    -------
    Reachability
    """
    o = check_finite(outputs, "outputs", ndim=(1,))
    theta = float(check_finite([theta], "theta", ndim=(1,))[0])
    eta = check_positive(eta, "eta")
    g = np.abs(check_finite(normals, "normals", ndim=(1,)))
    zig = exponential_ziggurat() if ziggurat is None else ziggurat
    sign = np.where(o < theta, -1.0, 1.0)   # fl(theta - z) = -fl(-theta + z): mirror to z >= 0
    oo, cc = sign * o, sign * theta
    witnessed = (o == theta) | _witness(oo, cc, eta, zig, g[:3], spread)
    ruled_out = np.zeros(o.shape, bool)
    rest = np.flatnonzero(~witnessed)
    _, hit, bracket = _addition(oo[rest], cc[rest], 4)
    by_sum = np.zeros(o.shape, bool)
    by_sum[rest] = bracket & ~hit.any(axis=1)        # no double at all adds up to the output
    ruled_out |= by_sum
    rest = np.flatnonzero(~witnessed & ~ruled_out)
    witnessed[rest] = _witness_noise(oo[rest], cc[rest], eta, zig, g, spread)
    rest = np.flatnonzero(~witnessed & ~ruled_out)
    for start in range(0, rest.size, block):
        rows = rest[start:start + block]
        ruled_out[rows] = _rule_out_radii(oo[rows], cc[rows], eta, zig, spread)
    return Reachability(witnessed=witnessed, ruled_out=ruled_out, by_sum=by_sum)

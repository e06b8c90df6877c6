"""The random draws of an experiment: data, split, training subset, privacy profile, seeds.

Section 4 of the paper: the synthetic data have ``d = 30``, ``n = 100``, ``sigma = 0``
(``theta*`` uniform on the sphere, ``x`` uniform on ``[0, 1]^d``); the Medical Cost data are
used in full; both are split 80/20 by ``train_test_split(test_size=0.2, random_state=21)``;
Tables 11-12 keep a fraction of the training set (``training_subset``, seed 21); the privacy
levels are drawn once per table and sweep point (Section 4, "Choice of Privacy Budgets").

Seeding.  Every draw comes from ``SeedSequence(seed)`` through an explicit *spawn key* that
names what is drawn: ``(dataset, replicate, part, ...)``.  ``SeedSequence(seed,
spawn_key=k)`` is exactly the child that ``SeedSequence(seed).spawn`` would produce at that
position, so draws are independent streams of one root; naming them (rather than counting
them) makes each draw independent of which other tables are rebuilt in the same call, so
that Tables 1, 3 and 13 -- one run of the authors -- share their data and profile here too.

Replicate 0 is "the draw made from ``--seed``" with the paper's split seed 21; replicates
``1, 2, ...`` redraw the synthetic data (split seed kept: the points are exchangeable) or the
Medical Cost split and training subset, and every profile and sampling mask.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..datasets import load_diabetes, load_medical_cost, make_synthetic, train_test_split, training_subset
from ..profiles import ProfileSpec, privacy_profile
from ..validation import check_count

__all__ = [
    "DATASETS",
    "SYNTHETIC_N",
    "SYNTHETIC_D",
    "SPLIT_SEED",
    "TEST_SIZE",
    "DataDraw",
    "seed_sequence",
    "draw_data",
    "training_points",
    "draw_profile",
    "profile_draws",
    "mask_seed",
    "mixture_seed",
]

DATASETS = ("synthetic", "medical_cost", "diabetes")  # the order names the spawn keys: append only
SYNTHETIC_N = 100
SYNTHETIC_D = 30
SPLIT_SEED = 21
TEST_SIZE = 0.2

_PART_DATA, _PART_SPLIT, _PART_SUBSET, _PART_PROFILE, _PART_MASKS, _PART_MIXTURE = range(6)


def _code(x: float) -> int:
    """A non-negative integer naming a parameter value (micro-units) inside a spawn key."""
    v = int(round(float(x) * 1_000_000))
    if v < 0:
        raise ValueError(f"parameter value {x!r} is outside the allowed range [0, inf)")
    return v


def _profile_key(spec: ProfileSpec) -> tuple:
    return tuple(_code(v) for v in (spec.f_c, spec.f_m, spec.eps_c, spec.eps_m, spec.eps_l))


def seed_sequence(seed: int, *key: int) -> np.random.SeedSequence:
    """The child of ``SeedSequence(seed)`` with spawn key ``key`` (non-negative integers)."""
    seed = check_count(seed, "seed", minimum=0)
    return np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key))


def _dataset_id(dataset: str) -> int:
    if dataset not in DATASETS:
        raise ValueError(f"dataset = {dataset!r} is not allowed; choose one of {DATASETS}")
    return DATASETS.index(dataset)


@dataclass(frozen=True)
class DataDraw:
    """One draw of data and split (Section 4).

    Attributes
    ----------
    dataset : str
    seed, replicate : int
    X_train, y_train, X_test, y_test : numpy.ndarray
    split_seed, subset_seed : int
        Seeds of the 80/20 split and of the training subsets (21 and 21 for replicate 0).
    """

    dataset: str
    seed: int
    replicate: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    split_seed: int
    subset_seed: int


@functools.lru_cache(maxsize=2)
def _real_arrays(dataset: str):
    data = load_medical_cost() if dataset == "medical_cost" else load_diabetes()
    X, y = data.X.copy(), data.y.copy()
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def _int_seed(seq: np.random.SeedSequence) -> int:
    return int(seq.generate_state(1, dtype=np.uint32)[0])


def draw_data(dataset: str, seed: int, replicate: int = 0, vary_split: bool = True) -> DataDraw:
    """Draw the data and the 80/20 split of ``dataset`` for replicate ``replicate``.

    ``"synthetic"``: :func:`pdp_lib.make_synthetic` with ``n = 100, d = 30, sigma = 0`` from
    the stream ``(0, replicate, 0)``, split with seed 21.  ``"medical_cost"`` and
    ``"diabetes"`` (data the paper never saw, :func:`pdp_lib.datasets.load_diabetes`): the full
    data; split seed 21 for replicate 0, else a seed drawn from the stream
    ``(dataset, replicate, 1)``.
    With ``vary_split=False`` every replicate keeps the paper's split (seed 21) and training
    subsets, so that only the privacy profile and the noise vary, as they did between the
    paper's run and this one.
    """
    ds = _dataset_id(dataset)
    replicate = check_count(replicate, "replicate", minimum=0)
    if dataset == "synthetic":
        gen = np.random.default_rng(seed_sequence(seed, ds, replicate, _PART_DATA))
        data = make_synthetic(SYNTHETIC_N, SYNTHETIC_D, sigma=0.0, rng=gen)
        X, y = data.X, data.y
        split_seed = subset_seed = SPLIT_SEED
    else:
        X, y = _real_arrays(dataset)
        if replicate == 0 or not vary_split:
            split_seed = subset_seed = SPLIT_SEED
        else:
            split_seed = _int_seed(seed_sequence(seed, ds, replicate, _PART_SPLIT))
            subset_seed = _int_seed(seed_sequence(seed, ds, replicate, _PART_SUBSET))
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=TEST_SIZE, seed=split_seed)
    return DataDraw(dataset=dataset, seed=int(seed), replicate=replicate, X_train=X_train,
                    y_train=y_train, X_test=X_test, y_test=y_test, split_seed=split_seed,
                    subset_seed=subset_seed)


def training_points(draw: DataDraw, fraction: float = 1.0):
    """The training points used at ``fraction`` of the training set (Tables 11-12): ``(X, y)``."""
    return training_subset(draw.X_train, draw.y_train, fraction, seed=draw.subset_seed)


def draw_profile(draw: DataDraw, spec: ProfileSpec, n: int) -> np.ndarray:
    """Privacy levels of ``n`` training points from ``spec`` (one draw per table and sweep point).

    The stream is named by the dataset, the replicate, ``n`` and the profile's parameters,
    so equal configurations in different tables get the same levels.
    """
    ds = _dataset_id(draw.dataset)
    gen = np.random.default_rng(
        seed_sequence(draw.seed, ds, draw.replicate, _PART_PROFILE, n, *_profile_key(spec)))
    return privacy_profile(n, spec, rng=gen)


def profile_draws(datasets, replicates: int, spec: ProfileSpec, seed: int):
    """``(dataset, replicate, draw, X, y, eps)`` for each dataset and replicate: the chapters' draws.

    Draw ``r`` of a dataset is :func:`draw_data` (its split redrawn for ``r > 0``, the synthetic data
    redrawn), its training points (:func:`training_points`) and their levels (:func:`draw_profile`).
    The chapters *Choosing λ* and *PDP-OP under approximate DP* compare their methods on these.
    """
    for dataset in datasets:
        for r in range(check_count(replicates, "replicates")):
            draw = draw_data(dataset, seed, r)
            X, y = training_points(draw)
            yield dataset, r, draw, X, y, draw_profile(draw, spec, X.shape[0])


def mask_seed(draw: DataDraw, spec: ProfileSpec, n: int) -> np.random.SeedSequence:
    """Seed of Jorgensen et al.'s sampling masks for this draw, profile and training size."""
    ds = _dataset_id(draw.dataset)
    return seed_sequence(draw.seed, ds, draw.replicate, _PART_MASKS, n, *_profile_key(spec))


def mixture_seed(draw: DataDraw, spec: ProfileSpec, n: int) -> np.random.SeedSequence:
    """Seed of the Jorgensen masks behind the exact fourth moments of this draw's losses
    (:func:`pdp_lib.experiments.mixtures.method_mixtures`), independent of :func:`mask_seed`."""
    ds = _dataset_id(draw.dataset)
    return seed_sequence(draw.seed, ds, draw.replicate, _PART_MIXTURE, n, *_profile_key(spec))

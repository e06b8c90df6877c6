r"""The model file: what ``python -m pdp_lib fit`` writes, reads back and predicts with.

:func:`model_record` holds the estimate, the calibration and the privacy statement (:func:`privacy_statement`:
the guarantee, the neighbouring relation, what is public, the theorem and its proof, the floating-point status,
the levels' public summary and the bounds), and nothing computed from the private features and labels besides
the estimate; :func:`write_model` and :func:`read_model` store and read it as JSON; :func:`predict_file` predicts
the label of every row of a table in the label's own units (post-processing: no privacy cost).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..mechanisms.lattice import NOISE_LAWS, noise_law
from ..mechanisms.registry import NEIGHBOURS, PUBLIC
from ..mechanisms.release import Release
from ..validation import check_count
from .public_bounds import Bounds
from .streaming import Sums
from .tables import CHUNK_ROWS, chunks, data_files, numbers, refuse

__all__ = ["PAPER", "THEOREM_TEXTS", "privacy_statement", "model_record", "write_model", "read_model", "predict_file",
           "library_version"]


PAPER = ("K. Acharya, F. Boenisch, R. Naidu and J. Ziani, Personalized Differential Privacy for Ridge Regression, "
         "arXiv:2401.17127 (2024)")
"""The paper whose theorems the model file cites."""

THEOREM_TEXTS = {
    "ssp-gaussian": "Proposition 'Personalized AdaSSP' with the shares (1/2, 1/2, 0) (no eigenvalue released) of the "
                    "book's chapter 'Beyond output perturbation': Gaussian noise on sum_i w_i x_i x_i^T and "
                    "sum_i w_i y_i x_i, w_i = mu*(epsilon_i, delta) / sum(mu*), then the ridge solved at lambda",
    "adassp": "Proposition 'Personalized AdaSSP' of the book's chapter 'Beyond output perturbation': Gaussian noise on "
              "the weighted sums and on their smallest eigenvalue, w_i = mu*(epsilon_i, delta) / sum(mu*), lambda "
              "chosen by Wang's rule from the release",
    "gd": "Proposition 'Personalized noisy gradient descent' with the lemma 'The gradient's sensitivity' of the book's "
          "chapter 'Beyond output perturbation': steps of full-batch projected gradient descent on the weighted "
          "ridge objective, each data gradient released with Gaussian noise, w_i = mu*(epsilon_i, delta) / sum(mu*)",
    "objective": "Proposition 'Personalized objective perturbation' of the book's chapter 'Beyond output "
                 "perturbation' (beyond the paper: the weighted ridge objective at the ridge in the field "
                 "objective_ridge, plus b . theta with b of density proportional to exp(-eta ||b||), minimized over "
                 "the ball of radius B (the field B, B(lambda) of Lemma A.1), w_i = epsilon_i / sum(epsilon))",
    "ssp": "Proposition 'Personalized SSP' with the lemma 'The statistics' sensitivities' of the book's chapter "
           "'Beyond output perturbation' (beyond the paper: noise on sum_i w_i x_i x_i^T and sum_i w_i y_i x_i, "
           "w_i = epsilon_i / sum(epsilon), then the ridge solved at lambda)",
    "mean": "Proposition 'The private mean' of the book's chapter 'Beyond output perturbation' (beyond the paper: the "
            "intercept-only model at sum_i w_i y_i, w_i = epsilon_i / sum(epsilon), released with Laplace noise of "
            "scale 2 / sum(epsilon) or more)",
    "mean-gaussian": "Proposition 'The private mean' of the book's chapter 'Beyond output perturbation' under "
                     "(epsilon_i, delta): the intercept-only model at sum_i w_i y_i, w_i = mu*(epsilon_i, delta) / "
                     "sum(mu*), released with Gaussian noise of standard deviation 2 / sum(mu*) or more",
    "3.1": "Theorem 3.1, with the norm bound B(lambda) = min(1/sqrt(lambda), sqrt(d)/lambda) of Lemma A.1",
    "3.2 with B*": "Theorem 3.2, with B = B*(lambda), the exact supremum of the weighted ridge solution's norm "
                   "over the domain (the book's chapter 'Sensitivity of the weighted ridge solution')",
}
"""The result each release's guarantee rests on, by :attr:`pdp_lib.mechanisms.release.Release.theorem`."""


SAMPLER_TEXT = {
    "exact": "exact lattice l2-Laplace: theta_bar solved exactly in rational arithmetic from the floating-point "
             "sums, rounded to the grid of step 2**-g, plus noise k on the integer lattice at rate "
             "t = eta' 2**-g, drawn from uniform bits with integer arithmetic only; its law: ",
    "float": "floating-point l2-Laplace: a Gamma(d, 1/eta) radius times a uniform direction",
}
"""What the model file says of each sampler; the exact one's law (:data:`pdp_lib.mechanisms.lattice.NOISE_LAWS`)
follows, named for the model's dimension by :func:`pdp_lib.mechanisms.lattice.noise_law`."""

FLOATING_POINT_TEXT = {
    "exact": "covered: the proof bounds every rounding of the sums for any summation order, solves the system "
             "exactly, and adds the grid's rounding to the sensitivity; the noise is exact on the grid, and the "
             "double written is a function of the grid point (the book's chapter 'What the guarantee does not "
             "cover', section 'A release that keeps its promise in floating point'); not covered: the running "
             "time: forming the sums and solving the system can take longer on some rows, and the noise "
             "sampler's time, independent of the rows, depends on the noise drawn, so time and model together "
             "can reveal the estimate before noise",
    "float": "the guarantee is proved for exact arithmetic; the noise here is drawn and added in floating point, "
             "which can leak beyond epsilon_i (Mironov, CCS 2012; the book's chapter 'What the guarantee does not "
             "cover' shows it for this sampler); chosen explicitly with --sampler float",
}

GAUSSIAN_FLOATING_POINT_TEXT = {
    "exact": "covered: the proof bounds every rounding of the sums for any summation order, computes each released "
             "statistic's (or each step's gradient's) centre exactly from the sums, and adds the grid's rounding to "
             "the sensitivity; the Gaussian noise is exact on the grid, and every double released is a function of "
             "a grid point; the solve and the steps' updates are post-processing of the released values (the "
             "book's chapter 'Beyond output perturbation'); not covered: the running time",
    "float": "the guarantee is proved for exact arithmetic; the Gaussian noise here is drawn and added in floating "
             "point, which can leak beyond (epsilon_i, delta) (Mironov, CCS 2012); chosen explicitly with "
             "--sampler float",
}


OBJECTIVE_FLOATING_POINT_TEXT = (
    "the guarantee is proved for exact arithmetic; the noise is drawn in floating point and the perturbed objective "
    "minimized in floating point, and both can leak beyond epsilon_i (Mironov, CCS 2012, for the noise); objective "
    "perturbation has no release exact in floating point, so it was chosen explicitly with --sampler float")

MEAN_TEXTS = {
    "exact": ("exact: the weighted label sum and the weights' sum taken from the floating-point sums, their ratio "
              "computed exactly and rounded to the grid of step 2**-g, plus round(U / 2**-g) steps with U a "
              "continuous {law} draw, from uniform bits as lazily refined reals; the rounding of the sums and the "
              "grid are charged to the smallest weight (the book's proposition 'The private mean')"),
    "float": "floating-point {law} noise (NumPy's generator) added to the weighted mean label",
}
"""What the model file says of the private mean's noise (``theorem`` ``"mean"`` or ``"mean-gaussian"``)."""

MEAN_FLOATING_POINT_TEXT = {
    "exact": ("covered: the proof bounds every rounding of the sums for any summation order, computes the weighted "
              "mean's centre exactly from them, and adds the grid's rounding to the sensitivity; the noise is exact on "
              "the grid, and the double written is a function of the grid point; no system is solved (the "
              "intercept-only model); not covered: the running time"),
    "float": ("the guarantee is proved for exact arithmetic; the noise here is drawn and added in floating point, "
              "which can leak beyond the guarantee (Mironov, CCS 2012); chosen explicitly with --sampler float"),
}

MEAN_PUBLIC = PUBLIC.replace("lambda and the calibration's", "the calibration's")
"""What the private mean treats as public: the registry's list, without ``lambda`` (it solves no ridge)."""


def _sampler_text(sampler: str, theorem: str, guarantee: str, d: int) -> str:
    """What the model file says of the noise: the sampler, and for the exact one its law."""
    if theorem in ("mean", "mean-gaussian"):
        return MEAN_TEXTS[sampler].format(law="Gaussian" if theorem == "mean-gaussian" else "Laplace")
    if guarantee == "approximate":                     # every such release has Gaussian noise
        if sampler == "float":
            return "floating-point Gaussian noise (NumPy's generator) on each released statistic"
        return ("exact lattice Gaussian: each released statistic's centre computed exactly from the floating-point "
                "sums and rounded to the grid of step 2**-g, plus round(Z / 2**-g) steps with Z Gaussian, drawn from "
                "uniform bits as lazily refined reals; a function of the Gaussian mechanism's output at the rounded "
                "centre")
    if theorem == "objective":
        return ("floating-point l2-Laplace noise b in the objective (a Gamma(d, 1/eta) radius times a uniform "
                "direction), the objective minimized over the ball in floating point")
    if theorem == "ssp":
        if sampler == "float":
            return "floating-point l2-Laplace on each statistic: a Gamma radius times a uniform direction"
        return ("exact lattice l2-Laplace on each statistic: the sums divided exactly by the levels' sum, rounded "
                "to the grid of step 2**-g, plus noise drawn from uniform bits with integer arithmetic only; its "
                "law: " + NOISE_LAWS["rounded"])
    return SAMPLER_TEXT[sampler] + (NOISE_LAWS[noise_law(d)] if sampler == "exact" else "")


def privacy_statement(sums: Sums, bounds: Bounds, release: Release, sampler: str = "exact") -> dict:
    """The model file's privacy statement: the guarantee, its relation, what is public, its proof, its limits.

    Every field is public or a function of public values: the levels' summary (the levels are public),
    the bounds (declared before the data were seen), the theorem.  Nothing computed from the private
    features and labels appears here; the estimate is the mechanism's only output that depends on them.
    The neighbouring relation and what is public are the registry's (:data:`pdp_lib.mechanisms.registry.NEIGHBOURS`,
    :data:`pdp_lib.mechanisms.registry.PUBLIC`), the same for every mechanism.
    """
    theorem, gaussian = release.theorem, release.guarantee == "approximate"
    return {
        "guarantee": ("every row i gets (epsilon_i, delta)-differential privacy (approximate, personalized), with the "
                      "delta of the model file's delta field: for any two neighbouring tables and any set of models S, "
                      "P(S) <= exp(epsilon_i) P'(S) + delta when row i is the row that differs") if gaussian else
                     "every row i gets epsilon_i-differential privacy (pure, personalized): for any two "
                     "neighbouring tables and any set of models, the probability of the set changes by a factor "
                     "of at most exp(epsilon_i) when row i is the row that differs",
        "neighbouring_relation": NEIGHBOURS,
        "public": MEAN_PUBLIC if release.lam is None else PUBLIC,
        "theorem": f"{THEOREM_TEXTS.get(theorem, 'Theorem ' + theorem)}; {PAPER}",
        "floating_point": (OBJECTIVE_FLOATING_POINT_TEXT if theorem == "objective" else
                           MEAN_FLOATING_POINT_TEXT[sampler] if theorem in ("mean", "mean-gaussian") else
                           (GAUSSIAN_FLOATING_POINT_TEXT if gaussian else FLOATING_POINT_TEXT)[sampler]),
        "sampler": _sampler_text(sampler, theorem, release.guarantee, sums.moment.size),
        "levels": sums.level_summary(),
        "bounds": bounds.as_dict(),
    }


def model_record(release: Release, bounds: Bounds, sums: Sums, sampler: str = "exact") -> dict:
    """The model file's content: the estimate, the calibration (:attr:`pdp_lib.mechanisms.release.Release.fields`)
    and the privacy statement.

    No row, no seed, and nothing else computed from the private features and labels (not even the
    number of rows ``--clip`` changed, which the command line reports to the operator on standard error).
    """
    theta = np.asarray(release.theta, dtype=float)
    coef, intercept = (theta[:-1], float(theta[-1])) if bounds.intercept else (theta, 0.0)
    return {
        "coef": [float(v) for v in coef],
        "intercept": intercept,
        "features": list(bounds.features),
        "mechanism": release.mechanism,
        "lam": None if release.lam is None else float(release.lam), **release.fields,
        "privacy": privacy_statement(sums, bounds, release, sampler),
        "scaling": "features x -> (x - lower) / (upper - lower); label y -> 2 (y - lower) / (upper - lower) - 1; "
                   "prediction in the label's units: lower + (upper - lower) (coef . x + intercept + 1) / 2 "
                   "(python -m pdp_lib predict)",
        "library": f"pdp_lib {library_version()}",
    }


def read_model(path) -> dict:
    """Read a model file written by ``python -m pdp_lib fit``; refuses a file that is not one, naming it."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"MODEL {str(p)!r} is a folder, not a model file")
    if not p.exists():
        raise FileNotFoundError(f"MODEL {str(p)!r} does not exist")
    try:
        record = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{p}: not a model file (not JSON: {exc})") from None
    try:
        features = list(record["features"])
        bounds = record["privacy"]["bounds"]
        pairs = [bounds["features"][f] for f in features] + [bounds["label"]]
        ok = (len(record["coef"]) == len(features) and all(len(pair) == 2 for pair in pairs)
              and all(np.isfinite(float(v)) for v in [*record["coef"], record.get("intercept", 0.0), *np.ravel(pairs)]))
    except (KeyError, TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{p}: not a model file of python -m pdp_lib fit (it needs coef, one finite number per "
                         f"feature, and the bounds of every feature and of the label)")
    return record


def predict_file(model: dict, source, out, *, chunk_rows: int = CHUNK_ROWS, clip: bool = False,
                 clip_predictions: bool = False) -> int:
    """Predict the label, in its own units, for every row of ``source``; write them as CSV to ``out``.

    Each feature is mapped with the model's public bounds, ``x -> (x - lower) / (upper - lower)``, the
    scaled prediction is ``coef . x + intercept``, and it is mapped back,
    ``lower_y + (upper_y - lower_y) (prediction + 1) / 2``.  A row with a feature outside the model's bounds
    is refused with its file, line and column (a value ten times too large is more often a slip than a new
    kind of row, and the model was never fitted there); ``clip=True`` clamps it to the bounds instead.
    ``clip_predictions=True`` clamps each prediction to the label's bounds.  A missing or non-numeric feature
    is refused with its file, line and column.  Post-processing of
    the released model, so it costs no privacy.  Other columns (the label, the levels) are ignored.
    The output has one column, ``prediction``, a row per input row in the input's order (the files
    of a folder or glob in sorted order); it is written whole or not at all.

    Returns
    -------
    int
        The number of rows predicted.
    """
    bounds = model["privacy"]["bounds"]
    features = list(model["features"])
    lower = np.array([bounds["features"][f][0] for f in features], dtype=float)
    upper = np.array([bounds["features"][f][1] for f in features], dtype=float)
    label_lower, label_upper = (float(v) for v in bounds["label"])
    coef = np.asarray(model["coef"], dtype=float)
    intercept = float(model.get("intercept", 0.0))
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    rows = 0
    try:
        with partial.open("w", encoding="utf-8", newline="") as fh:
            fh.write("prediction\n")
            for path in data_files(source):
                for first, frame in chunks(path, features, check_count(chunk_rows, "chunk_rows")):
                    values = numbers(frame[features], path, first)
                    bad = ~np.isfinite(values)
                    if bad.any():
                        r, c = np.argwhere(bad)[0]
                        refuse(path, first + int(r), features[c], float(values[r, c]), "(a finite number)")
                    if clip:
                        values = np.clip(values, lower, upper)
                    outside = (values < lower) | (values > upper)
                    if outside.any():
                        r, c = np.argwhere(outside)[0]
                        allowed = f"[{float(lower[c])!r}, {float(upper[c])!r}]"
                        refuse(path, first + int(r), features[c], float(values[r, c]),
                                f"{allowed} of the model's bounds (pass --clip to clamp it)")
                    scaled = (values - lower) / (upper - lower) @ coef + intercept
                    prediction = label_lower + (label_upper - label_lower) * (scaled + 1.0) / 2.0
                    if clip_predictions:
                        prediction = np.clip(prediction, label_lower, label_upper)
                    fh.write("".join(f"{v!r}\n" for v in prediction.tolist()))
                    rows += len(prediction)
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return rows


def write_model(record: dict, path) -> None:
    """Write the model file (JSON)."""
    Path(path).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def library_version() -> str:
    """The package's own version (``pdp_lib.__version__``): read from the code, so that a checkout on ``PYTHONPATH``
    that was never installed writes its model file too."""
    import pdp_lib

    return pdp_lib.__version__

"""The release mechanisms, one module each: what a reader's data pass through before anything is published.

``output_perturbation``  PDP-OP (Algorithm 1 of the paper): the weighted ridge, the calibration of
                         Theorems 3.1/3.2 and (epsilon_i, delta), the l2-Laplace sampler
``baselines``            non-personalized output perturbation, Jorgensen et al.'s sampling, non-private fits
``threshold``            uniform DP at the best public threshold, and the (non-private) oracle threshold
``gaussian``             the personalized Gaussian mechanism, point i getting (eps_i, delta)-DP
``lambda_grid``          the public grid of lambda values, its pruning, and what a rule's choice records
``exponential``          the personalized exponential mechanism over candidate models, in floating point and exactly
``private_selection``    private selection from private candidates with personalized budgets
``exact_sampling``       exact draws from uniform bits: Bernoulli(exp(-x)), the discrete Laplace, exp(-t||k||)
                         on the integer lattice
``exact_rounding``       exact draws of Exp(1) and N(0, 1) as lazily refined reals, and the continuous
                         exp(-t||u||) and Gaussian noises rounded exactly to the integer lattice, in any
                         dimension
``ssp``                  sufficient-statistics perturbation, personalized by re-weighting, on a lattice
``adassp``               Wang's AdaSSP personalized: Gaussian statistics and a private ridge, (eps_i, delta)-DP,
                         and SSP with Gaussian noise at a fixed ridge
``noisy_gd``             full-batch noisy gradient descent, re-weighted, (eps_i, delta)-DP, on a lattice
``objective``            objective perturbation on a ball, re-weighted, pure eps_i-DP; floating point only, by
                         explicit opt-in (sampler="float")
``private_mean``         the re-weighted mean label released with Laplace or Gaussian noise, exactly: the simplest
                         private release, against which the book holds every regression
``group_means``          one private mean per group of a public column (parallel composition): a guarantee for
                         the label and the private features, none for the public column
``checked_ssp``          SSP with an intercept, post-processed: the ridge centred on the released mean, checked
                         against the intercept-only model from the same release
``automatic``            ``mechanism="auto"``: SSP's checked release at its public ridge or the private mean,
                         chosen from public facts by the rule the held-out benchmark's development tables chose
``registry``             the mechanisms a user can fit (``fit --mechanism``, ``PersonalizedRidge(mechanism=)``),
                         each declared once: its guarantee, its parameters, its release from the streamed sums
``from_sums``            each mechanism's release from the streamed sums, and what the command line says of it
``release``              the result of a release from the sums: one type for every mechanism
``noise_energy``         the noise's expected energy in a release, and when a release is mostly noise
``lattice``              PDP-OP on a lattice: the release whose guarantee covers every rounding (the default
                         of ``pdp_op``, ``PersonalizedRidge`` and ``fit``)

The names most readers need are importable from :mod:`pdp_lib` itself (``pdp_lib.pdp_op``,
``pdp_lib.calibrate``, ...).
"""

from __future__ import annotations

from ..lazy import lazy_submodules

_SUBMODULES, __getattr__, __dir__ = lazy_submodules(__name__, __file__)

"""The settings the book's table chapters use, and the command line's defaults.

One source for both, so that ``python -m pdp_lib reproduce table-4 --replicates 40`` prints
the band the chapter *PDP-OP against Jorgensen et al.* shows:

``SEED``               root of every draw (data, profile, masks)
``RUNS``               runs per cell for the draw compared with the paper (the paper's 10,000)
``REPLICATES``         independent draws for the tables' 95% bands (the command line's default is 1,
                       no band, because a band costs ``REPLICATES`` times the work)
``FIGURE_REPLICATES``  draws for the figures' bands (no published values to judge)
``REPLICATE_RUNS``     Jorgensen masks per replicate draw (the other columns are exact)
``PAPER_RUNS``         runs behind each published mean, whose Monte Carlo error the band includes
``MIXTURE_MASKS``      Jorgensen masks behind the exact fourth moment of the loss that sets the
                       Monte Carlo error of a published standard deviation (the other columns
                       are exact)
``SPLIT``              ``"paper"``: the Medical Cost split and training subsets stay the paper's
                       (``random_state=21``) in every replicate; ``"redraw"`` redraws them
``SHARP_WIDTH``        a band narrower than this fraction of the value makes a cell *sharp*
                       (the errata chapter's headline)
"""

SEED = 2024
RUNS = 10_000
REPLICATES = 40
FIGURE_REPLICATES = 20
REPLICATE_RUNS = 100
PAPER_RUNS = 10_000
MIXTURE_MASKS = 100
SPLIT = "paper"
SPLITS = ("paper", "redraw")
BOUNDS = ("paper", "sharp")   # B(lambda) of Lemma A.1, or the exact supremum B*(lambda)
SHARP_WIDTH = 0.2

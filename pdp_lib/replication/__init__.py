"""Replication and presentation: the paper's published numbers beside the rebuilt ones.

The layer above :mod:`pdp_lib.experiments` (which computes, and reads the published values beside
what it computes: :mod:`pdp_lib.experiments.published`) and below the command line; it
imports only from below and never the other way round:

``authors``    the authors' raw outputs and their agreement with the printed tables
``verdicts``   each published cell against its rebuilt band: inside or not, how sharp; the headline
``misses``     why a published cell lies outside its band: a computed cause for each miss
``readings``   the computed facts the reading after each rebuilt table and figure cites
``rendering``  numbered, captioned tables and figures for the book, in one style
``styles``     that style: the methods' titles, colours and line styles, the figures' settings
``comparison_report``  ``python -m pdp_lib compare``'s table and figure

The modules are imported on use (``from pdp_lib.replication import rendering``).
"""

# Two commands do everything on a fresh machine that has python3:
#   make test   pytest for pdp_lib and nbval, which re-executes every chapter and compares it with its stored
#               outputs, on every core (pytest-xdist, one chapter per worker)
#   make book   render the website into _build/html from the chapters' stored outputs (the outputs make test
#               proves current); nothing is executed
#   make pdf    the whole book as one PDF, _build/latex/book.pdf (XeLaTeX, installed by tools/install_tex.sh),
#               from the same stored outputs
#   make notebooks  re-execute every chapter in place and store its outputs (after changing pdp_lib or a
#               chapter; then make book renders them)
# CI (.ci/run) runs make test, make test-portable (nbval under other BLAS/SIMD kernels), make pdf and make book.
# Each creates .venv from requirements.txt when it is missing or older than requirements.txt.

PYTHON ?= python3
# one virtual environment per interpreter when several are tested: make test PYTHON=python3.13 VENV=.venv-3.13
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(wildcard book/*.ipynb)
# pytest-xdist workers for make test, pytest and nbval (auto: one per core); each chapter runs whole in one worker,
# and each worker takes one BLAS thread: workers that each spin several OpenBLAS threads compete for the cores
# (four chapters took 264 s so, 64 s with one thread each; benchmarks/README.md). Several threads are tested by
# make test-portable.
JOBS   ?= auto
XDIST  := -n $(JOBS) --dist loadfile
ONE_BLAS_THREAD := OPENBLAS_NUM_THREADS=1
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: install book pdf check-pdf test test-portable pytest nbval notebooks lab check-site check-transcription clean distclean

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@# pdp_lib itself, editable: notebooks, kernels and tests import the repository's code
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

# The pinned environment and pdp_lib (editable) in $(VENV), nothing else: python -m pdp_lib and the library then
# work from $(BIN)/python. (A user's own environment: pip install -e ".[all]", see the README.)
install: $(STAMP)

LAB_STAMP := $(VENV)/.lab-installed

$(LAB_STAMP): requirements-lab.txt $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-lab.txt
	@touch $(LAB_STAMP)

# The site from the stored outputs (_config.yml: execute_notebooks 'off'), strict: a warning, a missing glue
# key or a broken reference fails the build.
book: $(STAMP)
	$(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going

# The whole book as one PDF, _build/latex/book.pdf: the chapters' stored outputs, Sphinx's LaTeX with
# _ext/book_pdf.py, XeLaTeX through latexmk, offline. tools/install_tex.sh installs the Debian packages it
# needs (or prints the apt-get command); tools/check_pdf.py checks the result. The next make book copies it into
# the site and links it from every page's download menu (a site built without it links no PDF).
pdf: $(STAMP)
	bash tools/install_tex.sh
	rm -f _build/latex/book.pdf
	LATEXOPTS="-interaction=nonstopmode -halt-on-error" \
		$(BIN)/jupyter-book build . --builder pdflatex --warningiserror --nitpick --keep-going
	$(BIN)/python tools/check_pdf.py
	@echo "_build/latex/book.pdf built; make book copies it into the site and links it from every page"

# The PDF's checks again, and its tables, figures and equations numbered as on the built site (make book, make pdf).
check-pdf: $(STAMP)
	$(BIN)/python tools/check_pdf.py --site _build/html

# the chapters first, so that the longest start first; the library's tests fill the other workers
test: $(STAMP)
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest book tests $(XDIST) $(NBVAL) -p no:cacheprovider

# nbval again, under other floating-point kernels than this machine's (OpenBLAS core types, NumPy's
# SIMD dispatch, one and two BLAS threads): the stored outputs must not depend on the machine that wrote them.
# PORTABLE_ARGS: e.g. --interpreter haswell-avx2=.venv-newest/bin/python (a configuration under another Python).
PORTABLE_ARGS ?=
test-portable: $(STAMP)
	$(BIN)/python tools/test_portable.py book $(PORTABLE_ARGS)

# CORETYPE: an OpenBLAS core type to run the library's tests under (e.g. Prescott, the oldest generic x86_64
# kernel), as make test-portable does for nbval: a test must hold on every kernel, not only on this machine's.
CORETYPE ?=
pytest: $(STAMP)
	$(ONE_BLAS_THREAD) $(if $(CORETYPE),OPENBLAS_CORETYPE=$(CORETYPE),) $(BIN)/python -m pytest tests $(XDIST) -p no:cacheprovider

nbval: $(STAMP)
	$(ONE_BLAS_THREAD) $(BIN)/python -m pytest book $(XDIST) $(NBVAL) -p no:cacheprovider

# Open the chapters in JupyterLab with the pinned environment (JupyterLab's own pins: requirements-lab.txt).
# (as root, e.g. in a container, Jupyter refuses to start without --allow-root; LAB_ARGS adds options)
LAB_ARGS ?=
lab: $(LAB_STAMP)
	$(BIN)/jupyter lab --notebook-dir=book $(if $(filter 0,$(shell id -u)),--allow-root,) $(LAB_ARGS)

# Re-execute every chapter in place with the pinned environment and store its outputs
# (what nbval compares against and make book renders), a chapter per core. Run after changing pdp_lib or a
# chapter; commit the result.
notebooks: $(STAMP)
	$(BIN)/python tools/execute_notebooks.py --jobs $(JOBS) $(NOTEBOOKS)

# The built site as a reader meets it: links, anchors, problem markers, every figure's image with an alt text that
# describes it (not a file path), no link text showing raw LaTeX; screenshots with headless Chromium
# (Debian's chromium package) into _build/screenshots; every table of the table chapters inside the text
# column at 1280 px; screenshots of one rebuilt table and two rebuilt figures; on every page of the site
# at 1280 px (--layout): no table wider than the column, no code box that scrolls, every figure numbered,
# captioned and drawn at 85 dpi or more; at 1280 and 390 px (a phone): no display equation cut or past the
# text column (none scrolling at 1280 px, at most 5 scrolling inside their own box at 390 px), no table cut
# or past the column, no table caption that scrolls away with its table; numbers by chapter; the chapter's .ipynb and the book's PDF fetched
# through a page's download menu (--downloads: run make pdf first).
check-site:
	$(BIN)/python tools/check_site.py --search sensitivity --layout --screenshots _build/screenshots \
		--downloads book/privacy.html \
		--pages book/intro.html book/privacy.html book/standard_dp.html book/jorgensen.html \
		book/variability.html book/errata.html book/personalization.html book/tuning.html \
		--anchors book/jorgensen.html#tab-t3-unreg book/jorgensen.html#fig-f3 book/variability.html#fig-f12 \
		book/tuning.html#tab-tuning-costs

# Check the published values (pdp_lib/data/published.csv) cell by cell against the paper's LaTeX source: make check-transcription PAPER=path/to/paper.tex
check-transcription: $(STAMP)
	PDP_PAPER_TEX=$(PAPER) $(BIN)/python -m pytest tests/test_published.py -k latex -p no:cacheprovider -rs

clean:
	rm -rf _build

distclean: clean
	rm -rf $(VENV)

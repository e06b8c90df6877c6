"""pdp_lib.experiments.cache: a cached table is the table the code computes, keyed exactly.

The tests in this process use the working tree's ``pdp_lib``, whose files others may be
editing, so they take its files as unchanged (fixture ``store``); the rule that keeps stale
code out of the cache is tested on a private copy of the package, in fresh interpreters.
"""

import functools
import hashlib
import importlib
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdp_lib
from pdp_lib.experiments import cache, engine, reproduce_many
from pdp_lib.experiments.settings import RUNS

KW = dict(runs=200, replicates=2)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PDP_LIB_CACHE", str(tmp_path))
    monkeypatch.setattr(cache, "_stale", lambda: None)
    return tmp_path


@pytest.fixture(scope="module")
def fresh():
    return reproduce_many(["table-2", "table-4"], **KW)


def assert_same(a: pd.DataFrame, b: pd.DataFrame):
    """Equal bit for bit: labels, dtypes, index, missing values and the bytes of every float."""
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a.columns.dtype == b.columns.dtype and list(a.dtypes) == list(b.dtypes)
    for column in a.select_dtypes("number"):
        assert a[column].to_numpy().tobytes() == b[column].to_numpy().tobytes(), column


def fail(*args, **kwargs):
    raise AssertionError("recomputed a cached target")


def _entries(store):
    return sorted(store.glob("*.entry"))


def _only_entries_and_locks(store) -> bool:
    """Nothing in the cache but entries, the folder of the bands' draws (entries too) and the folder of lock files
    (one per key computed here)."""
    others = sorted(p for p in store.iterdir() if p.suffix != ".entry")
    locks, draws = store / "locks", store / "draws"
    return set(others) <= {locks, draws} and \
        all(p.suffix == ".lock" and p.stat().st_size == 0 for p in (locks.iterdir() if locks.exists() else [])) and \
        all(p.suffix == ".entry" for p in (draws.iterdir() if draws.exists() else []))


def test_cached_equals_computed_bit_for_bit_and_is_reused(store, fresh, monkeypatch):
    first = cache.reproduce_cached(["table-2", "table-4"], **KW)
    assert len(_entries(store)) == 2 and _only_entries_and_locks(store)
    for t in fresh:
        assert_same(first[t], fresh[t])
    monkeypatch.setattr(cache, "reproduce_many", fail)
    again = cache.reproduce_cached(["table-4", "table-2"], **KW, progress=False)   # all cached
    assert list(again) == ["table-4", "table-2"]
    for t in fresh:
        assert_same(again[t], fresh[t])


@pytest.mark.parametrize("targets, split", [(["table-4"], "paper"), (["figure-10"], "paper"),
                                            (["table-13", "table-4", "figure-12", "beyond-1"], "paper"),
                                            (["table-13", "figure-1"], "redraw")])
def test_the_draws_stored_with_a_table_are_the_draws_evaluated_again(store, monkeypatch, targets, split):
    # means and standard deviations, one target or several in one call (sharing configurations), either split
    from pdp_lib.replication import claim_numbers

    kw = dict(runs=200, replicates=3, replicate_runs=30, split=split)
    results = cache.reproduce_cached(targets, **kw)
    assert len(list((store / "draws").glob("*.entry"))) == len(targets) and _only_entries_and_locks(store)
    paper = [t for t in targets if not t.startswith("beyond")]      # draw_values evaluates the paper's targets
    monkeypatch.setattr(claim_numbers, "evaluate_sweep", fail)     # read from the cache, or fail
    monkeypatch.setattr(claim_numbers, "kept_sweep", lambda key: None)
    read = claim_numbers.draw_values(results, paper, replicates=3, replicate_runs=30, split=split)
    monkeypatch.undo()
    monkeypatch.setenv("PDP_LIB_CACHE", "off")                     # the long way: every replicate evaluated
    monkeypatch.setattr(claim_numbers, "kept_sweep", lambda key: None)
    again = claim_numbers.draw_values(results, paper, replicates=3, replicate_runs=30, split=split)
    for target in paper:
        assert len(read[target]) == len(again[target]) == 3
        for a, b in zip(read[target], again[target], strict=True):
            assert_same(a.reset_index(), b.reset_index())
            assert a.index.equals(b.index) and a.index.name == b.index.name == "param"
    if len(paper) < len(targets):        # a target of other methods: never read, refused as when evaluated
        monkeypatch.setenv("PDP_LIB_CACHE", str(store))
        with pytest.raises(KeyError):
            claim_numbers.draw_values(results, ["beyond-1"], replicates=3, replicate_runs=30, split=split)


def test_a_damaged_entry_of_draws_is_removed_and_the_draws_evaluated(store, monkeypatch):
    from pdp_lib.replication import claim_numbers

    results = cache.reproduce_cached(["table-4"], runs=200, replicates=3, replicate_runs=30)
    [path] = (store / "draws").glob("*.entry")
    good = claim_numbers.draw_values(results, ["table-4"], replicates=3, replicate_runs=30)
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.warns(RuntimeWarning, match=re.escape(str(path))):
        again = claim_numbers.draw_values(results, ["table-4"], replicates=3, replicate_runs=30)
    assert not path.exists()
    for a, b in zip(good["table-4"], again["table-4"], strict=True):
        assert_same(a.reset_index(), b.reset_index())


def test_draws_stored_for_other_settings_are_not_read(store, monkeypatch):
    from pdp_lib.replication import claim_numbers

    results = cache.reproduce_cached(["table-4"], runs=200, replicates=3, replicate_runs=30)
    cache.reproduce_cached(["table-2"], runs=200, replicates=3, replicate_runs=30, bound="sharp")
    cache.reproduce_cached(["table-3"], runs=200, replicates=3, replicate_runs=30, columns=["unreg_pdp_op"])
    for other in (dict(replicate_runs=31), dict(seed=7), dict(split="redraw")):
        settings = {**dict(seed=2024, replicates=3, replicate_runs=30, split="paper"), **other}
        assert cache.stored_draws("table-4", **settings) is None
    assert cache.stored_draws("table-4", seed=2024, replicates=4, replicate_runs=30, split="paper") is None
    assert cache.stored_draws("table-2", seed=2024, replicates=3, replicate_runs=30, split="paper") is None
    assert cache.stored_draws("table-2", seed=2024, replicates=3, replicate_runs=30, split="paper",
                              bound="sharp") is None         # draw_values evaluates the paper's bound: not stored
    assert cache.stored_draws("table-3", seed=2024, replicates=3, replicate_runs=30, split="paper") is None
    calls = []
    real = claim_numbers.evaluate_sweep
    monkeypatch.setattr(claim_numbers, "evaluate_sweep", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(claim_numbers, "kept_sweep", lambda key: None)
    # another replicate_runs, and a target stored with one column only: both evaluated again, in full
    claim_numbers.draw_values(results, ["table-4"], replicates=3, replicate_runs=20)
    assert calls
    calls.clear()
    partial = cache.reproduce_cached(["table-3"], runs=200, replicates=3, replicate_runs=30)
    out = claim_numbers.draw_values(partial, ["table-3"], replicates=3, replicate_runs=30)
    assert not calls and len(out["table-3"]) == 3                 # computed in full by that call, then read
    with pytest.raises(ValueError, match="draws"):
        cache.reproduce_cached(["table-4"], runs=200, draws={})
    with pytest.raises(ValueError, match="draws"):
        reproduce_many(["table-4"], runs=50, draws=[])


# Targets that share configurations asked for with other lambda values (table-3 and table-11;
# table-4, table-12, figure-10 and beyond-1) and other methods (beyond-1's oracle and threshold rules).
SHARING = ["table-3", "table-4", "table-11", "table-12", "table-14", "figure-10", "beyond-1"]
SEVERAL_BLOCKS = 3e6     # a memory budget that cuts 600 runs into blocks at the paper's sizes


def _with_budget(monkeypatch, budget):
    """Every evaluation of ``reproduce_many`` made with ``memory_budget=budget`` (``None``: the default)."""
    if budget is not None:
        module = importlib.import_module("pdp_lib.experiments.rebuild")
        monkeypatch.setattr(module, "evaluate_sweep", functools.partial(module.evaluate_sweep, memory_budget=budget))
        for d in (12, 30):      # Medical Cost, the synthetic data: several blocks, whatever the points drawn
            assert engine.block_size(600, 0, d, budget) <= 600 / 2


@pytest.mark.parametrize("budget", [None, SEVERAL_BLOCKS])
def test_a_target_is_the_same_whatever_it_is_computed_with(monkeypatch, budget):
    _with_budget(monkeypatch, budget)
    kw = KW if budget is None else dict(KW, runs=600)
    together = reproduce_many(SHARING, **kw)
    for t in SHARING:
        assert_same(reproduce_many([t], **kw)[t], together[t])


def test_missing_targets_are_computed_in_one_call_and_each_is_the_target_computed_alone(store, monkeypatch):
    _with_budget(monkeypatch, SEVERAL_BLOCKS)
    alone = {t: reproduce_many([t], runs=600)[t] for t in SHARING}
    cache.reproduce_cached(SHARING[:2], runs=600)                    # two of them cached already
    calls = []

    def counted(targets, **kwargs):
        calls.append(list(targets))
        return reproduce_many(targets, **kwargs)

    monkeypatch.setattr(cache, "reproduce_many", counted)
    cached = cache.reproduce_cached(SHARING, runs=600)
    assert calls == [SHARING[2:]]
    for t in SHARING:
        assert_same(cached[t], alone[t])


def test_an_entry_round_trips_bit_for_bit_and_holds_no_pickle():
    nan_with_payload = np.frombuffer(np.uint64(0x7FF8000000000123).tobytes(), dtype=float)[0]
    table = pd.DataFrame({
        "x": [0.0, -0.0, np.inf, -np.inf, np.nan, nan_with_payload, 5e-324],
        "single": np.float32([1 / 3, -0.0, np.nan, 2, 3, 4, 5]),
        "n": np.arange(7, dtype=np.int64) - 3,
        "flag": [True, False, True, True, False, False, True],
        "label": pd.array(["a", "", "é ∞", None, "x" * 40, "b", "c"], dtype="str"),
        "text": np.array(list("abcdefg"), dtype=object),
    }, index=pd.RangeIndex(2, 16, 2))
    data = cache._encode(table, "k")
    assert_same(cache._decode(data, "k"), table)
    # the format line, the checksum of the rest, a JSON header, then only raw fixed-size arrays
    assert data.startswith(cache._FORMAT)
    checksum, _, body = data[len(cache._FORMAT):].partition(b"\n")
    assert hashlib.sha256(body).hexdigest().encode() == checksum
    line, _, payload = body.partition(b"\n")
    header = json.loads(line)
    arrays = [np.dtype(c["array"]) for c in header["columns"]]
    assert all(a.kind in "biufU" for a in arrays)
    assert len(payload) == sum(7 * a.itemsize + 7 * bool(c.get("missing")) for a, c in zip(arrays, header["columns"]))
    with pytest.raises(TypeError):
        cache._encode(table.set_index("n"), "k")      # no index but a RangeIndex is stored


def test_no_entry_file_is_a_pickle(store):
    cache.reproduce_cached(["table-2", "table-14"], runs=100)
    assert _only_entries_and_locks(store)
    for path in _entries(store):
        data = path.read_bytes()
        assert path.suffix == ".entry" and data.startswith(cache._FORMAT) and b"\x80" not in data[:2]
        with pytest.raises(pickle.UnpicklingError):
            pickle.loads(data)
        cache._decode(data, path.stem)


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _planted_pickle(marker: Path) -> bytes:
    class Planted:
        def __reduce__(self):
            return open, (str(marker), "w")   # unpickling this creates the file `marker`

    return pickle.dumps(Planted())


DAMAGES = {
    "truncated": lambda data, path: data[: len(data) // 2],
    "empty": lambda data, path: b"",
    "garbage": lambda data, path: np.random.default_rng(0).bytes(len(data)),
    "checksum mismatch": lambda data, path: data[:-1] + bytes([data[-1] ^ 1]),
    "another key's entry": lambda data, path: cache._encode(cache._decode(data, path.stem), "0" * 64),
    "foreign file": lambda data, path: _npz(value=np.arange(3.0)),
    "pickle": lambda data, path: _planted_pickle(path.with_name("planted")),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_entry_is_reported_recomputed_and_rewritten(store, fresh, damage):
    cache.reproduce_cached(["table-2"], **KW)
    [path] = _entries(store)
    path.write_bytes(DAMAGES[damage](path.read_bytes(), path))
    with pytest.warns(RuntimeWarning, match=re.escape(str(path))):
        out = cache.reproduce_cached(["table-2"], **KW)["table-2"]
    assert_same(out, fresh["table-2"])
    assert_same(cache._decode(path.read_bytes(), path.stem), fresh["table-2"])   # rewritten
    assert not (store / "planted").exists()                                        # no code ran


def test_key_changes_with_every_input(monkeypatch):
    import sklearn

    base = cache.cache_key("table-4", {"runs": 100})
    assert cache.cache_key("table-3", {"runs": 100}) != base
    assert cache.cache_key("table-4", {"runs": 101}) != base
    assert cache.cache_key("table-4", {"runs": 100, "bound": "sharp"}) != base
    assert cache.cache_key("table-4", {"runs": 100, "progress": True}) == base
    assert cache.cache_key("table-4", {}) == cache.cache_key("table-4", {"runs": RUNS})   # defaults completed
    with pytest.raises(TypeError):
        cache.cache_key("table-4", {"rnus": 100})
    # a core type other than the one this process runs under (CI runs these tests under several)
    other_kernel = "Nehalem" if os.environ.get("OPENBLAS_CORETYPE") != "Nehalem" else "Prescott"
    for module, name, value in [(os.environ, "OPENBLAS_CORETYPE", other_kernel), (sklearn, "__version__", "0.0"),
                                (np, "__version__", "0.0"), (pd, "__version__", "0.0"), (cache, "_CODE", "other")]:
        with monkeypatch.context() as patch:
            (patch.setitem if module is os.environ else patch.setattr)(module, name, value)
            assert cache.cache_key("table-4", {"runs": 100}) != base, name
    assert cache.cache_key("table-4", {"runs": 100}) == base


def test_cache_off_and_location(tmp_path, monkeypatch):
    monkeypatch.setenv("PDP_LIB_CACHE", "off")
    assert cache.cache_dir() is None
    out = cache.reproduce_cached(["table-2"], runs=100)
    assert set(out) == {"table-2"}
    monkeypatch.setenv("PDP_LIB_CACHE", str(tmp_path / "c"))
    assert cache.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("PDP_LIB_CACHE")
    assert cache.cache_dir().parts[-2:] == ("_build", "cache")       # the repository's build folder


def test_the_start_of_this_process():
    psutil = pytest.importorskip("psutil")
    assert abs(cache._process_start() - psutil.Process().create_time()) < 1.5
    assert cache._process_start() <= time.time()


def test_what_makes_the_code_stale(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.csv").write_text("1,2\n")
    (tmp_path / "a.py").write_text("A = 1\n")
    monkeypatch.setattr(cache, "_PACKAGE", tmp_path)
    monkeypatch.setattr(cache, "_CODE", cache._files()[0])
    monkeypatch.setattr(cache, "_STARTED", time.time() + 2 * cache._SLACK)   # started after the files were written
    assert cache._stale() is None
    monkeypatch.setattr(cache, "_STARTED", time.time() - cache._SLACK / 2)   # ... or just before
    assert "a.py changed after this process started" in cache._stale()
    monkeypatch.setattr(cache, "_STARTED", time.time() + 2 * cache._SLACK)
    (tmp_path / "sub" / "b.csv").write_text("1,3\n")
    assert "changed after this process imported" in cache._stale()
    monkeypatch.setattr(cache, "_CODE", cache._files()[0])
    gone = types.ModuleType("pdp_lib._gone")
    gone.__file__ = str(tmp_path / "gone.py")
    monkeypatch.setitem(sys.modules, gone.__name__, gone)
    assert "gone.py, which this process loaded, is gone" in cache._stale()
    monkeypatch.setattr(cache, "_STARTED", None)
    assert "cannot be read" in cache._stale()


# --- stale code, end to end: a private copy of pdp_lib, edited while processes run it -------

PRELUDE = """
import json, sys, time, warnings
warnings.simplefilter("always")
from pathlib import Path
import pdp_lib
assert Path(pdp_lib.__file__).is_relative_to(sys.argv[1]), pdp_lib.__file__
KW = dict(runs=200, replicates=2)
SOURCE = Path(pdp_lib.__file__).parent / "experiments" / "rebuild.py"

def edit(amount):  # every value the code computes grows by `amount`
    with open(SOURCE, "a") as file:
        file.write(f"\\n\\nreproduce_many = _shift(reproduce_many, {amount})\\n")
    return time.time()

def values(table):
    return [float.hex(v) for v in table["value"]]

def cached():
    with warnings.catch_warnings(record=True) as caught:
        table = reproduce_cached(["table-2"], **KW)["table-2"]
    return values(table), [str(w.message) for w in caught]
"""

SHIFT = """

import functools as _functools


def _shift(compute, amount):
    @_functools.wraps(compute)
    def shifted(targets, **kwargs):
        return {t: v.assign(value=v["value"] + amount) for t, v in compute(targets, **kwargs).items()}
    return shifted
"""

RUN_A = """
from pdp_lib.experiments.rebuild import reproduce_many      # the engine, loaded before the edit
before = values(reproduce_many(["table-2"], **KW)["table-2"])
edited = edit(1.0)
from pdp_lib.experiments.cache import reproduce_cached         # the cache, imported after it
print(json.dumps({"before": before, "after": cached(), "edited": edited}))
"""

RUN_B = """
from pdp_lib.experiments import cache
from pdp_lib.experiments.cache import reproduce_cached
from pdp_lib.experiments.rebuild import reproduce_many
first, own = cached(), values(reproduce_many(["table-2"], **KW)["table-2"])
compute, cache.reproduce_many = cache.reproduce_many, None    # served from the cache, or fails
second = cached()
cache.reproduce_many = compute
edited = edit(2.0)
print(json.dumps({"first": first, "own": own, "second": second, "after": cached(), "edited": edited}))
"""

RUN_C = """
from pdp_lib.experiments.cache import reproduce_cached
from pdp_lib.experiments.rebuild import reproduce_many
print(json.dumps({"cached": cached(), "own": values(reproduce_many(["table-2"], **KW)["table-2"])}))
"""


def test_stale_code_is_never_served(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(Path(pdp_lib.__file__).parent, source / "pdp_lib", ignore=shutil.ignore_patterns("__pycache__"))
    with open(source / "pdp_lib" / "experiments" / "rebuild.py", "a") as file:
        file.write(SHIFT)
    store = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(source), "PDP_LIB_CACHE": str(store)}
    ready = time.time()

    def run(script):
        time.sleep(max(0.0, ready + cache._SLACK + 0.1 - time.time()))   # start after the last edit
        out = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(script), str(source)], env=env,
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    # A: the engine is loaded, a file is edited, then the cache is used: the old code's numbers
    # come back (they are what this process computes), with a warning, and nothing is stored
    a = run(RUN_A)
    ready = a["edited"]
    assert a["after"][0] == a["before"]
    assert len(a["after"][1]) == 1 and "bypassed" in a["after"][1][0] and "rebuild.py" in a["after"][1][0]
    assert not store.exists() or not any(store.iterdir())
    # B: a fresh process computes the edited code's numbers, stores and serves them; edited
    # again while running, it keeps computing its own code's numbers and stores nothing
    b = run(RUN_B)
    ready = b["edited"]
    assert b["first"] == [b["own"], []] and b["second"] == [b["own"], []]
    assert b["own"] != a["before"]
    assert b["after"][0] == b["own"] and "bypassed" in b["after"][1][0]
    assert len(_entries(store)) == 1
    # C: a fresh process after the second edit gets the second edit's numbers, never the old ones
    c = run(RUN_C)
    assert c["cached"] == [c["own"], []] and c["own"] not in (a["before"], b["own"])
    assert len(_entries(store)) == 2


def test_a_missing_target_is_computed_by_one_process_while_another_waits(store):
    """Two processes ask for the same missing target at once: one computes and stores it, the other waits on
    the key's lock and reads the entry (it never calls reproduce_many), and both get the same table."""
    script = textwrap.dedent(f"""
        import json, sys, time
        from pdp_lib.experiments import cache
        calls = []
        real = cache.reproduce_many
        def counted(targets, **kw):
            calls.append(list(targets))
            time.sleep(3)                                  # hold the lock long enough for the other to wait
            return real(targets, **kw)
        cache.reproduce_many = counted
        cache._stale = lambda: None
        table = cache.reproduce_cached(["table-2"], runs=50)["table-2"]
        print(json.dumps({{"calls": calls, "sum": float(table["value"].sum())}}))
    """)
    env = {**os.environ, "PDP_LIB_CACHE": str(store)}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert sorted(len(r["calls"]) for r in results) == [0, 1]           # computed once, read once
    assert results[0]["sum"] == results[1]["sum"] and len(_entries(store)) == 1

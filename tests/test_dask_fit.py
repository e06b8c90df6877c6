"""PDP-OP on a Dask cluster (pdp_lib.io.dask_fit): a 2-worker LocalCluster on 10^7 rows of partitioned Parquet.

The sums equal the streaming path's, a bad row is named by partition and row, and a worker killed
mid-run makes the run recover completely or fail loudly, never return a partial sum."""

import os
import signal
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from pdp_lib.io import dask_fit, public_bounds, streaming  # noqa: E402
from pdp_lib.mechanisms.registry import fit_sums  # noqa: E402

D = 12
PARTS, PART_ROWS = 10, 1_000_000     # 10^7 rows


def _write(folder, parts, rows, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-1, 1, D) / D
    for k in range(parts):
        X = rng.uniform(0, 1, (rows, D))
        cols = {f"x{j}": X[:, j] for j in range(D)}
        cols["y"] = np.clip(X @ theta + rng.normal(0, 0.1, rows), -1, 1)
        cols["eps"] = rng.choice([0.01, 0.2, 1.0], rows, p=[0.34, 0.43, 0.23])
        pq.write_table(pa.table(cols), folder / f"part-{k:02d}.parquet")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    _write(folder, PARTS, PART_ROWS)
    return folder


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _bounds(folder):
    return public_bounds.domain_bounds(folder, "y", "eps")


@pytest.fixture(scope="module")
def streamed(big):
    """The streaming path's sums of the 10^7 rows: what every cluster run must give."""
    return streaming.accumulate(big, _bounds(big), "y", "eps", chunk_rows=500_000)


def test_the_cluster_sums_are_the_streaming_sums(big, client, streamed):
    bounds = _bounds(big)
    frame = dd.read_parquet(str(big))
    assert frame.npartitions >= PARTS
    on_cluster = dask_fit.dask_sums(frame, bounds, "y", "eps", client=client)
    assert on_cluster.rows == streamed.rows == PARTS * PART_ROWS
    a, b = on_cluster.level_summary(), streamed.level_summary()
    assert a.pop("sum") == pytest.approx(b.pop("sum"), rel=1e-12) and a == b    # count, min, max, order-free digest
    np.testing.assert_allclose(on_cluster.theta_bar(1.0), streamed.theta_bar(1.0), rtol=1e-10)
    theta, _, _ = dask_fit.fit_dask(frame, "y", "eps", 1.0, bounds, rng=4, client=client)
    same = fit_sums(streamed, 1.0, rng=4).theta
    np.testing.assert_allclose(theta, same, rtol=1e-10)


def test_a_bad_row_is_named_by_partition_and_row(tmp_path, client):
    _write(tmp_path, 4, 1000, seed=1)
    table = pq.read_table(tmp_path / "part-02.parquet").to_pandas()
    table.loc[416, "x5"] = 1.5
    pq.write_table(pa.Table.from_pandas(table, preserve_index=False), tmp_path / "part-02.parquet")
    frame = dd.read_parquet(str(tmp_path))
    with pytest.raises(ValueError, match=r"partition 2, row 417, column 'x5': 1.5 is outside the allowed range"):
        dask_fit.dask_sums(frame, _bounds(tmp_path), "y", "eps", client=client)


def test_a_worker_killed_mid_run_never_gives_a_partial_sum(big, client, streamed):
    bounds = _bounds(big)
    expected = streamed
    futures = dask_fit.submit_sums(dd.read_parquet(str(big)), bounds, "y", "eps", client)
    deadline = time.monotonic() + 120
    while not any(f.done() for f in futures):      # wait until the run is under way ...
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert not all(f.done() for f in futures)       # ... and not over
    busy = [w for w, tasks in client.processing().items() if tasks]
    pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
    os.kill(pid, signal.SIGKILL)                     # a worker's process dies mid-run
    try:
        got = dask_fit.combine_sums(client.gather(futures))
    except Exception as exc:                         # failing loudly is allowed: the error names the loss
        assert "Worker" in type(exc).__name__ or "worker" in str(exc).lower(), repr(exc)
        return
    assert got.rows == expected.rows                 # recovered: every partition, once
    np.testing.assert_allclose(got.gram, expected.gram, rtol=1e-10)


def test_an_incomplete_set_is_refused():
    part = streaming.Sums.zeros(2)
    part.add(np.ones((3, 2)) * 0.5, np.zeros(3), np.ones(3))
    with pytest.raises(RuntimeError, match="refusing a partial sum"):
        dask_fit.combine_sums([part, None])


def test_the_command_line_fits_on_the_cluster(tmp_path, client):
    import json

    from pdp_lib import cli
    _write(tmp_path, 3, 2000, seed=5)
    out_cluster, out_local = tmp_path / "a.json", tmp_path / "b.json"
    common = [str(tmp_path), "--label", "y", "--epsilon", "eps", "--lam", "0.5", "--seed", "3"]
    assert cli.main(["fit", *common, "--scheduler", client.scheduler.address, "--out", str(out_cluster)]) == 0
    assert cli.main(["fit", *common, "--out", str(out_local)]) == 0
    a, b = json.loads(out_cluster.read_text()), json.loads(out_local.read_text())
    np.testing.assert_allclose(a["coef"], b["coef"], rtol=1e-10)
    assert a["privacy"] == b["privacy"]


@pytest.mark.parametrize("value, message", [
    ("abc", r"part-01\.csv, line 418, column 'x5': 'abc' is not a number"),      # pandas would say "Mismatched dtypes"
    ("1.5", r"part-01\.csv, line 418, column 'x5': 1.5 is outside the allowed range \[0.0, 1.0\]"),
    ("", r"part-01\.csv, line 418, column 'x5': a missing value"),
])
def test_the_cluster_names_the_file_and_line_of_a_bad_row(tmp_path, client, capsys, value, message):
    import re

    from pdp_lib import cli
    rng = np.random.default_rng(3)
    for k in range(3):
        frame = {f"x{j}": rng.uniform(0, 1, 600).astype(object) for j in range(D)}
        frame["y"], frame["eps"] = rng.uniform(-1, 1, 600), rng.choice([0.1, 1.0], 600)
        table = __import__("pandas").DataFrame(frame)
        if k == 1:
            table.loc[416, "x5"] = value                       # data row 417: line 418 under the header
        table.to_csv(tmp_path / f"part-{k:02d}.csv", index=False)
    out = tmp_path / "model.json"
    status = cli.main(["fit", str(tmp_path), "--label", "y", "--epsilon", "eps", "--lam", "1",
                       "--scheduler", client.scheduler.address, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and re.search(message, err[0]), err
    assert not out.exists()
    assert cli.main(["fit", str(tmp_path), "--label", "y", "--epsilon", "eps", "--lam", "1", "--chunk-rows", "9",
                     "--scheduler", client.scheduler.address, "--out", str(out)]) == 2
    assert "leave --chunk-rows out" in capsys.readouterr().err


def test_the_cluster_sums_under_delta_are_the_streaming_sums(tmp_path, client):
    _write(tmp_path, 3, 20_000, seed=2)
    bounds = _bounds(tmp_path)
    frame = dd.read_parquet(str(tmp_path))
    on_cluster = dask_fit.dask_sums(frame, bounds, "y", "eps", client=client, delta=1e-5)
    streamed = streaming.accumulate(tmp_path, bounds, "y", "eps", chunk_rows=7_000, delta=1e-5)
    assert on_cluster.weight_exact_total == streamed.weight_exact_total != streamed.exact_total
    assert on_cluster.weight_min == streamed.weight_min and on_cluster.level_summary() == streamed.level_summary()
    np.testing.assert_allclose(on_cluster.gram, streamed.gram, rtol=1e-12)
    a = fit_sums(on_cluster, "public", rng=3, mechanism="ssp", delta=1e-5).theta
    b = fit_sums(streamed, "public", rng=3, mechanism="ssp", delta=1e-5).theta
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)

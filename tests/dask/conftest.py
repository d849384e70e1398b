"""Fixtures of the Dask tests: the schedulers they run on, and a frame to split
(see dask_frames.py).

The whole folder is skipped when dask or distributed is not installed (the
``dask`` extra); the ``test`` extra installs them.
"""
import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask", reason="the Dask tests need dask (pip install '.[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="the Dask tests need dask.dataframe")
distributed = pytest.importorskip(
    "distributed", reason="the Dask tests need dask.distributed (pip install '.[dask]')")


@pytest.fixture(scope="session")
def cluster_client():
    """A ``LocalCluster`` of two worker processes (one thread each) and its client."""
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    client = distributed.Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture
def scheduler(request):
    """Run the test on Dask's local (threaded) scheduler or on the cluster, as the
    test's parameter ``scheduler`` says (indirect)."""
    if request.param == "local":
        with dask.config.set(scheduler="threads"):
            yield request.param
    else:
        client = request.getfixturevalue("cluster_client")
        with dask.config.set(scheduler=client.get):
            yield request.param


@pytest.fixture
def frame():
    """Categorical data with missing values (a row counts up to its first one)."""
    rng = np.random.default_rng(7)
    n = 600
    sizes = {"A": 2, "B": 3, "C": 2, "D": 3}
    columns = {}
    for v, k in sizes.items():
        codes = rng.integers(0, k, size=n)
        codes[rng.random(n) < 0.04] = -1
        columns[v] = pd.Categorical.from_codes(codes, [f"{v.lower()}{j}" for j in range(k)])
    return pd.DataFrame(columns)

"""Dask frames split from pandas frames into chosen partitions (some empty), so
every Dask result has its pandas twin; and the schedulers the tests run on."""
import dask
import dask.dataframe as dd
import numpy as np
import pytest

# every split on the local scheduler; the cluster (slower to start tasks) the finest
ON_SCHEDULERS = pytest.mark.parametrize(
    "scheduler, n_partitions",
    [("local", 1), ("local", 3), ("local", 17), ("distributed", 17)], indirect=["scheduler"])
ON_LOCAL = pytest.mark.parametrize("scheduler, n_partitions",
                                   [("local", 1), ("local", 3), ("local", 17)],
                                   indirect=["scheduler"])
ON_CLUSTER = pytest.mark.parametrize("scheduler, n_partitions", [("distributed", 17)],
                                     indirect=["scheduler"])


def split(data, cuts):
    """``data`` (a pandas frame or series) as a Dask collection whose partitions are
    the rows between consecutive ``cuts`` (repeated cuts give empty partitions)."""
    bounds = [0, *sorted(cuts), len(data)]
    pieces = [data.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return dd.from_delayed([dask.delayed(piece) for piece in pieces], meta=data.iloc[:0],
                           verify_meta=False)


def partition_cuts(n_rows, n_partitions, seed=0):
    """Cuts splitting ``n_rows`` into ``n_partitions``, a few of them empty."""
    if n_partitions == 1:
        return []
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, n_rows + 1, size=n_partitions - 1))
    cuts[: max(1, (n_partitions - 1) // 4)] = cuts[0]  # repeated: empty partitions
    cuts[-1] = n_rows  # the last partition empty too
    return sorted(cuts.tolist())

"""Fixtures of the bnc tests: bnclassify's own ``car`` and ``voting`` data, as
the package ships them (equal to bnclassify's data/car.RData and
data/voting.RData: tests/compat/test_compat_live.py holds them against R's
``data(car, package = "bnclassify")``)."""
import pytest

import pystagedtrees as st


@pytest.fixture(scope="module")
def rdata():
    return {"car": st.datasets.load("car"), "voting": st.datasets.load("voting")}


@pytest.fixture(scope="module")
def car(rdata):
    return rdata["car"]


@pytest.fixture(scope="module")
def voting(rdata):
    return rdata["voting"]

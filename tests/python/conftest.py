# SPDX-License-Identifier: MIT
"""The Python module's tests (run by tests/cli/test_python.sh, which sets
FDMA_LIBRARY and PYTHONPATH): every test taking `dev` or `uri` runs on the
FDMA model and again on the XDMA model, both unpaced (as fast as the host
goes: these tests check data, not timing)."""

import pytest

import fdma

ENGINES = {"fdma": "sim:paced=0", "xdma": "sim:engine=xdma,paced=0"}


@pytest.fixture(params=list(ENGINES))
def uri(request):
    return ENGINES[request.param]


@pytest.fixture
def dev(uri):
    with fdma.Device(uri) as d:
        yield d

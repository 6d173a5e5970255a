# SPDX-License-Identifier: MIT
"""docs/python.md's examples run as printed (each ```python block, on its own)."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), re.M | re.S)


def test_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("n", range(len(BLOCKS)))
def test_example(n):
    exec(compile(BLOCKS[n], "%s, example %d" % (DOC, n + 1), "exec"), {})

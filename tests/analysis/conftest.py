"""The bundled 2x2 sample, analyzed once per module."""

from __future__ import annotations

import pytest

from irtools.analysis import Analysis, analyze
from tests.analysis.builders import MESH


@pytest.fixture(scope="module")
def mesh() -> Analysis:
    """The bundled 2x2 sample: Conv_0 on cores 0/1 -> Conv_1 on cores 2/3 -> Relu_2 on core 2."""
    return analyze(MESH)

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from playbench.core import registry  # noqa: E402

if "toy/walk" not in registry._REGISTRY:
    registry.register("toy/walk", "toy:WalkTask", description="test-only task", default=False)
    registry.register("toy/relay", "toy:RelayTask", description="test-only two-role task", default=False)


@pytest.fixture
def out_dir(tmp_path):
    return tmp_path / "run"

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# A developer's own originals folder must not change what the tests see: every test starts with none
# (an empty path under the test session's temporary folder); a test that wants clones sets its own.
import os  # noqa: E402
import tempfile  # noqa: E402

os.environ["PLAYBENCH_ORIGINALS"] = str(Path(tempfile.gettempdir()) / "playbench-tests-no-originals")

from playbench.core import registry  # noqa: E402

if "toy/walk" not in registry._REGISTRY:
    registry.register("toy/walk", "toy:WalkTask", description="test-only task", default=False)
    registry.register("toy/declared", "toy:DeclaredWalkTask", description="test-only task", default=False)
    registry.register("toy/texts", "toy:TextWalkTask", description="test-only task", default=False)
    registry.register("toy/turns", "toy:TurnsWalkTask", description="test-only task", default=False)
    registry.register("toy/relay", "toy:RelayTask", description="test-only two-role task", default=False)
    registry.register(
        "toy/consult", "toy:ConsultTask", description="test-only expert/solver/judge task", default=False
    )

from playbench.agents import registry as agent_registry  # noqa: E402

if "test-echo" not in agent_registry._AGENTS:
    agent_registry.register_agent(
        "test-echo",
        "toy:EchoAgent",
        description="test-only registered agent",
        needs_model=False,
        options=("word",),
    )


@pytest.fixture
def out_dir(tmp_path):
    return tmp_path / "run"


def pytest_collection_modifyitems(config, items):
    """Real-model tests run only when asked for by name (`pytest -m realmodel`, or any -m expression
    that names the marker without negating it); otherwise they are skipped, saying how to run them."""
    expression = config.getoption("markexpr", "") or ""
    if "realmodel" in expression and "not realmodel" not in expression:
        return
    skip = pytest.mark.skip(
        reason="needs a real local model: bash scripts/setup.sh --real-model && pytest -m realmodel"
    )
    for item in items:
        if "realmodel" in item.keywords:
            item.add_marker(skip)

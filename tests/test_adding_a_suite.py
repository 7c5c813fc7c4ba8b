"""The skeleton in docs/ADDING_A_SUITE.md is real code: it loads, registers with a pinned option and
passes `playbench check`."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core import registry
from playbench.core.errors import ConfigError

DOC = Path(__file__).parents[1] / "docs" / "ADDING_A_SUITE.md"


@pytest.fixture
def guess_ids(tmp_path):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), flags=re.S).group(1)
    path = tmp_path / "guess_doc.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location("guess_doc", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["guess_doc"] = module
    spec.loader.exec_module(module)
    registry.all_specs()
    registry.register("toy/guess", "guess_doc:GuessTask")
    registry.register("toy/guess-small", "guess_doc:GuessTask", fixed={"high": 10})
    yield ["toy/guess", "toy/guess-small"]
    for tid in ("toy/guess", "toy/guess-small"):
        registry._REGISTRY.pop(tid, None)
    sys.modules.pop("guess_doc", None)


def test_the_documented_skeleton_passes_the_check(guess_ids, capsys):
    assert main(["check", *guess_ids, "--sample", "3", "--fuzz", "10"]) == 0
    assert "every check passed" in capsys.readouterr().out


def test_the_documented_fixed_option_is_enforced(guess_ids):
    assert registry.make_task("toy/guess-small").config.high == 10
    with pytest.raises(ConfigError, match="high"):
        registry.make_task("toy/guess-small", high=100)
    task = registry.make_task("toy/guess")
    task.reset(task.instances(1, 0)[0])
    secret = task.instance.secret
    result = task.step(f"my guess: {secret}")
    assert result.feedback == "Correct!" and task.done and task.outcome().termination == "goal_reached"

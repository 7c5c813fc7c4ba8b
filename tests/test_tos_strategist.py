"""STRATEGIST, the authors' proxy whose logs their text-world passive runs show.

Their recorded run `experiments/gemini-3-pro-preview/177ef6532828f8d7/text/passive/think/strategist/`
on scene run05: `history_state.json` puts the proxy's final pose on the airplane (mask cell
(14, 14)) facing south, and the model's answers quote the log: step 12 at the yellow door facing
east after Rotate(90), room 2 reached through the blue door at steps 5 and 12, step 13 a jump to
the airplane turning to face south, and no later step.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tos_scenes import write_scenes

from playbench.core.registry import make_task
from playbench.tasks.tos.grammar import execute, parse_turn
from playbench.tasks.tos.proxies import Strategist, strategist_turns
from playbench.tasks.tos.scenes import load_scenes
from playbench.tasks.tos.world import START, Pose, World
from playbench.tasks.tos.worldgen import cached_world


@pytest.fixture(scope="module")
def run05(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = write_scenes(tmp_path_factory.mktemp("scenes") / "3-room")
    return next(s.world for s in load_scenes(str(root)) if s.world.source == "run05")


def test_run05_log_has_the_shape_their_recorded_run_quotes(run05: World) -> None:
    for seed in range(4):  # their sampling is unseeded; on run05 the log does not depend on it
        proxy = Strategist(run05, seed)
        turns = proxy.run()
        assert len(turns) == 14 and turns[-1] == "Actions: [Term()]"
        assert turns[:4] == ["Actions: [Observe()]"] + ["Actions: [Rotate(90), Observe()]"] * 3
        assert "JumpTo(blue door)" in turns[4] and "JumpTo(blue door)" in turns[11]
        assert turns[11].endswith("JumpTo(yellow door), Rotate(90), Observe()]")
        assert turns[12] == "Actions: [JumpTo(airplane), Rotate(90), Observe()]"
        # the airplane is mask cell (14, 14); the start (2, 11) is the origin
        assert proxy.pose == Pose(12, 3, "south")


def test_logs_run_cleanly_and_see_everything() -> None:
    lengths = []
    for i in range(40):
        world, _ = cached_world(3, 4, 0, i, 20)
        turns = strategist_turns(world)
        assert turns == strategist_turns(world)  # one world, one log
        pose, observed = START, frozenset()
        for text in turns[:-1]:
            out = execute(world, pose, observed, parse_turn(text))  # type: ignore[arg-type]
            assert out.failed is None, (i, text)
            pose, observed = out.pose, observed | set(out.seen)
        assert {o.name for o in world.objects} <= observed
        lengths.append(len(turns) - 1)
    assert 12 <= sum(lengths) / len(lengths) <= 24


def test_text_passive_default_is_strategist_vision_scout(run05: World, tmp_path: Path) -> None:
    root = write_scenes(tmp_path / "3-room")
    text = make_task("tos/pairwise-direction", exploration="passive", scenes=str(root))
    inst = next(i for i in text.instances(None, 0) if "run05" in i.id)
    text.reset(inst)
    log = text.observe("player").text
    assert "Step 13: Actions: [JumpTo(airplane), Rotate(90), Observe()]" in log
    assert "Step 14: Actions: [Term()]" in log and "Step 15" not in log
    vision = make_task("tos/pairwise-direction", exploration="passive", scenes=str(root), modality="vision",
                       image_size=96)  # fmt: skip
    vision.reset(inst)
    assert "Step 9: Actions: [Term()]" in vision.observe("player").text  # SCOUT: 8 views on run05
    scout = make_task("tos/pairwise-direction", exploration="passive", scenes=str(root), passive_log="scout")
    scout.reset(inst)
    assert "Step 9: Actions: [Term()]" in scout.observe("player").text

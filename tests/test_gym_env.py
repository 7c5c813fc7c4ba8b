"""playbench tasks as Gymnasium environments (`playbench.gym`): Gymnasium's own checker on every task id,
the CLI's episodes in the CLI's order, the runner's results, the errors a user meets."""

from __future__ import annotations

import asyncio
import io
import json
import random
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from PIL import Image

import playbench.gym as pg
from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.registry import all_specs, make_task
from playbench.core.termination import TERMINATIONS, Termination
from playbench.core.types import EpisodeResult
from playbench.envs.episodes import TRUNCATIONS, ended
from playbench.envs.spaces import decode_png
from playbench.runner.episode import run_episode
from playbench.runner.model_pool import ModelPool
from playbench.runner.run import RunConfig, plan_run
from playbench.tasks.visescape.original.demo import write_demo_clone

# the test-only toy tasks (conftest) are registered too; the shipped suites are the point here
SPECS = [s for s in all_specs() if not s.id.startswith("toy/")]
# ids that read the authors' clone and refuse without one (as `playbench run` does): checked on the demo
# clone written in the authors' layout, as tests/test_visescape_original_task.py plays them
NEEDS_CLONE = ("visescape/original", "visescape/original-hint")


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    return write_demo_clone(tmp_path_factory.mktemp("visescape") / "clone")


def fast_options(spec, clone) -> dict:
    """Options that keep a check fast without changing the API under test: a two-instance set (the
    checker resets with three seeds, each drawing its own set) and smaller 3D frames (rendering dominates;
    tests/test_gym_env.py::test_default_options_pass_the_checker covers default frames)."""
    options: dict = {"episodes": 2}
    if spec.suite == "mmescape":
        options.update(image_width=256, image_height=128)
    elif spec.suite == "ivispar" and "image_size" in spec.load_class().Config.model_fields:
        options["image_size"] = 240
    if spec.id in NEEDS_CLONE:
        options["source"] = str(clone)
    return options


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_check_env_passes_for_every_task_id(spec, clone):
    env = pg.make(spec.id, **fast_options(spec, clone))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning (data reuse, render return type) fails too
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("task_id", ["ivispar/sgp-2d", "comma/keypad"])
def test_default_options_pass_the_checker(task_id):
    env = pg.make(task_id, episodes=2)
    check_env(env.unwrapped)


def test_every_task_id_is_a_gymnasium_id_and_back():
    ids = pg.register_envs()
    assert len(ids) == len(all_specs())
    for spec in all_specs():
        env_id = pg.gym_id(spec.id)
        assert env_id in gymnasium.registry and pg.task_id_for(env_id) == spec.id
        namespace, name, version = gymnasium.envs.registration.parse_env_id(env_id)
        assert (namespace, version) == ("playbench", 0) and name == spec.id.replace("/", "-", 1)
    assert pg.gym_id("mmescape/paper-level-3.5") == "playbench/mmescape-paper-level-3.5-v0"


def test_gymnasium_make_with_the_module_prefix_needs_no_import():
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('playbench.gym:playbench/ivispar-sgp-v0', episodes=1)\n"
        "obs, info = env.reset(seed=0)\n"
        "print(info['task'], type(env.unwrapped).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ivispar/sgp", "PlaybenchEnv"]


def test_make_goes_through_gymnasium_and_its_wrappers():
    env = pg.make("ivispar/sgp", episodes=1)
    assert isinstance(env, gymnasium.wrappers.OrderEnforcing)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step("action: move green cube up")
    same = gymnasium.make("playbench/ivispar-sgp-v0", episodes=1)
    assert same.spec.id == env.spec.id == "playbench/ivispar-sgp-v0"


# --- errors ---------------------------------------------------------------------------------------
def test_an_unknown_task_id_suggests_the_closest():
    with pytest.raises(ConfigError, match=r"unknown task 'ivispar/sgp-2e'.*did you mean ivispar/sgp-2d"):
        pg.make("ivispar/sgp-2e")


@pytest.mark.parametrize("make", [pg.make, lambda tid, **o: gymnasium.make(pg.gym_id(tid), **o)])
def test_an_unknown_option_is_one_message_naming_it_and_the_closest(make):
    with pytest.raises(
        ConfigError, match=r"unknown option 'boardsize' for ivispar/sgp \(did you mean board_size"
    ):
        make("ivispar/sgp", boardsize=[5, 5])


def test_a_defining_option_cannot_be_changed_and_a_bad_value_is_named():
    with pytest.raises(ConfigError, match="modality defines the task ivispar/sgp-2d"):
        pg.make("ivispar/sgp-2d", modality="3d")
    with pytest.raises(ConfigError, match="max_steps"):
        pg.make("ivispar/sgp", max_steps="many")
    with pytest.raises(ConfigError, match="unknown reward 'dense'"):
        pg.make("ivispar/sgp", reward="dense")
    with pytest.raises(ConfigError, match="render_mode 'rgb_array' is not offered by ivispar/sgp"):
        pg.make("ivispar/sgp", render_mode="rgb_array")  # text observations: no frame
    with pytest.raises(ConfigError, match="seat 'expert' is not a seat of ivispar/sgp"):
        pg.make("ivispar/sgp", seat="expert")


def test_an_unknown_instance_names_it_and_some_accepted_ids():
    env = pg.make("ivispar/sgp", episodes=3)
    ids = [i.id for i in make_task("ivispar/sgp").instances(3, 0)]
    with pytest.raises(ConfigError, match=r"instance 'nope' is not in ivispar/sgp's set for seed 0") as err:
        env.reset(options={"instance": "nope"})
    assert all(i in str(err.value) for i in ids)


def test_the_authors_rooms_refuse_without_a_clone_as_run_does():
    with pytest.raises(ConfigError, match="visescape/original-demo"):
        pg.make("visescape/original")


# --- seeds, instances, order ----------------------------------------------------------------------
@pytest.mark.parametrize("task_id", ["ivispar/sgp", "comma/all", "tos/explore"])
def test_resets_play_the_cli_instances_in_the_cli_order(task_id):
    config = RunConfig(
        tasks=[task_id], agents={"*": AgentSpec("random")}, out="unused", episodes=3, seed=7, trials=2
    )
    jobs = plan_run(config).jobs
    env = pg.make(task_id, episodes=3, trials=2)
    played = []
    for k in range(len(jobs) + 2):
        _, info = env.reset(seed=7) if k == 0 else env.reset()
        played.append((info["instance_id"], info["trial"], info["seed"]))
    expected = [(j.instance_id, j.trial, j.seed) for j in jobs]
    assert played[: len(jobs)] == expected
    # then the list again, with the next trial numbers
    assert played[len(jobs) :] == [(expected[0][0], 2, 7), (expected[0][0], 3, 7)]


def test_same_seed_same_observations_and_a_named_instance_and_trial():
    a, b = pg.make("comma/all", episodes=5), pg.make("comma/all", episodes=5)
    for seed in (0, 3):
        obs_a, info_a = a.reset(seed=seed)
        obs_b, info_b = b.reset(seed=seed)
        assert obs_a["text"] == obs_b["text"] and info_a == info_b
        assert all(np.array_equal(x, y) for x, y in zip(obs_a["images"], obs_b["images"], strict=True))
    third = make_task("comma/all").instances(5, 3)[2]
    _, info = a.reset(options={"instance": third.id, "trial": 4})
    assert (info["instance_id"], info["trial"], info["seed"]) == (third.id, 4, 3)
    assert a.unwrapped.task.episode_seed == b.unwrapped.source.start(third, 4, 3).task.episode_seed
    _, info = a.reset()  # a named instance does not move the sequence
    assert info["instance_id"] == make_task("comma/all").instances(5, 3)[1].id


# --- observations ---------------------------------------------------------------------------------
def test_images_are_the_png_pixels_and_info_holds_the_rest():
    env = pg.make("ivispar/sgp-2d", episodes=1, image_size=240, render_mode="rgb_array")
    obs, info = env.reset(seed=0)
    task = make_task("ivispar/sgp-2d", image_size=240)
    task.reset(task.instances(1, 0)[0])
    shown = task.observe("player")
    pngs = [i.png for i in shown.all_images]
    assert len(obs["images"]) == len(pngs) == 2
    for array, png in zip(obs["images"], pngs, strict=True):
        assert array.dtype == np.uint8 and array.shape == (180, 240, 3)
        assert np.array_equal(array, np.asarray(Image.open(io.BytesIO(png)).convert("RGB")))
    assert obs["text"] == shown.text and info["instructions"] == shown.instructions
    assert info["legal_actions"] == shown.legal_actions and info["role"] == "player"
    assert [t["images"] for t in info["turns"]] == [1, 1] and info["image_labels"] == ["goal", "current"]
    assert np.array_equal(env.render(), obs["images"][-1])  # the current board: the last image sent
    assert env.observation_space.contains(obs)


def test_any_unicode_text_is_in_the_space_and_ansi_renders_the_text():
    env = pg.make("tos/explore", episodes=1, render_mode="ansi")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and env.render() == obs["text"]
    assert env.observation_space["text"].contains("° • × 漢 🙂\x00")
    obs, _, _, _, info = env.step("🙂" * 50)  # any reply is played and judged
    assert info["result"]["validity"] == "unparseable" and env.observation_space.contains(obs)


def test_decode_png_converts_other_modes_to_rgb():
    buf = io.BytesIO()
    Image.new("RGBA", (3, 2), (10, 20, 30, 0)).save(buf, format="PNG")
    array = decode_png(buf.getvalue())
    assert array.shape == (2, 3, 3) and array[0, 0].tolist() == [10, 20, 30]


# --- rewards and endings --------------------------------------------------------------------------
def play_oracle(env, **reset):
    obs, info = env.reset(**reset)
    rewards, done = [], False
    while not done:
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        rewards.append(reward)
        done = terminated or truncated
    return rewards, terminated, truncated, info


@pytest.mark.parametrize("task_id", ["ivispar/sgp", "comma/keypad", "visescape/room-01", "tos/cogmap"])
def test_an_oracle_episode_gives_what_run_episode_gives(task_id):
    jobs = plan_run(
        RunConfig(tasks=[task_id], agents={"*": AgentSpec("oracle")}, out="x", episodes=2, seed=5)
    ).jobs
    env = pg.make(task_id, episodes=2)
    for job in jobs:
        record = asyncio.run(run_episode(job, ModelPool(), save_images=False)).record
        rewards, terminated, truncated, info = play_oracle(env, seed=5, options={"instance": job.instance_id})
        assert (info["success"], info["steps"], info["termination"]) == (
            record["success"],
            record["steps"],
            record["termination"],
        )
        assert info["metrics"] == json.loads(json.dumps(record["metrics"]))
        assert info["optimal_steps"] == record["optimal_steps"]
        assert rewards[-1] == (1.0 if record["success"] else 0.0) and sum(rewards[:-1]) == 0.0
        assert (terminated, truncated) == (True, False)


def test_scripted_replies_give_what_a_replay_run_gives(tmp_path):
    """Replies of every kind (legal, illegal, unreadable) played through the env and by the runner's
    replay agent end alike, step for step."""
    task = make_task("ivispar/sgp")
    instance = task.instances(1, 2)[0]
    task.reset(instance)
    rng = random.Random(1)
    replies = [
        rng.choice([*task.observe("player").legal_actions, "action: move", "no idea", "🙂"])
        for _ in range(30)
    ]
    replay = tmp_path / "replies.jsonl"
    replay.write_text(json.dumps({"instance_id": instance.id, "actions": replies}) + "\n")
    config = RunConfig(
        tasks=["ivispar/sgp"], agents={"*": AgentSpec(f"replay:{replay}")}, out="x", episodes=1, seed=2
    )
    output = asyncio.run(run_episode(plan_run(config).jobs[0], ModelPool(), save_images=False))
    env = pg.make("ivispar/sgp", episodes=1)
    env.reset(seed=2)
    verdicts = []
    for reply in replies:
        _, _, terminated, truncated, info = env.step(reply)
        verdicts.append(info["result"]["validity"])
        if terminated or truncated:
            break
    assert verdicts == [s["validity"] for s in output.steps]
    record = output.record
    assert (info["success"], info["steps"], info["termination"]) == (
        record["success"],
        record["steps"],
        record["termination"],
    )


def test_a_capped_episode_is_truncated_not_terminated():
    task = make_task("ivispar/sgp")
    instance = next(i for i in task.instances(None, 0) if (i.optimal_steps or 0) >= 2)
    env = pg.make("ivispar/sgp", max_steps=1)
    _, info = env.reset(options={"instance": instance.id})
    _, reward, terminated, truncated, info = env.step(info["legal_actions"][0])
    assert info["termination"] == Termination.STEP_CAP == "step_cap"
    assert (terminated, truncated, reward, info["success"]) == (False, True, 0.0, False)
    with pytest.raises(Exception, match="has ended: call reset"):
        env.unwrapped.step("action: move green cube up")


def test_every_termination_maps_to_exactly_one_of_terminated_truncated():
    for word in TERMINATIONS:
        terminated, truncated = ended(EpisodeResult(success=False, steps=1, termination=word))
        assert terminated != truncated
        assert truncated == (word in {"step_cap", "no_progress", "agent_stopped"})
    assert {str(t) for t in TRUNCATIONS} <= set(TERMINATIONS)


def test_progress_reward_pays_the_tasks_own_measure():
    env = pg.make("ivispar/sgp", episodes=1, reward="progress")
    rewards, terminated, _, info = play_oracle(env, seed=0)
    start = info["optimal_steps"]  # an optimal move closes one unit of the start distance
    assert rewards == pytest.approx([1 / start] * start) and sum(rewards) == pytest.approx(1.0)
    env = pg.make("visescape/room-01", reward="progress")
    rewards, _, _, info = play_oracle(env, seed=0)
    assert sum(rewards) == pytest.approx(info["metrics"]["gc"]) and max(rewards) < 1.0
    with pytest.raises(ConfigError, match="ivispar/board-inference defines no per-step progress"):
        pg.make("ivispar/board-inference", reward="progress")


# --- seats ----------------------------------------------------------------------------------------
def test_by_default_every_seat_plays_in_turn():
    env = pg.make("comma/wire", episodes=1)
    _, info = env.reset(seed=0)
    roles = [info["role"]]
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        done = terminated or truncated
        roles.append(info["role"])
    assert roles[0] == "solver" and "expert" in roles and info["success"]


def test_one_seat_with_an_oracle_or_a_model_in_the_other(tmp_path):
    solo = pg.make("comma/keypad", episodes=1, seat="solver", partners="oracle")
    _, info = solo.reset(seed=0)
    partner_roles, seat_roles, done = list(info.get("partner_steps", [])), [info["role"]], False
    while not done:
        _, reward, terminated, truncated, info = solo.step(solo.unwrapped.oracle_action())
        partner_roles += [s["role"] for s in info.get("partner_steps", [])]
        seat_roles.append(info["role"])
        done = terminated or truncated
    job = plan_run(
        RunConfig(tasks=["comma/keypad"], agents={"*": AgentSpec("oracle")}, out="x", episodes=1)
    ).jobs[0]
    record = asyncio.run(run_episode(job, ModelPool(), save_images=False)).record
    assert (info["success"], info["steps"]) == (record["success"], record["steps"]) and reward == 1.0
    assert set(partner_roles) == {"expert"} and set(seat_roles) == {"solver"}

    replies = tmp_path / "expert.txt"
    replies.write_text("Press the keys in the order of the column that holds all four.\n")
    with_model = pg.make(
        "comma/keypad", episodes=1, seat="solver", partners={"name": "llm", "model": f"mock:{replies}"}
    )
    obs, info = with_model.reset(seed=0)
    assert info["role"] == "solver" and with_model.observation_space.contains(obs)
    _, _, _, _, info = with_model.step(with_model.unwrapped.oracle_action())
    said = [s["action"] for s in info.get("partner_steps", [])]
    assert said and all("column that holds all four" in s for s in said)
    with_model.close()
    with pytest.raises(ConfigError, match="seat='solver' leaves expert to playbench agents"):
        pg.make("comma/keypad", seat="solver")
    with pytest.raises(ConfigError, match="unknown agent 'oracel'"):
        pg.make("comma/keypad", seat="solver", partners="oracel")

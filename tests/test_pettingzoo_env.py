"""playbench tasks as PettingZoo AEC environments (`playbench.pettingzoo`): PettingZoo's api_test on every
task id, COMMA's two seats as two agents, the runner's results through the AEC loop."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import warnings

import pytest
from pettingzoo.test import api_test
from test_gym_env import SPECS, clone, fast_options  # noqa: F401 - the demo clone fixture

from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.pettingzoo import env as pz_env
from playbench.pettingzoo import raw_env
from playbench.runner.episode import run_episode
from playbench.runner.model_pool import ModelPool
from playbench.runner.run import RunConfig, plan_run


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_api_test_passes_for_every_task_id(spec, clone):  # noqa: F811
    game = pz_env(spec.id, **fast_options(spec, clone))
    # api_test prints its progress and warns where playbench differs from PettingZoo's advice by design
    # (text spaces rather than Box/Discrete, seats named as the papers name them, reset options it
    # invents); its assertions are the test
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        api_test(game, num_cycles=25)


def test_comma_seats_are_agents_with_their_own_spaces():
    game = raw_env("comma/keypad", episodes=1)
    assert game.possible_agents == ["solver", "expert"]
    solver, expert = game.observation_space("solver"), game.observation_space("expert")
    assert solver["images"].feature_space.shapes == [(520, 520)]
    assert expert["images"].feature_space.shapes == [(786, 722)]  # the manual page
    game.reset(seed=0)
    assert game.agent_selection == "solver"
    for agent in game.agents:
        assert game.observation_space(agent).contains(game.observe(agent))
    task = make_task("comma/keypad")
    task.reset(task.instances(1, 0)[0])
    assert json.loads(game.state()) == json.loads(json.dumps(task.state(), default=str))


def play_aec_oracle(game, **reset):
    game.reset(**reset)
    seen, last = [], {}
    for agent in game.agent_iter(10_000):
        obs, reward, terminated, truncated, info = game.last()
        if terminated or truncated:
            last[agent] = (reward, terminated, truncated, info)
            game.step(None)
            continue
        seen.append(agent)
        game.step(game.unwrapped.oracle_action())
    return seen, last


@pytest.mark.parametrize("task_id", ["comma/all", "ivispar/sgp"])
def test_an_oracle_episode_through_the_aec_loop_gives_what_run_episode_gives(task_id):
    jobs = plan_run(
        RunConfig(tasks=[task_id], agents={"*": AgentSpec("oracle")}, out="x", episodes=3, seed=1)
    ).jobs
    game = pz_env(task_id, episodes=3)
    for job in jobs:
        record = asyncio.run(run_episode(job, ModelPool(), save_images=False)).record
        seen, last = play_aec_oracle(game, seed=1, options={"instance": job.instance_id})
        assert set(last) == set(game.possible_agents)  # every seat ends, with the team's reward
        for reward, terminated, truncated, info in last.values():
            assert (info["success"], info["steps"], info["termination"]) == (
                record["success"],
                record["steps"],
                record["termination"],
            )
            assert (reward, terminated, truncated) == (1.0 if record["success"] else 0.0, True, False)
        assert len(seen) == record["turns"]


def test_seeded_resets_play_the_cli_order_and_errors_are_named():
    jobs = plan_run(
        RunConfig(tasks=["comma/all"], agents={"*": AgentSpec("random")}, out="x", episodes=4, seed=9)
    ).jobs
    game = raw_env("comma/all", episodes=4)
    order = []
    for k in range(4):
        game.reset(seed=9) if k == 0 else game.reset()
        order.append(game.infos[game.agent_selection]["instance_id"])
    assert order == [j.instance_id for j in jobs]
    with pytest.raises(ConfigError, match="instance 'button-9999' is not in comma/all's set"):
        game.reset(options={"instance": "button-9999"})
    with pytest.raises(ConfigError, match="unknown task 'comma/wires'.*did you mean comma/wire"):
        raw_env("comma/wires")
    with pytest.raises(ConfigError, match="unknown option 'mistake_limt'.*did you mean mistake_limit"):
        raw_env("comma/wire", mistake_limt=3)

"""The solver: one whole playbench episode per Inspect sample, through Inspect's model API.

It plays with playbench's own loop (`runner/episode.py` `run_episode`), agent and task protocol; only
the model calls go to Inspect (`adapter.py`). The sample's epoch is the episode's trial (epoch 1 is
trial 0), so its seed is `derive_seed(seed, trial)`, as in `playbench run --trials`.
"""

from __future__ import annotations

from inspect_ai.model import get_model
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.solver import Generate, Solver, TaskState, solver

from playbench.inspect_eval.adapter import InspectModelPool, spec_for
from playbench.inspect_eval.setup import EvalSetup, generate_settings, needs_model
from playbench.runner.episode import run_episode

# Where a sample keeps its episode: the record in its metadata, the trajectory (one entry per turn,
# as trajectories/<key>.jsonl holds it) in its store.
RECORD_KEY = "playbench_record"
STEPS_KEY = "playbench_steps"


@solver
def playbench_solver(setup: EvalSetup) -> Solver:
    """Play the sample's instance to the end with the task's agent (`-T agent`, default `llm`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        spec = spec_for(model) if needs_model(setup.agent) else "none:none"
        settings = generate_settings(active_generate_config())
        plan = setup.plan_for(spec, settings)
        job = setup.job(plan, str(state.sample_id), state.epoch - 1)
        output = await run_episode(job, InspectModelPool(model), save_images=setup.out is not None)
        state.metadata[RECORD_KEY] = output.record
        state.metadata["playbench_model_side"] = plan.model_side.get(setup.task_id)
        state.metadata["playbench_fidelity"] = plan.fidelity.get(setup.task_id)
        state.store.set(STEPS_KEY, output.steps)
        if setup.out is not None:
            setup.write(output, plan, spec, settings)
        state.completed = True
        return state

    return solve

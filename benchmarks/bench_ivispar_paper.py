"""The paper's dataset and metrics, checked end to end (a script, not a test).

    .venv/bin/python benchmarks/bench_ivispar_paper.py [DIR_WITH_config_ICML_*.json] [--seeds N]

1. With a directory of the original configs (`Data/Configs/Main/` of `anon148/iVISPAR`), checks
   that `playbench instances ivispar/sgp -n 300` gives exactly those boards: same ids, geoms,
   starts, goals and optimal lengths, and our solver's distance equals each optimal length.
2. Plays the 300 boards through the runner (`playbench run`, text modality, 20-action cap) with
   the oracle, our random agent (several seeds) and a replay of the original's own random
   baseline (the first 20 moves of each board's stored random sequence), and prints the mean
   `step_deviation` (distance after L actions, the paper's "step deviation"), `final_distance`
   and the success rate of each.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from statistics import fmean

from playbench.core.registry import make_task
from playbench.runner.run import AgentSpec, RunConfig, execute
from playbench.tasks.ivispar.paper_data import coordinate, paper_random_moves
from playbench.tasks.ivispar.solver import Solver


def check_against_configs(src: Path) -> None:
    ours = {i.id: i for i in make_task("ivispar/sgp").instances(300, 0)}
    files = sorted(src.glob("config_ICML_*.json"))
    assert len(files) == 300 == len(ours), (len(files), len(ours))
    for f in files:
        cfg = json.loads(f.read_text())
        inst = ours[cfg["config_instance_id"]]
        theirs = sorted(
            (lm["color"], lm["body"], coordinate(lm["start_coordinate"]), coordinate(lm["goal_coordinate"]))
            for lm in cfg["landmarks"]
        )
        mine = sorted((g.color, g.shape, g.start, g.goal) for g in inst.geoms)
        assert mine == theirs, inst.id
        assert inst.optimal_steps == cfg["complexity_c1"] == len(cfg["shortest_move_sequence"]) - 1, inst.id
        assert Solver(inst.board(), inst.goal_state()).distance(inst.start_state()) == inst.optimal_steps
    print(f"instances: the 300 boards equal the original configs in {src} (geoms, starts, goals, lengths)")


def run(agent: AgentSpec, out: Path, seed: int = 0) -> list[dict]:
    config = RunConfig(["ivispar/sgp"], {"*": agent}, str(out), seed=seed, save_images=False)
    asyncio.run(execute(config))
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def report(name: str, records: list[dict]) -> float:
    dev = fmean(r["metrics"]["step_deviation"] for r in records)
    final = fmean(r["metrics"]["final_distance"] for r in records)
    success = fmean(bool(r["success"]) for r in records)
    print(
        f"{name:<34} episodes {len(records):3d}  step_deviation {dev:5.2f}  final_distance {final:5.2f}  "
        f"success {100 * success:5.1f}%"
    )
    return dev


def main(argv: list[str]) -> int:
    seeds = 5
    if "--seeds" in argv:
        k = argv.index("--seeds")
        seeds = int(argv[k + 1])
        argv = argv[:k] + argv[k + 2 :]
    if argv:
        check_against_configs(Path(argv[0]))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        start = time.perf_counter()
        oracle = report("oracle", run(AgentSpec("oracle"), base / "oracle"))
        assert oracle == 0
        means = [
            report(f"random (seed {s})", run(AgentSpec("random"), base / f"random{s}", s))
            for s in range(seeds)
        ]
        print(
            f"{'random, mean over seeds':<34} step_deviation {fmean(means):5.2f} ({min(means):.2f}..{max(means):.2f})"
        )
        replay = base / "original_random.jsonl"
        replay.write_text(
            "".join(
                json.dumps({"instance_id": i, "actions": [f"action: {m}" for m in moves]}) + "\n"
                for i, moves in paper_random_moves().items()
            )
        )
        report("original's random sequences", run(AgentSpec(f"replay:{replay}"), base / "replay"))
        print(f"took {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

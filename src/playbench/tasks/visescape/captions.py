"""Table 9: how well an agent's captions state what a view shows.

`python -m playbench.tasks.visescape.captions RUN_DIR...` reads the trajectories of runs made with
`visescape-memory` (or `visescape-base --captioner-model M`): every caption call is recorded in the step's
raw output as `--- caption <scene> ---`, and the step's `info.view_objects` holds the names of the
receptacles and items the game shows in that view (the paper's ground truth "from the internal game
engine"). For each distinct scene captioned, accuracy is the share of those names the caption mentions
(ignoring case, `_` read as a space); the table gives its mean over scenes (%) and the mean caption length
in words, the paper's two columns. *Choice*: the paper does not say how it parsed the captions; naming
each object is the fact its caption prompts ask for (they give the names and ask for them in quotes).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from statistics import fmean
from typing import Any

CAPTION_BLOCK = re.compile(r"^--- caption (\S+) ---\n(.*?)(?=\n\n--- |\Z)", re.S | re.M)


def mentions(caption: str, name: str) -> bool:
    text = caption.lower().replace("_", " ")
    return name.lower().replace("_", " ") in text


def scene_scores(steps: list[dict[str, Any]]) -> dict[str, tuple[float, int]]:
    """Scene id -> (share of its objects named, caption length in words), first caption of each scene."""
    out: dict[str, tuple[float, int]] = {}
    for step in steps:
        raw = step.get("raw_output") or ""
        objects = (step.get("info") or {}).get("view_objects") or []
        for scene, caption in CAPTION_BLOCK.findall(raw):
            if scene in out or not objects:
                continue
            named = sum(mentions(caption, o) for o in objects) / len(objects)
            out[scene] = (named, len(caption.split()))
    return out


def caption_table(run_dirs: list[str | Path]) -> dict[str, dict[str, float]]:
    """Per agent label: {"accuracy": %, "length": words, "scenes": n}."""
    by_agent: dict[str, dict[str, tuple[float, int]]] = {}
    for run in run_dirs:
        base = Path(run)
        episodes = base / "episodes.jsonl"
        if not episodes.is_file():
            raise ValueError(f"{base} is not a run directory (no episodes.jsonl)")
        for line in episodes.read_text().splitlines():
            rec = json.loads(line)
            path = base / str(rec.get("trajectory", ""))
            if not rec.get("trajectory") or not path.is_file():
                continue
            steps = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
            label = f"{rec.get('agent')}"
            scenes = by_agent.setdefault(label, {})
            for scene, score in scene_scores(steps).items():
                scenes.setdefault(f"{rec.get('task')}/{rec.get('instance_id')}/{scene}", score)
    return {
        label: {
            "accuracy": 100 * fmean(a for a, _ in scenes.values()),
            "length": fmean(n for _, n in scenes.values()),
            "scenes": len(scenes),
        }
        for label, scenes in by_agent.items()
        if scenes
    }


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    if not args:
        print("usage: python -m playbench.tasks.visescape.captions RUN_DIR...", file=sys.stderr)
        return 2
    try:
        table = caption_table(args)
    except (ValueError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("| agent | accuracy (%) | avg. length | scenes |\n|---|---|---|---|")
    for label, row in table.items():
        print(f"| {label} | {row['accuracy']:.1f} | {row['length']:.2f} | {row['scenes']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

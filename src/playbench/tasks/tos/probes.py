"""Belief probes in an episode (the authors' protocol), on the exploration machine of `exploration.py`.

The authors probe the model's spatial belief during exploration with questions that never enter
the exploration itself. Here a probe is an extra reply between exploration steps: the task queues
the probes of a turn (`_after_turn`), the episode machine then asks them one by one (the
observation is the exploration log so far with the probe's question instead of the step prompt),
scores each reply and never shows it again; probe replies are not steps. Which probes a task asks and when is the task's
(`tos/cogmap` in `answers.py`, `tos/false-belief` in `false_belief.py`); the probes' prompts,
reading and scores are `probing.py`.
"""

from __future__ import annotations

import json
import random
from typing import Any

from playbench.core.episode import ParseError
from playbench.core.task import derive_seed
from playbench.core.types import ImagePart, Part, StepResult, TextPart, Validity
from playbench.tasks.tos import probing
from playbench.tasks.tos.exploration import TosInstance, TosTask
from playbench.tasks.tos.world import FACINGS, HEADING, visible_items


class ProbingTask(TosTask):
    """A tos task that asks the authors' belief probes (see the module docstring)."""

    def _begin(self, instance: TosInstance) -> None:
        super()._begin(instance)
        self._turns: list[probing.TurnProbe] = []  # one per reply of the first exploration (probing)
        self._probes_unreadable = 0
        self._fog: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
        self._local_map: probing.Map | None = None
        self._scale = probing.position_scale(instance.world)
        self._belief = probing.BeliefScores()  # false belief: per changed object, first seen again
        self._exp_raw: dict[str, Any] | None = None  # the map at the end of the first exploration
        self._fb_newly: list[str] = []

    def _probing(self) -> bool:
        """Whether this episode asks the probes (each task decides from its option `probe`)."""
        return False

    def _on_parse_error(self, error: ParseError) -> StepResult:
        if self._phase == "explore" and self._probing():
            # theirs: an invalid reply has no turn state and is never probed (stability skips it)
            self._turns.append(probing.TurnProbe(frozenset(), {}))
        return super()._on_parse_error(error)

    def _open_turn_record(self) -> probing.TurnProbe:
        """The first exploration's record for this turn (truth at the agent's pose now)."""
        rec = probing.TurnProbe(self._last_visible, probing.truth_full(self.world, self._pose), probed=True)
        self._turns.append(rec)
        return rec

    def _draw_fog(self) -> None:
        rng = random.Random(derive_seed("tos-fog", self.instance.id, len(self._turns)))
        self._fog = self._unexplored.candidates(rng, (self._pose.x, self._pose.y))

    def _probe_step(self, text: str) -> StepResult:
        kind = self._probes.pop(0)
        self._probe_replies += 1
        readable = self._read_probe(kind, text)
        if not readable:
            self._probes_unreadable += 1
        feedback = "Recorded." if readable else "No JSON map found in the reply; recorded as unreadable."
        self._feedback = feedback
        info: dict[str, Any] = {"phase": "probe", "probe": kind, "readable": readable}
        validity = Validity.EFFECTIVE if readable else Validity.INEFFECTIVE
        return StepResult(validity, feedback, parsed=text.strip()[-200:] or None, info=info)

    def _read_probe(self, kind: str, text: str) -> bool:
        """Score a probe reply; True when it could be read."""
        rec = self._turns[-1] if self._turns else None
        if kind == "global" and rec is not None:
            return self._record_global(rec, text)
        if kind == "local" and rec is not None:
            data = probing.extract_json(text)
            visible = {it.name for it in visible_items(self.world, self._pose)}
            self._local_map = probing.read_local(data, visible, self._pose.facing)
            truth = probing.truth_local(self.world, self._pose)
            # an empty view scores nothing (their local log is then invalid)
            rec.local_scores = probing.compare(self._local_map, truth, self._scale) if truth else None
            return data is not None
        if kind == "fog" and rec is not None:
            cands, correct = self._fog
            rec.fog = probing.fog_scores(probing.read_fog_labels(text), cands, correct)
            return True
        return probing.extract_json(text) is not None

    def _record_global(self, rec: probing.TurnProbe, text: str) -> bool:
        data = probing.extract_json(text)
        keep = self._observed | {g.name for g in self.world.gates} | {"agent"}
        pred = probing.read_global(data, keep)
        rec.probed = True
        rec.raw_global = data
        rec.global_map = pred
        rec.global_scores = probing.compare(
            pred, probing.truth_observed(self.world, self._pose, self._observed), self._scale
        )
        rec.full_scores = probing.compare(pred, probing.truth_full(self.world, self._pose), self._scale)
        rec.agent_scores = probing.compare(pred, probing.truth_agent(self._pose), self._scale)
        if rec.local_scores is not None and rec.global_scores is not None:
            rec.local_global = probing.local_vs_global(self._local_map, pred, self._scale)
        return data is not None

    def _probe_prompt(self, kind: str) -> list[Part]:
        if kind == "local":
            return [TextPart(probing.local_prompt())]
        if kind == "fog":
            cands = self._fog[0]
            if self.config.modality == "vision":
                png = probing.fog_image(self.world, self._pose, cands, self.config.image_size)
                return [TextPart(probing.fog_prompt(None)), ImagePart(png, label="fog-map")]
            return [TextPart(probing.fog_prompt(probing.symbolic_map(self.world, self._pose, cands)))]
        if kind == "fb_global":
            return [TextPart(probing.false_belief_prompt())]
        return [TextPart(probing.global_prompt())]

    def _probe_truth(self, kind: str) -> str:
        """The true answer to a probe (the oracle's reply)."""
        if kind == "local":
            objects = {}
            for name, e in probing.truth_local(self.world, self._pose).items():
                entry: dict[str, Any] = {"position": [round(e.x), round(e.y)]}
                if e.oriented and "door" not in name:
                    world_facing = next(f for f, u in probing.FACING_VECTOR.items() if u == e.ori)
                    rel = (HEADING[world_facing] - HEADING[self._pose.facing]) % 360
                    entry["facing"] = {0: "+y", 90: "+x", 180: "-y", 270: "-x"}[rel]
                objects[name] = entry
            return "FINAL ANSWER: " + json.dumps({"origin": "agent", "objects": objects})
        if kind == "fog":
            cands, correct = self._fog
            labels = [probing.LABELS[k] for k, c in enumerate(cands) if c in correct]
            return "FINAL ANSWER: " + json.dumps({"unexplored": labels})
        truth = probing.truth_full(self.world, self._pose)
        if kind != "fb_global":  # observed objects, every door (their reading keeps doors), the agent
            keep = self._observed | {g.name for g in self.world.gates} | {"agent"}
            truth = {k: v for k, v in truth.items() if k in keep}
        return "FINAL ANSWER: " + json.dumps(probing.map_json(truth))

    def _probe_samples(self, kind: str) -> list[str]:
        """Replies the random baseline picks from: the truth, an empty answer, a guess."""
        rng = random.Random(derive_seed("tos-probe", self.instance.id, self._probe_replies))
        if kind == "fog":
            n = len(self._fog[0])
            guess = sorted(rng.sample(list(probing.LABELS[:n]), rng.randint(0, n)))
            return [
                self._probe_truth(kind),
                'FINAL ANSWER:\n{"unexplored": []}',
                json.dumps({"unexplored": guess}),
            ]
        xs = range(min(r.x0 for r in self.world.rooms), max(r.x1 for r in self.world.rooms) + 1)
        ys = range(min(r.y0 for r in self.world.rooms), max(r.y1 for r in self.world.rooms) + 1)
        guess = {
            name: {"position": [rng.choice(xs), rng.choice(ys)], "facing": rng.choice(list(FACINGS))}
            for name in sorted(self._observed)
        }
        return [self._probe_truth(kind), "FINAL ANSWER:\n{}", "FINAL ANSWER:\n" + json.dumps(guess)]

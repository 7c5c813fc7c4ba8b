"""Paper presets: a suite's published experiment settings and its published results, as data.

`playbench reproduce SUITE --model M` runs a suite's preset and reports the user's rows beside the
paper's, same metrics and same units. A preset is a JSON file shipped in the suite's folder and
registered by name in the suite's `registration.py`:

    register_preset("ivispar", "playbench.tasks.ivispar", "paper_preset.json")

The file (validated by `PaperPreset`) holds:
- `paper`, `source`: the citation and where the numbers come from (tables, appendix);
- `run`: the paper's settings: `tasks`, `task_options` (`key` or `task/id:key` as `--set`),
  `agent_options` (agent options such as `cot`), `episodes`, `trials`; the model side (sampling,
  output cap, history, images, per-model rules) is each task's own declaration (`Task.model_side`),
  applied by every run, so a preset holds none;
- `tables`: each published table as `id` ("Table 2"), `title`, `conditions` (the table's columns,
  each naming the task whose results fill it, or `null` for the average of the other columns, as a
  paper's "Avg"), `measures` (the table's metrics: their name as printed, where the value is in
  `summary.json` (`success`, `steps` or `metrics.NAME`), and the `scale` from ours to the paper's
  unit, e.g. 100 for percent) and `rows`: `{"model": ..., "values": {measure: {condition: number}}}`,
  every number exactly as printed.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from playbench.core.errors import ConfigError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Condition(_Strict):
    name: str  # the column heading as printed ("3D", "Text", "Avg")
    task: str | None  # the task id whose results fill the column; None: mean of the other columns


class Measure(_Strict):
    name: str  # as printed ("Completed episodes")
    metric: str  # "success", "steps" or "metrics.<name>" in summary.json
    scale: float = 1.0  # ours x scale = the paper's unit
    unit: str = ""  # shown after the name, e.g. "%"
    digits: int = 2
    tasks: dict[str, str] = Field(default_factory=dict)  # condition -> task, where not the condition's

    def task_for(self, condition: Condition) -> str | None:
        return self.tasks.get(condition.name, condition.task)


class PublishedRow(_Strict):
    model: str
    values: dict[str, dict[str, float | None]]  # measure -> condition -> number (None: not reported)


class PublishedTable(_Strict):
    id: str
    title: str
    conditions: list[Condition]
    measures: list[Measure]
    rows: list[PublishedRow]

    @model_validator(mode="after")
    def _names_match(self) -> PublishedTable:
        measures = {m.name for m in self.measures}
        conditions = {c.name for c in self.conditions}
        for row in self.rows:
            for measure, cells in row.values.items():
                if measure not in measures:
                    raise ValueError(f"{self.id}, {row.model}: unknown measure {measure!r}")
                unknown = set(cells) - conditions
                if unknown:
                    raise ValueError(f"{self.id}, {row.model}: unknown columns {sorted(unknown)}")
        return self


class PresetRun(_Strict):
    tasks: list[str]
    task_options: dict[str, Any] = Field(default_factory=dict)
    agent_options: dict[str, Any] = Field(default_factory=dict)
    episodes: int | None = None
    trials: int = 1
    agent: str = "llm"

    @model_validator(mode="after")
    def _no_model_side(self) -> PresetRun:
        from playbench.core.model_side import MODEL_SETTINGS

        misplaced = sorted(set(self.agent_options) & set(MODEL_SETTINGS))
        if misplaced:
            raise ValueError(
                f"agent_options {misplaced} belong to the model side, which each task declares "
                "(Task.model_side) and every run applies"
            )
        return self


class PaperPreset(_Strict):
    suite: str
    paper: str
    source: str
    notes: str = ""
    run: PresetRun
    tables: list[PublishedTable]


_PRESETS: dict[str, tuple[str, str]] = {}
_LOADED: dict[str, PaperPreset] = {}


def register_preset(suite: str, package: str, resource: str) -> None:
    """Register the preset file `resource` of `package` under the suite's name (loaded when used)."""
    if suite in _PRESETS:
        raise ValueError(f"a preset for '{suite}' is already registered")
    _PRESETS[suite] = (package, resource)


def preset_names() -> list[str]:
    from playbench.core.registry import all_specs

    all_specs()  # importing the suites is what registers their presets
    return sorted(_PRESETS)


def parse_preset(text: str, where: str) -> PaperPreset:
    try:
        return PaperPreset.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as exc:
        first = str(exc).splitlines()
        raise ConfigError(f"preset {where} is malformed: {' '.join(first[:3])}") from None


def get_preset(suite: str) -> PaperPreset:
    names = preset_names()
    if suite not in _PRESETS:
        raise ConfigError(
            f"no paper preset for '{suite}' (suites with one: {', '.join(names) or 'none yet'})"
        )
    if suite not in _LOADED:
        package, resource = _PRESETS[suite]
        text = resources.files(package).joinpath(resource).read_text()
        _LOADED[suite] = parse_preset(text, f"{package}/{resource}")
    return _LOADED[suite]

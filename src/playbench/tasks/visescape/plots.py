"""VisEscape report figures (called by `playbench report`).

| file | paper | content |
|---|---|---|
| `visescape_gc_progression.png` | Figure 9 | mean GC over the first 100 steps per agent; dotted = hint mode |
| `visescape_essential_scenes.png` | Figure 8 | share of the oracle path's scenes seen at least once, first 100 steps |
| `visescape_repetition.png` | Figure 5/10 | share of actions repeated 2..10+ times in the same situation |
| `visescape_metrics.png` | Table 2 | SR, GC and SPL per agent with 95% intervals |
| `visescape_quiz_vqa.png` | Table 8 | quiz VQA: solved at pass@1 and pass@10 per agent |
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playbench.report.plots import (
    agent_label,
    guarded,
    mean_ci,
    new_figure,
    order_labels,
    plot_style,
    proportion_ci,
    save_png,
)
from playbench.tasks.visescape.metrics import PROGRESS_STEPS, REPEAT_BUCKETS, progression

VQA_TASK = "visescape/quiz-vqa"


def _room_records(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r
        for run in runs
        for r in run.get("records", [])
        if r.get("task") != VQA_TASK and not r.get("error") and "gc" in (r.get("metrics") or {})
    ]


def _series(records: list[dict[str, Any]]) -> dict[tuple[str, bool], list[dict[str, Any]]]:
    out: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for r in records:
        out.setdefault((agent_label(r), bool(r["metrics"].get("hints"))), []).append(r)
    return out


def gc_progression_plot(runs: list[dict[str, Any]], out: Path) -> list[Path]:
    records = _room_records(runs)
    if not records:
        return []
    fig = new_figure(7, 4)
    ax = fig.add_subplot()
    series = _series(records)
    labels = order_labels({label for label, _ in series})
    colors = {label: f"C{k % 10}" for k, label in enumerate(labels)}
    for (label, hints), group in sorted(series.items(), key=lambda kv: (labels.index(kv[0][0]), kv[0][1])):
        curve = progression([r["metrics"].get("gc_curve", []) for r in group])
        ax.plot(
            range(1, len(curve) + 1),
            [100 * v for v in curve],
            color=colors[label],
            linestyle=":" if hints else "-",
            label=f"{label}{' (hints)' if hints else ''} n={len(group)}",
        )
    ax.set_xlim(0, PROGRESS_STEPS)
    ax.set_ylim(0, 100)
    ax.set_xlabel("step")
    ax.set_ylabel("goal completion (%)")
    ax.set_title("GC progression over the first 100 steps")
    ax.legend(loc="upper left")
    return [save_png(fig, out / "visescape_gc_progression.png")]


def essential_scenes_plot(runs: list[dict[str, Any]], out: Path) -> list[Path]:
    """Figure 8: the share of essential scenes (those on the oracle's path) observed at least once."""
    records = [r for r in _room_records(runs) if r["metrics"].get("essential_curve")]
    if not records:
        return []
    fig = new_figure(7, 4)
    ax = fig.add_subplot()
    series = _series(records)
    labels = order_labels({label for label, _ in series})
    for (label, hints), group in sorted(series.items(), key=lambda kv: (labels.index(kv[0][0]), kv[0][1])):
        curve = progression([r["metrics"]["essential_curve"] for r in group])
        ax.plot(
            range(1, len(curve) + 1),
            [100 * v for v in curve],
            color=f"C{labels.index(label) % 10}",
            linestyle=":" if hints else "-",
            label=f"{label}{' (hints)' if hints else ''} n={len(group)}",
        )
    ax.set_xlim(0, PROGRESS_STEPS)
    ax.set_ylim(0, 100)
    ax.set_xlabel("step")
    ax.set_ylabel("essential scenes seen (%)")
    ax.set_title("Essential scenes observed over the first 100 steps")
    ax.legend(loc="lower right")
    return [save_png(fig, out / "visescape_essential_scenes.png")]


def repetition_series(records: list[dict[str, Any]]) -> dict[tuple[str, bool], list[list[float]]]:
    """Repeated-action histograms per (agent, hint mode)."""
    by_series: dict[tuple[str, bool], list[list[float]]] = {}
    for r in records:
        hist = r["metrics"].get("repeat_hist")
        if isinstance(hist, list) and len(hist) == len(REPEAT_BUCKETS):
            by_series.setdefault((agent_label(r), bool(r["metrics"].get("hints"))), []).append(hist)
    return by_series


def repetition_plot(runs: list[dict[str, Any]], out: Path) -> list[Path]:
    """Figure 5/10: one bar group per agent and setting (exp_base, exp_hint), as the paper separates them."""
    by_series = repetition_series(_room_records(runs))
    if not by_series:
        return []
    labels = order_labels({label for label, _ in by_series})
    keys = sorted(by_series, key=lambda k: (labels.index(k[0]), k[1]))
    fig = new_figure(7.5, 4)
    ax = fig.add_subplot()
    width = 0.8 / len(keys)
    for k, (label, hints) in enumerate(keys):
        rows = by_series[(label, hints)]
        means = [100 * sum(col) / len(rows) for col in zip(*rows, strict=True)]
        xs = [i + (k - (len(keys) - 1) / 2) * width for i in range(len(REPEAT_BUCKETS))]
        color = f"C{labels.index(label) % 10}"
        ax.bar(
            xs,
            means,
            width=width,
            label=f"{label}{' (hints)' if hints else ''} n={len(rows)}",
            color=color,
            hatch="//" if hints else None,
            edgecolor="white" if hints else None,
        )
    ax.set_xticks(range(len(REPEAT_BUCKETS)), REPEAT_BUCKETS)
    ax.set_xlabel("attempts of the same action in the same situation")
    ax.set_ylabel("share of all actions (%)")
    ax.set_title("Repeated actions")
    ax.legend()
    return [save_png(fig, out / "visescape_repetition.png")]


def metrics_plot(runs: list[dict[str, Any]], out: Path) -> list[Path]:
    records = _room_records(runs)
    if not records:
        return []
    series = _series(records)
    keys = sorted(series, key=lambda k: (order_labels({x for x, _ in series}).index(k[0]), k[1]))
    fig = new_figure(max(6, 1.6 * len(keys) + 2), 4)
    ax = fig.add_subplot()
    width = 0.26
    for m, (name, getter) in enumerate(
        (
            ("SR", lambda g: proportion_ci([bool(r.get("success")) for r in g])),
            ("GC", lambda g: mean_ci([float(r["metrics"]["gc"]) for r in g])),
            ("SPL", lambda g: mean_ci([float(r["metrics"]["spl"]) for r in g])),
        )
    ):
        vals = [getter(series[k]) for k in keys]
        xs = [i + (m - 1) * width for i in range(len(keys))]
        ax.bar(
            xs,
            [100 * v[0] for v in vals],
            width=width,
            yerr=[[100 * max(0.0, v[0] - v[1]) for v in vals], [100 * max(0.0, v[2] - v[0]) for v in vals]],
            capsize=3,
            label=name,
            color=f"C{m}",
        )
    ax.set_xticks(range(len(keys)), [f"{label}{' +hints' if h else ''}" for label, h in keys], rotation=15)
    ax.set_ylim(0, 105)
    ax.set_ylabel("%")
    ax.set_title("VisEscape: success rate, goal completion, SPL")
    ax.legend()
    return [save_png(fig, out / "visescape_metrics.png")]


def vqa_plot(runs: list[dict[str, Any]], out: Path) -> list[Path]:
    records = [
        r for run in runs for r in run.get("records", []) if r.get("task") == VQA_TASK and not r.get("error")
    ]
    if not records:
        return []
    groups: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((agent_label(r), bool(r["metrics"].get("reasoning"))), []).append(r)
    keys = sorted(groups)
    fig = new_figure(max(6, 1.5 * len(keys) + 2), 4)
    ax = fig.add_subplot()
    for m, metric in enumerate(("pass1", "pass10")):
        xs = [i + (m - 0.5) * 0.35 for i in range(len(keys))]
        ax.bar(
            xs,
            [sum(bool(r["metrics"][metric]) for r in groups[k]) for k in keys],
            width=0.35,
            label=metric.replace("pass", "pass@"),
            color=f"C{m}",
        )
    ax.set_xticks(range(len(keys)), [f"{a}\n{'reason' if rs else 'no reason'}" for a, rs in keys])
    ax.set_ylabel("quizzes solved")
    ax.set_title("Quiz VQA")
    ax.legend()
    return [save_png(fig, out / "visescape_quiz_vqa.png")]


def make_plots(runs: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    out = Path(out_dir)
    written: list[Path] = []
    with plot_style():
        for name, fn in (
            ("visescape GC progression", gc_progression_plot),
            ("visescape essential scenes", essential_scenes_plot),
            ("visescape repetition", repetition_plot),
            ("visescape metrics", metrics_plot),
            ("visescape quiz VQA", vqa_plot),
        ):
            written += guarded(name, fn, runs, out) or []
    return written

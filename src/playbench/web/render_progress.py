"""The distance-to-goal line under a replay's timeline: an inline SVG drawn here (no script library;
the pages' CSP allows only their own script and style), one point per replayed turn, the first
departure from every optimal path marked. The stepper script (`static/app.js`) highlights the current
turn's point (`[data-goto]`, as the timeline's ticks) and a click on a point goes to its turn.

The error map comes from `report.error_maps.replay_episode`: the recorded actions replayed through a
fresh task asking its `progress()`. A task without progress gets no line; a replay that cannot start
gets a one-line note instead.
"""

from __future__ import annotations

import html
from typing import Any

WIDTH = 800
HEIGHT = 130
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 12, 12, 22


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def progress_block(run: dict[str, Any], record: dict[str, Any], steps: list[dict[str, Any]]) -> str:
    """The replay's progress line for `record` (its recorded turns: `steps`), or "" when its task
    defines no progress."""
    from playbench.report.error_maps import replay_episode

    try:
        emap = replay_episode(run.get("config"), record, steps)
    except Exception as exc:  # a page is never lost to its progress line
        return f'<p class="muted progress-note">No distance-to-goal line: {_esc(type(exc).__name__)}: {_esc(exc)}</p>'
    if emap is None:
        return ""
    if not emap.points:
        why = emap.warnings[0] if emap.warnings else "the episode could not be replayed"
        return f'<p class="muted progress-note">No distance-to-goal line: {_esc(why)}</p>'
    index = {s.get("turn", i): i for i, s in enumerate(steps, 1) if "role" in s}
    return progress_svg(emap, index)


def progress_svg(emap: Any, index: dict[Any, int]) -> str:
    """The SVG of an `EpisodeMap`: `index` maps each turn number to its position in the stepper."""
    use_distance = emap.points[0].distance is not None
    attr = "distance" if use_distance else "fraction"
    values = [getattr(p, attr) for p in emap.points]
    known = [float(v) for v in values if v is not None]
    if not known:
        return ""
    top = max(known) if use_distance else 1.0
    top = top or 1.0
    turns = max(len(emap.points) - 1, 1)
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(i: int) -> float:
        return PAD_LEFT + inner_w * i / turns

    def y(v: float) -> float:
        return PAD_TOP + inner_h * (1 - v / top)

    coords = [(x(i), y(float(v))) for i, v in enumerate(values) if v is not None]
    line = " ".join(f"{a:.1f},{b:.1f}" for a, b in coords)
    label = "distance to the goal" if use_distance else "progress"
    parts = [
        f'<line class="axis" x1="{PAD_LEFT}" y1="{PAD_TOP + inner_h}" x2="{WIDTH - PAD_RIGHT}" y2="{PAD_TOP + inner_h}"/>',
        f'<text class="tick-label" x="{PAD_LEFT - 6}" y="{PAD_TOP + 4}" text-anchor="end">{_fmt(top)}</text>',
        f'<text class="tick-label" x="{PAD_LEFT - 6}" y="{PAD_TOP + inner_h + 4}" text-anchor="end">0</text>',
        f'<text class="tick-label" x="{PAD_LEFT}" y="{HEIGHT - 6}">start</text>',
        f'<text class="tick-label" x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 6}" text-anchor="end">turn {emap.points[-1].turn}</text>',
    ]
    departure = emap.first_departure
    if departure is not None:
        at = next((i for i, p in enumerate(emap.points) if p.turn == departure["turn"]), None)
        if at is not None:
            parts.append(
                f'<line class="departure" x1="{x(at):.1f}" y1="{PAD_TOP}" x2="{x(at):.1f}" y2="{PAD_TOP + inner_h}">'
                f"<title>first departure from every optimal path: turn {_esc(departure['turn'])}, step "
                f"{_esc(departure['step'])}</title></line>"
            )
    parts.append(f'<polyline class="progress-path" points="{line}"/>')
    parts.append(
        f'<rect class="start" x="{coords[0][0] - 3:.1f}" y="{coords[0][1] - 3:.1f}" width="6" height="6">'
        f"<title>start: {label} {_fmt(values[0])}</title></rect>"
        if values[0] is not None
        else ""
    )
    for i, p in enumerate(emap.points[1:], 1):
        v = getattr(p, attr)
        if v is None:
            continue
        goto = index.get(p.turn, i)
        cls = f"pt v-{_esc(p.validity or 'other')}" + (" departs" if p.departure else "")
        step = f" · step {p.step}" if p.step is not None else ""
        mark = " · left every optimal path" if p.departure else ""
        parts.append(
            f'<circle class="{cls}" data-goto="{goto}" cx="{x(i):.1f}" cy="{y(float(v)):.1f}" r="3.5">'
            f"<title>turn {_esc(p.turn)}{step}: {label} {_fmt(v)} ({_esc(p.validity)}){mark}</title></circle>"
        )
    note = ""
    if emap.warnings:
        note = f'<p class="muted progress-note">The replay disagreed with the record: {_esc(emap.warnings[0])}</p>'
    summary = _summary(emap, use_distance)
    return (
        f'<figure class="progress-line" data-testid="progress-line"><svg viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{_esc(label)} after every turn" preserveAspectRatio="xMinYMin meet">'
        f"{''.join(parts)}</svg><figcaption>{_esc(label)} after every turn; {summary}</figcaption></figure>{note}"
    )


def _fmt(v: Any) -> str:
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.2f}"
    return str(int(v)) if isinstance(v, int | float) else str(v)


def _summary(emap: Any, use_distance: bool) -> str:
    if not use_distance:
        return f"final fraction {_fmt(emap.final_fraction)}"
    dep = emap.first_departure
    left = (
        f"first left every optimal path at step {dep['step']} (turn {dep['turn']})"
        if dep
        else "never left an optimal path"
    )
    wasted = f", {emap.wasted_steps} wasted steps" if emap.wasted_steps is not None else ""
    return f"{left}{wasted}, final distance {_fmt(emap.final_distance)}"

"""Replay rendering: one episode's record, the stepper over its turns with the validity timeline and the
distance-to-goal line (`render_progress.py`), every turn with its fields and model calls. Split from
`render.py`, which re-exports these names (`render.episode_view`, `render.record_block`, ...), so
`web/`, `site/` and `study/` keep importing them from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from playbench.web.render import (
    Links,
    _metric_value,
    _success_text,
    _validity_class,
    esc,
    run_trials,
    trial_text,
    usage_table,
    warnings_block,
)
from playbench.web.render_progress import progress_block


def record_block(record: dict[str, Any], trials: int | None = None) -> str:
    trial = trial_text(record.get("trial"), trials).removeprefix("trial ")
    items = [
        ("task", record.get("task")),
        ("instance", record.get("instance_id")),
        ("trial", f"{trial} (trial {record.get('trial')} in episodes.jsonl, which counts from 0)"),
        ("seed", record.get("seed")),
        ("agent", record.get("agent")),
        ("model", record.get("model")),
        ("roles", ", ".join(f"{k}: {v}" for k, v in (record.get("roles") or {}).items()) or None),
        ("success", _success_text(record)),
        ("steps (the task's count)", record.get("steps")),
        ("turns (every seat's moves)", record.get("turns")),
        ("optimal steps", record.get("optimal_steps")),
        ("termination", record.get("termination")),
        ("error", record.get("error")),
        ("duration (s)", record.get("duration_s")),
    ]
    usage = record.get("usage") or {}
    if usage.get("calls"):
        items.append(
            (
                "usage",
                f"{usage.get('calls')} calls, {usage.get('input_tokens', 0)} in / "
                f"{usage.get('output_tokens', 0)} out tokens"
                + (f", ${usage['cost']:.4f}" if usage.get("cost") else ""),
            )
        )
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items if v not in (None, ""))
    metrics = record.get("metrics") or {}
    metric_rows = "".join(
        f"<tr><th scope=row>{esc(k)}</th><td>{_metric_value(v)}</td></tr>" for k, v in metrics.items()
    )
    metrics_html = f'<table class="metrics small"><tbody>{metric_rows}</tbody></table>' if metric_rows else ""
    breakdown = record.get("usage_breakdown") or []
    usage_html = usage_table(breakdown, "Model calls per seat and model") if breakdown else ""
    return f'<div class="record"><dl>{rows}</dl>{metrics_html}</div>{usage_html}'


def _field(label: str, value: Any, pre: bool = False, cls: str = "") -> str:
    if value is None or value == "":
        return ""
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    body = f'<pre class="{cls}">{esc(shown)}</pre>' if pre else f'<span class="{cls}">{esc(shown)}</span>'
    return f'<div class="field"><div class="label">{esc(label)}</div>{body}</div>'


def _figures(run: dict[str, Any], images: Any, links: Links) -> list[str]:
    out = []
    for image in images if isinstance(images, list) else []:
        if not isinstance(image, dict) or not isinstance(image.get("file"), str):
            continue
        label = image.get("label") or "image"
        out.append(
            f'<figure><img data-src="{esc(links.image(run, image["file"]))}" alt="{esc(label)}" decoding="async">'
            f"<figcaption>{esc(label)}</figcaption></figure>"
        )
    return out


def _turns_before(run: dict[str, Any], turns: Any, links: Links) -> str:
    """The messages a task sent before this turn's (its own conversation, `turns_before`): who said each,
    its text and its images, folded under one summary (open: in iVISPAR the current images are there)."""
    if not isinstance(turns, list) or not turns:
        return ""
    items = []
    for i, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            continue
        who = "the model's reply" if turn.get("role") == "assistant" else "shown"
        figures = _figures(run, turn.get("images"), links)
        text = turn.get("text") or ""
        items.append(
            f'<div class="earlier-turn" data-testid="turn-before"><div class="label">message {i}, {esc(who)}</div>'
            + (f'<pre class="obs">{esc(text)}</pre>' if text else "")
            + (f'<div class="images">{"".join(figures)}</div>' if figures else "")
            + "</div>"
        )
    return (
        f'<details class="turns-before" open><summary>sent before this turn\'s message ({len(items)})</summary>'
        + "".join(items)
        + "</details>"
    )


def step_block(
    run: dict[str, Any],
    step: dict[str, Any],
    index: int,
    links: Links,
    multi_role: bool,
    calls: list[dict[str, Any]] | None = None,
) -> str:
    vclass = _validity_class(step)
    turn = step.get("turn", index)
    task_step = step.get("step") if "turn" in step else None
    role = f'<span class="role">{esc(step.get("role"))}</span>' if multi_role and step.get("role") else ""
    verdict = "error" if step.get("error") else (step.get("validity") or "")
    figures = _figures(run, step.get("images"), links)
    images = f'<div class="images">{"".join(figures)}</div>' if figures else ""
    earlier = _turns_before(run, step.get("turns_before"), links)
    raw = step.get("raw_output")
    instructions = (
        '<details class="instructions"><summary>instructions given to this seat</summary>'
        f"<pre>{esc(step['instructions'])}</pre></details>"
        if step.get("instructions")
        else ""
    )
    left = (
        instructions
        + earlier
        + _field("observation", step.get("observation"), pre=True, cls="obs")
        + (
            _field("feedback shown with it", step.get("feedback_before"), pre=True)
            if step.get("feedback_before")
            else ""
        )
    )
    right = (
        _field(
            "raw output" if raw is not None else "reply",
            raw if raw is not None else step.get("action"),
            pre=True,
            cls="raw",
        )
        + (_field("action sent to the task", step.get("action"), pre=True) if raw is not None else "")
        + _field("parsed action", step.get("parsed"))
        + _field("validity", verdict, cls=f"badge v-{vclass}")
        + _field("reason", step.get("reason"))
        + _field("feedback", step.get("feedback"), pre=True)
        + _field("rationale", step.get("rationale"), pre=True)
        + _field("error", step.get("error"), pre=True, cls="err")
        + (
            f"<details><summary>traceback</summary><pre>{esc(step['traceback'])}</pre></details>"
            if step.get("traceback")
            else ""
        )
        + _usage_field(step.get("usage"))
    )
    where = f" · step {esc(task_step)}" if task_step is not None else ""
    return (
        f'<article class="step" id="step-{index}" data-index="{index}">'
        f'<h3>Turn {esc(turn)}{where} {role}<span class="badge v-{vclass}">{esc(verdict)}</span></h3>'
        f'{images}<div class="cols"><div class="col">{left}</div><div class="col">{right}</div></div>'
        f"{calls_block(run, calls or [], links)}</article>"
    )


def calls_block(run: dict[str, Any], calls: list[dict[str, Any]], links: Links, title: str = "") -> str:
    """A turn's model calls, each folded: the request's messages (images load when opened), the response."""
    if not calls:
        return ""
    items = "".join(call_html(run, call, links) for call in calls)
    heading = title or f"model calls of this turn ({len(calls)})"
    return f'<section class="calls"><h4>{esc(heading)}</h4>{items}</section>'


def _call_summary(call: dict[str, Any]) -> str:
    usage = call.get("usage") if isinstance(call.get("usage"), dict) else {}
    facts = [
        f"call {call.get('call')}",
        str(call.get("role") or ""),
        str(call.get("purpose") or ""),
        str(call.get("model") or ""),
        f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out",
    ]
    if usage.get("reasoning_tokens") is not None:
        facts.append(f"{usage['reasoning_tokens']} reasoning")
    if isinstance(call.get("latency_s"), int | float):
        facts.append(f"{call['latency_s']:.2f} s")
    if call.get("retries"):
        facts.append(f"{call['retries']} retries")
    if call.get("cached"):
        facts.append("cached")
    if call.get("error"):
        facts.append("failed")
    return " · ".join(f for f in facts if f)


def call_html(run: dict[str, Any], call: dict[str, Any], links: Links) -> str:
    request = call.get("request") if isinstance(call.get("request"), dict) else {}
    messages = []
    for message in request.get("messages") or []:
        if not isinstance(message, dict):
            continue
        parts = []
        for part in message.get("content") or []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "image" and isinstance(part.get("file"), str):
                label = part.get("label") or "image"
                parts.append(
                    f'<figure><img data-src="{esc(links.image(run, part["file"]))}" alt="{esc(label)}" '
                    f'decoding="async"><figcaption>{esc(label)}</figcaption></figure>'
                )
            else:
                parts.append(f"<pre>{esc(part.get('text'))}</pre>")
        role = esc(message.get("role"))
        messages.append(f'<div class="msg m-{role}"><div class="label">{role}</div>{"".join(parts)}</div>')
    response = call.get("response") if isinstance(call.get("response"), dict) else None
    reply = ""
    if response is not None:
        reasoning = (
            f"<details><summary>reasoning</summary><pre>{esc(response['reasoning'])}</pre></details>"
            if response.get("reasoning")
            else ""
        )
        finish = f" ({esc(response['finish_reason'])})" if response.get("finish_reason") else ""
        reply = (
            f'<div class="msg m-response"><div class="label">response{finish}</div>{reasoning}'
            f"<pre>{esc(response.get('text'))}</pre></div>"
        )
    if call.get("error"):
        reply += (
            '<div class="msg m-error"><div class="label">error</div>'
            f'<pre class="err">{esc(call["error"])}</pre></div>'
        )
    params = request.get("params")
    params_html = f'<p class="muted">parameters: {esc(json.dumps(params))}</p>' if params else ""
    failed = " failed" if call.get("error") else ""
    return (
        f'<details class="call{failed}"><summary>{esc(_call_summary(call))}</summary>'
        f"{params_html}{''.join(messages)}{reply}</details>"
    )


def _usage_field(usage: Any) -> str:
    if not isinstance(usage, dict) or not usage.get("calls"):
        return ""
    return _field("tokens", f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out")


def episode_view(
    run: dict[str, Any],
    record: dict[str, Any],
    steps: list[dict[str, Any]],
    links: Links,
    prev_href: str | None = None,
    next_href: str | None = None,
    warnings: Iterable[str] = (),
    calls: list[dict[str, Any]] | None = None,
) -> str:
    """The replay of one episode: its record, a stepper over its turns with a validity timeline, and
    every turn with its model calls (the script shows one turn at a time and loads its images only
    when it is shown)."""
    n = len(steps)
    by_turn: dict[Any, list[dict[str, Any]]] = {}
    for call in calls or []:
        by_turn.setdefault(call.get("turn"), []).append(call)
    turns = {s.get("turn", i) for i, s in enumerate(steps, 1)}
    outside = [c for t, group in by_turn.items() if t not in turns for c in group]
    multi_role = len({s.get("role") for s in steps if s.get("role")}) > 1
    ticks = "".join(
        f'<a href="#s={i}" class="tick v-{_validity_class(s)}" data-goto="{i}" '
        f'title="turn {esc(s.get("turn", i))}: {esc(_validity_class(s))}"></a>'
        for i, s in enumerate(steps, 1)
    )
    episode_nav = "".join(
        [
            f'<a class="prev-episode" href="{esc(prev_href)}" data-episode-prev>&larr; previous episode</a>'
            if prev_href
            else "",
            f'<a class="next-episode" href="{esc(next_href)}" data-episode-next>next episode &rarr;</a>'
            if next_href
            else "",
        ]
    )
    stepper = (
        '<nav class="stepper" aria-label="turns">'
        '<button type=button data-go="first" title="first turn (Home)">|&#x25C0;</button>'
        '<button type=button data-go="prev" title="previous turn (&larr; or k)">&#x25C0;</button>'
        f'<label>turn <input type=number data-step-input min=1 max="{n}" value=1> of <span data-total>{n}</span></label>'
        '<button type=button data-go="next" title="next turn (&rarr; or j)">&#x25B6;</button>'
        '<button type=button data-go="last" title="last turn (End)">&#x25B6;|</button>'
        f'<input type=range data-step-range min=1 max="{n}" value=1 aria-label="turn slider">'
        '<span class="keys">keys: &larr;/&rarr; or j/k turn, PgUp/PgDn &plusmn;10, Home/End, [ ] episode</span>'
        "</nav>"
    )
    body = "".join(
        step_block(run, s, i, links, multi_role, by_turn.get(s.get("turn", i)))
        for i, s in enumerate(steps, 1)
    )
    if not steps:
        body = '<p class="muted">No turns were recorded for this episode.</p>'
        stepper, ticks = "", ""
    # calls made before the first turn (while an agent set up) or in a turn that never finished (a failed call)
    body += calls_block(run, outside, links, f"model calls outside a finished turn ({len(outside)})")
    progress = progress_block(run, record, steps) if steps else ""
    trials = run_trials(run)
    title = f"{record.get('task')} · {record.get('instance_id')} · {trial_text(record.get('trial'), trials)}"
    return (
        f'<section class="episode" data-episode data-steps="{n}"><h2 data-testid="episode-title">{esc(title)}</h2>'
        f'<div class="episode-nav">{episode_nav}</div>{warnings_block(warnings)}{record_block(record, trials)}'
        f'{stepper}<div class="timeline" aria-label="validity of every turn">{ticks}</div>{progress}'
        f'<div class="steps">{body}</div></section>'
    )

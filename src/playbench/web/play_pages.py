"""HTML of the play pages: the task list, a game's setup form and the live game panel."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any
from urllib.parse import quote

from playbench.core.types import ImagePart, Observation, TextPart
from playbench.web.play import InstanceChoice, TaskInfo, partner_choices
from playbench.web.play_session import PlaySession
from playbench.web.render import esc, trial_text, url

MANY_ACTIONS = 40


def listed_actions(obs: Observation) -> list[str]:
    """The legal actions the model's prompt itself lists (in the instructions or the observation's
    text, as whole words): a person gets a button only for an action a model is shown too, never for
    the moves the task computed as legal (iVISPAR's unblocked moves) or a random agent's samples."""
    prompt = f"{obs.instructions}\n{obs.text}"
    return [a for a in obs.legal_actions if re.search(r"(?<![\w-])" + re.escape(a) + r"(?![\w-])", prompt)]


def uses_json_controls(session: PlaySession) -> bool:
    """MM-Escape's reply is one JSON object of movements, a look point and a grab: the page offers
    controls that write the JSON a model would send."""
    return session.setup.task_id.startswith("mmescape/")


def tasks_page_body(
    infos: list[TaskInfo], sessions: list[PlaySession], discarded: PlaySession | None = None
) -> str:
    rows = []
    for info in infos:
        spec = info.spec
        if info.error:
            action = f'<span class="muted">cannot be played here: {esc(info.error)}</span>'
        else:
            action = f'<a class="button" href="{esc(url("/play/new", task=spec.id))}">Play</a>'
        roles = ", ".join(info.roles) if info.roles else "–"
        rows.append(
            f'<tr data-task="{esc(spec.id)}"><td><code>{esc(spec.id)}</code></td>'
            f"<td>{esc(spec.description)}</td>"
            f"<td>{esc(roles)}</td><td>{action}</td></tr>"
        )
    notice = ""
    if discarded is not None:
        notice = (
            f'<p class="notice" role="status" data-testid="discarded">The game of <code>{esc(discarded.setup.task_id)}'
            f"</code> · {esc(discarded.setup.instance_id)} was discarded; the run's finished games are kept.</p>"
        )
    games = ""
    if sessions:
        items = "".join(_game_item(s) for s in sessions)
        games = f'<section><h2>Games in progress</h2><ul class="games">{items}</ul></section>'
    return (
        "<h1>Play</h1><p>Pick a task. You see exactly what a model sees (the task's instructions, its text and "
        "images, its feedback), and your game is recorded as an ordinary run with agent <code>human</code>, "
        "so it shows up under Runs, replays and reports like any other.</p>"
        f"{notice}{games}<div class=scroll><table class=tasks><thead><tr><th>task</th><th>description</th><th>roles</th>"
        f"<th></th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def when(timestamp: float) -> str:
    """A time as the server's local date and time, in a `<time>` element carrying its ISO form."""
    moment = dt.datetime.fromtimestamp(timestamp).astimezone()
    return (
        f'<time datetime="{esc(moment.isoformat(timespec="seconds"))}">'
        f"{esc(moment.strftime('%Y-%m-%d %H:%M'))}</time>"
    )


def _game_item(session: PlaySession) -> str:
    """One game in progress: what it is, when it was started and last played, its seats and a discard button."""
    seats = " ".join(
        f'<a href="{esc(session_url(session, role))}">take the {esc(role)} seat</a>'
        for role, seat in session.seats.items()
        if seat.human
    )
    moves = len(session.moves)
    played = f"last move {when(session.updated)}" if moves else "no move yet"
    what = f"{session.setup.task_id} · {session.setup.instance_id} · {trial_text(session.trial)}"
    discard = (
        f'<form method=post action="/play/s/{quote(session.sid)}/discard" data-confirm="{esc(discard_question(session))}">'
        '<input type=hidden name=confirm value="" data-confirmed>'
        f'<button type=submit class="discard" data-testid="discard" aria-label="discard the game of {esc(what)}">'
        "Discard…</button></form>"
    )
    return (
        f'<li data-game="{esc(session.sid)}"><span><code>{esc(session.setup.task_id)}</code> · '
        f"{esc(session.setup.instance_id)} · {esc(trial_text(session.trial))}</span>"
        f'<span class="when" data-testid="game-when">started {when(session.created)} · {played} · '
        f"{moves} move{'' if moves == 1 else 's'}</span>{seats}{discard}</li>"
    )


def discard_question(session: PlaySession) -> str:
    moves = len(session.moves)
    return (
        f"Discard this game of {session.setup.task_id} ({session.setup.instance_id}, "
        f"{trial_text(session.trial)}, {moves} move{'' if moves == 1 else 's'})? It ends without being recorded "
        "and cannot be resumed; the run's finished games are kept."
    )


def discard_page_body(session: PlaySession) -> str:
    """The confirmation asked before a game is discarded, for a browser that does not run the page's script."""
    return (
        f"<h1>Discard a game</h1><p>{esc(discard_question(session))}</p>"
        f'<p class="muted">started {when(session.created)}'
        + (f" · last move {when(session.updated)}" if session.moves else " · no move yet")
        + "</p>"
        f'<form method=post action="/play/s/{quote(session.sid)}/discard">'
        '<input type=hidden name=confirm value="yes">'
        '<button type=submit class="discard" data-testid="confirm-discard">Discard the game</button> '
        '<a class="button" href="/play">Keep it</a></form>'
    )


def session_url(session: PlaySession, role: str) -> str:
    return url(f"/play/s/{quote(session.sid)}", seat=role)


def options_text(options: dict[str, Any]) -> str:
    return "\n".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in options.items())


def setup_page_body(
    info: TaskInfo,
    seed: int,
    options: dict[str, Any],
    instances: list[InstanceChoice],
    error: str | None = None,
    chosen: dict[str, str] | None = None,
) -> str:
    spec = info.spec
    chosen = chosen or {}
    opts_text = options_text(options)
    defaults = ", ".join(f"{k}={v!r}" for k, v in info.options.items()) or "none"
    error_html = f'<p class="error" role="alert">{esc(error)}</p>' if error else ""
    variant = (
        '<form method=get action="/play/new" class="variant">'
        f'<input type=hidden name=task value="{esc(spec.id)}">'
        f'<label>seed <input type=number name=seed value="{esc(seed)}"></label>'
        '<label class="wide"><span>task options, one <code>key=value</code> a line</span>'
        f'<textarea name=options rows=3 placeholder="none">{esc(opts_text)}</textarea></label>'
        f'<p class="muted">Options and defaults: {esc(defaults)}</p>'
        "<button type=submit>Show instances</button></form>"
    )
    if not instances:
        return f"<h1>Play <code>{esc(spec.id)}</code></h1>{error_html}{variant}"
    inst_opts = "".join(
        f'<option value="{esc(i.id)}"{" selected" if i.id == chosen.get("instance") else ""}>{esc(i.label)}</option>'
        for i in instances
    )
    seats = ""
    if len(info.roles) > 1:
        role_opts = "".join(
            f'<option value="{esc(r)}"{" selected" if r == chosen.get("seat") else ""}>{esc(r)}</option>'
            for r in info.roles
        )
        partner_opts = "".join(
            f'<option value="{esc(a)}"{" selected" if a == chosen.get("partner", "human") else ""}>'
            f"{esc(_partner_label(a))}</option>"
            for a in partner_choices(spec.id)
            if a != "oracle" or info.has_oracle
        )
        seats = (
            f'<label>your seat <select name=seat data-testid="seat">{role_opts}</select></label>'
            f'<label>the other seat{"s" if len(info.roles) > 2 else ""} <select name=partner data-testid="partner">'
            f"{partner_opts}</select></label>"
            '<label>partner model (for model agents) <input name=partner_model placeholder="openai:gpt-4o" '
            f'value="{esc(chosen.get("partner_model", ""))}"></label>'
        )
    start = (
        '<form method=post action="/play/start" class="start">'
        f'<input type=hidden name=task value="{esc(spec.id)}"><input type=hidden name=seed value="{esc(seed)}">'
        f'<input type=hidden name=options value="{esc(opts_text)}">'
        f'<label>instance <select name=instance data-testid="instance">{inst_opts}</select></label>{seats}'
        '<button type=submit class="primary" data-testid="start">Start the game</button></form>'
    )
    return (
        f"<h1>Play <code>{esc(spec.id)}</code></h1><p>{esc(spec.description)}</p>{error_html}"
        f"<h2>1. Variant</h2>{variant}<h2>2. Game</h2>{start}"
    )


def _partner_label(name: str) -> str:
    return {
        "human": "another person (a second browser)",
        "random": "random agent",
        "oracle": "oracle (the task's solver)",
        "llm": "model (llm agent; give the model below)",
    }.get(name, f"{name} (suite agent)")


def game_page_body(session: PlaySession, role: str, message: str | None = None) -> str:
    setup = session.setup
    seat_note = f" · you are the <b>{esc(role)}</b>" if len(session.seats) > 1 else ""
    return (
        f"<h1>Playing <code>{esc(setup.task_id)}</code></h1>"
        f'<p class="muted">instance {esc(setup.instance_id)} · seed {esc(setup.seed)} · '
        f'<span data-testid="trial">{esc(trial_text(session.trial))}</span>'
        f"{seat_note}</p>"
        f'<div id="play-panel" data-play-panel data-sid="{esc(session.sid)}" data-seat="{esc(role)}">'
        f"{panel_html(session, role, message)}</div>"
    )


def panel_html(session: PlaySession, role: str, message: str | None = None) -> str:
    """The live part of a game page for one seat; re-fetched by the page whenever the game changes."""
    seat = session.seats[role]
    parts = [f'<div class="panel" data-version="{session.version}" data-status="{esc(session.status)}">']
    if message:
        parts.append(f'<p class="error" role="alert">{esc(message)}</p>')
    if session.status == "finished" and session.record is not None:
        parts.append(_finished(session))
    elif session.status == "discarded":
        parts.append(
            '<p class="error" role="alert" data-testid="discarded">This game was discarded: it was not recorded '
            'and cannot go on. <a href="/play">Back to the tasks</a></p>'
        )
    elif session.status == "error":
        parts.append(f'<p class="error" role="alert">The game stopped: {esc(session.error)}</p>')
    elif seat.pending is not None:
        parts.append(_turn(session, role))
    else:
        parts.append(_waiting(session, role))
    parts.append("</div>")
    return "".join(parts)


def json_controls() -> str:
    """MM-Escape's controls: the fields of its JSON action (the server writes the JSON, see
    `routes_play.json_action`); clicking the current view sets `look_at`."""

    def number(name: str, label: str, low: int, high: int, unit: str) -> str:
        return (
            f'<label>{esc(label)} <input type=number name="{name}" min="{low}" max="{high}" step="any" '
            f'placeholder="0" data-testid="control-{name}"> {esc(unit)}</label>'
        )

    return (
        "<input type=hidden name=controls value=json>"
        "<input type=hidden name=look_x data-look-x><input type=hidden name=look_y data-look-y>"
        '<div class="controls">'
        + number("rotate_right", "turn right", -180, 180, "degrees")
        + number("rotate_down", "look down", -90, 90, "degrees")
        + number("move_forward", "walk forward", -10, 10, "m")
        + '<label class="check"><input type=checkbox name=jump value=1> jump</label>'
        '<span class="look">look at: <output data-look-output data-testid="look-at">the centre</output> '
        "(click the view)</span>"
        '<label class="check"><input type=checkbox name=grab value=1 data-testid="control-grab"> grab</label>'
        "<label>use item <input name=use_item_id size=8></label><label>input <input name=input size=8></label>"
        "<label>read item <input name=read size=8></label>"
        '<label class="wide">rationale <input name=rationale></label>'
        '<button type=submit name=send value=1 class="primary" data-testid="send-controls">Send</button>'
        "</div>"
    )


def _finished(session: PlaySession) -> str:
    rec = session.record or {}
    from playbench.web.library import episode_id, run_id

    verdict = "Solved" if rec.get("success") else "Not solved"
    steps = rec.get("steps")
    word = str(rec.get("termination") or "")
    ended = "a player ended the episode" if word == "agent_stopped" else word.replace("_", " ")
    detail = f" ({esc(ended)})" if ended else ""
    if rec.get("error"):
        detail = f" (error: {esc(rec['error'])})"
    rid = run_id(session.run_dir.resolve())
    replay = f"/run/{quote(rid)}/episode/{quote(episode_id(rec))}"
    again = url(
        "/play/new",
        task=session.setup.task_id,
        seed=session.setup.seed,
        options="\n".join(
            f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in session.setup.options.items()
        )
        or None,
    )
    return (
        f'<section class="finished" data-testid="finished"><h2>{verdict} in {esc(steps)} step{"" if steps == 1 else "s"}'
        f"{detail}</h2>"
        f"<p>The game is recorded in <code>{esc(session.run_dir)}</code>.</p>"
        f'<p><a class="button primary" href="{esc(replay)}" data-testid="replay-link">Open the replay</a> '
        f'<a class="button" href="/run/{quote(rid)}">The run</a> <a class="button" href="{esc(again)}">Play again</a></p>'
        "</section>"
    )


def _waiting(session: PlaySession, role: str) -> str:
    other = session.turn_role
    if session.status == "starting" or other is None:
        return '<p class="waiting" data-testid="waiting">Setting up the game…</p>'
    seat = session.seats.get(other)
    if seat is not None and seat.human and not seat.joined:
        link = session_url(session, other)
        return (
            f'<p class="waiting" data-testid="waiting">Waiting for the <b>{esc(other)}</b>. Nobody has taken that '
            f'seat yet: open <a href="{esc(link)}" data-testid="other-seat-link">this link</a> in another browser.</p>'
        )
    who = "another person" if seat is not None and seat.human else (seat.spec.label if seat else "?")
    return f'<p class="waiting" data-testid="waiting">Waiting for the <b>{esc(other)}</b> ({esc(who)})…</p>'


def _turn(session: PlaySession, role: str, form_fields: str = "") -> str:
    """The seat's turn: the observation and the move forms; `form_fields` (HTML) goes into every form
    (a study's CSRF token, `playbench.study.pages`)."""
    seat = session.seats[role]
    obs = seat.pending
    assert obs is not None
    out = []
    if obs.instructions:
        open_attr = " open" if seat.moves == 0 else ""
        out.append(
            f'<details class="instructions"{open_attr}><summary>Instructions</summary><pre>{esc(obs.instructions)}</pre></details>'
        )
    # what a model gets and nothing else: the instructions (its system prompt) and the observation's parts
    # in order; no separate feedback line, no image labels, no step counter the prompt does not show
    controls = uses_json_controls(session)
    images = [p for p in obs.parts if isinstance(p, ImagePart)]
    body = []
    # a task that sends the original's own conversation (Observation.turns): its earlier messages first
    for i, turn in enumerate(obs.turns or [], 1):
        who = "your reply" if turn.role == "assistant" else "shown"
        inner = []
        for part in turn.parts:
            if isinstance(part, TextPart):
                inner.append(f'<pre class="obs">{esc(part.text)}</pre>')
            elif isinstance(part, ImagePart):
                src = f"/play/s/{quote(session.sid)}/image/{part.digest}.png"
                inner.append(f'<figure class="view"><img src="{esc(src)}" alt="image"></figure>')
        body.append(
            f'<div class="earlier-turn" data-testid="earlier-turn"><p class="muted">earlier message {i}, {who}</p>'
            f"{''.join(inner)}</div>"
        )
    for part in obs.parts:
        if isinstance(part, TextPart):
            body.append(f'<pre class="obs" data-testid="observation">{esc(part.text)}</pre>')
        elif isinstance(part, ImagePart):
            src = f"/play/s/{quote(session.sid)}/image/{part.digest}.png"
            look = " data-look-target" if controls and part is images[-1] else ""
            body.append(f'<figure class="view"><img src="{esc(src)}" alt="image"{look}></figure>')
    out.append(f'<div class="observation">{"".join(body)}</div>')
    offered = listed_actions(obs)
    buttons = "".join(
        f'<button type=submit name=action value="{esc(a)}" class="legal" data-key="{i}">'
        f"{f'<kbd>{i}</kbd> ' if i <= 9 else ''}{esc(a)}</button>"
        for i, a in enumerate(offered, 1)
    )
    legal = f'<div class="legal-actions" data-testid="legal-actions">{buttons}</div>' if buttons else ""
    if len(offered) > MANY_ACTIONS:  # a long list folds away so the reply box stays in view
        legal = f"<details class=legal-list><summary>{len(offered)} listed actions</summary>{legal}</details>"

    def form_head(kind: str) -> str:
        return (
            f'<form method=post action="/play/s/{quote(session.sid)}/act" class="act {kind}" data-act>'
            f'<input type=hidden name=seat value="{esc(role)}"><input type=hidden name=move value="{seat.moves}">'
            f"{form_fields}"
        )

    if controls:
        out.append(f"<h2>Your move</h2>{form_head('controls')}{json_controls()}</form>")
    out.append(
        # the move form sticks to the bottom of the window, so a long observation needs no scrolling to answer
        f"<h2>{'Or type' if controls else 'Your move'}</h2>{form_head('move')}{legal}"
        '<div class="free-text"><label>or type your reply <textarea name=action_text rows=2 data-testid="action-text" '
        'placeholder="exactly what a model would answer"></textarea></label>'
        '<button type=submit name=send value=1 class="primary" data-testid="send">Send</button></div></form>'
        f"{form_head('end')}<button type=submit name=quit value=1 class=quit data-testid=quit>End the episode here</button></form>"
    )
    return "".join(out)

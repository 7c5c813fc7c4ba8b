"""HTML of the study app. Nothing here names an instance, a run or a file: a participant sees the study's
texts, their progress and their current game (the observation a model gets, through `play_pages._turn`),
and the admin sees progress and the replays. Every value goes through `esc`."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any
from urllib.parse import quote

from playbench.study.config import StudyConfig
from playbench.web.play_pages import _turn
from playbench.web.play_session import PlaySession
from playbench.web.render import esc


def layout(title: str, body: str, who: str = "") -> str:
    top = f'<span class="muted">{esc(who)}</span>' if who else ""
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        '<meta name=referrer content="same-origin">'
        f'<title>{esc(title)}</title><link rel=icon href="data:,">'
        '<link rel=stylesheet href="/static/app.css"><script src="/static/app.js" defer></script>'
        f"</head><body><header class=top><span class=brand>{esc(title)}</span><nav>{top}</nav></header>"
        f"<main>{body}</main></body></html>\n"
    )


def error_page(status: int, title: str, message: str) -> str:
    body = f'<section class="error-page"><h1>{esc(status)} · {esc(title)}</h1><p>{esc(message)}</p></section>'
    return layout(title, body)


def csrf_field(token: str) -> str:
    return f'<input type=hidden name=csrf value="{esc(token)}">'


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{esc(p.strip())}</p>" for p in text.split("\n\n") if p.strip())


def progress_bar(finished: int, total: int) -> str:
    return (
        f'<p class="progress" data-testid="progress">Episode {min(finished + 1, total)} of {total} · '
        f'{finished} finished <progress max="{total}" value="{finished}">{finished}/{total}</progress></p>'
    )


def consent_page(config: StudyConfig, csrf: str) -> str:
    body = (
        f"<h1>{esc(config.title)}</h1><section class=consent data-testid=consent><h2>Consent</h2>"
        f"{_paragraphs(config.consent)}</section><section><h2>Instructions</h2>{_paragraphs(config.instructions)}"
        f"<p>You will play {config.per_participant} episode{'' if config.per_participant == 1 else 's'}"
        + (f", each with a time limit of {_minutes(config.time_limit_s)}" if config.time_limit_s else "")
        + ".</p></section>"
        f'<form method=post action="/consent">{csrf_field(csrf)}'
        '<button type=submit class=primary data-testid="agree">I agree</button></form>'
    )
    return layout(config.title, body)


def _minutes(seconds: float | None) -> str:
    minutes = (seconds or 0) / 60
    return f"{minutes:g} minute{'' if minutes == 1 else 's'}"


def next_page(config: StudyConfig, finished: int, total: int, csrf: str) -> str:
    pause = (
        "<p>You may take a break now: this page, or your link opened again later, brings you back here.</p>"
        if finished
        else ""
    )
    body = (
        f"<h1>{esc(config.title)}</h1>{progress_bar(finished, total)}{pause}"
        f'<details class="instructions"><summary>Instructions</summary>{_paragraphs(config.instructions)}</details>'
        f'<form method=post action="/start">{csrf_field(csrf)}'
        f'<button type=submit class=primary data-testid="start">Start episode {finished + 1}</button></form>'
    )
    return layout(config.title, body)


def done_page(config: StudyConfig, total: int) -> str:
    body = (
        f"<h1>{esc(config.title)}</h1>{progress_bar(total, total)}"
        '<section class="finished" data-testid="all-done"><h2>Thank you!</h2>'
        "<p>You have finished every episode of this study. You may close this page.</p></section>"
    )
    return layout(config.title, body)


def game_page(
    config: StudyConfig,
    session: PlaySession,
    role: str,
    finished: int,
    total: int,
    csrf: str,
    deadline: float | None,
) -> str:
    limit = ""
    if deadline is not None:
        left = max(0, round((deadline - time.time()) / 60))
        limit = (
            f'<p class="muted" data-testid="time-limit">Time limit: {_minutes(config.time_limit_s)} for this '
            f"episode (about {left} minute{'' if left == 1 else 's'} left when this page was loaded).</p>"
        )
    seat = f" · you are the <b>{esc(role)}</b>" if len(session.seats) > 1 else ""
    body = (
        f"{progress_bar(finished, total)}<p class=muted>{esc(session.setup.task_id)}{seat}</p>{limit}"
        f'<div id="play-panel" data-play-panel data-sid="{esc(session.sid)}" data-seat="{esc(role)}">'
        f"{panel_html(session, role, csrf)}</div>"
    )
    return layout(config.title, body)


def panel_html(session: PlaySession, role: str, csrf: str, message: str | None = None) -> str:
    """The live part of the game page (re-fetched by app.js when the game changes): the turn, a wait,
    or the end of the episode with the way on; never a replay, run or instance link."""
    seat = session.seats[role]
    parts = [f'<div class="panel" data-version="{session.version}" data-status="{esc(session.status)}">']
    if message:
        parts.append(f'<p class="error" role="alert">{esc(message)}</p>')
    if session.status in ("finished", "error", "discarded"):
        parts.append(_over(session))
    elif seat.pending is not None:
        parts.append(_turn(session, role, form_fields=csrf_field(csrf)))
    elif session.status == "starting" or session.turn_role is None:
        parts.append('<p class="waiting" data-testid="waiting">Setting up the episode…</p>')
    else:
        parts.append(
            f'<p class="waiting" data-testid="waiting">Waiting for the <b>{esc(session.turn_role)}</b>…</p>'
        )
    parts.append("</div>")
    return "".join(parts)


def _over(session: PlaySession) -> str:
    record = session.record or {}
    if session.status == "finished":
        word = str(record.get("termination") or "")
        how = {
            "goal_reached": "Solved",
            "agent_stopped": "Ended",
        }.get(word, "Solved" if record.get("success") else "Not solved")
        if word == "agent_stopped" and "time limit" in str(session.quit_requested or ""):
            how = "Time is up"
        steps = record.get("steps")
        text = f"{how} after {esc(steps)} move{'' if steps == 1 else 's'}."
    else:
        text = "This episode stopped because of a problem on the server; it is recorded as it stands."
    return (
        f'<section class="finished" data-testid="finished"><h2>Episode over</h2><p>{text}</p>'
        '<p><a class="button primary" href="/" data-testid="continue">Continue</a></p></section>'
    )


# ------------------------------------------------------------------------------------------ admin
def admin_login_page(csrf: str, message: str | None = None) -> str:
    error = f'<p class="error" role="alert">{esc(message)}</p>' if message else ""
    body = (
        f'<h1>Study admin</h1>{error}<form method=post action="/admin/login">{csrf_field(csrf)}'
        '<label>admin secret <input type=password name=secret autocomplete=off data-testid="secret"></label> '
        '<button type=submit class=primary data-testid="login">Sign in</button></form>'
    )
    return layout("Study admin", body)


def _when(stamp: float | str | None) -> str:
    if stamp is None or stamp == "":
        return "–"
    if isinstance(stamp, str):
        return esc(stamp)
    return esc(dt.datetime.fromtimestamp(stamp).astimezone().strftime("%Y-%m-%d %H:%M"))


def admin_page(
    config: StudyConfig, people: list[dict[str, Any]], units: list[dict[str, Any]], csrf: str
) -> str:
    rows = "".join(
        f'<tr data-participant="{esc(p["pseudonym"])}"><td><code>{esc(p["pseudonym"])}</code></td>'
        f"<td>{_when(p['consented'])}</td><td>{esc(p['finished'])} / {esc(p['total'])}</td>"
        f"<td>{esc(p['current'])}</td><td>{_when(p['last'])}</td></tr>"
        for p in people
    )
    unit_rows = "".join(
        f"<tr><td><code>{esc(u['task'])}</code></td><td>{esc(u['instance_id'])}</td>"
        f"<td>{esc(u['finished'])} / {esc(u['planned'])}</td><td>{esc(u['in_progress'])}</td>"
        f"<td>{' '.join(u['episodes'])}</td></tr>"
        for u in units
    )
    finished = sum(p["finished"] for p in people)
    total = sum(p["total"] for p in people)
    body = (
        f"<h1>{esc(config.title)} · admin</h1>"
        f'<p data-testid="overall">{finished} of {total} episodes recorded · {len(people)} participants · '
        f"every instance planned for {config.plays_per_instance} "
        f"{'person' if config.plays_per_instance == 1 else 'people'}</p>"
        '<p><a class=button href="/admin/export/episodes.jsonl">episodes.jsonl</a> '
        '<a class=button href="/admin/export/episodes.jsonl?pseudonyms=drop">episodes.jsonl without pseudonyms</a> '
        '<a class=button href="/admin/export/progress.csv">progress.csv</a></p>'
        "<p class=muted>Tables for analysis: <code>playbench export STUDY/run --format parquet --out DIR "
        "[--drop-pseudonyms]</code>; the report beside the paper: <code>playbench report STUDY/run</code>.</p>"
        "<h2>Participants</h2><div class=scroll><table><thead><tr><th>participant</th><th>consented</th>"
        f"<th>finished</th><th>now</th><th>last move</th></tr></thead><tbody>{rows}</tbody></table></div>"
        "<h2>Instances</h2><div class=scroll><table><thead><tr><th>task</th><th>instance</th><th>finished</th>"
        f"<th>in progress</th><th>replays</th></tr></thead><tbody>{unit_rows}</tbody></table></div>"
        f'<form method=post action="/admin/logout">{csrf_field(csrf)}<button type=submit>Sign out</button></form>'
    )
    return layout(f"{config.title} · admin", body, who="admin")


def replay_link(eid: str, label: str) -> str:
    return f'<a href="/admin/episode/{esc(quote(eid))}">{esc(label)}</a>'

"""HTML for the web app and the static export, built from escaped strings.

Every value that comes from a run directory, a task or a model passes through `esc` (or
`json_for_script` inside a JSON data block) before it reaches a page; nothing here builds HTML
from unescaped data. Pages carry no inline scripts or styles in the app (its Content Security
Policy forbids them), so even a missed escape could not run a script.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote, urlencode

from playbench.core.metrics import N_BELOW_TWO, interval
from playbench.report.tables import HEADLINE, headline_rows, scored_text
from playbench.runner.reader import natural_key
from playbench.web.library import episode_id

VALIDITY_CLASSES = {"effective", "ineffective", "invalid", "unparseable", "error"}
LONG_METRIC_ITEMS = 12  # lists longer than this (e.g. a 300-step curve) fold away in the replay


def static_text(name: str) -> str:
    """A file of the app's `static/` folder (the stylesheet and the script)."""
    return (resources.files("playbench.web") / "static" / name).read_text(encoding="utf-8")


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def json_for_script(data: Any) -> str:
    """JSON safe inside a `<script type="application/json">` block: no `<`, `>` or `&` survive."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def url(path: str, **params: Any) -> str:
    pairs = []
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, list | tuple):
            pairs += [(key, str(v)) for v in value]
        else:
            pairs.append((key, str(value)))
    return path + ("?" + urlencode(pairs) if pairs else "")


@dataclass
class Links:
    """Where things live: the app links to its routes, the export to anchors and embedded data."""

    run: Callable[[dict[str, Any]], str | None]
    episode: Callable[[dict[str, Any], str], str | None]
    image: Callable[[dict[str, Any], str], str]


def app_links() -> Links:
    return Links(
        run=lambda run: f"/run/{quote(run['rid'])}",
        episode=lambda run, eid: f"/run/{quote(run['rid'])}/episode/{quote(eid)}",
        image=lambda run, file: f"/run/{quote(run['rid'])}/file/trajectories/{quote(file)}",
    )


# ------------------------------------------------------------------------------------ trials
# Every page counts trials from 1 ("trial 1 of 3"); a run's records (episodes.jsonl, and the episode
# ids in URLs such as `…__t0`) count them from 0, as `playbench run` numbers them.
TRIAL_NOTE = "trials are counted from 1 here; the run's records (episodes.jsonl) count them from 0"


def trial_number(trial: Any) -> str:
    """A record's 0-based `trial` as the 1-based number every page shows ('–' when it is not a number)."""
    try:
        return str(int(trial) + 1)
    except (TypeError, ValueError):
        return "–"


def run_trials(run: dict[str, Any]) -> int | None:
    """How many trials of each instance the run was asked for, when its configuration says (a browser
    game's folder has no such number: each new game of an instance is one more trial)."""
    config = run.get("config") if isinstance(run.get("config"), dict) else {}
    spec = config.get("run") if isinstance(config.get("run"), dict) else {}
    trials = spec.get("trials")
    if config.get("source") == "web" or not isinstance(trials, int) or trials < 1:
        return None
    return trials


def trial_text(trial: Any, trials: int | None = None) -> str:
    """'trial 2 of 3' (or 'trial 2' when the number of trials is not known) for a 0-based trial."""
    shown = trial_number(trial)
    if trials is not None and shown != "–" and int(shown) <= trials:
        return f"trial {shown} of {trials}"
    return f"trial {shown}"


# ------------------------------------------------------------------------------------- pages
NAV = (("/", "Runs"), ("/play", "Play"))


def layout(title: str, body: str, active: str = "") -> str:
    nav = "".join(
        f'<a href="{href}"{" class=active" if href == active else ""}>{esc(label)}</a>' for href, label in NAV
    )
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)} · playbench</title><link rel=icon href="data:,">'
        '<link rel=stylesheet href="/static/app.css"><script src="/static/app.js" defer></script>'
        f'</head><body><header class=top><a class=brand href="/">playbench</a><nav>{nav}</nav></header>'
        f"<main>{body}</main></body></html>\n"
    )


def error_page(status: int, title: str, message: str) -> str:
    body = (
        f'<section class="error-page"><h1>{esc(status)} · {esc(title)}</h1><p>{esc(message)}</p>'
        '<p><a href="/">Back to the runs</a></p></section>'
    )
    return layout(title, body)


def warnings_block(warnings: Iterable[str]) -> str:
    items = "".join(f"<li>{esc(w)}</li>" for w in warnings)
    return f'<ul class="warnings">{items}</ul>' if items else ""


# ------------------------------------------------------------------------------------- stats
def fmt_stat(stat: Any) -> str:
    """'62.5% [30.6, 86.3]' for a proportion, '3.20 [2.10, 4.30]' for a mean, '4 (n < 2)' for a mean
    of one instance, '–' without data."""
    if not isinstance(stat, dict) or not stat.get("n"):
        return "–"
    value = stat.get("value")
    if not isinstance(value, int | float) or (isinstance(value, float) and math.isnan(value)):
        return "–"
    ci = interval(stat)
    if stat.get("kind") == "proportion":
        if ci is not None:
            return f"{100 * value:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"
        return f"{100 * value:.1f}% ({N_BELOW_TWO})"
    if ci is not None and ci[0] == ci[1]:
        return f"{value:.3g} (all {stat.get('n')} equal)"
    if ci is not None:
        return f"{value:.3g} [{ci[0]:.3g}, {ci[1]:.3g}]"
    return f"{value:.3g} ({N_BELOW_TWO})"


def missing_cell(why: str) -> str:
    """A table cell with nothing to show: a dash, with a title saying why (never an empty cell)."""
    return f'<td class="missing" title="{esc(why)}">–</td>'


def column_head(label: str) -> str:
    """A run's column heading; a long name wraps (at '/', '-', '_' or anywhere) so its table fits."""
    return f'<th class="run-col" title="{esc(label)}">{esc(label)}</th>'


def _value_cell_html(text: str) -> str:
    """'62.5% [30.6, 86.3]' as escaped HTML that may break only between the value and its interval
    (non-breaking spaces inside the interval), so a narrow column takes two lines, not five."""
    value, sep, rest = text.partition(" ")
    if not sep or not rest.startswith(("[", "(")):
        return esc(text)
    return f"{esc(value)} {esc(rest.replace(' ', NBSP))}"


NBSP = "\u00a0"
WRAPPED_VALUES = {"success", "steps", "optimal"}  # a value with its interval, which may wrap between them


def headline_table(runs: list[dict[str, Any]], links: Links) -> str:
    by_name = {run["name"]: run for run in runs}
    head = "".join(f"<th>{esc(c)}</th>" for c in HEADLINE)
    rows = []
    for row in headline_rows(runs):
        cells = []
        for col in HEADLINE:
            text = _value_cell_html(row[col]) if col in WRAPPED_VALUES else esc(row[col])
            if col == "run" and by_name.get(row["run"]) is not None:
                href = links.run(by_name[row["run"]])
                if href:
                    text = f'<a href="{esc(href)}">{text}</a>'
            if not row[col]:
                cells.append(missing_cell(f"{row['run']} has no {col} for {row['task']}"))
                continue
            cells.append(f'<td class="c-{col.split(" ")[0]}">{text}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    if not rows:
        return '<p class="muted">No finished episodes yet.</p>'
    return (
        '<div class="scroll"><table class="headline"><caption>Success with Wilson 95% intervals, means with '
        "bootstrap 95% intervals, over the scored episodes (errored ones are left out of every score)</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def metrics_side_by_side(runs: list[dict[str, Any]]) -> str:
    """Per task, one table: a row per metric and a column per run (and agent/model within it)."""
    columns: list[tuple[str, dict[str, Any]]] = []
    for run in runs:
        for entry in run["summary"].get("tasks", {}).values():
            label = f"{run['name']} · {entry.get('agent')}" + (
                f" · {entry['model']}" if entry.get("model") else ""
            )
            columns.append((label, entry))
    tasks: list[str] = []
    for _, entry in columns:
        if entry.get("task") not in tasks:
            tasks.append(entry.get("task"))
    out = []
    for task in tasks:
        cols = [(label, e) for label, e in columns if e.get("task") == task]
        names = ["success", "steps", "optimal_steps"]
        for _, entry in cols:
            names += [m for m in entry.get("metrics", {}) if m not in names]
        head = "<th>metric</th>" + "".join(column_head(label) for label, _ in cols)
        body = [
            "<tr><th scope=row>scored / errored</th>"
            + "".join(f"<td>{esc(scored_text(e))}</td>" for _, e in cols)
            + "</tr>"
        ]
        for name in names:
            cells, shown = [], False
            for label, entry in cols:
                stat = entry.get(name) if name in ("success", "steps", "optimal_steps") else None
                if stat is None:
                    stat = entry.get("metrics", {}).get(name)
                if stat is None:
                    cells.append(missing_cell(f"{label} has no metric '{name}'"))
                    continue
                text = fmt_stat(stat)
                if text == "–":
                    cells.append(
                        missing_cell(f"{label} has no value of '{name}' (no scored episode gave one)")
                    )
                    continue
                shown = True
                cells.append(f"<td>{_value_cell_html(text)}</td>")
            if shown:
                body.append(f"<tr><th scope=row>{esc(name)}</th>{''.join(cells)}</tr>")
        extras = [
            f"<details><summary>{esc(label)}: task-specific summary</summary><pre>"
            f"{esc(json.dumps(e['extra'], indent=2, default=str))}</pre></details>"
            for label, e in cols
            if e.get("extra")
        ]
        table = (
            f'<div class="scroll"><table class="metrics"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>{''.join(extras)}"
        )
        # a suite run has a dozen tasks of fifty metrics each; open, they would bury the plots and
        # episodes below thousands of rows, so with several tasks each one is a fold to open
        opened = " open" if len(tasks) == 1 else ""
        out.append(
            f'<details class="task-metrics"{opened}><summary><h3>{esc(task)}</h3> '
            f'<span class="muted">{len(body)} metrics</span></summary>{table}</details>'
        )
    return "".join(out) or '<p class="muted">No metrics yet.</p>'


def paper_block(runs: list[dict[str, Any]]) -> str:
    """The paper's published rows beside the runs' (runs made by `playbench reproduce`)."""
    from playbench.report.paper import comparisons_for, format_cell

    items = comparisons_for(runs)
    if not items:
        return ""
    out = ["<h2>Beside the paper</h2>"]
    for comp in items:
        head = "".join(f"<th>{esc(c)}</th>" for c in comp.columns)
        rows = "".join(
            f'<tr class="{esc(row.source)}"><td>{esc(row.label)}</td>'
            + "".join(f"<td>{esc(format_cell(c, comp.digits))}</td>" for c in row.cells)
            + "</tr>"
            for row in comp.rows
        )
        out.append(
            f'<section class="paper" data-table="{esc(comp.table)}"><h3>{esc(comp.table)}: {esc(comp.measure)}</h3>'
            f'<p class="muted">{esc(comp.paper)}. {esc(comp.title)}</p><div class="scroll"><table>'
            f"<thead><tr><th>model</th>{head}</tr></thead><tbody>{rows}</tbody></table></div></section>"
        )
    return "".join(out)


def matrix_block(runs: list[dict[str, Any]], pairs_shown: int = 60) -> str:
    """For two or more runs: the tasks × models table and the paired comparisons over shared instances."""
    from playbench.report import compare

    if len(runs) < 2:
        return ""
    grid = compare.matrix(runs)
    head = "<th>task</th>" + "".join(column_head(c) for c in grid["columns"])
    rows = "".join(
        f"<tr><th scope=row>{esc(row['task'])}</th>"
        + "".join(
            f"<td>{_value_cell_html(c['text'])}</td>"
            if c and c.get("text")
            else missing_cell(f"{column} has no episode of {row['task']}")
            for column, c in zip(grid["columns"], row["cells"], strict=False)
        )
        + "</tr>"
        for row in grid["rows"]
    )
    out = [
        "<h2>Tasks × models</h2>",
        f'<div class="scroll"><table class="matrix"><caption>success [95% interval] (scored / errored)'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>",
    ]
    pairs = [p for p in compare.paired(runs) if "difference" in p]
    if pairs:
        body = "".join(
            f"<tr><td>{esc(p['task'])}</td><td class=run>{esc(p['a'])}</td><td class=run>{esc(p['b'])}</td>"
            f"<td>{p['shared']}</td>"
            f"<td>{esc(compare.comparison_text(p))}</td><td>{p['a_better']}</td><td>{p['b_better']}</td>"
            f"<td>{esc(compare.p_text(p['p_value']))}</td></tr>"
            for p in pairs[:pairs_shown]
        )
        more = (
            f'<p class="muted">{len(pairs) - pairs_shown} more pairs in comparisons.csv.</p>'
            if len(pairs) > pairs_shown
            else ""
        )
        out.append(
            "<h3>Paired over shared scored instances</h3>"
            '<div class="scroll"><table class="paired small"><caption>success A − B in percentage points with a '
            "bootstrap 95% interval; exact sign test</caption><thead><tr><th>task</th><th>A</th><th>B</th>"
            "<th>shared</th><th>A − B</th><th>A better</th><th>B better</th><th>p</th></tr></thead>"
            f"<tbody>{body}</tbody></table></div>{more}"
        )
    return "".join(out)


def plots_block(plots: list[tuple[str, str]]) -> str:
    if not plots:
        return ""
    figs = "".join(
        f'<figure class="plot"><img src="{esc(src)}" alt="{esc(name)}" loading="lazy">'
        f"<figcaption>{esc(name)}</figcaption></figure>"
        for name, src in plots
    )
    return f'<div class="plots">{figs}</div>'


def config_block(run: dict[str, Any]) -> str:
    config = run.get("config") or {}
    spec = config.get("run") if isinstance(config.get("run"), dict) else {}
    items = [
        ("directory", run.get("path")),
        (
            "command",
            " ".join(map(str, config["command"])) if isinstance(config.get("command"), list) else None,
        ),
        ("tasks", ", ".join(map(str, spec.get("tasks") or [])) or None),
        ("agents", json.dumps(spec.get("agents"), default=str) if spec.get("agents") else None),
        ("seed", spec.get("seed")),
        ("trials", spec.get("trials")),
        (
            "task options",
            json.dumps(spec.get("task_options"), default=str) if spec.get("task_options") else None,
        ),
        ("planned episodes", config.get("planned_episodes")),
        ("playbench", config.get("playbench_version")),
        ("git revision", config.get("git_revision")),
        ("written", config.get("written_at")),
    ]
    from playbench.report.model_side import fidelity_rows, model_side_rows
    from playbench.runner.fidelity import describe

    for task_id, stamp in fidelity_rows(run):
        items.append((f"fidelity: {task_id}", describe(stamp)))
    for task_id, role, model, line in model_side_rows(run):
        items.append((f"model side: {task_id} ({role}, {model})", line))
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items if v not in (None, ""))
    return f'<details class="config" open><summary>Run configuration</summary><dl>{rows}</dl></details>'


# ---------------------------------------------------------------------------------- episodes
def _success_text(record: dict[str, Any]) -> str:
    if record.get("error"):
        return "error"
    return "yes" if record.get("success") else "no"


def episodes_table(run: dict[str, Any], links: Links, extra_rows: dict[str, str] | None = None) -> str:
    """Every episode of a run with client-side filters (task, success, agent, model, text) and sort."""
    records = run["records"]
    if not records:
        return '<p class="muted">This run has no finished episodes yet.</p>'

    def options(values: Iterable[str]) -> str:
        return '<option value="">all</option>' + "".join(
            f'<option value="{esc(v)}">{esc(v)}</option>' for v in sorted(set(values))
        )

    tasks = [str(r["task"]) for r in records]
    agents = [str(r.get("agent")) for r in records]
    models = [str(r.get("model") or "–") for r in records]
    filters = (
        '<form class="filters" data-filters>'
        f'<label>task <select data-filter="task">{options(tasks)}</select></label>'
        '<label>success <select data-filter="success"><option value="">all</option><option>yes</option>'
        "<option>no</option><option>error</option></select></label>"
        f'<label>agent <select data-filter="agent">{options(agents)}</select></label>'
        f'<label>model <select data-filter="model">{options(models)}</select></label>'
        '<label>search <input type="search" data-filter="q" placeholder="instance, outcome"></label>'
        f'<span class="count" data-count>{len(records)} episodes</span></form>'
    )
    columns = [
        ("task", "task"),
        ("instance", "instance"),
        ("trial", "trial"),
        ("agent", "agent"),
        ("model", "model"),
        ("success", "success"),
        ("steps", "steps"),
        ("turns", "turns"),
        ("optimal", "optimal"),
        ("termination", "termination"),
        ("duration", "time (s)"),
    ]
    trial_title = f' title="{esc(TRIAL_NOTE)}"'
    head = "".join(
        f'<th data-sort="{i}" tabindex="0"{trial_title if key == "trial" else ""}>{esc(label)}</th>'
        for i, (key, label) in enumerate(columns)
    )
    rows = []
    for rec in records:
        eid = episode_id(rec)
        href = links.episode(run, eid)
        success = _success_text(rec)
        ended = str(rec.get("termination") or "")
        if rec.get("error"):
            ended = f"{ended}: {rec['error']}"
        instance = esc(rec["instance_id"])
        link = f'<a href="{esc(href)}">{instance}</a>' if href else instance
        cells = [
            (rec["task"], esc(rec["task"])),
            (rec["instance_id"], link),
            (rec["trial"], trial_number(rec["trial"])),
            (rec.get("agent"), esc(rec.get("agent"))),
            (rec.get("model") or "–", esc(rec.get("model") or "–")),
            (success, f'<span class="badge s-{success}">{success}</span>'),
            (rec.get("steps"), esc(rec.get("steps"))),
            (rec.get("turns") if rec.get("turns") is not None else "", esc(rec.get("turns", "–"))),
            (
                rec.get("optimal_steps") if rec.get("optimal_steps") is not None else "",
                esc("–" if rec.get("optimal_steps") is None else rec["optimal_steps"]),
            ),
            (ended, f'<span class="ended">{esc(_short(str(ended), 80))}</span>'),
            (rec.get("duration_s") or 0, esc(rec.get("duration_s"))),
        ]
        tds = "".join(f'<td data-v="{esc(v)}">{shown}</td>' for v, shown in cells)
        search = f"{rec['instance_id']} {ended}".lower()
        rows.append(
            f'<tr data-task="{esc(rec["task"])}" data-success="{success}" data-agent="{esc(rec.get("agent"))}" '
            f'data-model="{esc(rec.get("model") or "–")}" data-q="{esc(search)}" data-href="{esc(href or "")}">'
            f"{tds}</tr>"
        )
    return (
        f'<div class="episode-list" data-episode-list>{filters}<div class="scroll"><table class="episodes sortable">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div></div>"
    )


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _validity_class(step: dict[str, Any]) -> str:
    if step.get("error"):
        return "error"
    v = str(step.get("validity") or "")
    return v if v in VALIDITY_CLASSES else "other"


USAGE_COLUMNS = (
    ("seat", "role"),
    ("purpose", "purpose"),
    ("model", "model"),
    ("calls", "calls"),
    ("failed", "failed_calls"),
    ("input tokens", "input_tokens"),
    ("output tokens", "output_tokens"),
    ("reasoning tokens", "reasoning_tokens"),
    ("retries", "retries"),
    ("cost", "cost"),
    ("latency (s)", "latency_s"),
)


def usage_table(rows: list[dict[str, Any]], caption: str, group: str | None = None) -> str:
    """Usage rows (seat, purpose, model, calls, tokens, cost, ...) as a table; with `group`, a first
    column of that name shows each row's "group" value (e.g. the run and task)."""
    head = ([group] if group else []) + [label for label, _ in USAGE_COLUMNS]
    body = []
    for u in rows:
        cells = [u.get("group")] if group else []
        for _, key in USAGE_COLUMNS:
            value = u.get(key)
            if key == "cost":
                value = "unknown" if key in u and value is None else f"${value or 0:.4f}"
            elif value is None:
                value = "–"
            cells.append(value)
        body.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    return (
        f'<div class="scroll"><table class="usage small"><caption>{esc(caption)}</caption><thead><tr>'
        + "".join(f"<th>{esc(h)}</th>" for h in head)
        + f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def usage_block(runs: list[dict[str, Any]]) -> str:
    """Usage and cost per seat, purpose and model for every task of the runs."""
    rows = []
    for run in runs:
        for entry in run["summary"].get("tasks", {}).values():
            label = f"{run['name']} · {entry.get('task')} · {entry.get('agent')}"
            rows += [{**u, "group": label} for u in entry.get("usage_breakdown") or []]
    if not rows:
        return ""
    return "<h2>Usage per seat and model</h2>" + usage_table(
        rows, "calls, tokens and cost", "run · task · agent"
    )


def _metric_value(value: Any) -> str:
    """One episode metric as escaped HTML; a long list (a per-step curve) folds behind its length."""
    if not isinstance(value, dict | list):
        return esc(value)
    text = esc(json.dumps(value, default=str))
    if len(value) <= LONG_METRIC_ITEMS:
        return text
    kind = "values" if isinstance(value, list) else "entries"
    return f'<details class="long-metric"><summary>{len(value)} {kind}</summary>{text}</details>'


def instances_side_by_side(runs: list[dict[str, Any]], links: Links, limit: int = 1000) -> str:
    """Per task shared by several runs: each instance and trial with every run's outcome next to each other."""
    tasks: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        for task in sorted({r["task"] for r in run["records"]}):
            tasks.setdefault(task, []).append(i)
    out = []
    for task, idx in tasks.items():
        if len(idx) < 2:
            continue
        cells: dict[tuple, dict[int, dict[str, Any]]] = {}
        for i in idx:
            for rec in runs[i]["records"]:
                if rec["task"] == task:
                    cells.setdefault((str(rec["instance_id"]), int(rec["trial"])), {})[i] = rec
        keys = sorted(cells, key=lambda k: (natural_key(k[0]), k[1]))
        head = f'<th>instance</th><th title="{esc(TRIAL_NOTE)}">trial</th>' + "".join(
            column_head(runs[i]["name"]) for i in idx
        )
        rows = []
        for key in keys[:limit]:
            tds = []
            for i in idx:
                rec = cells[key].get(i)
                if rec is None:
                    tds.append(missing_cell(f"{runs[i]['name']} has no episode of this instance and trial"))
                    continue
                success = _success_text(rec)
                text = f'<span class="badge s-{success}">{success}</span> {esc(rec.get("steps"))} steps'
                href = links.episode(runs[i], episode_id(rec))
                tds.append(f'<td><a href="{esc(href)}">{text}</a></td>' if href else f"<td>{text}</td>")
            rows.append(f"<tr><td>{esc(key[0])}</td><td>{trial_number(key[1])}</td>{''.join(tds)}</tr>")
        more = f'<p class="muted">{len(keys) - limit} more rows not shown.</p>' if len(keys) > limit else ""
        out.append(
            f'<section><h3>{esc(task)}</h3><div class="scroll"><table class="side-by-side"><thead><tr>{head}</tr>'
            f"</thead><tbody>{''.join(rows)}</tbody></table></div>{more}</section>"
        )
    return "".join(out) or '<p class="muted">The runs share no task, so there are no episodes to line up.</p>'


# The replay's parts live in render_replay.py; imported last (it imports the helpers above from here).
from playbench.web.render_replay import (  # noqa: E402, F401
    call_html,
    calls_block,
    episode_view,
    record_block,
    step_block,
)

"""The leaderboard site's HTML, built from escaped strings.

Every value from a run directory (task ids, run and model names, model output in replays) passes
through `esc` before it reaches a page. Pages carry no inline script, style or event handler: their
Content Security Policy lets the browser load scripts, styles and images from the site's own files
only, so even a missed escape could not run anything. Tables are complete HTML; the site's script
only sorts them when a heading is clicked.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playbench import __version__
from playbench.web.render import esc

# The browser may load only the site's own files (`'self'`: the site's folder on file://, its
# origin on GitHub Pages); `data:` images are harmless and let the page name an empty favicon, so
# the browser asks for none.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'"
)
# The web app's stylesheet and script (its replay stepper, episode lists) and the site's own.
STYLESHEETS = ("assets/replay.css", "assets/site.css")
SCRIPTS = ("assets/replay.js", "assets/site.js")


@dataclass
class Cell:
    """One table cell: its escaped HTML and, for sorting, its value (a number, or text; None: empty)."""

    html: str
    sort: float | int | str | None = None
    title: str = ""


def text_cell(text: Any, sort: float | int | str | None = None) -> Cell:
    shown = "–" if text is None or text == "" else str(text)
    return Cell(esc(shown), shown if sort is None else sort)


def link_cell(text: Any, href: str, sort: float | int | str | None = None) -> Cell:
    return Cell(f'<a href="{esc(href)}">{esc(text)}</a>', str(text) if sort is None else sort)


def sortable_table(
    table_id: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    caption: str = "",
    css_class: str = "",
) -> str:
    """A table whose every column sorts when its heading is clicked (site.js); without the script it
    is the same table in its given order."""
    if not rows:
        return '<p class="muted">Nothing to show.</p>'
    head = "".join(
        f'<th scope=col data-col="{i}" tabindex="0" title="sort by {esc(c)}">{esc(c)}</th>'
        for i, c in enumerate(columns)
    )
    body = []
    for row in rows:
        tds = []
        for cell in row:
            sort = "" if cell.sort is None else str(cell.sort)
            title = f' title="{esc(cell.title)}"' if cell.title else ""
            tds.append(f'<td data-v="{esc(sort)}"{title}>{cell.html}</td>')
        body.append("<tr>" + "".join(tds) + "</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (
        f'<div class="scroll"><table id="{esc(table_id)}" class="pb-sortable {esc(css_class)}">{cap}'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]], css_class: str = "") -> str:
    """A small table of already escaped cells, in the given order."""
    head = "".join(f"<th scope=col>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<div class="scroll"><table class="{esc(css_class)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def page(title: str, body: str, depth: int, crumbs: Sequence[tuple[str, str | None]] = ()) -> str:
    """A whole page. `depth` is how many folders below the site's root the page is (links are relative,
    so the site works from file:// and from any folder of a web server)."""
    up = "../" * depth
    head_links = "".join(f'<link rel=stylesheet href="{up}{href}">' for href in STYLESHEETS)
    scripts = "".join(f'<script src="{up}{src}" defer></script>' for src in SCRIPTS)
    nav = "".join(
        f'<a href="{up}{href}">{esc(label)}</a>'
        for href, label in (
            ("index.html", "Scorecard"),
            ("index.html#suites", "Suites"),
            ("index.html#models", "Models"),
            ("index.html#runs", "Runs"),
        )
    )
    trail = ""
    if crumbs:
        parts = [
            f'<a href="{esc(up + href)}">{esc(label)}</a>' if href else esc(label) for label, href in crumbs
        ]
        trail = f'<p class="crumbs">{" › ".join(parts)}</p>'
    written = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        '<meta name=referrer content="no-referrer">'
        f'<title>{esc(title)} · playbench leaderboard</title><link rel=icon href="data:,">{head_links}{scripts}'
        f'</head><body class="site"><header class=top><a class=brand href="{up}index.html">playbench leaderboard</a>'
        f"<nav>{nav}</nav></header><main>{trail}{body}</main>"
        f'<footer class="muted">Written by playbench {esc(__version__)} (<code>playbench report --site</code>) '
        f"at {esc(written)}. A static site: no server, no network.</footer></body></html>\n"
    )


def section(title: str, body: str, anchor: str = "", note: str = "") -> str:
    ident = f' id="{esc(anchor)}"' if anchor else ""
    lead = f'<p class="muted">{esc(note)}</p>' if note else ""
    return f"<section{ident}><h2>{esc(title)}</h2>{lead}{body}</section>"

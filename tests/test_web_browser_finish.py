"""Fit and finish of the web app in a real browser (issue 27, item 11): discarding a game in progress
through its confirmation dialog, one trial numbering from the play page to the replay, and the
compare page fitting a 1400 px window with a titled dash for a metric a run lacks."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
from test_web_browser import (  # noqa: E402
    CHROMIUM,
    LiveServer,
    browser,  # noqa: F401  (a fixture)
    open_game,
    wait_turn_or_end,
)
from test_web_finish import metric_run  # noqa: E402

from playbench.agents import AgentSpec  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.web.server import create_app  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="Debian's chromium is not installed (apt-get install chromium; scripts/setup.sh --dev does it as root)",
    ),
]
HOSTS = {"127.0.0.1", "localhost"}
LONG_NAME = "random-with-a-rather-long-run-directory-name-to-test-the-width"


def new_page(browser, width: int = 1280):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: page.problems.append(msg.text) if msg.type == "error" else None)
    return context, page


def observed(page) -> tuple[int, int]:
    text = page.get_by_test_id("observation").inner_text()
    return tuple(map(int, re.search(r"position (\d+), target (\d+)", text).groups()))


def move(page, text: str) -> None:
    page.get_by_test_id("action-text").fill(text)
    page.get_by_test_id("action-text").press("Enter")


def test_discard_an_abandoned_game_from_the_play_page(browser, tmp_path):  # noqa: F811
    root = tmp_path / "runs"
    root.mkdir()
    context, page = new_page(browser)
    with LiveServer(create_app([str(root)], allowed_hosts=HOSTS)) as first:
        # a finished game (trial 1), then one left after a move (trial 2)
        open_game(page, first, "toy/walk", instance="walk-0-1")
        assert page.get_by_test_id("trial").inner_text() == "trial 1"
        moves = 0
        while wait_turn_or_end(page, moves) == "turn":
            position, target = observed(page)
            move(page, "right" if target > position else "left")
            moves += 1
        open_game(page, first, "toy/walk", instance="walk-0-1")
        assert page.get_by_test_id("trial").inner_text() == "trial 2"
        assert wait_turn_or_end(page, 0) == "turn"
        position, target = observed(page)
        move(page, "left" if target > position else "right")
        assert wait_turn_or_end(page, 1) == "turn"
        game = re.search(r"/play/s/([^?]+)", page.url).group(1)
    (journal,) = root.rglob(f"unfinished/{game}.json")
    episodes = (journal.parent.parent / "episodes.jsonl").read_text()

    with LiveServer(create_app([str(root)], allowed_hosts=HOSTS)) as second:
        page.goto(f"{second.url}/play")
        page.problems.clear()  # the old page's long poll lost the first server, as it should
        item = page.locator(f'li[data-game="{game}"]')
        when = item.get_by_test_id("game-when").inner_text()
        assert re.search(
            r"started \d{4}-\d\d-\d\d \d\d:\d\d · last move \d{4}-\d\d-\d\d \d\d:\d\d · 1 move", when
        )
        assert "trial 2" in item.inner_text()

        # dismissing the dialog keeps the game
        questions = []

        def answer(accept: bool):
            def handle(dialog):
                questions.append(dialog.message)
                dialog.accept() if accept else dialog.dismiss()

            return handle

        page.once("dialog", answer(False))
        item.get_by_test_id("discard").click()
        page.wait_for_timeout(300)
        assert questions and "Discard this game of toy/walk" in questions[0] and "trial 2" in questions[0]
        assert item.count() == 1 and journal.exists()

        # accepting it discards the game: the list no longer offers it, its journal is gone
        page.once("dialog", answer(True))
        item.get_by_test_id("discard").click()
        page.wait_for_url(re.compile(r"/play\?discarded="))
        assert "was discarded" in page.get_by_test_id("discarded").inner_text()
        assert page.locator(f'li[data-game="{game}"]').count() == 0
        assert not journal.exists()
        assert (journal.parent.parent / "episodes.jsonl").read_text() == episodes  # the finished game stays
        assert not page.problems, page.problems
    context.close()


def test_the_replay_counts_trials_as_the_play_page_does(browser, tmp_path):  # noqa: F811
    root = tmp_path / "runs"
    root.mkdir()
    context, page = new_page(browser)
    with LiveServer(create_app([str(root)], allowed_hosts=HOSTS)) as server:
        for trial in (1, 2):
            open_game(page, server, "toy/walk", instance="walk-0-1")
            assert page.get_by_test_id("trial").inner_text() == f"trial {trial}"
            moves = 0
            while wait_turn_or_end(page, moves) == "turn":
                position, target = observed(page)
                move(page, "right" if target > position else "left")
                moves += 1
        page.get_by_test_id("replay-link").click()
        page.wait_for_selector("html[data-ready]")
        assert page.get_by_test_id("episode-title").inner_text().endswith("trial 2")
        assert page.url.endswith("__t1")  # the episode's id keeps the records' own number
        page.locator(".crumbs a").click()
        cells = page.locator("table.episodes tbody tr td:nth-child(3)").all_inner_texts()
        assert sorted(cells) == ["1", "2"]
        assert not page.problems, page.problems
    context.close()


@pytest.fixture(scope="module")
def compare_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("compare") / "runs"

    def make() -> None:  # in a thread: Playwright's sync API keeps an event loop in this one
        for name, agent, tasks in (
            ("oracle", "oracle", ["toy/walk", "ivispar/sgp-2d", "comma/wire"]),
            ("random", "random", ["toy/walk", "ivispar/sgp-2d", "comma/wire"]),
            (LONG_NAME, "random", ["toy/walk", "comma/wire"]),
        ):
            config = RunConfig(tasks=tasks, agents={"*": AgentSpec(agent)}, out=str(root / name), episodes=2)
            asyncio.run(execute(config))

    worker = threading.Thread(target=make)
    worker.start()
    worker.join()
    metric_run(root / "with-a-metric", {"final_distance": 1, "only_here": 0.5})
    metric_run(root / "without-it", {"final_distance": 2})
    return root


def test_compare_fits_1400_px_and_marks_missing_metrics(browser, compare_root):  # noqa: F811
    context, page = new_page(browser, width=1400)
    with LiveServer(create_app([str(compare_root)], allowed_hosts=HOSTS)) as server:
        page.goto(f"{server.url}/")
        for box in page.locator("input[name=run]").all():
            box.check()
        page.get_by_test_id("compare").click()
        page.wait_for_url(re.compile(r"/compare\?"))
        page.wait_for_selector("html[data-ready]")
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        # the page never scrolls sideways
        width, client = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert client == 1400 and width <= client, (width, client)
        # and the result tables fit their boxes: headline, tasks × models, paired, metrics
        for selector in ("table.headline", "table.matrix", "table.paired", "table.metrics"):
            sizes = page.evaluate(
                f"[...document.querySelectorAll('{selector}')].map(t => "
                "[t.parentElement.scrollWidth, t.parentElement.clientWidth])"
            )
            assert sizes, selector
            assert all(scroll <= box for scroll, box in sizes), (selector, sizes)
        # a metric one run lacks is a dash saying so, and no cell is empty
        missing = page.locator("table.metrics tr", has=page.locator("th", has_text="only_here")).locator(
            "td.missing"
        )
        assert missing.all_inner_texts() == ["–"] * 4  # the three real runs lack it too
        assert missing.last.get_attribute("title") == "runs/without-it · random has no metric 'only_here'"
        empty = page.evaluate(
            "[...document.querySelectorAll('td')].filter(c => !c.textContent.trim()).length"
        )
        assert empty == 0
        assert not page.problems, page.problems
    context.close()

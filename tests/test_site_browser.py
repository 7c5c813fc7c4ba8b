"""The leaderboard site in a real browser: Playwright driving Debian's headless Chromium over file://.

The pages open with no console error and no failed request (the Content Security Policy lets the
site's own scripts, styles and images load from file://), a click on a heading sorts its table,
the links between the scorecard, suite, model, run and episode pages lead where they say, the
replay's images load, and every table is whole with scripts off.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests need the Python 'playwright' package (the 'dev' extra)"
)

from playbench.cli import main  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="Debian's chromium is not installed (apt-get install chromium; scripts/setup.sh --dev does it as root)",
    ),
]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site-browser")
    dirs = []
    for agent, episodes in (("random", "3"), ("oracle", "3")):
        out = root / agent
        assert (
            main(["run", "ivispar/sgp-2d", "--agent", agent, "--episodes", episodes, "--out", str(out)]) == 0
        )
        dirs.append(str(out))
    assert main(["report", *dirs, "--out", str(root / "report"), "--site", str(root / "site")]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: page.problems.append(msg.text) if msg.type == "error" else None)
    page.on("requestfailed", lambda req: page.problems.append(f"failed: {req.url} {req.failure}"))
    yield page
    context.close()


def opened(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_selector("html[data-site-ready]", state="attached")


def column(page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"#{table} tbody tr", f"rows => rows.map(r => r.cells[{index}].getAttribute('data-v'))"
    )


def as_numbers(values: list[str]) -> list[float]:
    return [float(v) for v in values if v != ""]


def test_pages_links_sorting_and_images_from_file_urls(site, page):
    opened(page, (site / "index.html").as_uri())
    assert page.title().startswith("Scorecard")

    # sorting: the headline table by its success column, ascending then descending
    heads = page.locator("#headline thead th")
    success = [heads.nth(i).inner_text() for i in range(heads.count())].index("success")
    before = column(page, "headline", success)
    assert len(set(before)) > 1  # the oracle solves, the random agent does not: something to sort
    heads.nth(success).click()
    ascending = as_numbers(column(page, "headline", success))
    assert ascending == sorted(ascending)
    assert heads.nth(success).get_attribute("aria-sort") == "ascending"
    heads.nth(success).click()
    descending = as_numbers(column(page, "headline", success))
    assert descending == sorted(descending, reverse=True) and descending != ascending
    run_names = page.eval_on_selector_all(
        "#headline tbody tr", "rows => rows.map(r => r.cells[0].textContent)"
    )
    assert run_names[0] == "oracle"  # the best success first

    # the scorecard sorts by a run's column too
    page.locator("#scorecard thead th").nth(2).click()
    values = as_numbers(column(page, "scorecard", 2))
    assert values == sorted(values)

    # index -> suite page -> back; index -> model page
    page.locator("#scorecard tbody a", has_text="ivispar/sgp-2d").first.click()
    page.wait_for_url(re.compile(r"/suites/ivispar\.html$"))
    page.wait_for_selector("html[data-site-ready]", state="attached")
    assert page.locator("h1").inner_text() == "Suite ivispar"
    assert page.locator("table.paper").count() > 0  # the paper's published tables
    page.locator(".crumbs a", has_text="Scorecard").click()
    page.wait_for_url(re.compile(r"/index\.html$"))
    page.locator("#models a", has_text="oracle").click()
    page.wait_for_url(re.compile(r"/models/oracle\.html$"))
    assert page.locator("h1").inner_text() == "oracle"

    # model page -> run page -> an episode's replay
    page.locator("#headline tbody a", has_text="oracle").first.click()
    page.wait_for_url(re.compile(r"/runs/oracle\.html$"))
    page.wait_for_selector("html[data-ready]", state="attached")  # the replay script (episode list)
    page.locator("table.episodes tbody a").first.click()
    page.wait_for_url(re.compile(r"/episodes/oracle/.+\.html$"))
    page.wait_for_selector("html[data-ready]", state="attached")
    assert page.get_by_test_id("episode-title").inner_text().startswith("ivispar/sgp-2d")
    check_images(page)
    # the stepper shows the next turn and its images; the next episode's link works
    page.locator("[data-go=next]").click()
    assert page.locator("[data-episode]").get_attribute("data-current") == "2"
    check_images(page)
    page.locator("[data-episode-next]").click()
    page.wait_for_url(re.compile(r"/episodes/oracle/.+\.html$"))
    check_images(page)
    assert page.problems == []


def check_images(page) -> None:
    """Every image of the turn on screen has loaded from its file."""
    shown = page.locator("article.step:not([hidden]) img")
    assert shown.count() > 0
    for i in range(shown.count()):
        shown.nth(i).scroll_into_view_if_needed()
    widths = [
        shown.nth(i).evaluate("img => img.decode().then(() => img.naturalWidth)")
        for i in range(shown.count())
    ]
    assert all(w > 0 for w in widths), widths


def test_tables_are_whole_without_scripts(site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((site / "index.html").as_uri())
    assert page.locator("#scorecard tbody tr").count() == 1  # one task, ivispar/sgp-2d
    assert page.locator("#headline tbody tr").count() == 2
    assert "%" in page.locator("#scorecard tbody tr").first.inner_text()
    episode = next((site / "episodes" / "random").glob("*.html"))
    page.goto(episode.as_uri())
    # without the stepper every turn is on the page, its images named as files the browser loads itself
    assert page.locator("article.step").count() > 1
    first = page.locator("article.step img").first
    first.scroll_into_view_if_needed()
    assert first.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0
    context.close()

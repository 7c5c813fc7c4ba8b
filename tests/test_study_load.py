"""The study server under load and in a real browser, on loopback against a real `playbench serve
--study` process (issue 31, item 5 and the done-when):

- 50 participants over HTTP (httpx, one thread each) and 3 in headless Chromium (Playwright) play
  their whole assignments while the server process is killed (SIGKILL) once mid-study and started
  again: every planned episode is recorded exactly once, under its participant's seat, no journal is
  left over, and the one participant who never came has nothing recorded;
- the done-when study, 3 tasks x 12 instances x 6 participants, played end to end in the browser, then
  `playbench report` with the "Humans (this study)" row beside the paper's human rows.
"""

from __future__ import annotations

import collections
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the study server needs the 'web' extra")
httpx = pytest.importorskip("httpx")
from test_study import Participant, make_study, participants  # noqa: E402
from test_web_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from playbench.cli import main  # noqa: E402
from playbench.runner.reader import RunReader  # noqa: E402

STP_SHORT = {"ivispar/stp:optimal_length": 4}  # four-move tile puzzles keep the browser part short
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`playbench serve --study DIR` as its own process (the real uvicorn), killable and restartable."""

    def __init__(self, study_dir: Path, log: Path) -> None:
        self.study_dir, self.port, self.log = study_dir, free_port(), log
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> float:
        began = time.monotonic()
        code = "import sys; from playbench.cli import main; sys.exit(main())"
        args = ["serve", "--study", str(self.study_dir), "--port", str(self.port)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, *args], stdout=self.log.open("a"), stderr=subprocess.STDOUT, env=env
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/robots.txt", timeout=1).status_code == 200:
                    return time.monotonic() - began
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError(f"the study server did not start:\n{self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Timed:
    """An httpx client that retries while the server is down and times every request."""

    def __init__(self, base: str, deadline: float) -> None:
        self.client = httpx.Client(base_url=base, follow_redirects=True, timeout=30)
        self.deadline = deadline
        self.times: list[float] = []
        self.retries = 0

    def _call(self, method: str, url: str, **kw):
        while True:
            began = time.monotonic()
            try:
                r = self.client.request(method, url, **kw)
            except (httpx.TransportError, httpx.RemoteProtocolError):
                self.retries += 1
                assert time.monotonic() < self.deadline, "the server stayed down"
                time.sleep(0.2)
                continue
            self.times.append(time.monotonic() - began)
            return r

    def get(self, url: str, **kw):
        return self._call("GET", url, **kw)

    def post(self, url: str, data: dict, **kw):
        return self._call("POST", url, data=data, **kw)


# ------------------------------------------------------------------------------------------ browser
class BrowserPerson:
    """A participant in a Chromium page, driven one small action at a time (round robin with others)."""

    def __init__(self, page, base: str, person: Participant) -> None:
        self.page, self.base, self.person = page, base, person
        self.done = False
        self.last_move: tuple[str, str] | None = None

    def open(self) -> None:
        self.page.goto(f"{self.base}/p/{self.person.link}")

    def tick(self) -> None:
        page = self.page
        try:
            if page.get_by_test_id("all-done").count():
                self.done = True
                return
            for test_id in ("agree", "start", "continue"):
                button = page.get_by_test_id(test_id)
                if button.count() and button.is_visible():
                    button.click()
                    page.wait_for_load_state()
                    return
            box = page.locator("form.move textarea[name=action_text]")
            if box.count() and box.is_enabled():
                move = page.locator("form.move input[name=move]").get_attribute("value")
                finished = int(
                    re.search(r"(\d+) finished", page.get_by_test_id("progress").inner_text()).group(1)
                )
                sid = page.locator("[data-play-panel]").get_attribute("data-sid")
                if self.last_move == (sid, move):
                    return  # sent; the page has not refreshed yet
                slot = self.person.plan.slots[finished]
                box.fill(self.person.answers(slot)[int(move)])
                box.press("Enter")
                self.last_move = (sid, move)
                return
            # The server was away: Chromium's own error page after a form sent while it was down,
            # or ours for a game it had not reloaded yet. Load the page again.
            away = page.url.startswith("chrome-error:")
            if away or page.locator(".error-page").count() or page.locator("p.error").count():
                page.goto(f"{self.base}/")
        except Exception as exc:  # the page changed under us (a refresh), or the server is restarting
            if "Target" in str(exc) or "closed" in str(exc):
                raise
            time.sleep(0.1)
            try:
                page.goto(f"{self.base}/")
            except Exception:
                time.sleep(0.3)


def drive(people: list[BrowserPerson], deadline: float) -> None:
    for p in people:
        p.open()
    while not all(p.done for p in people):
        assert time.monotonic() < deadline, "the browser participants did not finish in time: " + ", ".join(
            p.page.url for p in people if not p.done
        )
        for p in people:
            if not p.done:
                p.tick()
        time.sleep(0.03)


@pytest.fixture(scope="module")
def chromium():
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="needs the Python 'playwright' package"
    )
    if not Path(CHROMIUM).exists():
        pytest.skip(
            "Debian's chromium is not installed (apt-get install chromium; scripts/setup.sh --dev does it)"
        )
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def browser_people(chromium, base: str, people: list[Participant]) -> list[BrowserPerson]:
    out = []
    for person in people:
        context = chromium.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        page.set_default_timeout(15_000)
        out.append(BrowserPerson(page, base, person))
    return out


def check_records(study, active: set[str]) -> list[dict]:
    records = RunReader(study.run_dir).records()
    lines = (study.run_dir / "episodes.jsonl").read_text().splitlines()
    keys = [(r["task"], r["instance_id"], r["trial"]) for r in map(json.loads, lines)]
    assert len(keys) == len(set(keys)), "an episode was recorded twice"
    planned = {(s.task, s.instance_id, s.trial): p.pseudonym for p in study.config.plans for s in p.slots}
    expected = {k for k, who in planned.items() if who in active}
    assert set(keys) == expected, f"missing: {sorted(expected - set(keys))[:5]}"
    for r in records:
        assert f"human:{planned[(r['task'], r['instance_id'], r['trial'])]}" in r["roles"].values()
        assert r["error"] is None
    assert not list(study.run_dir.glob("unfinished/*.json")), "a journal was left behind"
    return records


def test_50_http_and_3_browser_participants_through_a_server_restart(tmp_path, chromium):
    study, links, _ = make_study(tmp_path, instances=6, per=2, people=54, options=STP_SHORT)
    everyone = participants(study, links, lambda name: None)
    http_people, in_browser, absent = everyone[:50], everyone[50:53], everyone[53]
    server = Server(study.dir, tmp_path / "server.log")
    server.start()
    deadline = time.monotonic() + 150
    failures: list[BaseException] = []
    clients = []

    def play(person: Participant) -> None:
        try:
            person.client = Timed(server.base, deadline)
            clients.append(person.client)
            person.open_link()
            person.play_all(limit=2000)
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(p,), daemon=True) for p in http_people]
    began = time.monotonic()
    for t in threads:
        t.start()
    restart: dict[str, float] = {}
    episodes = study.run_dir / "episodes.jsonl"

    def restart_mid_game() -> None:
        # Its own thread, polling often: once a third of the episodes are in and a game is in
        # progress (its journal on disk), kill the server. Polling from the browser loop instead
        # missed the window on a slow machine (the HTTP players had finished between two ticks).
        while time.monotonic() < deadline:
            done = len(episodes.read_text().splitlines()) if episodes.exists() else 0
            live = len(list(study.run_dir.glob("unfinished/*.json")))
            if done >= 106:
                return  # every episode is in: nothing left to interrupt (the assertion below says so)
            if done >= 36 and live:
                killed = time.monotonic()
                server.kill()
                restart["games_in_flight"] = live
                restart["start_s"] = server.start()
                restart["down_s"] = time.monotonic() - killed
                return
            time.sleep(0.005)

    watcher = threading.Thread(target=restart_mid_game, daemon=True)
    watcher.start()
    try:
        drive(browser_people(chromium, server.base, in_browser), deadline)
        watcher.join(max(1, deadline - time.monotonic()))
        for t in threads:
            t.join(max(1, deadline - time.monotonic()))
        wall = time.monotonic() - began
    finally:  # a failed drive must not leave the server running after the test
        watcher.join(max(1, deadline - time.monotonic()))  # it may be starting the server again
        server.stop()
    assert not failures, failures[0]
    assert restart and restart["games_in_flight"] > 0, "the restart happened with no game in progress"
    records = check_records(study, {p.plan.pseudonym for p in everyone[:53]})
    assert len(records) == 106 and absent.plan.pseudonym == "p54"  # p54 never came: nothing recorded
    times = sorted(t for c in clients for t in c.times)
    figures = {
        "participants": 53,
        "episodes": len(records),
        "wall_s": round(wall, 1),
        "http_requests": len(times),
        "p50_ms": round(1000 * statistics.median(times), 1),
        "p95_ms": round(1000 * times[int(0.95 * len(times))], 1),
        "retries_while_down": sum(c.retries for c in clients),
        **{k: round(v, 2) if isinstance(v, float) else v for k, v in restart.items()},
        "moves": sum(r["steps"] for r in records),
        "by_task": dict(collections.Counter(r["task"] for r in records)),
    }
    print("\nstudy load figures:", json.dumps(figures))
    (tmp_path / "figures.json").write_text(json.dumps(figures))


def test_the_done_when_study_end_to_end_in_the_browser(tmp_path, chromium):
    """3 tasks x 12 instances x 6 participants, all in Chromium, then the report beside the paper."""
    study, links, admin = make_study(tmp_path, instances=12, per=6, people=6, options=STP_SHORT)
    server = Server(study.dir, tmp_path / "server.log")
    server.start()
    try:
        people = participants(study, links, lambda name: None)
        drive(browser_people(chromium, server.base, people), time.monotonic() + 150)
    finally:
        server.stop()
    records = check_records(study, {p.pseudonym for p in study.config.plans})
    assert len(records) == 36 and all(r["success"] for r in records)
    assert main(["report", str(study.run_dir), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    table2 = report.split("### Table 2: Completed episodes")[1].split("\n### ")[0]
    assert "Human (3D; section 4.2" in table2 and "| **Humans (this study)** | 100.00 |" in table2
    comma = report.split("### Table 1: Average partial success rate")[1].split("\n### ")[0]
    assert "Human / GPT4o" in comma and "**Humans (this study): solver = human" in comma

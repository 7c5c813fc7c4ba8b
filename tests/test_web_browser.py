"""End to end in a real browser: Playwright driving Debian's headless Chromium against a live server.

A person's whole path without the terminal: play a task to the end (buttons and typed replies),
take either seat of a two-role task with an oracle or a second browser in the other, open the
replay and step through it by keyboard, compare runs, and read the static export.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests need the Python 'playwright' package (the 'dev' extra)"
)
import uvicorn  # noqa: E402
from PIL import Image  # noqa: E402

from playbench.agents import AgentSpec  # noqa: E402
from playbench.core.registry import make_task  # noqa: E402
from playbench.report.tables import load_run  # noqa: E402
from playbench.runner.episode import EpisodeOutput, key_filename  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.runner.store import RunStore  # noqa: E402
from playbench.testing.scripted_server import ScriptedServer, last_user_text, system_text  # noqa: E402
from playbench.web.export import write_html  # noqa: E402
from playbench.web.server import create_app  # noqa: E402

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
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BIG_STEPS = 300
INJECTION = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


class LiveServer:
    """uvicorn serving the app from a thread, on a port the OS picks."""

    def __init__(self, app) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        app.state.stopping = lambda: self.server.should_exit

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def synthetic_episode(store: RunStore, instance_id: str, n_steps: int, raw_output: str = "right") -> None:
    """An episode written as the runner writes one, with a different image at every step."""
    stem = key_filename(("toy/walk", instance_id, 0))
    steps, images = [], {}
    for i in range(1, n_steps + 1):
        buf = io.BytesIO()
        Image.new("RGB", (48, 32), (i % 256, (7 * i) % 256, 90)).save(buf, format="PNG")
        name = f"img{i:04d}.png"
        images[name] = buf.getvalue()
        steps.append(
            {
                "step": i,
                "role": "player",
                "observation": f"observation number {i}",
                "images": [{"file": f"{stem}/{name}", "label": f"view {i}"}],
                "feedback_before": "",
                "raw_output": raw_output if i == 1 else f"thinking about step {i}\naction: right",
                "action": "right",
                "rationale": None,
                "parsed": "right",
                "validity": ["effective", "ineffective", "invalid", "unparseable"][i % 4],
                "reason": None,
                "feedback": f"feedback number {i}",
                "usage": {"input_tokens": 10, "output_tokens": 5, "calls": 1},
            }
        )
    record = {
        "task": "toy/walk",
        "instance_id": instance_id,
        "seed": 0,
        "trial": 0,
        "agent": "llm(test:model)",
        "model": "test:model",
        "roles": {"player": "llm(test:model)"},
        "success": False,
        "steps": n_steps,
        "optimal_steps": 3,
        "metrics": {"final_distance": 2},
        "error": None,
        "termination": "step_cap",
        "usage": {"input_tokens": 10 * n_steps, "output_tokens": 5 * n_steps, "calls": n_steps, "cost": None},
        "duration_s": 1.0,
        "trajectory": f"trajectories/{stem}.jsonl",
    }
    store.write(EpisodeOutput(record=record, steps=steps, images=images))


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")

    def run_both() -> None:  # in a thread: Playwright's sync API keeps an event loop in this one
        for agent in ("oracle", "random"):
            config = RunConfig(
                tasks=["toy/walk", "ivispar/sgp-2d"],
                agents={"*": AgentSpec(agent)},
                out=str(root / agent),
                episodes=2,
            )
            asyncio.run(execute(config))

    worker = threading.Thread(target=run_both)
    worker.start()
    worker.join()
    store = RunStore(root / "long")
    synthetic_episode(store, "long-0", BIG_STEPS)
    synthetic_episode(store, "inject-0", 3, raw_output=INJECTION)
    store.close()
    return root


@pytest.fixture(scope="module")
def server(runs_root):
    with LiveServer(create_app([str(runs_root)], allowed_hosts={"127.0.0.1", "localhost"})) as live:
        yield live


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
    yield page
    context.close()


def wait_until(page, expression: str, timeout: float = 10.0) -> None:
    """Poll a JavaScript expression from Python. (Playwright's wait_for_function evaluates strings
    inside the page, which the app's Content Security Policy rightly forbids.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.05)


def open_game(page, server, task: str, **choices: str) -> None:
    page.goto(f"{server.url}/play")
    page.locator(f'tr[data-task="{task}"]').get_by_role("link", name="Play").click()
    for name, value in choices.items():
        page.get_by_test_id(name).select_option(value)
    page.get_by_test_id("start").click()
    page.wait_for_url(re.compile(r"/play/s/"))


def wait_turn_or_end(page, moves_made: int) -> str:
    """Wait until the panel offers move number `moves_made + 1` or shows the end of the game (and not
    the previous turn's panel, which stays up until the server has taken the move)."""
    page.wait_for_selector(
        f'[data-testid="finished"], input[name=move][value="{moves_made}"]', state="attached"
    )
    return "finished" if page.get_by_test_id("finished").count() else "turn"


def test_play_walk_with_buttons_then_replay_by_keyboard(page, server, runs_root):
    open_game(page, server, "toy/walk", instance="walk-0-1")
    moves = 0
    while wait_turn_or_end(page, moves) == "turn":
        text = page.get_by_test_id("observation").inner_text()
        position, target = map(int, re.search(r"position (\d+), target (\d+)", text).groups())
        page.get_by_test_id("legal-actions").get_by_role(
            "button", name="right" if target > position else "left"
        ).click()
        moves += 1
        assert moves < 12, "the episode should have ended"
    assert "Solved" in page.get_by_test_id("finished").inner_text()

    page.get_by_test_id("replay-link").click()
    page.wait_for_selector("html[data-ready]")
    record = page.locator(".record").inner_text()
    assert "human" in record and "walk-0-1" in record
    episode = page.locator("[data-episode]")
    assert episode.get_attribute("data-current") == "1"
    assert page.locator("article.step:visible").count() == 1
    page.keyboard.press("ArrowRight")
    assert episode.get_attribute("data-current") == str(min(2, moves))
    page.keyboard.press("End")
    assert episode.get_attribute("data-current") == str(moves)
    last = page.locator("article.step:visible")
    assert "effective" in last.inner_text() and "moved" in last.inner_text()
    page.keyboard.press("Home")
    assert episode.get_attribute("data-current") == "1"
    assert not page.problems, page.problems

    # the game is an ordinary run directory
    played = [p for p in (runs_root / "web-play").iterdir() if p.name.startswith("toy__walk")]
    run = load_run(played[0])
    assert run["records"][0]["agent"] == "human" and run["records"][0]["success"]


def test_play_a_real_task_by_typing(page, server):
    """ivispar/sgp (text): type the oracle's moves into the free-text box and press Enter."""
    task = make_task("ivispar/sgp")
    instance = task.instances(1, 0)[0]
    task.reset(instance)
    moves = []
    while not task.done:
        moves.append(task.oracle_action("player"))
        task.step(moves[-1])
    open_game(page, server, "ivispar/sgp", instance=instance.id)
    for number, move in enumerate(moves):
        assert wait_turn_or_end(page, number) == "turn"
        page.get_by_test_id("action-text").fill(f"I move it.\naction: {move}")
        page.get_by_test_id("action-text").press("Enter")
    assert wait_turn_or_end(page, len(moves)) == "finished"
    assert f"Solved in {len(moves)} steps" in page.get_by_test_id("finished").inner_text()
    assert not page.problems, page.problems


def test_ivispar_play_page_offers_no_move_buttons_the_prompt_lacks(page, server):
    """A person sees what the model's prompt shows: iVISPAR's prompt lists no moves, so the page offers
    no per-move buttons (the task knows which of the 16 moves are blocked; the model is not told)."""
    task = make_task("ivispar/sgp-2d")
    instance = task.instances(1, 0)[0]
    task.reset(instance)
    obs = task.observe("player")
    assert obs.legal_actions  # the task does compute the legal moves...
    open_game(page, server, "ivispar/sgp-2d", instance=instance.id)
    assert wait_turn_or_end(page, 0) == "turn"
    prompt = page.locator("details.instructions pre").inner_text() + page.locator(".observation").inner_text()
    for value in page.locator("button.legal").evaluate_all("bs => bs.map(b => b.value)"):
        assert value in prompt, value  # ...and any button the page shows is one the prompt lists
    assert page.locator("button.legal").count() == 0
    assert page.locator('[data-testid="feedback"]').count() == 0 and page.locator("figcaption").count() == 0
    assert page.locator(".observation img").count() == len(obs.all_images) > 0
    page.get_by_test_id("quit").click()
    page.wait_for_selector('[data-testid="finished"]')
    assert not page.problems, page.problems


def test_mmescape_controls_send_the_json_a_model_would(page, server, runs_root):
    """Turn, look by clicking the view, grab: the page sends the JSON action a model would."""
    open_game(page, server, "mmescape/level-1")
    assert wait_turn_or_end(page, 0) == "turn"
    assert page.locator("button.legal").count() == 0  # no random-agent samples
    page.get_by_test_id("control-rotate_right").fill("30")
    view = page.locator("img[data-look-target]")
    box = view.bounding_box()
    view.click(position={"x": box["width"] * 0.25, "y": box["height"] * 0.5})
    x, y = json.loads(page.get_by_test_id("look-at").inner_text())
    assert x == pytest.approx(0.25, abs=0.01) and y == pytest.approx(0.5, abs=0.01)
    page.get_by_test_id("control-grab").check()
    page.get_by_test_id("send-controls").click()
    assert wait_turn_or_end(page, 1) == "turn"
    page.get_by_test_id("quit").click()
    page.wait_for_selector('[data-testid="finished"]')
    played = sorted((runs_root / "web-play").glob("mmescape__level-1*"), key=lambda p: p.stat().st_mtime)
    record = load_run(played[-1])["records"][-1]
    first = json.loads((played[-1] / record["trajectory"]).read_text().splitlines()[0])
    action = json.loads(first["action"])
    assert action["rotate_right"] == 30 and action["grab"] is True
    assert action["look_at"] == pytest.approx([0.25, 0.5], abs=0.01)
    assert first["validity"] != "unparseable"
    assert not page.problems, page.problems


def test_two_seats_in_two_browsers(browser, page, server):
    """toy/relay: the speaker in one browser, the listener in a second one."""
    open_game(page, server, "toy/relay", seat="speaker", partner="human")
    secret = re.search(r"secret digit is (\d)", page.get_by_test_id("observation").inner_text()).group(1)
    page.get_by_test_id("action-text").fill(f"the digit is {secret}")
    page.get_by_test_id("send").click()
    page.wait_for_selector('[data-testid="waiting"]')
    other_url = page.get_by_test_id("other-seat-link").get_attribute("href")

    second = browser.new_context().new_page()
    second.goto(server.url + other_url)
    assert f"the digit is {secret}" in second.get_by_test_id("observation").inner_text()
    assert "secret digit" not in second.content()  # the listener's view is private
    second.locator(f'button.legal[value="{secret}"]').click()
    second.wait_for_selector('[data-testid="finished"]')
    assert "Solved" in second.get_by_test_id("finished").inner_text()
    page.wait_for_selector('[data-testid="finished"]')  # the first browser learns it without a reload
    second.context.close()


def test_human_solver_with_an_oracle_expert(page, server, runs_root):
    """The COMMA seating: a person as the solver, the oracle as the expert."""
    open_game(page, server, "toy/consult", seat="solver", partner="oracle")
    assert wait_turn_or_end(page, 0) == "turn"
    advice = page.get_by_test_id("observation").inner_text()
    digit = re.search(r"it is (\d)", advice).group(1)
    button = page.locator(f'button.legal[value="{digit}"]')
    key = button.get_attribute("data-key")
    if len(key) == 1:
        page.keyboard.press(key)  # digit keys press the first nine action buttons
    else:
        button.click()
    page.wait_for_selector('[data-testid="finished"]')
    assert "Solved" in page.get_by_test_id("finished").inner_text()
    page.get_by_test_id("replay-link").click()
    record = page.locator(".record").inner_text()
    assert "expert: oracle" in record and "solver: human" in record


def solving_action(task_id: str, instance) -> str:
    """The one action that disarms the module (the oracle solver asks the expert first, so its first
    move is a question, not this)."""
    probe = make_task(task_id)
    probe.reset(instance)
    for action in probe.observe("solver").legal_actions:
        trial = make_task(task_id)
        trial.reset(instance)
        trial.step(action)
        if trial.termination == "goal_reached":
            return action
    raise AssertionError(f"no single action solves {instance.id}")


def test_comma_solver_and_expert_in_two_browsers(browser, page, server, runs_root):
    """A real COMMA module (comma/wire) played by two people: the solver sees the module image and the
    cut buttons, the expert sees the manual and never the module; the game is recorded and replayable."""
    task = make_task("comma/wire")
    instance = task.instances(3, 0)[2]
    task.reset(instance)
    right_wire = solving_action("comma/wire", instance)  # what the manual says for this module

    open_game(page, server, "comma/wire", instance=instance.id, seat="solver", partner="human")
    assert page.locator(".observation img").count() == 1  # the solver sees the module
    assert page.get_by_test_id("legal-actions").get_by_role("button", name=right_wire).count() == 1
    page.get_by_test_id("action-text").fill("I see the wires and the serial number. Which one do I cut?")
    page.get_by_test_id("action-text").press("Enter")
    page.wait_for_selector('[data-testid="waiting"]')
    expert_url = page.get_by_test_id("other-seat-link").get_attribute("href")

    expert = browser.new_context().new_page()
    expert.goto(server.url + expert_url)
    assert wait_turn_or_end(expert, 0) == "turn"
    expert_view = expert.locator("main").inner_text()
    assert "MANUAL" in expert_view and "Which one do I cut?" in expert_view
    assert expert.locator(".observation img").count() == 0  # the expert never sees the module
    expert.get_by_test_id("action-text").fill(f"Cut that one: {right_wire}")
    expert.get_by_test_id("send").click()

    assert wait_turn_or_end(page, 1) == "turn"  # the solver's page updates by itself
    assert f"Cut that one: {right_wire}" in page.locator("main").inner_text()
    page.get_by_test_id("legal-actions").get_by_role("button", name=right_wire).click()
    assert wait_turn_or_end(page, 2) == "finished"
    assert "Solved" in page.get_by_test_id("finished").inner_text()
    expert.wait_for_selector('[data-testid="finished"]')
    expert.context.close()

    page.get_by_test_id("replay-link").click()
    page.wait_for_selector("html[data-ready]")
    assert "solver: human, expert: human" in page.locator(".record").inner_text()
    page.keyboard.press("ArrowRight")
    assert "expert" in page.locator("article.step:visible h3").inner_text()
    page.keyboard.press("End")
    last = page.locator("article.step:visible")
    assert right_wire in last.inner_text() and "effective" in last.inner_text()
    played = [p for p in (runs_root / "web-play").iterdir() if p.name.startswith("comma__wire")]
    record = load_run(played[0])["records"][0]
    assert record["agent"] == "human" and record["success"] and record["roles"]["expert"] == "human"
    assert not page.problems, page.problems


def test_comma_solver_with_a_model_expert(page, server, runs_root):
    """A person in the solver seat, a model in the expert seat: the model (a local OpenAI-compatible
    server, reached through the real openai SDK) reads the manual and the person's question, answers,
    and the person acts on that answer, all in the browser."""
    task = make_task("comma/wire")
    instance = task.instances(2, 0)[1]
    task.reset(instance)
    right_wire = solving_action("comma/wire", instance)

    def expert(request: dict) -> str:
        return f"According to the manual you should do this: {right_wire}"

    with ScriptedServer(expert) as srv:
        page.goto(f"{server.url}/play")
        page.locator('tr[data-task="comma/wire"]').get_by_role("link", name="Play").click()
        page.get_by_test_id("instance").select_option(instance.id)
        page.get_by_test_id("seat").select_option("solver")
        page.get_by_test_id("partner").select_option("llm")
        page.locator("input[name=partner_model]").fill(f"openai:scripted-expert@{srv.base_url}")
        page.get_by_test_id("start").click()
        page.wait_for_url(re.compile(r"/play/s/"))
        assert wait_turn_or_end(page, 0) == "turn"
        page.get_by_test_id("action-text").fill("Three or more wires here. Which one do I cut?")
        page.get_by_test_id("action-text").press("Enter")
        assert wait_turn_or_end(page, 1) == "turn"  # the model has answered in between
        assert f"you should do this: {right_wire}" in page.locator("main").inner_text()
        page.get_by_test_id("legal-actions").get_by_role("button", name=right_wire).click()
        assert wait_turn_or_end(page, 2) == "finished"
        requests = list(srv.requests)
    assert "Solved" in page.get_by_test_id("finished").inner_text()
    assert len(requests) == 1 and requests[0]["model"] == "scripted-expert"
    system, user = system_text(requests[0]), last_user_text(requests[0])
    assert "MANUAL" in system and "Which one do I cut?" in user
    assert "image_url" not in str(requests[0]["messages"])  # the expert never sees the module
    played = sorted(p for p in (runs_root / "web-play").iterdir() if p.name.startswith("comma__wire"))
    records = [r for p in played for r in load_run(p)["records"]]
    mine = [r for r in records if r["instance_id"] == instance.id and r["roles"]["expert"].startswith("llm")]
    assert mine and mine[0]["success"] and mine[0]["roles"]["solver"] == "human"
    assert mine[0]["usage"]["calls"] == 1
    assert not page.problems, page.problems


def test_long_episode_loads_only_the_shown_images(page, server):
    page.goto(f"{server.url}/")
    page.get_by_role("link", name=re.compile("long$")).click()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url) if "/file/trajectories/" in r.url else None)
    started = time.monotonic()
    page.get_by_role("link", name="long-0").click()
    page.wait_for_selector("html[data-ready]")
    assert time.monotonic() - started < 5
    episode = page.locator("[data-episode]")
    assert page.locator(".tick").count() == BIG_STEPS
    wait_until(page, "document.querySelector('article.step img').complete")
    assert len(requested) <= 2, requested  # the first step's image and the next one's, not 300
    page.keyboard.press("PageDown")
    assert episode.get_attribute("data-current") == "11"
    page.keyboard.press("j")
    assert episode.get_attribute("data-current") == "12"
    page.keyboard.press("End")
    assert episode.get_attribute("data-current") == str(BIG_STEPS)
    shown = page.locator("article.step:visible")
    assert f"observation number {BIG_STEPS}" in shown.inner_text()
    wait_until(page, "document.querySelector('article.step:not([hidden]) img').naturalWidth > 0")
    assert len(requested) <= 6
    page.locator(".tick").nth(41).click()
    assert episode.get_attribute("data-current") == "42"
    assert page.url.endswith("#s=42")


def test_model_output_is_shown_not_run(page, server):
    page.goto(f"{server.url}/")
    page.get_by_role("link", name=re.compile("long$")).click()
    page.get_by_role("link", name="inject-0").click()
    page.wait_for_selector("html[data-ready]")
    assert INJECTION in page.locator("article.step:visible pre.raw").inner_text()
    assert page.evaluate("window.__pwned") is None


def test_compare_two_runs(page, server):
    page.goto(f"{server.url}/")
    for name in ("oracle", "random"):
        page.locator("tr", has=page.get_by_role("link", name=re.compile(f"{name}$"))).locator(
            "input[type=checkbox]"
        ).check()
    page.get_by_test_id("compare").click()
    page.wait_for_url(re.compile(r"/compare\?"))
    headline = page.locator("table.headline").inner_text()
    assert "oracle" in headline and "random" in headline and "%" in headline
    side = page.locator("table.side-by-side").first
    assert side.locator("thead th").count() == 4  # instance, trial, and one column per run
    plots = page.locator("figure.plot img")
    assert plots.count() >= 1
    wait_until(page, "[...document.querySelectorAll('figure.plot img')].every(i => i.naturalWidth > 0)")
    side.get_by_role("link").first.click()
    page.wait_for_selector("[data-episode]")


def test_static_export_works_offline(browser, runs_root, tmp_path):
    runs = [load_run(runs_root / "oracle"), load_run(runs_root / "long")]
    out = tmp_path / "report.html"
    write_html(runs, str(out))
    context = browser.new_context(offline=True)
    page = context.new_page()
    problems = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.goto(out.as_uri())
    page.wait_for_selector("html[data-ready]")  # the script ran under the file's own CSP
    assert page.locator("#results").is_visible()
    page.locator("#run-r0 [data-filter=task]").select_option("toy/walk")
    assert page.locator("#run-r0 tbody tr:visible").count() == 2
    page.locator("#run-r1").get_by_role("link", name="long-0").click()
    view = page.locator("section.episode-page:visible [data-episode]")
    view.wait_for()  # the hash change shows the episode page and hides the results (a loaded machine is slow)
    wait_until(page, "document.querySelector('#results').offsetParent === null")
    assert not page.locator("#results").is_visible()
    page.keyboard.press("ArrowRight")
    assert view.get_attribute("data-current") == "2"
    wait_until(
        page,
        "document.querySelector('section.episode-page:not([hidden]) article.step:not([hidden]) img').naturalWidth > 0",
    )
    assert page.evaluate("window.__pwned") is None
    assert not problems, problems
    context.close()


def test_a_game_survives_a_server_restart(browser, tmp_path):
    """Reload the server mid-game: the new server offers the game, replays its moves and the person
    finishes it; the run directory holds the game once (issue 20)."""
    root = tmp_path / "runs"
    root.mkdir()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)

    def observed() -> tuple[int, int]:
        text = page.get_by_test_id("observation").inner_text()
        return tuple(map(int, re.search(r"position (\d+), target (\d+)", text).groups()))

    def move(text: str) -> None:
        page.get_by_test_id("action-text").fill(text)
        page.get_by_test_id("action-text").press("Enter")

    with LiveServer(create_app([str(root)], allowed_hosts={"127.0.0.1", "localhost"})) as first:
        open_game(page, first, "toy/walk", instance="walk-0-1")
        assert wait_turn_or_end(page, 0) == "turn"
        position, target = observed()
        move("left" if target > position else "right")  # away from the goal: the game goes on
        assert wait_turn_or_end(page, 1) == "turn"
        before = observed()
        game = re.search(r"/play/s/([^?]+)", page.url).group(1)
    with LiveServer(create_app([str(root)], allowed_hosts={"127.0.0.1", "localhost"})) as second:
        page.goto(f"{second.url}/play")
        page.locator(f'a[href*="/play/s/{game}"]').first.click()
        moves = 1
        assert wait_turn_or_end(page, moves) == "turn"
        assert observed() == before  # where it stopped
        while wait_turn_or_end(page, moves) == "turn":
            position, target = observed()
            move("right" if target > position else "left")
            moves += 1
            assert moves < 20, "the episode should have ended"
        assert "Solved" in page.get_by_test_id("finished").inner_text()
    context.close()
    (run,) = [p.parent for p in root.rglob("episodes.jsonl")]
    records = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 1 and records[0]["steps"] == moves

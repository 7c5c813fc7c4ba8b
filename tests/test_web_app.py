"""The web app over HTTP (no browser): runs, replays, comparisons, live play, the static export and
the two CLI hooks (`playbench serve`, `playbench report --html`)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
from fastapi.testclient import TestClient  # noqa: E402

from playbench.agents import AgentSpec  # noqa: E402
from playbench.cli import main  # noqa: E402
from playbench.report.tables import load_run  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.web import render  # noqa: E402
from playbench.web.export import build_html, write_html  # noqa: E402
from playbench.web.server import create_app  # noqa: E402


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("web-app") / "runs"
    for agent in ("oracle", "random"):
        config = RunConfig(
            tasks=["toy/walk", "ivispar/sgp-2d"],
            agents={"*": AgentSpec(agent)},
            out=str(base / agent),
            episodes=2,
        )
        asyncio.run(execute(config))
    return base


@pytest.fixture(scope="module")
def client(root):
    with TestClient(create_app([str(root)])) as c:
        yield c


def run_ids(client) -> dict[str, str]:
    page = client.get("/").text
    return {
        label.rsplit("/", 1)[-1]: rid for rid, label in re.findall(r'/run/([0-9a-f]{12})">([^<]+)<', page)
    }


# ------------------------------------------------------------------------------ runs and replays
def test_home_lists_every_run_with_compare_boxes(client):
    page = client.get("/")
    assert page.status_code == 200
    ids = run_ids(client)
    assert {"oracle", "random"} <= set(ids)
    assert page.text.count('type=checkbox name=run value="') >= 2


def test_run_page_has_tables_with_intervals_plots_and_episode_filters(client):
    page = client.get(f"/run/{run_ids(client)['oracle']}").text
    assert "100.0% [" in page  # success with its Wilson interval
    assert "final_distance" in page and "mean_regret" in page  # every metric, per task
    plots = re.findall(r'src="(/plot/[0-9a-f]+/\d+)"', page)
    assert plots, "the suites' plots are shown"
    figure = client.get(plots[0])
    assert figure.status_code == 200 and figure.content.startswith(b"\x89PNG")
    for name in ("task", "success", "agent", "model", "q"):
        assert f'data-filter="{name}"' in page
    assert page.count("<tr data-task=") == 4
    assert 'data-sort="6"' in page  # columns sort (steps)


def test_episode_page_shows_every_step_field(client, root):
    rid = run_ids(client)["random"]
    page = client.get(f"/run/{rid}").text
    link = re.search(r'href="(/run/[0-9a-f]+/episode/ivispar__sgp-2d[^"]+)"', page).group(1)
    episode = client.get(link).text
    steps = [
        json.loads(line)
        for line in (root / "random" / "trajectories" / f"{link.rsplit('/', 1)[1]}.jsonl").open()
    ]
    assert episode.count('<article class="step"') == len(steps)
    assert episode.count('class="tick v-') == len(steps)
    for label in ("observation", "parsed action", "validity", "feedback"):
        assert f'<div class="label">{label}</div>' in episode
    assert render.esc(steps[0]["feedback"]) in episode
    images = re.findall(r'data-src="([^"]+)"', episode)
    # each step's images and those of the messages sent before it (iVISPAR's chat: `turns_before`)
    assert len(images) == sum(
        len(s["images"]) + sum(len(t["images"]) for t in s.get("turns_before") or []) for s in steps
    )
    assert client.get(images[0]).content.startswith(b"\x89PNG")
    assert not re.search(r"\ssrc=", episode.split('<div class="steps">')[1])  # images load only when shown
    assert "next episode" in episode or "previous episode" in episode


def test_unknown_episode_is_a_404_page(client):
    rid = run_ids(client)["oracle"]
    response = client.get(f"/run/{rid}/episode/nothing__here__t0")
    assert response.status_code == 404 and "has no episode" in response.text


def test_compare_puts_runs_side_by_side(client):
    ids = run_ids(client)
    page = client.get("/compare", params=[("run", ids["oracle"]), ("run", ids["random"])]).text
    assert "Compare 2 runs" in page
    headline = page.split('<table class="headline">')[1].split("</table>")[0]
    assert "oracle" in headline and "random" in headline
    assert page.count('<table class="side-by-side">') == 2  # one per shared task
    assert re.search(r"<th[^>]*>[^<]*oracle · oracle</th><th[^>]*>[^<]*random · random</th>", page)
    assert "<h2>Tasks × models</h2>" in page and "Paired over shared scored instances" in page
    only_one = client.get("/compare", params={"run": ids["oracle"]}).text
    assert "Select two or more runs" in only_one


def test_fmt_stat_shows_intervals():
    assert (
        render.fmt_stat({"kind": "proportion", "n": 4, "value": 0.5, "ci95": [0.15, 0.85]})
        == "50.0% [15.0, 85.0]"
    )
    assert render.fmt_stat({"kind": "mean", "n": 3, "value": 2.0, "ci95": [1.0, 3.0]}) == "2 [1, 3]"
    assert render.fmt_stat({"kind": "mean", "n": 0, "value": float("nan"), "ci95": [0, 0]}) == "–"


def test_long_metric_lists_fold_and_plots_come_before_metrics(client):
    record = {"task": "toy/walk", "instance_id": "w", "metrics": {"curve": [0.0] * 300, "pair": [1, 2]}}
    block = render.record_block(record)
    assert "<summary>300 values</summary>" in block and "<td>[1, 2]</td>" in block
    home = client.get("/").text
    page = client.get("/run/" + re.search(r'href="/run/([0-9a-f]+)"', home).group(1)).text
    # a suite's fifty-row metrics tables must not push its plots out of sight
    assert page.index("<h2>Plots</h2>") < page.index("<h2>All metrics</h2>")


# ------------------------------------------------------------------------------ live play over HTTP
def panel(client, sid: str, seat: str, until, tries: int = 60) -> str:
    """The seat's panel once `until(panel)` holds, long-polling for changes in between."""
    for _ in range(tries):
        text = client.get(f"/play/s/{sid}/panel", params={"seat": seat}).text
        if until(text):
            return text
        version = int(re.search(r'data-version="(\d+)"', text).group(1))
        client.get(f"/play/s/{sid}/wait", params={"since": version, "seat": seat})
    raise AssertionError(f"the panel never reached the expected state:\n{text}")


def your_turn(text: str) -> bool:
    return "name=move value=" in text or 'data-testid="finished"' in text


def start(client, **form) -> tuple[str, str]:
    response = client.post("/play/start", data={"seed": "0", "options": "", **form}, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    sid, seat = re.match(r"/play/s/([^?]+)\?seat=(\w+)", location).groups()
    return sid, seat


def act(client, sid: str, seat: str, text: str, **extra):
    move = re.search(r"name=move value=\"(\d+)\"", panel(client, sid, seat, your_turn)).group(1)
    return client.post(
        f"/play/s/{sid}/act",
        data={"seat": seat, "move": move, "action": text, **extra},
        headers={"Accept": "application/json"},
    )


def test_play_solo_records_a_human_run_and_new_trials(client, root):
    for trial in (0, 1):
        sid, seat = start(client, task="toy/walk", instance="walk-0-0")
        assert seat == "player"
        while True:
            text = panel(client, sid, seat, your_turn)
            if 'data-testid="finished"' in text:
                break
            position, target = map(int, re.search(r"position (\d+), target (\d+)", text).groups())
            assert act(client, sid, seat, "right" if target > position else "left").json() == {
                "ok": True,
                "error": None,
            }
        assert "Solved in" in text
        replay = re.search(r'href="(/run/[0-9a-f]+/episode/([^"]+))"', text)
        assert replay.group(2) == f"toy__walk__walk-0-0__t{trial}"
        assert client.get(replay.group(1)).status_code == 200
    played = [p for p in (root / "web-play").iterdir() if p.name.startswith("toy__walk-human")]
    assert len(played) == 1
    run = load_run(played[0])
    assert [(r["agent"], r["trial"], r["success"]) for r in run["records"]] == [
        ("human", 0, True),
        ("human", 1, True),
    ]
    config = json.loads((played[0] / "config.json").read_text())
    assert config["run"]["agents"] == {"player": {"name": "human", "model": None, "options": {}}}
    assert json.loads((played[0] / "summary.json").read_text())["episodes"] == 2


def test_play_rejects_stale_and_out_of_turn_moves(client):
    sid, seat = start(client, task="toy/walk", instance="walk-0-2")
    panel(client, sid, seat, your_turn)
    stale = client.post(
        f"/play/s/{sid}/act",
        data={"seat": seat, "move": "5", "action": "left"},
        headers={"Accept": "application/json"},
    )
    assert stale.status_code == 409 and "earlier position" in stale.json()["error"]
    no_js = client.post(f"/play/s/{sid}/act", data={"seat": seat, "move": "5", "action": "left"})
    assert no_js.status_code == 409 and "earlier position" in no_js.text and "<!doctype html>" in no_js.text
    bad_seat = client.post(f"/play/s/{sid}/act", data={"seat": "judge", "move": "0", "action": "x"})
    assert bad_seat.status_code == 404
    # a typed reply the task cannot parse is recorded as such, not refused
    assert act(client, sid, seat, "", action_text="fly away").json()["ok"]
    text = panel(client, sid, seat, lambda t: "not left or right" in t)
    # the feedback reaches a person where it reaches the model, in the observation, and nowhere else
    assert 'data-testid="feedback"' not in text and text.count("not left or right") == 1
    quit_response = client.post(
        f"/play/s/{sid}/act", data={"seat": seat, "quit": "1"}, headers={"Accept": "application/json"}
    )
    assert quit_response.json()["ok"]
    final = panel(client, sid, seat, lambda t: 'data-testid="finished"' in t)
    assert "Not solved" in final and "ended the episode" in final


def test_play_either_seat_with_an_agent_in_the_other(client, root):
    # the listener seat: the oracle speaks first
    sid, seat = start(client, task="toy/relay", instance="relay-0-0", seat="listener", partner="oracle")
    assert seat == "listener"
    text = panel(client, sid, seat, your_turn)
    digit = re.search(r"The speaker said: &#x27;it is (\d)&#x27;", text).group(1)
    assert "secret digit" not in text
    act(client, sid, seat, digit)
    assert "Solved" in panel(client, sid, seat, lambda t: 'data-testid="finished"' in t)
    # the speaker seat, with a random listener
    sid, seat = start(client, task="toy/relay", instance="relay-0-1", seat="speaker", partner="random")
    assert "secret digit is" in panel(client, sid, seat, your_turn)
    act(client, sid, seat, "", action_text="it is 3")
    panel(client, sid, seat, lambda t: 'data-testid="finished"' in t)
    runs = sorted(p.name for p in (root / "web-play").iterdir() if p.name.startswith("toy__relay"))
    assert len(runs) == 2 and "listener=human" in runs[0] + runs[1] and "speaker=oracle" in runs[0] + runs[1]
    record = load_run(root / "web-play" / next(r for r in runs if "speaker=human" in r))["records"][0]
    assert record["roles"] == {"speaker": "human", "listener": "random"}


def test_the_expert_seat_of_comma_is_a_real_turn_with_the_oracle_solver(client, root):
    """The oracle solver has no manual: it describes the module and asks, so the person in the expert
    seat answers on every puzzle (here the wire), sees the solver's words only, and is obeyed."""
    from playbench.core.registry import make_task

    task = make_task("comma/wire")
    instance = task.instances(1, 0)[0]
    sid, seat = start(client, task="comma/wire", instance=instance.id, seat="expert", partner="oracle")
    assert seat == "expert"
    text = panel(client, sid, seat, your_turn)
    assert "wires, from top to bottom" in text and "SOLVER:" in text and "WIRE PUZZLE" in text
    task.reset(instance)
    act(client, sid, seat, f"cut wire {task.module.answer}")
    final = panel(client, sid, seat, lambda t: 'data-testid="finished"' in t)
    assert "Solved" in final
    runs = [p for p in (root / "web-play").iterdir() if p.name.startswith("comma__wire")]
    record = load_run(runs[0])["records"][0]
    assert record["roles"] == {"solver": "oracle", "expert": "human"} and record["success"]
    assert record["metrics"]["expert_messages"] == 1 and record["steps"] == 2


def test_a_model_can_take_the_other_seat(client, root, monkeypatch):
    """A person as the listener and a model (behind a scripted OpenAI-compatible server) as the speaker."""
    from playbench.testing.scripted_server import ScriptedServer

    with ScriptedServer("I will tell you: the digit is 4") as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        sid, seat = start(
            client,
            task="toy/relay",
            instance="relay-0-2",
            seat="listener",
            partner="llm",
            partner_model="openai:m1",
        )
        text = panel(client, sid, seat, your_turn)
        assert "the digit is 4" in text
        act(client, sid, seat, "4")
        panel(client, sid, seat, lambda t: 'data-testid="finished"' in t)
        assert srv.requests and srv.requests[0]["model"] == "m1"
    played = next(p for p in (root / "web-play").iterdir() if "llm" in p.name)
    record = load_run(played)["records"][0]
    assert record["roles"] == {"speaker": "llm(openai:m1)", "listener": "human"}
    assert record["model"] == "openai:m1" and record["usage"]["calls"] == 1
    calls = [json.loads(x) for x in (played / record["calls"]).read_text().splitlines()]
    assert [c["role"] for c in calls] == ["speaker"]  # the partner model's call is on record


def test_two_human_seats_share_one_game(client):
    sid, seat = start(client, task="toy/consult", instance="consult-0", seat="expert", partner="human")
    text = panel(client, sid, seat, your_turn)
    secret = re.search(r"secret digit is (\d)", text).group(1)
    act(client, sid, seat, "", action_text=f"answer {secret}")
    waiting = panel(client, sid, seat, lambda t: "Nobody has taken that seat" in t)
    other = re.search(r'href="(/play/s/[^"]+seat=solver)"', waiting.replace("&amp;", "&")).group(1)
    assert client.get(other).status_code == 200
    act(client, sid, "solver", secret)
    assert "Solved" in panel(client, sid, "expert", lambda t: 'data-testid="finished"' in t)
    listing = client.get("/play").text
    assert sid not in listing  # a finished game leaves the list of games in progress


def test_play_setup_reports_bad_choices_on_the_form(client):
    page = client.get("/play/new", params={"task": "toy/walk", "options": "length=4\nmax_steps=3"}).text
    assert "walk-0-0" in page and "length=4" in page
    bad_option = client.get("/play/new", params={"task": "toy/walk", "options": "colour=red"}).text
    assert "unknown option &#x27;colour&#x27;" in bad_option
    response = client.post(
        "/play/start", data={"task": "toy/walk", "seed": "0", "options": "", "instance": "nope"}
    )
    assert response.status_code == 400 and "not in toy/walk" in response.text
    response = client.post(
        "/play/start", data={"task": "toy/relay", "seed": "0", "options": "", "seat": "judge"}
    )
    assert response.status_code == 400 and "roles speaker, listener" in response.text
    response = client.post(
        "/play/start",
        data={"task": "toy/relay", "seed": "0", "options": "", "seat": "speaker", "partner": "llm"},
    )
    assert response.status_code == 400 and "needs --model" in response.text
    tasks = client.get("/play").text
    assert 'data-task="toy/relay"' in tasks and 'data-task="ivispar/sgp"' in tasks


def test_a_suites_own_agents_are_offered_only_for_its_tasks(client):
    from playbench.agents import registered_agents

    foreign = [n for n, e in registered_agents().items() if ".comma." not in e.entry_point]
    if not foreign:
        pytest.skip("no suite other than COMMA registers its own agent")
    setup = client.get("/play/new", params={"task": "comma/wire"}).text
    assert 'value="oracle"' in setup and not any(f'value="{name}"' in setup for name in foreign)
    response = client.post(
        "/play/start",
        data={"task": "comma/wire", "seed": "0", "options": "", "seat": "solver", "partner": foreign[0]},
    )
    assert response.status_code == 400 and "is not offered here" in response.text


# ------------------------------------------------------------------------------ export and CLI
def test_export_is_one_self_contained_file(root, tmp_path):
    runs = [load_run(root / "oracle"), load_run(root / "random")]
    out = tmp_path / "sub" / "report.html"
    write_html(runs, str(out))
    html = out.read_text()
    assert not re.search(r'(src|href)="(https?:|//|/)', html), "nothing is loaded from elsewhere"
    assert "<link" not in html
    assert html.count('class="episode-page"') == 8
    images = json.loads(re.search(r'id="pb-images">(.*?)</script>', html).group(1))
    assert images and all(re.fullmatch(r"[A-Za-z0-9+/=]+", v) for v in images.values())
    assert html.count("data:image/png;base64,") >= 1  # the plots
    assert "Metrics side by side" in html and "Episodes side by side" in html


def test_export_keeps_replays_within_its_budget(root):
    html = build_html([load_run(root / "random")], budget=2_000)
    assert 'class="episode-page"' in html  # the small toy episodes fit
    assert "listed without their replay" in html
    assert html.count('class="episode-page"') < 4


def test_cli_report_html_and_serve(root, tmp_path, monkeypatch):
    out = tmp_path / "r.html"
    assert main(["report", str(root / "oracle"), "--out", str(tmp_path / "rep"), "--html", str(out)]) == 0
    assert out.read_text().startswith("<!doctype html>")

    import uvicorn

    seen = {}

    def fake_run(self, sockets=None):
        seen["host"], seen["port"] = self.config.host, self.config.port
        seen["app"] = self.config.app

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    assert main(["serve", "--runs", str(root), "--port", "8765"]) == 0
    assert seen["host"] == "127.0.0.1" and seen["port"] == 8765
    assert seen["app"].state.library.roots == [root.resolve()]
    assert seen["app"].state.allowed_hosts == {"127.0.0.1", "localhost", "::1"}
    assert main(["serve", "--runs", str(root), "--host", "0.0.0.0"]) == 0
    assert seen["app"].state.allowed_hosts is None


# ------------------------------------------------------------------------------ human parity
def test_a_person_gets_buttons_only_for_actions_the_prompt_lists():
    from playbench.core.types import Observation, TextPart
    from playbench.web.play_pages import listed_actions

    obs = Observation(
        "player",
        [TextPart("Actions you can take now:\ncut_wire_1\ncut_wire_2")],
        instructions="Reply with action names.",
        legal_actions=["cut_wire_1", "cut_wire_2", "cut_wire_3", "action: move red cube up"],
    )
    assert listed_actions(obs) == ["cut_wire_1", "cut_wire_2"]
    assert listed_actions(Observation("p", [TextPart("cut_wire_10")], legal_actions=["cut_wire_1"])) == []


def test_ivispar_and_mmescape_play_pages_show_only_the_prompt(client):
    from playbench.core.registry import make_task

    sid, seat = start(client, task="ivispar/sgp")
    text = panel(client, sid, seat, your_turn)
    assert 'class="legal"' not in text  # the unblocked moves are the task's knowledge, not the prompt's
    assert "Your move (step" not in text and "figcaption" not in text
    task = make_task("ivispar/sgp")
    task.reset(task.instances(1, 0)[0])
    obs = task.observe("player")
    assert render.esc(obs.text) in text

    sid, seat = start(client, task="mmescape/level-1")
    text = panel(client, sid, seat, your_turn)
    assert 'class="legal"' not in text  # no random-agent samples as buttons
    for field in ("rotate_right", "rotate_down", "move_forward", "jump", "grab", "use_item_id", "read"):
        assert f'name="{field}"' in text or f"name={field} " in text, field
    assert "data-look-target" in text
    move = re.search(r'name=move value="(\d+)"', text).group(1)
    form = {
        "seat": seat,
        "move": move,
        "controls": "json",
        "rotate_right": "30",
        "look_x": "0.25",
        "look_y": "0.5",
    }
    response = client.post(
        f"/play/s/{sid}/act", data={**form, "grab": "1"}, headers={"Accept": "application/json"}
    )
    assert response.json()["ok"]
    bad = client.post(
        f"/play/s/{sid}/act",
        data={"seat": seat, "move": str(int(move) + 1), "controls": "json", "rotate_right": "left"},
        headers={"Accept": "application/json"},
    )
    assert not bad.json()["ok"] and "rotate_right must be a number" in bad.json()["error"]
    client.post(
        f"/play/s/{sid}/act", data={"seat": seat, "quit": "1"}, headers={"Accept": "application/json"}
    )


def test_json_action_is_what_a_model_would_send():
    from playbench.core.errors import ConfigError
    from playbench.web.routes_play import json_action

    form = {"rotate_right": "30", "move_forward": "1.5", "rotate_down": "", "look_x": "0.25", "look_y": "0.5"}
    assert json.loads(json_action({**form, "grab": "1", "use_item_id": "key_1"})) == {
        "rotate_right": 30,
        "move_forward": 1.5,
        "look_at": [0.25, 0.5],
        "grab": True,
        "interactions": {"use_item_id": "key_1"},
    }
    assert json.loads(json_action({"read": "note_1", "use_item_id": "x"})) == {"read": "note_1"}  # no grab
    with pytest.raises(ConfigError, match="set a control"):
        json_action({"rotate_right": "0"})


def test_the_terminal_shows_a_person_only_the_prompt(tmp_path):
    import io

    from rich.console import Console

    from playbench.agents.human import HumanAgent
    from playbench.core.registry import make_task
    from playbench.core.task import EpisodeContext

    task = make_task("ivispar/sgp-2d")
    task.reset(task.instances(1, 0)[0])
    obs = task.observe("player")
    buffer = io.StringIO()
    agent = HumanAgent(
        input_fn=lambda _: "quit", console=Console(file=buffer, width=200), image_dir=str(tmp_path)
    )
    ctx = EpisodeContext("ivispar/sgp-2d", "x", "player", 0, 0, lambda: None)
    asyncio.run(agent.reset(ctx))
    with pytest.raises(Exception, match="quit"):
        asyncio.run(agent.act(obs))
    shown = buffer.getvalue()
    assert obs.instructions.splitlines()[0] in shown
    assert not any(a in shown for a in obs.legal_actions)  # the unblocked moves are not listed
    assert not any(f"({img.label})" in shown for img in obs.all_images if img.label)
    assert len(list(tmp_path.glob("*.png"))) == len(obs.all_images) > 0


def test_play_shows_a_tasks_own_earlier_turns_and_their_images(client):
    sid, seat = start(client, task="toy/turns", instance="walk-0-1")  # starts at 1, target 4
    text = panel(client, sid, seat, your_turn)
    assert 'data-testid="earlier-turn"' not in text
    assert act(client, sid, seat, "left").json()["ok"]
    text = panel(client, sid, seat, your_turn)
    earlier = text.split('data-testid="earlier-turn"')
    assert len(earlier) == 3  # the earlier position (with its picture), then the move
    assert "you were at 1" in earlier[1] and "your reply" in earlier[2] and ">left<" in earlier[2]
    src = re.search(r'<img src="([^"]+)"', earlier[1]).group(1)
    assert client.get(src).status_code == 200
    assert text.index("you were at 1") < text.index("position 0, target 4")


def test_the_run_page_shows_each_tasks_fidelity_stamp(client):
    page = client.get(f"/run/{run_ids(client)['random']}").text
    assert "fidelity: ivispar/sgp-2d" in page
    assert "texts ours · data original@725ee6c, converted · model side no model" in page

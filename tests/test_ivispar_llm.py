"""iVISPAR through the llm agent, the real openai SDK and a local scripted server."""

import base64
import json
import re

from playbench.cli import main
from playbench.tasks.ivispar.board import DIRECTIONS, get_board
from playbench.tasks.ivispar.solver import Solver
from playbench.testing.scripted_server import ScriptedServer, last_user_text


def listing(text: str, label: str) -> dict[str, str]:
    """The `<COORD> <color> <shape>` lines after "The <label> state is the ... list of coordinates:"."""
    block = re.search(
        rf"^The {label} state is the \w+ list of coordinates:\n((?:[A-Z]\d+ \w+ \w+\n)+)", text, re.M
    )
    return {
        f"{c} {s}": coord.lower() for coord, c, s in re.findall(r"([A-Z]\d+) (\w+) (\w+)", block.group(1))
    }


def optimal_reply(request: dict) -> str:
    """A 'model' that reads only the text observation and answers with an optimal move."""
    text = last_user_text(request)
    goal, cur = listing(text, "goal"), listing(text, "active")
    names = sorted(cur)
    board = get_board(4, 4)
    solver = Solver(board, tuple(board.parse_coord(goal[n]) for n in names))
    geom, direction = solver.next_move(tuple(board.parse_coord(cur[n]) for n in names))
    return f"The {names[geom]} should move.\naction: move {names[geom]} {DIRECTIONS[direction]}"


def blocks(body, kind: str) -> list[dict]:
    """The content blocks of type `kind` in every message of a request, in order."""
    return [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == kind
    ]


def shape(body) -> list[str]:
    """A request as its roles, each user message tagged by what it holds (image or text)."""
    out = []
    for m in body["messages"]:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text"}]
        kinds = {"image_url": "image", "image": "image", "text": "text"}
        out.append(m["role"] + ":" + "+".join(kinds[b["type"]] for b in content))
    return out


def records(out):
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def test_text_modality_llm_run_solves_with_usage(tmp_path):
    out = tmp_path / "text"
    with ScriptedServer(optimal_reply) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "12",
                "--concurrency",
                "4",
                "--out",
                str(out),
            ]
        )
        n_requests = len(srv.requests)
        system = srv.requests[0]["messages"][0]["content"]
    assert code == 0
    recs = records(out)
    assert len(recs) == 12
    for r in recs:
        assert r["success"] and r["steps"] == r["optimal_steps"], r["instance_id"]
        assert r["usage"]["calls"] == r["steps"] and r["usage"]["input_tokens"] > 100
        assert r["metrics"]["actions_effective"] == r["steps"] and r["metrics"]["final_distance"] == 0
    assert n_requests == sum(r["steps"] for r in recs)
    assert "move <object color> <object shape> <direction>" in system


def test_2d_modality_sends_png_data_uris_with_past_window(tmp_path):
    out = tmp_path / "2d"
    with ScriptedServer(["Hmm.\naction: move green cube up"], cycle=True) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp-2d",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--set",
                "max_steps=4",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    image_counts = []
    for body in bodies:
        urls = [p["image_url"]["url"] for p in blocks(body, "image_url")]
        for url in urls:
            assert url.startswith("data:image/png;base64,")
            assert base64.b64decode(url.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
        image_counts.append(len(urls))
    # goal + current, then up to past_window=2 past images before them
    assert image_counts == [2, 3, 4, 4]
    # the original's chat: each past image a user turn and the action taken an assistant turn, then
    # the goal and the active image as two user turns and the step text as the last user message
    step = ["user:image", "user:image", "user:text"]
    past = ["user:image", "assistant:text"]
    assert [shape(b) for b in bodies] == [
        ["system:text", *step],
        ["system:text", *past, *step],
        ["system:text", *past, *past, *step],
        ["system:text", *past, *past, *step],
    ]
    (rec,) = records(out)
    assert rec["steps"] == 4 and rec["usage"]["calls"] == 4
    traj = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert all((out / "trajectories" / img["file"]).exists() for step in traj for img in step["images"])


def test_3d_modality_llm_run(tmp_path):
    out = tmp_path / "3d"
    with ScriptedServer(["Looking.\naction: move red cube up"], cycle=True) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp-3d",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "2",
                "--set",
                "max_steps=2",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0 and len(bodies) == 4
    for body in bodies:
        urls = [p["image_url"]["url"] for p in blocks(body, "image_url")]
        assert urls and all(u.startswith("data:image/png;base64,") for u in urls)
    assert all(r["error"] is None and r["usage"]["calls"] == 2 for r in records(out))


def test_board_inference_llm_run_is_scored(tmp_path):
    out = tmp_path / "inf"
    with ScriptedServer(["I see it.\nSolution: a1 red cube, b2 blue sphere"], cycle=True) as srv:
        code = main(
            [
                "run",
                "ivispar/board-inference",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "3",
                "--out",
                str(out),
            ]
        )
    assert code == 0
    for r in records(out):
        m = r["metrics"]
        assert r["steps"] == 1 and r["error"] is None and m["predicted"] == 2 and m["format_errors"] == 0
        assert m["correct"] + m["missed"] + m["mismatched"] == m["num_geoms"]


def test_anthropic_receives_base64_image_blocks(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    out = tmp_path / "claude2d"
    with ScriptedServer(["action: move red cube up"], cycle=True) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp-2d",
                "--agent",
                "llm",
                "--model",
                "anthropic:scripted",
                "--base-url",
                srv.anthropic_base_url,
                "--episodes",
                "1",
                "--set",
                "max_steps=2",
                "--out",
                str(out),
            ]
        )
        body = srv.requests[0]
    assert code == 0
    images = blocks(body, "image")
    assert len(images) == 2  # the goal and the active image, each in a user message
    assert all(b["source"]["media_type"] == "image/png" for b in images)
    assert base64.b64decode(images[0]["source"]["data"])[:4] == b"\x89PNG"


def test_stp_llm_run_in_each_modality(tmp_path):
    for modality in ("text", "2d", "3d"):
        out = tmp_path / f"stp-{modality}"
        with ScriptedServer(["Slide it.\naction: move 15 left"], cycle=True) as srv:
            code = main(
                [
                    "run",
                    "ivispar/stp",
                    "--agent",
                    "llm",
                    "--model",
                    "openai:scripted",
                    "--base-url",
                    srv.base_url,
                    "--episodes",
                    "1",
                    "--set",
                    f"modality={modality}",
                    "--set",
                    "max_steps=2",
                    "--out",
                    str(out),
                ]
            )
            body = srv.requests[-1]
        assert code == 0
        (rec,) = records(out)
        assert rec["error"] is None and rec["steps"] == 2 and rec["usage"]["calls"] == 2
        assert bool(blocks(body, "image_url")) == (modality != "text")
        # the geom puzzle's chat shape: one past state (user) and the action taken (assistant) first
        assert [m["role"] for m in body["messages"][:3]] == ["system", "user", "assistant"]

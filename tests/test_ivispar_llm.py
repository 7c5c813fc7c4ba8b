"""iVISPAR through the llm agent, the real openai SDK and a local scripted server."""

import base64
import json
import re

from playbench.cli import main
from playbench.tasks.ivispar.board import DIRECTIONS, get_board
from playbench.tasks.ivispar.solver import Solver
from playbench.testing.scripted_server import ScriptedServer, last_user_text


def listing(text: str, label: str) -> dict[str, str]:
    line = re.search(rf"^{label} state: (.*)$", text, re.M).group(1)
    return {f"{c} {s}": coord for coord, c, s in re.findall(r"([a-z]\d+) (\w+) (\w+)", line)}


def optimal_reply(request: dict) -> str:
    """A 'model' that reads only the text observation and answers with an optimal move."""
    text = last_user_text(request)
    goal, cur = listing(text, "Goal"), listing(text, "Current")
    names = sorted(cur)
    board = get_board(4, 4)
    solver = Solver(board, tuple(board.parse_coord(goal[n]) for n in names))
    geom, direction = solver.next_move(tuple(board.parse_coord(cur[n]) for n in names))
    return f"The {names[geom]} should move.\naction: move {names[geom]} {DIRECTIONS[direction]}"


def records(out):
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def test_text_modality_llm_run_solves_with_usage(tmp_path):
    out = tmp_path / "text"
    with ScriptedServer(optimal_reply) as srv:
        code = main(["run", "ivispar/sgp", "--agent", "llm", "--model", "openai:scripted", "--base-url", srv.base_url,
                     "--episodes", "12", "--concurrency", "4", "--out", str(out)])
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
    assert "move <color> <shape> <direction>" in system


def test_2d_modality_sends_png_data_uris_with_past_window(tmp_path):
    out = tmp_path / "2d"
    with ScriptedServer(["Hmm.\naction: move green cube up"], cycle=True) as srv:
        code = main(["run", "ivispar/sgp-2d", "--agent", "llm", "--model", "openai:scripted", "--base-url",
                     srv.base_url, "--episodes", "1", "--set", "max_steps=4", "--out", str(out)])
        bodies = list(srv.requests)
    assert code == 0
    image_counts = []
    for body in bodies:
        parts = body["messages"][-1]["content"]
        urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
        for url in urls:
            assert url.startswith("data:image/png;base64,")
            assert base64.b64decode(url.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
        image_counts.append(len(urls))
    # goal + current, then up to past_window=2 past images in between
    assert image_counts == [2, 3, 4, 4]
    (rec,) = records(out)
    assert rec["steps"] == 4 and rec["usage"]["calls"] == 4
    traj = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert all((out / "trajectories" / img["file"]).exists() for step in traj for img in step["images"])

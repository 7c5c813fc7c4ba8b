"""Theory of Space through the llm agent, the real openai SDK and a local scripted server."""

import json
import re

from playbench.cli import main
from playbench.tasks.tos.feedback import OURS
from playbench.testing.scripted_server import ScriptedServer, last_user_text


def records(out):
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def explorer(request: dict) -> str:
    """A 'model' that observes twice, then ends the exploration and answers any question."""
    text = last_user_text(request)
    if "have been changed" in text:
        return 'Something moved.\nActions: [Term(changes="lamp: position, sofa: orientation")]'
    if "Question:" in text:
        return "Thinking about the layout.\nAnswer: north, near"
    if "cognitive map" in text:
        return 'My map: {"agent": {"position": [0, 0], "facing": "north"}}'
    if "Unexplored regions" in text:  # the uncertainty probe
        return 'FINAL ANSWER: {"unexplored": ["A"]}'
    step = int(re.search(r"Step (\d+) of", text).group(1))
    if step == 1:
        return "Let me turn.\nActions: [Rotate(90), Observe()]"
    if step == 2:
        return "Actions: [Rotate(90), Term()]"  # invalid: nothing happens, the rule is named
    return "Done.\nActions: [Term()]"


def test_text_question_and_cogmap_runs(tmp_path):
    out = tmp_path / "text"
    with ScriptedServer(explorer) as srv:
        code = main(
            [
                "run",
                "tos/pairwise-direction",
                "tos/cogmap",
                "--set",
                "probe=false",  # the final map only: four replies per episode
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "2",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    recs = records(out)
    assert len(recs) == 4
    for r in recs:
        assert r["error"] is None and r["steps"] == 4 and r["usage"]["calls"] == 4
        m = r["metrics"]
        assert m["cost"] == 1.0 and m["invalid_actions"] == 1 and m["invalid_penalty"] == 0.5
        assert m["answer_parsed"] is True
    system = bodies[0]["messages"][0]["content"]
    assert "Actions: [ <M>* <F> ]" in system and "front-slight-left" in system
    # the exploration is a real chat (theirs): each earlier exchange kept, the raw replies as they came
    msgs = bodies[2]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert msgs[2]["content"] == "Let me turn.\nActions: [Rotate(90), Observe()]"
    assert OURS.observe_text("")[:-1] in msgs[3]["content"] and "Step 2 of 20." in msgs[3]["content"]
    third = last_user_text(bodies[2])
    assert "Invalid action sequence: Term() must be alone" in third and "Step 3 of 20." in third


def test_vision_run_sends_legend_and_views(tmp_path):
    out = tmp_path / "vision"
    with ScriptedServer(explorer) as srv:
        code = main(
            [
                "run",
                "tos/view2location",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--set",
                "modality=vision",
                "--set",
                "image_size=128",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    (rec,) = records(out)
    assert rec["error"] is None and rec["steps"] == 4
    counts = []
    for body in bodies:
        parts = [p for m in body["messages"] if isinstance(m["content"], list) for p in m["content"]]
        urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
        assert all(u.startswith("data:image/jpeg;base64,") for u in urls)  # their client sends JPEG
        counts.append(len(urls))
    # in the whole request: example and legend; + view 1 (the chat keeps the first message); the
    # invalid step adds none; the question (our packed log) quotes its view as text (theirs); with
    # image_questions the view comes as an image
    assert counts == [2, 3, 3, 3]


def test_false_belief_run_reads_the_changes(tmp_path):
    out = tmp_path / "fb"
    with ScriptedServer(explorer) as srv:
        code = main(
            [
                "run",
                "tos/false-belief",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "2",
                "--out",
                str(out),
            ]
        )
    assert code == 0
    for r in records(out):
        assert r["error"] is None and r["steps"] == 4 and r["metrics"]["answered"] is True
        assert 0.0 <= r["metrics"]["f1"] <= 1.0


def test_all_twelve_tasks_run_in_text_and_vision_with_llm_oracle_and_random(tmp_path):
    with ScriptedServer(explorer) as srv:
        for modality in ("text", "vision"):
            for agent in ("llm", "oracle", "random"):
                out = tmp_path / f"{agent}-{modality}"
                argv = [
                    "run", "tos", "--agent", agent, "--episodes", "1", "--set", f"modality={modality}",
                    "--set", "image_size=96", "--out", str(out),
                ]  # fmt: skip
                if agent == "llm":
                    argv += ["--model", "openai:scripted", "--base-url", srv.base_url]
                assert main(argv) == 0
                recs = records(out)
                assert len({r["task"] for r in recs}) == 12 and len(recs) == 12
                assert all(r["error"] is None for r in recs), [r["error"] for r in recs]
                if agent == "oracle":
                    assert all(r["success"] and r["steps"] == r["optimal_steps"] for r in recs)
                if agent == "llm":
                    assert all(r["usage"]["calls"] >= 2 for r in recs)
                    parts = srv.requests[-1]["messages"][-1]["content"]
                    images = [p for p in parts if isinstance(p, dict) and p.get("type") == "image_url"]
                    assert bool(images) == (modality == "vision")

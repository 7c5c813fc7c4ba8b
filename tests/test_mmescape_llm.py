"""MM-Escape through the llm agent, the real openai SDK and a local scripted server."""

import base64
import json
from pathlib import Path

from playbench.cli import main
from playbench.core.registry import make_task
from playbench.testing.scripted_server import ScriptedServer, last_user_text, system_text


def oracle_replies(task_id: str, **options) -> list[str]:
    """The oracle's actions for the first instance of seed 0 (what a perfect model would answer)."""
    task = make_task(task_id, **{"protocol": "playbench", **options})
    task.reset(task.instances(1, 0)[0])
    replies = []
    while not task.done and task.current_role() == "player" and task.phase == "play":
        reply = task.oracle_action("player")
        replies.append(reply)
        task.step(reply)
    return replies


def records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def trajectory(out: Path, rec: dict) -> list[dict]:
    return [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]


def test_images_arrive_and_a_malformed_reply_is_recorded(tmp_path):
    out = tmp_path / "run"
    replies = ["Let me look around first!"] + [
        f"```json\n{r}\n```" for r in oracle_replies("mmescape/level-2")
    ]
    with ScriptedServer(replies) as srv:
        code = main(
            [
                "run",
                "mmescape/level-2",
                "--set",
                "protocol=playbench",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    (rec,) = records(out)
    assert (
        rec["success"] and rec["error"] is None and rec["steps"] == len(replies) == rec["optimal_steps"] + 1
    )
    assert rec["metrics"]["unparseable_actions"] == 1 and rec["metrics"]["grab_success_rate"] == 1.0
    steps = trajectory(out, rec)
    assert steps[0]["validity"] == "unparseable" and "no JSON object" in steps[0]["feedback"]
    assert all(s["validity"] in ("effective", "ineffective") for s in steps[1:])
    assert all((out / "trajectories" / img["file"]).exists() for s in steps for img in s["images"])
    assert '"move_forward"' in system_text(bodies[0]) and "red dot" in system_text(bodies[0])
    for body in bodies:
        parts = body["messages"][-1]["content"]
        urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
        assert urls and all(u.startswith("data:image/png;base64,") for u in urls)
        assert base64.b64decode(urls[-1].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Could not read your action" in last_user_text(bodies[1])
    assert "Your bag holds: nothing" in last_user_text(bodies[0])


def test_debriefing_and_judge_model_over_the_wire(tmp_path):
    out = tmp_path / "judged"
    plays = iter(oracle_replies("mmescape/level-3-note-key", judge=True))
    seen = {"story": 0, "consistency": 0, "debrief": 0}

    def responder(request: dict) -> str:
        text = last_user_text(request)
        if request["model"] == "judge":
            if "Recovered story" in text:
                seen["story"] += 1
                assert "A hidden society" in text
                return "Score: 1"
            seen["consistency"] += 1
            return '{"Consistency": 1}' if "I go for" in text else "unsure"
        if "piece together the story" in text:
            seen["debrief"] += 1
            return "A hidden society built this room."
        return next(plays)

    with ScriptedServer(responder) as srv:
        code = main(
            [
                "run",
                "mmescape/level-3-note-key",
                "--set",
                "protocol=playbench",
                "--agent",
                "llm",
                "--model",
                "openai:player",
                "--judge-model",
                "openai:judge",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--out",
                str(out),
            ]
        )
    assert code == 0
    (rec,) = records(out)
    assert rec["success"] and rec["steps"] == rec["optimal_steps"]
    assert seen == {"story": 1, "consistency": 3, "debrief": 1}
    m = rec["metrics"]
    assert m["story_score"] == 1.0 and m["consistency_rate"] == 1.0 and m["judged_interactions"] == 3
    assert rec["roles"]["judge"] == "llm(openai:judge)"
    roles = [s["role"] for s in trajectory(out, rec)]
    assert roles.count("judge") == 4 and roles.count("player") == rec["steps"] + 1

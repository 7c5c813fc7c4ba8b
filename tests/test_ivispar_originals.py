"""iVISPAR with the authors' texts (`texts=original`), read from a fixture clone.

The fixture is written in the layout of `SharkyBamboozle/iVISPAR` (its files, classes, functions and
symbols, `originals.py`'s text map) but holds only our own sentences: it proves extraction, filling,
the assembled layout, the missing-text error, the fallback to ours and the fidelity stamp."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource
from playbench.core.originals import Clone, resolve_options, status
from playbench.core.registry import make_task
from playbench.core.types import ImagePart, TextPart, Turn
from playbench.runner.reader import RunReader
from playbench.runner.run import RunConfig, execute
from playbench.tasks.ivispar import originals as o
from playbench.tasks.ivispar import prompts
from playbench.tasks.ivispar.paper_data import paper_instances
from playbench.tasks.ivispar.sgp import SlidingGeomTask

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SYSTEM_3D = "Shift the shapes until both boards agree.\n"
SYSTEM_2D = "Shift the glyphs until both boards agree.\n"
COT = "\n    Think aloud, then close with the action line.\n"
NOTE = "Nothing usable here."  # cleaned as a command: the period goes
VISION_STEP = (
    "\n    Boards: now {text_snippet_active}; aim {text_snippet_goal}; before {text_snippet_past}.\n\n"
    "    Close with: action: move <color> <shape> <direction>\n"
)
SNIPPET = "tagged {self.color_codes['%s']['type']} over {self.color_codes['%s']['color']}"
TEXT_STEP = (
    "\n    Aim:\n    {self.goal_state}.\n    Now:\n    {observation}.\n    Close with the action line.\n"
)
GEMINI_TEXT_STEP = "\n  {history_context if self.max_history > 0 else ''}\n  Aim: {self.goal_state}.\n  Now: {observation}.\n"
CODES = {
    "active_1": {"type": "now", "color": "teal"},
    "goal_1": {"type": "aim", "color": "olive"},
    "past": {"type": "before", "color": "ash"},
    "start": {"type": "unused", "color": "none"},
}


def _fstring(text: str) -> str:
    return 'f"""' + text + '"""'


def _act(numbered: dict[int, str], named: list[str]) -> str:
    """An `act` whose N-th string literal is `numbered[N]` (filler literals before each), then the
    named assignments."""
    lines, count = ["    def act(self, observation, i):"], 0
    for index in sorted(numbered):
        filler = index - count - 1
        if filler:
            pads = ", ".join(['"p"'] * filler)
            lines.append(f"        pad_{index} = [{pads}]")
        lines.append(f"        literal_{index} = {numbered[index]}")
        count = index
    lines += [f"        {line}" for line in named]
    lines.append("        return None")
    return "\n".join(lines)


def _snippets() -> list[str]:
    return [
        f'{field} = f"{SNIPPET % (kind, kind)}"'
        for field, kind in zip(o.FIELD_SNIPPETS, o.CODE_KINDS, strict=True)
    ]


def agent_systems(drop_gemini_instruction: bool = False) -> str:
    gpt_like = {
        88: "f\"Did: {prev_exchange['response']}\"",
        135: _fstring(VISION_STEP),
        157: "f\"Seen {i}: {prev_exchange['observation']}\"",
        161: "f\"Did {i}: {prev_exchange['response']}\"",
        165: _fstring(TEXT_STEP),
    }
    claude = {
        58: gpt_like[88],
        101: gpt_like[135],
        123: gpt_like[157],
        127: gpt_like[161],
        131: gpt_like[165],
    }
    gemini_named = [
        'history_context = ""',
        "history_context += f\"Seen: {prev_exchange['observation']}\\n\"",
        "history_context += f\"Did: {prev_exchange['response']}\\n\\n\"",
        'content = ["unused"]',
        f"content = [{_fstring(GEMINI_TEXT_STEP)}]",
    ]
    if not drop_gemini_instruction:
        gemini_named.append(f"instruction = {_fstring(VISION_STEP)}")
    return "\n".join(
        [
            '"""Agents in the authors\' layout, our words."""',
            "",
            "",
            "class LLMAgent:",
            "    def __init__(self, COT=False):",
            "        with open('x') as f:",
            "            self.system_prompt = f.read()",
            "        if COT:",
            f"            self.system_prompt += ({COT!r})",
            "        else:",
            "            self.system_prompt += 'unused'",
            "",
            "    def parse_action(self, response):",
            "        action = 'move ' + response",
            f"        action = {NOTE!r}",
            "        return action",
            "",
            "",
            "class GPT4Agent(LLMAgent):",
            _act(gpt_like, _snippets()),
            "",
            "",
            "class ClaudeAgent(LLMAgent):",
            _act(claude, _snippets()),
            "",
            "",
            "class GeminiAgent(LLMAgent):",
            _act({20: "f\"Did: {prev_exchange['response']}\""}, [*_snippets(), *gemini_named]),
            "",
        ]
    )


def write_clone(root: Path, **kwargs: bool) -> Path:
    clone = root / o.NAME
    (clone / ".git").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text(COMMIT + "\n")
    files = {
        o.AGENTS: agent_systems(**kwargs),
        o.INSTRUCTIONS: SYSTEM_3D,
        o.INSTRUCTIONS_2D: SYSTEM_2D,
        o.COLOR_CODES: json.dumps(CODES, indent=2),
    }
    for rel, text in files.items():
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_text(text)
    return clone


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return write_clone(tmp_path / "originals")


def _played(task: SlidingGeomTask) -> tuple[SlidingGeomTask, str, str]:
    """The first paper board after an unreadable reply and one move: (task, start listing, moved)."""
    task.reset(next(iter(paper_instances(1, None, None))))
    start = task.listing(task.board_state)
    task.step("no idea")
    move = task.oracle_action("player")
    assert move is not None
    task.step(move)
    return task, start, move.removeprefix("action: ")


def _snippet(kind: str) -> str:
    return f"tagged {CODES[kind]['type']} over {CODES[kind]['color']}"


# --- extraction --------------------------------------------------------------------------------------


def test_every_mapped_text_reads_from_a_clone_in_their_layout(clone):
    source = TextSource(Clone(o.REPO, clone, COMMIT))
    values = {ref.id: source.text(ref) for ref in o.TEXTS}
    assert len(values) == len(o.TEXTS) == 34
    assert values["system.cot"] == COT and values["past.no_action"] == NOTE
    assert values["gpt4.vision.step"] == VISION_STEP and values["claude.text.step"] == TEXT_STEP
    assert values["gemini.text.step"] == GEMINI_TEXT_STEP and values["gemini.vision.step"] == VISION_STEP
    assert values["label.past.color"] == "ash"
    (row,) = [r for r in status(clone.parent) if r.repo.name == o.NAME]
    assert row.ok and row.commit == COMMIT, (row.missing, row.text_errors)


# --- filling and layout ------------------------------------------------------------------------------


def _turns(obs) -> list[tuple[str, list[str]]]:
    """An observation's turns as (role, parts), an image as its label."""
    return [(t.role, [p.label if isinstance(p, ImagePart) else p.text for p in t.parts]) for t in obs.turns]


@pytest.mark.parametrize("agent", ["gpt4", "claude"])
def test_text_observations_are_their_chat(clone, agent):
    """GPT4Agent / ClaudeAgent: numbered past states as user turns, past actions as assistant turns,
    renumbered from 1 at every call, then the step text as the last user message."""
    task = make_task("ivispar/sgp", texts="original", originals=str(clone), prompt_agent=agent)
    task.reset(next(iter(paper_instances(1, None, None))))
    goal = task.listing(task._goal)
    first = task.observe("player")
    assert first.turns == []  # no past yet: the system prompt and the step text only
    task, start, move = _played(task)
    obs = task.observe("player")
    assert obs.instructions == SYSTEM_3D + COT
    current = task.listing(task.board_state)
    assert obs.turns == [
        Turn("user", [TextPart(f"Seen 1: {start}")]),
        Turn("assistant", [TextPart("Did 1: Nothing usable here")]),
        Turn("user", [TextPart(f"Seen 2: {start}")]),
        Turn("assistant", [TextPart(f"Did 2: {move}")]),
    ]
    step = f"\n    Aim:\n    {goal}.\n    Now:\n    {current}.\n    Close with the action line.\n"
    assert obs.parts == [TextPart(step)]
    task.step(task.oracle_action("player") or "")
    later = task.observe("player")  # the window slides: the oldest exchange goes, numbers restart at 1
    assert [t.parts[0].text.split(":")[0] for t in later.turns] == ["Seen 1", "Did 1", "Seen 2", "Did 2"]
    assert later.turns[1].parts == [TextPart(f"Did 1: {move}")]


def test_text_observations_in_gemini_layout_are_one_text(clone):
    task = make_task("ivispar/sgp", texts="original", originals=str(clone), prompt_agent="gemini")
    task.reset(next(iter(paper_instances(1, None, None))))
    first = task.observe("player")
    goal, start = task.listing(task._goal), task.listing(task.board_state)
    assert first.turns is None
    assert first.parts == [TextPart(f"\n  \n  Aim: {goal}.\n  Now: {start}.\n")]
    task, start, move = _played(task)
    history = f"Seen: {start}\nDid: Nothing usable here\n\nSeen: {start}\nDid: {move}\n\n"
    current = task.listing(task.board_state)
    obs = task.observe("player")
    assert obs.turns is None
    assert obs.parts == [TextPart(f"\n  {history}\n  Aim: {goal}.\n  Now: {current}.\n")]


def _vision_step() -> str:
    return (
        f"\n    Boards: now {_snippet('active_1')}; aim {_snippet('goal_1')}; before {_snippet('past')}.\n\n"
        "    Close with: action: move <color> <shape> <direction>\n"
    )


@pytest.mark.parametrize("agent", ["gpt4", "claude"])
def test_vision_observations_are_their_chat_with_the_label_snippets_filled(clone, agent):
    task = make_task(
        "ivispar/sgp-2d", texts="original", originals=str(clone), image_size=96, prompt_agent=agent
    )
    task, start, move = _played(task)
    obs = task.observe("player")
    assert obs.instructions == SYSTEM_2D + COT
    assert _turns(obs) == [
        ("user", ["past"]),
        ("assistant", ["Did: Nothing usable here"]),
        ("user", ["past"]),
        ("assistant", [f"Did: {move}"]),
        ("user", ["goal"]),
        ("user", ["current"]),
    ]
    images = [t.parts[0].png for t in obs.turns if t.role == "user"]
    state = task.board_state
    assert images == [
        task.image(task.instance.start_state(), "past"),
        task.image(task.instance.start_state(), "past"),
        task.image(task._goal, "goal"),
        task.image(state, "current"),
    ]
    assert obs.parts == [TextPart(_vision_step())]


def test_vision_observations_in_gemini_layout_are_one_message(clone):
    task = make_task(
        "ivispar/sgp-2d", texts="original", originals=str(clone), image_size=96, prompt_agent="gemini"
    )
    task, _, move = _played(task)
    obs = task.observe("player")
    assert obs.turns is None
    kinds = [p.label if isinstance(p, ImagePart) else p.text for p in obs.parts]
    assert kinds == [
        "past",
        "Did: Nothing usable here",
        "past",
        f"Did: {move}",
        "goal",
        "current",
        _vision_step(),
    ]


def test_conversation_packed_puts_their_chat_in_one_user_message(clone):
    """Our option conversation=packed with their texts: their turns' parts, in order, then the step text."""
    options = {"texts": "original", "originals": str(clone), "image_size": 96}
    chat, _, _ = _played(make_task("ivispar/sgp-2d", **options))
    packed, _, _ = _played(make_task("ivispar/sgp-2d", conversation="packed", **options))
    turns, obs = chat.observe("player"), packed.observe("player")
    assert obs.turns is None
    assert obs.parts == [p for t in turns.turns for p in t.parts] + turns.parts


def test_our_extensions_keep_their_place_with_the_original_texts(clone):
    options = {"texts": "original", "originals": str(clone), "move_results": True, "step_counter": True}
    task, _, _ = _played(make_task("ivispar/sgp", **options))
    obs = task.observe("player")
    roles = [t.role for t in obs.turns]
    assert roles == ["user", "assistant", "user"] * 2  # each result a user turn after the action
    assert obs.turns[1].parts == [TextPart("Did 1: Nothing usable here")]
    assert obs.turns[2].parts[0].text.startswith("Result: ")
    assert obs.parts[-1] == TextPart("This is action 3 of at most 20.")
    gemini, _, _ = _played(make_task("ivispar/sgp", prompt_agent="gemini", **options))
    (text, counter) = gemini.observe("player").parts
    assert (
        "Did: Nothing usable here\nResult: " in text.text
        and counter.text == "This is action 3 of at most 20."
    )


# --- errors, fallback, stamp -------------------------------------------------------------------------


def test_a_missing_text_names_its_file_and_symbol(tmp_path):
    clone = write_clone(tmp_path / "originals", drop_gemini_instruction=True)
    make_task("ivispar/sgp-2d", texts="original", originals=str(clone)).preflight()  # gpt4 reads
    task = make_task("ivispar/sgp-2d", texts="original", originals=str(clone), prompt_agent="gemini")
    with pytest.raises(ConfigError, match=r"Source/Experiment/agent_systems.py: GeminiAgent.act:instruction"):
        task.preflight()


def test_texts_original_refuses_settings_their_fixed_instructions_do_not_describe(clone):
    for options in ({"dataset": "generated", "board_size": [5, 5]}, {"extra_facts": True}):
        with pytest.raises(ConfigError, match="use texts=ours"):
            make_task("ivispar/sgp", texts="original", originals=str(clone), **options).preflight()


def test_without_a_clone_the_task_sends_ours(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "none"))
    options, notices = resolve_options(SlidingGeomTask.originals, {})
    assert options["texts"] == "ours" and len(notices) == 1
    task = make_task("ivispar/sgp", **options)
    task.reset(next(iter(paper_instances(1, None, None))))
    obs = task.observe("player")
    assert obs.instructions == prompts.instructions(task._board, task._colors, task._shapes, "text")
    with pytest.raises(ConfigError, match="no clone"):
        resolve_options(SlidingGeomTask.originals, {"texts": "original"})


def _run(clone: Path, tmp_path: Path, monkeypatch, task_id: str, replies: list[str], **options) -> list[list]:
    """The first calls' requests of a one-episode `llm` run with scripted replies, as (role, parts)."""
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.parent))
    path = tmp_path / "replies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in replies))
    out = tmp_path / "run"
    config = RunConfig(
        tasks=[task_id],
        agents={"*": AgentSpec("llm", model=f"mock:{path}")},
        out=str(out),
        episodes=1,
        task_options={"max_steps": len(replies), **options},
    )
    asyncio.run(execute(config))
    reader = RunReader(out)
    calls = reader.calls(reader.records()[0])[0]
    requests = []
    for call in calls:
        requests.append(
            [
                (m["role"], [p["text"] if p["type"] == "text" else p["label"] for p in m["content"]])
                for m in call["request"]["messages"]
            ]
        )
    return requests


def test_a_run_sends_their_chat_and_stamps_the_clone_and_the_converted_boards(clone, tmp_path, monkeypatch):
    task = make_task("ivispar/sgp", texts="original", originals=str(clone))
    task.reset(next(iter(paper_instances(1, None, None))))
    goal, start = task.listing(task._goal), task.listing(task.board_state)
    move = (task.oracle_action("player") or "").removeprefix("action: ")
    requests = _run(clone, tmp_path, monkeypatch, "ivispar/sgp", ["no idea", f"Fine.\naction: {move}", "no"])
    task.step("no idea")
    task.step(f"action: {move}")
    moved = task.listing(task.board_state)
    system = ("system", [SYSTEM_3D + COT])

    def step(current: str) -> tuple[str, list[str]]:
        return (
            "user",
            [f"\n    Aim:\n    {goal}.\n    Now:\n    {current}.\n    Close with the action line.\n"],
        )

    assert requests == [
        [system, step(start)],
        [system, ("user", [f"Seen 1: {start}"]), ("assistant", ["Did 1: Nothing usable here"]), step(start)],
        [
            system,
            ("user", [f"Seen 1: {start}"]),
            ("assistant", ["Did 1: Nothing usable here"]),
            ("user", [f"Seen 2: {start}"]),
            ("assistant", [f"Did 2: {move}"]),
            step(moved),
        ],
    ]
    stamp = json.loads((tmp_path / "run" / "config.json").read_text())["fidelity"]["ivispar/sgp"]
    assert stamp["texts"] == "original@0123456" and stamp["data"] == "original@725ee6c, converted"
    generated = make_task("ivispar/sgp", dataset="generated", texts="ours")
    assert generated.data_origin() == "generated" and make_task("ivispar/stp").data_origin() == "generated"


def test_a_vision_run_sends_their_chat(clone, tmp_path, monkeypatch):
    requests = _run(
        clone,
        tmp_path,
        monkeypatch,
        "ivispar/sgp-3d",
        ["no idea", "no"],
        image_size=96,
        prompt_agent="claude",
    )
    system = ("system", [SYSTEM_3D + COT])
    tail = [("user", ["goal"]), ("user", ["current"]), ("user", [_vision_step()])]
    assert requests == [
        [system, *tail],
        [system, ("user", ["past"]), ("assistant", ["Did: Nothing usable here"]), *tail],
    ]

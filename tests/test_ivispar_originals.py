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
from playbench.core.types import ImagePart, TextPart
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


def test_text_observations_in_gpt4_layout(clone):
    task = make_task("ivispar/sgp", texts="original", originals=str(clone))
    task, start, move = _played(task)
    obs = task.observe("player")
    assert obs.instructions == SYSTEM_3D + COT
    goal, current = task.listing(task._goal), task.listing(task.board_state)
    assert obs.parts == [
        TextPart(f"Seen 1: {start}"),
        TextPart("Did 1: Nothing usable here"),
        TextPart(f"Seen 2: {start}"),
        TextPart(f"Did 2: {move}"),
        TextPart(f"\n    Aim:\n    {goal}.\n    Now:\n    {current}.\n    Close with the action line.\n"),
    ]


def test_text_observations_in_gemini_layout_are_one_text(clone):
    task = make_task("ivispar/sgp", texts="original", originals=str(clone), prompt_agent="gemini")
    task.reset(next(iter(paper_instances(1, None, None))))
    first = task.observe("player")
    goal, start = task.listing(task._goal), task.listing(task.board_state)
    assert first.parts == [TextPart(f"\n  \n  Aim: {goal}.\n  Now: {start}.\n")]
    task, start, move = _played(task)
    history = f"Seen: {start}\nDid: Nothing usable here\n\nSeen: {start}\nDid: {move}\n\n"
    current = task.listing(task.board_state)
    assert task.observe("player").parts == [TextPart(f"\n  {history}\n  Aim: {goal}.\n  Now: {current}.\n")]


def test_vision_observations_fill_the_label_snippets(clone):
    task = make_task("ivispar/sgp-2d", texts="original", originals=str(clone), image_size=96)
    task, _, move = _played(task)
    obs = task.observe("player")
    assert obs.instructions == SYSTEM_2D + COT
    kinds = [p.label if isinstance(p, ImagePart) else p.text for p in obs.parts]
    step = (
        f"\n    Boards: now {_snippet('active_1')}; aim {_snippet('goal_1')}; before {_snippet('past')}.\n\n"
        "    Close with: action: move <color> <shape> <direction>\n"
    )
    assert kinds == ["past", "Did: Nothing usable here", "past", f"Did: {move}", "goal", "current", step]


def test_our_extensions_keep_their_place_with_the_original_texts(clone):
    task = make_task(
        "ivispar/sgp", texts="original", originals=str(clone), move_results=True, step_counter=True
    )
    task, _, _ = _played(task)
    texts = [p.text for p in task.observe("player").parts]
    assert texts[1].startswith("Did 1: Nothing usable here\nResult: ")
    assert texts[-1] == "This is action 3 of at most 20."


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


def test_a_run_stamps_the_clone_and_the_converted_boards(clone, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.parent))
    replies = tmp_path / "replies.txt"
    replies.write_text("no idea\n")
    out = tmp_path / "run"
    config = RunConfig(
        tasks=["ivispar/sgp"],
        agents={"*": AgentSpec("llm", model=f"mock:{replies}")},
        out=str(out),
        episodes=1,
        task_options={"max_steps": 2},
    )
    asyncio.run(execute(config))
    stamp = json.loads((out / "config.json").read_text())["fidelity"]["ivispar/sgp"]
    assert stamp["texts"] == "original@0123456" and stamp["data"] == "original@725ee6c, converted"
    reader = RunReader(out)
    calls = reader.calls(reader.records()[0])[0]
    messages = calls[1]["request"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == [{"type": "text", "text": SYSTEM_3D + COT}]
    assert messages[1]["content"][1]["text"] == "Did 1: Nothing usable here"
    generated = make_task("ivispar/sgp", dataset="generated", texts="ours")
    assert generated.data_origin() == "generated" and make_task("ivispar/stp").data_origin() == "generated"

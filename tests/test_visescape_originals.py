"""texts=original for VisEscape (issue 25): the authors' prompts read from a clone in the originals folder.

Every clone here is a fixture written by the test: the authors' file layout, symbols and statement shapes,
holding our own placeholder sentences ("FIX ..."), never theirs; the rooms are playbench's demo room written
in their format (`original/demo.py`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource
from playbench.core.originals import Clone, resolve_options, status
from playbench.core.registry import make_task
from playbench.core.types import ImagePart, TextPart
from playbench.runner.reader import RunReader
from playbench.tasks.visescape import originals as om
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.original.demo import ROOM, write_demo_clone
from playbench.tasks.visescape.original.task import NO_SOURCE, DemoTask, OriginalTask
from playbench.tasks.visescape.original_prompts import IMAGE, OurPrompts, TheirPrompts, prompts_at
from playbench.tasks.visescape.task import VisEscapeTask

COMMIT = "0123456789abcdef0123456789abcdef01234567"

BASE_PROMPT = '''
init_prompt = """FIX init: leave the room."""


def get_prompt_next_action_withreason_vlm(direction, current_scene_desc, inventory, salient_action_history, action_history, previous_action, available_actions, ispuzzle, hint_message):
    puzzle_text1="""FIX note: type <ANSWER>x</ANSWER>.""" if ispuzzle else ""
    puzzle_text2="""or FIX answer""" if ispuzzle else ""
    action_history = "\\n".join([f"{action['action']}" for action in action_history])
    salient_action_history = "\\n".join([f"{action['action']}" for action in salient_action_history])
    salient_action_history_text = f"<AM>\\n{salient_action_history}</AM>\\n" if salient_action_history else ""
    action_history_text = f"<RA>\\n{action_history}</RA>\\n" if action_history else ""
    inventory_text = "<INV>none</INV>" if not inventory else f"<INV>{inventory}</INV>"
    hint_message_text = f"<HINT>{hint_message}</HINT>\\n" if hint_message else ""
    hint_guideline_text = "FIX follow the hint." if hint_message else ""
    available_actions=available_actions+["<ANSWER> [FIX]"] if ispuzzle else available_actions
    prompt = f"""{init_prompt}!
{salient_action_history_text}{action_history_text}<OBS>{direction} - [IMAGE]</OBS>
{inventory_text}
<PREV>{previous_action}</PREV>
{hint_message_text}FIX pick one of:
{available_actions}
{puzzle_text1}
{hint_guideline_text} FIX reply in [ACTION] {puzzle_text2}.
[ACTION]"""
    return prompt


def get_prompt_next_action_withreason(direction, current_scene_desc, inventory, salient_action_history, action_history, previous_action, available_actions, ispuzzle, hint_message):
    prompt = f"""{init_prompt}!
{salient_action_history_text}{action_history_text}<OBS>{direction} - {current_scene_desc}</OBS>
{inventory_text}
<PREV>{previous_action}</PREV>
{hint_message_text}FIX pick one of:
{available_actions}
{puzzle_text1}
{hint_guideline_text} FIX reply in [ACTION] {puzzle_text2}.
[ACTION]"""
    return prompt


def get_prompt_next_action_first_turn(direction, current_scene_desc, inventory, available_actions):
    prompt=f"""{init_prompt}!
<OBS>{direction} - {current_scene_desc}</OBS>
FIX first, pick one of:
{available_actions}
[ACTION]"""
    return prompt


def get_prompt_next_action_first_turn_vlm(direction, current_scene_desc, inventory, available_actions):
    prompt=f"""{init_prompt}!
<OBS>{direction} - [IMAGE]</OBS>
FIX first, pick one of:
{available_actions}
[ACTION]"""
    return prompt


def get_prompt_next_action_withreason_retry(direction,  before_action, available_actions, hint_message):
    hint_message_text = f"<HINT>{hint_message}</HINT>\\n" if hint_message else ""
    hint_guideline_text = "FIX follow the hint." if hint_message else ""
    prompt = f"""{init_prompt}!
<OBS>{direction}</OBS>
FIX {before_action} is not in {available_actions}.
{hint_message_text}{hint_guideline_text}
FIX again, one of:
{available_actions}
[ACTION]"""
    return prompt
'''

BASE_AGENT = """
class Agent:
    def get_next_action(self, model):
        system_prompt = "FIX system: [ACTION]x"
        return system_prompt
"""

MEM_PROMPT = '''
init_prompt = """FIX memory init."""


def get_prompt_spatial_memory_construct(action_history):
    spatial_json_format = """{"FIX wall": []}"""
    inspected_objects_json_format = """[{"FIX object": {}}]"""
    uninspected_objects_json_format = """[]"""
    additional_memory_json_format = (
        """[FIX notes]"""
    )

    last10history_str = "\\n".join(
        [
            (
                f"OBS [{log['scene']}] ACT [{log['action']}]"
                if log["analysis"] == "-"
                else f"OBS [{log['scene']}] ACT [{log['action']}] = {log['analysis']}"
            )
            for log in action_history
        ]
    )
    prompt = f"""{init_prompt}
<LOGS>
{last10history_str}</LOGS>
FIX build: {spatial_json_format} {inspected_objects_json_format} {uninspected_objects_json_format} {additional_memory_json_format}"""
    return prompt


def get_prompt_spatial_memory_update(spatial_memory, action_history):
    prompt = f"""{init_prompt}
<MEM>{spatial_memory}</MEM>
<LOGS>
{last10history_str}</LOGS>
FIX update: {spatial_json_format} {inspected_objects_json_format} {uninspected_objects_json_format} {additional_memory_json_format}"""
    return prompt


def get_prompt_action_feedback(previous_scene_desc, current_scene_desc, previous_action):
    prompt = f"""{init_prompt}
FIX before {previous_scene_desc} / {previous_action} / after {current_scene_desc}
[ANALYSIS]"""
    return prompt


def get_prompt_next_action_first_turn(direction, current_scene_desc, inventory, available_actions):
    prompt = f"""{init_prompt}
<OBS>{direction} - {current_scene_desc}</OBS> {available_actions}
[THINK]
[ACTION]"""
    return prompt


def get_prompt_next_action_first_turn_vlm(direction, current_scene_desc, inventory, available_actions):
    prompt = f"""{init_prompt}
<OBS>{direction} - [IMAGE]</OBS> {available_actions}
[THINK]
[ACTION]"""
    return prompt


def get_prompt_next_action_withreason(direction, current_scene_desc, inventory, spatial_memory, salient_action_history, action_history, previous_react, available_actions, ispuzzle, hint_message):
    prompt = f"""{init_prompt}
{memory_text}{salient_action_history_text}{action_history_text}<OBS>{direction} - {current_scene_desc}</OBS>
{inventory_text}<PREV>{previous_react}</PREV>
{hint_message_text}{available_actions}
{puzzle_text1}{hint_guideline_text}{puzzle_text2}
[THINK]
[ACTION]"""
    return prompt


def get_prompt_next_action_withreason_vlm(direction, current_scene_desc, inventory, spatial_memory, salient_action_history, action_history, previous_react, available_actions, ispuzzle, hint_message):
    puzzle_text1 = (
        """FIX memory note."""
        if ispuzzle
        else ""
    )
    puzzle_text2 = """or FIX memory answer""" if ispuzzle else ""
    action_history = "\\n".join(
        [
            (
                f"{action['action']}"
                if action["analysis"] == "-"
                else f"{action['action']} = {action['analysis']}"
            )
            for action in action_history
        ]
    )
    salient_action_history = "\\n".join(
        list(
            dict.fromkeys(
                [
                    (
                        f"{action['action']}"
                        if action["analysis"] == "-"
                        else f"{action['action']} = {action['analysis']}"
                    )
                    for action in salient_action_history
                ]
            )
        )
    )

    salient_action_history_text = (
        f"<AM>\\n{salient_action_history}</AM>\\n"
        if salient_action_history
        else ""
    )
    action_history_text = (
        f"<RA>\\n{action_history}</RA>\\n"
        if action_history
        else ""
    )
    inventory_text = (
        "<INV>none</INV>"
        if not inventory
        else f"<INV>{inventory}</INV>"
    )
    memory_text = f"<MEM>{spatial_memory}</MEM>\\n" if spatial_memory else ""
    hint_message_text = (
        f"<HINT>{hint_message}</HINT>\\n" if hint_message else ""
    )
    hint_guideline_text = (
        "FIX memory hint guide."
        if hint_message
        else ""
    )
    available_actions = (
        available_actions + ["<ANSWER> [FIXM]"]
        if ispuzzle
        else available_actions
    )

    prompt = f"""{init_prompt}
{memory_text}{salient_action_history_text}{action_history_text}<OBS>{direction} - [IMAGE]</OBS>
{inventory_text}<PREV>{previous_react}</PREV>
{hint_message_text}{available_actions}
{puzzle_text1}{hint_guideline_text}{puzzle_text2}
[THINK]
[ACTION]"""
    return prompt


def get_prompt_next_action_withreason_retry(direction, spatial_memory, before_action, available_actions, hint_message):
    memory_text = f"<MEM>{spatial_memory}</MEM>\\n" if spatial_memory else ""
    hint_message_text = (
        f"<HINT>{hint_message}</HINT>\\n" if hint_message else ""
    )
    hint_guideline_text = (
        "FIX memory hint guide."
        if hint_message
        else ""
    )
    prompt = f"""{init_prompt}
<OBS>{direction}</OBS>
{memory_text}{before_action} {hint_message_text}{hint_guideline_text}{available_actions}
[ACTION]"""
    return prompt
'''

MEM_AGENT = """
class Agent:
    def get_next_action(self, model):
        system_prompt = "FIX react system"
        if model:
            system_prompt = "FIX action system"
        return system_prompt

    def get_first_spatial_memory(self, model):
        system_prompt = "FIX memory system"
        return system_prompt
"""

MEM_RUNNER = """
class AIExperimentRunner:
    def run_experiment(self, max_steps=300):
        action_feedback = ""
        if max_steps:
            action_feedback = "-"
        else:
            action_feedback = "FIX nothing changed."
        return action_feedback
"""

CAPTION_WALL = '''
def process_wall_view_json(json_path):
    prompt = f"""FIX wall with {objects}
FIX describe."""
    return prompt
'''
CAPTION_OBJECT = '''
def process_object_view_json(json_path):
    prompt = f"""FIX object '{object_type}'. {f"FIX in {object_type}: {items_str}" if items else ""}
FIX describe."""
    return prompt
'''
CAPTION_ITEM = '''
def process_item_view_json(json_path):
    prompt = f"""FIX item '{item_name}'.
FIX describe."""
    return prompt
'''

AGENT = "src/vis_escape/experiment/agent"
FILES = {
    f"{AGENT}/baseagent/prompt.py": BASE_PROMPT,
    f"{AGENT}/baseagent/agent.py": BASE_AGENT,
    f"{AGENT}/visescaper/prompt.py": MEM_PROMPT,
    f"{AGENT}/visescaper/agent.py": MEM_AGENT,
    f"{AGENT}/visescaper/experiment_runner.py": MEM_RUNNER,
    "src/vis_escape/config/caption_wall_view.py": CAPTION_WALL,
    "src/vis_escape/config/caption_object_view.py": CAPTION_OBJECT,
    "src/vis_escape/config/caption_item_view.py": CAPTION_ITEM,
}


def write_texts(root: Path, commit: str = COMMIT) -> Path:
    """The fixture's text files (and a .git/HEAD at `commit`) under `root`."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "HEAD").write_text(commit + "\n")
    return root


# --- helpers ---------------------------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An originals folder holding a fixture clone (demo room + our texts in their layout)."""
    root = tmp_path / "originals"
    clone = root / om.NAME
    write_demo_clone(clone)
    write_texts(clone)
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(root))
    return root


def theirs(folder: Path) -> TheirPrompts:
    return TheirPrompts(TextSource(Clone(om.REPO, folder / om.NAME, COMMIT)))


def texts_of(call: dict) -> list[tuple[str, list[str]]]:
    out = []
    for m in call["request"]["messages"]:
        parts = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        out.append((m["role"], [p["text"] if p["type"] == "text" else "<image>" for p in parts]))
    return out


def first_request(direction: str, actions: list[str]) -> str:
    return f"FIX init: leave the room.!\n<OBS>{direction} - [IMAGE]</OBS>\nFIX first, pick one of:\n{actions}\n[ACTION]"


# --- extraction --------------------------------------------------------------------------------------


def test_every_mapped_text_reads_from_the_clone_where_the_map_says(folder):
    row = next(r for r in status(folder) if r.repo.name == om.NAME)
    assert row.ok and not row.text_errors and row.commit == COMMIT
    p = theirs(folder)
    p.check()
    assert p.t("base.init") == "FIX init: leave the room."
    assert p.t("base.answer_note") == "FIX note: type <ANSWER>x</ANSWER>."
    assert p.t("base.answer_or") == "or FIX answer"
    assert p.t("base.action_memory") == "<AM>\n{salient_action_history}</AM>\n"
    assert p.t("base.recent") == "<RA>\n{action_history}</RA>\n"
    assert (p.t("base.inventory_none"), p.t("base.inventory")) == (
        "<INV>none</INV>",
        "<INV>{inventory}</INV>",
    )
    assert (p.t("base.hint"), p.t("base.hint_guide")) == (
        "<HINT>{hint_message}</HINT>\n",
        "FIX follow the hint.",
    )
    assert p.answer_slot == "<ANSWER> [FIX]" and p.system_action == "FIX system: [ACTION]x"
    assert (p.t("base.retry.hint"), p.t("base.retry.hint_guide")) == (
        p.t("base.hint"),
        p.t("base.hint_guide"),
    )
    assert p.t("memory.line.effect") == "{action['action']} = {action['analysis']}"
    assert (p.t("memory.action_memory"), p.t("memory.recent")) == (
        p.t("base.action_memory"),
        p.t("base.recent"),
    )
    assert p.t("memory.memory") == "<MEM>{spatial_memory}</MEM>\n"
    assert (p.t("memory.hint_guide"), p.t("memory.answer_slot")) == (
        "FIX memory hint guide.",
        "<ANSWER> [FIXM]",
    )
    assert p.t("memory.retry.memory") == p.t("memory.memory")
    assert p.t("memory.log") == "OBS [{log['scene']}] ACT [{log['action']}]"
    assert p.t("memory.format.additional") == "[FIX notes]"
    assert (p.system_react, p.t("memory.system.action"), p.system_memory) == (
        "FIX react system",
        "FIX action system",
        "FIX memory system",
    )
    assert p.no_change == "FIX nothing changed."


def test_prompts_are_filled_as_the_original_fills_them(folder):
    p = theirs(folder)
    acts = ["turn_to_east", "inspect Door"]
    assert p.base_first("NORTH", IMAGE, acts) == first_request("NORTH", acts)
    assert p.base_first("NORTH", "a red door", acts).startswith(
        "FIX init: leave the room.!\n<OBS>NORTH - a red door</OBS>"
    )
    turn = p.base_turn(
        direction="EAST",
        scene=IMAGE,
        salient=["At Panel, press Button"],
        recent=["inspect Panel", "press Button"],
        inventory="key_A, note",
        previous_action="press Button",
        hint="Open it.",
        actions=acts,
        puzzle=True,
    )
    assert turn == (
        "FIX init: leave the room.!\n<AM>\nAt Panel, press Button</AM>\n<RA>\ninspect Panel\npress Button</RA>\n"
        "<OBS>EAST - [IMAGE]</OBS>\n<INV>key_A, note</INV>\n<PREV>press Button</PREV>\n<HINT>Open it.</HINT>\n"
        "FIX pick one of:\n['turn_to_east', 'inspect Door', '<ANSWER> [FIX]']\nFIX note: type <ANSWER>x</ANSWER>.\n"
        "FIX follow the hint. FIX reply in [ACTION] or FIX answer.\n[ACTION]"
    )
    bare = p.base_turn(
        direction="EAST",
        scene=IMAGE,
        salient=[],
        recent=[],
        inventory="",
        previous_action="turn_to_east",
        hint="",
        actions=acts,
        puzzle=False,
    )
    assert bare == (
        "FIX init: leave the room.!\n<OBS>EAST - [IMAGE]</OBS>\n<INV>none</INV>\n<PREV>turn_to_east</PREV>\n"
        f"FIX pick one of:\n{acts}\n\n FIX reply in [ACTION] .\n[ACTION]"
    )
    assert p.base_retry("EAST", "fly", acts, "") == (
        f"FIX init: leave the room.!\n<OBS>EAST</OBS>\nFIX fly is not in {acts}.\n\nFIX again, one of:\n{acts}\n[ACTION]"
    )
    logs = [
        {"scene": "N - a", "action": "turn_to_east", "analysis": "-"},
        {"scene": "E - b", "action": "open", "analysis": "opened"},
    ]
    assert p.memory_construct(logs) == (
        "FIX memory init.\n<LOGS>\nOBS [N - a] ACT [turn_to_east]\nOBS [E - b] ACT [open] = opened</LOGS>\n"
        'FIX build: {"FIX wall": []} [{"FIX object": {}}] [] [FIX notes]'
    )
    assert p.feedback("a", "open", "b") == "FIX memory init.\nFIX before a / open / after b\n[ANALYSIS]"
    react = p.react_turn(
        memory="M",
        salient=[("At Safe, open", "x"), ("At Safe, open", "x")],
        recent=[("inspect Safe", "-")],
        direction="WEST",
        scene=IMAGE,
        inventory="",
        previous_react="r",
        hint="",
        actions=acts,
        puzzle=False,
    )
    assert react.startswith(
        "FIX memory init.\n<MEM>M</MEM>\n<AM>\nAt Safe, open = x</AM>\n<RA>\ninspect Safe</RA>\n"
    )
    assert p.caption("wall", "NORTH", ["Door", "key"]) == "FIX wall with ['Door', 'key']\nFIX describe."
    assert (
        p.caption("receptacle", "Safe", ["Safe", "key", "note"])
        == "FIX object 'Safe'. FIX in Safe: 'key', 'note'\nFIX describe."
    )
    assert p.caption("receptacle", "Safe", ["Safe"]) == "FIX object 'Safe'. \nFIX describe."
    assert p.caption("item", "note", ["note"]) == "FIX item 'note'.\nFIX describe."


# --- the llm agent's requests, a run's fidelity stamp --------------------------------------------------


def test_an_llm_run_sends_the_original_prompts_and_stamps_the_run(folder, tmp_path, capsys):
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                "[ACTION]turn_to_south",
                "[ACTION]inspect Panel",
                "[ACTION]fly_away",
                "Let me think.\nThe door is shut.",
            ]
        )
    )
    out = tmp_path / "run"
    args = ["run", "visescape/original", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "1"]
    assert main([*args, "--set", "max_steps=3", "--out", str(out)]) == 0
    config = json.loads((out / "config.json").read_text())
    stamp = config["fidelity"]["visescape/original"]
    assert stamp["texts"] == "original@0123456" and stamp["data"] == "original@0123456"
    reader = RunReader(out)
    calls, warnings = reader.calls(reader.records()[0])  # repeated texts restored
    assert not warnings
    # the same states, from the task itself
    task = make_task("visescape/original", source=str(folder / om.NAME), texts="ours")
    task.reset(task.instances(None, 0)[0])
    obs = [task.observe("player").data]
    for action in ("turn_to_south", "inspect Panel"):
        task.step(action)
        obs.append(task.observe("player").data)
    # 1: the first-turn prompt, then the image; no system prompt
    assert texts_of(calls[0]) == [
        ("user", [first_request(obs[0]["direction"], obs[0]["available_actions"]), "<image>"])
    ]
    # 2: a later turn: no action memory or recent actions yet (turns are left out)
    second = (
        f"FIX init: leave the room.!\n<OBS>{obs[1]['direction']} - [IMAGE]</OBS>\n<INV>none</INV>\n"
        f"<PREV>turn_to_south</PREV>\nFIX pick one of:\n{obs[1]['available_actions']}\n\n FIX reply in [ACTION] .\n[ACTION]"
    )
    assert texts_of(calls[1]) == [("user", [second, "<image>"])]
    third = (
        f"FIX init: leave the room.!\n<RA>\ninspect Panel</RA>\n<OBS>{obs[2]['direction']} - [IMAGE]</OBS>\n"
        f"<INV>none</INV>\n<PREV>inspect Panel</PREV>\nFIX pick one of:\n{obs[2]['available_actions']}\n\n"
        " FIX reply in [ACTION] .\n[ACTION]"
    )
    assert texts_of(calls[2]) == [("user", [third, "<image>"])]
    # 4: "fly_away" is not available: the retry prompt, text only, no system prompt (not at a lock)
    acts = obs[2]["available_actions"]
    retry = f"FIX init: leave the room.!\n<OBS>{obs[2]['direction']}</OBS>\nFIX fly_away is not in {acts}.\n\nFIX again, one of:\n{acts}\n[ACTION]"
    assert texts_of(calls[3]) == [("user", [retry])]
    # 5: an unreadable reply after it is asked again: the same prompt, with the system prompt
    assert texts_of(calls[4]) == [("system", ["FIX system: [ACTION]x"]), ("user", [retry])]
    assert "playbench's paraphrases" not in capsys.readouterr().out


def test_our_rooms_take_the_original_prompts_too(folder):
    task = make_task("visescape/room-01")
    task.preflight()
    task.reset(task.instances(None, 0)[0])
    obs = task.observe("player")
    assert obs.instructions == ""
    assert [type(p) for p in obs.parts] == [TextPart, ImagePart]
    assert obs.parts[0].text == first_request(obs.data["direction"], obs.data["available_actions"])
    assert obs.data["originals"] == str(folder / om.NAME)
    assert VisEscapeTask.originals is om.TEXTS_ONLY and DemoTask.originals is om.TEXTS_ONLY
    caption = make_task("visescape/room-01", observation="caption")
    caption.reset(caption.instances(None, 0)[0])
    seen = caption.observe("player")
    assert seen.instructions == "FIX system: [ACTION]x" and [type(p) for p in seen.parts] == [TextPart]
    assert f"<OBS>{seen.data['direction']} - {seen.data['caption']}</OBS>" in seen.parts[0].text


def test_the_paper_agents_use_the_same_clone(folder):
    assert isinstance(prompts_at(None), OurPrompts)
    p = prompts_at(str(folder / om.NAME))
    assert isinstance(p, TheirPrompts) and p.system_action == "FIX system: [ACTION]x"


# --- options: texts=ours, source from the clone, the missing-text error ------------------------------------


def test_without_a_clone_texts_are_ours_and_the_authors_rooms_refuse(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "none"))
    options, notices = resolve_options(OriginalTask.originals, {})
    assert options["texts"] == "ours" and options.get("source") is None and "paraphrases" in notices[0]
    with pytest.raises(ConfigError, match="not shipped"):
        make_task("visescape/original", **options).preflight()
    assert NO_SOURCE
    task = make_task("visescape/original-demo", texts="ours")
    task.reset(task.instances(None, 0)[0])
    obs = task.observe("player")
    assert obs.instructions == pc.INSTRUCTIONS and obs.data["originals"] is None
    assert task.data_origin() == "ours"
    with pytest.raises(ConfigError, match="no clone"):
        resolve_options(OriginalTask.originals, {"texts": "original"})


def test_source_defaults_to_the_clone_and_texts_ours_keeps_its_rooms(folder):
    options, notices = resolve_options(OriginalTask.originals, {"texts": "ours"})
    assert options["source"] == str(folder / om.NAME) and options["texts"] == "ours" and not notices
    task = make_task("visescape/original", **options)
    task.preflight()
    assert task.data_origin() == "original@0123456"
    assert [i.id for i in task.instances(None, 0)] == [ROOM]
    task.reset(task.instances(None, 0)[0])
    assert task.observe("player").instructions == pc.INSTRUCTIONS


def test_a_missing_text_is_an_error_naming_file_and_symbol(folder):
    prompt = folder / om.NAME / om.BASE
    prompt.write_text(prompt.read_text().replace("def get_prompt_next_action_withreason_retry", "def gone"))
    where = r"baseagent/prompt\.py: get_prompt_next_action_withreason_retry:prompt"
    with pytest.raises(ConfigError, match=where):
        make_task("visescape/original-demo", texts="original").preflight()
    with pytest.raises(ConfigError, match=where):  # a run fails before its first episode
        make_task("visescape/rooms", originals=str(folder / om.NAME)).preflight()
    (folder / om.NAME / om.CAPTION_OBJECT_FILE).unlink()
    with pytest.raises(ConfigError, match=r"caption_object_view\.py: process_object_view_json:prompt"):
        theirs(folder).caption("receptacle", "shelf", ["key"])

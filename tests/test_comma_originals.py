"""COMMA with `texts=original`: the authors' words read from a clone and assembled as their code does.

The fixture clone is written here in the authors' layout (their files, classes, functions and the
positions of their string literals) but holds OUR OWN sentences, so nothing of theirs is in the tree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource
from playbench.core.originals import find_clone
from playbench.core.registry import make_task
from playbench.core.types import ImagePart, TextPart
from playbench.tasks.comma import paper_set
from playbench.tasks.comma.originals import APP, COMMIT, MANUAL_KEYS, NAME, PUZZLES
from playbench.tasks.comma.task import CommaTask
from playbench.tasks.comma.texts import OriginalWords

SYSTEM = "Fixture system words."
SOLVER = "Fixture solver role, line one.\\nStill the solver role."
EXPERT = "Fixture expert role. KEEP IT SHORT, NO MORE THAN 100 WORDS."
MISTAKE = "Fixture: that went wrong."
DONE = "Fixture: that went fine."


def _fillers(start: int, stop: int) -> list[str]:
    """Plain string statements standing in for their literals start..stop-1 (`#N` counts them)."""
    return [f'    "filler {n}"' for n in range(start, stop)]


def write_clone(root: Path) -> Path:
    clone = root / NAME
    app = clone / APP
    (app / "config").mkdir(parents=True)
    (app / "agents").mkdir()
    (app / "modules").mkdir()
    (clone / ".git").mkdir()
    (clone / ".git" / "HEAD").write_text(COMMIT + "\n")
    prompts = {key: f"Fixture manual of {key}.\nSecond line." for key in MANUAL_KEYS.values()}
    prompts.update(SOLVER=SOLVER, EXPERT=EXPERT)
    (app / "config" / "prompts.json").write_text(json.dumps(prompts))
    history = [
        "class Agent:",
        "  def get_conversation_history_string(self, image_data=None, actions=None, model=None):",
        *[f for f in _fillers(1, 9)],
        '    llm_input = f"{self.prompt}\\n\\n" if not llm_input else f"{self.prompt}\\n\\n{llm_input}\\n\\n"',
        "    for mess in self.conversation:",
        "        llm_input += f\"{mess['from']}: {mess['value']}\\n\\n\"",
        '    llm_input += f"{self.role}: "',
        '    action_string = "Fixture actions:\\n" + x',
        '    action_string += f"Fixture format:\\n{self.module.game_manager.action_delimeter}action_name\\n\\n"',
    ]
    (app / "agents" / "agent.py").write_text("\n".join(history) + "\n")
    respond = [
        "class GPT4oAgent:",
        "  def respond(self, image_data, actions):",
        *[f for f in _fillers(1, 33)],
        '    x = f"Fixture page lead-in. {llm_input}"',
        *[f for f in _fillers(34, 37)],
        f'    y = "{SYSTEM}"',
        *[f for f in _fillers(38, 45)],
        '    z = f"Fixture: {self.module.game_manager.EXPERT_MESSAGE_WORD_LIMIT} words at most."',
    ]
    (app / "agents" / "gpt4o_agent.py").write_text("\n".join(respond) + "\n")
    main_py = [
        "class GameManager:",
        "  def __init__(self, master, args):",
        *[f for f in _fillers(1, 24)],
        '    a = f"HELPER"',
        *[f for f in _fillers(25, 28)],
        '    b = f"PLAYER"',
        '    self.action_delimeter = ""',
    ]
    (app / "main.py").write_text("\n".join(main_py) + "\n")
    module = [
        "class Module:",
        "  def execute_action(self, potential_action):",
        *[f for f in _fillers(1, 2)],
        f'    message = "{MISTAKE}"',
        f'    message = "{DONE}"',
        '    "filler 4"',
        '    "filler 5"',
        '    w = "WORLD"',
    ]
    (app / "modules" / "module.py").write_text("\n".join(module) + "\n")
    wire = {"SimpleWirePuzzle": {"n_wires": 3, "colors": ["blue", "blue", "red"]}}
    who = {
        "WhoPuzzle": {
            "display_text": "YES",
            "button_texts": ["READY", "FIRST", "NO", "BLANK", "WAIT", "LEFT"],
        }
    }
    other = {"AtmPuzzle": {"PIN": "0000", "Balance": 1}}
    (clone / PUZZLES).write_text(json.dumps([wire, other, who, wire]))
    return clone


@pytest.fixture
def clone(tmp_path, monkeypatch):
    path = write_clone(tmp_path / "originals")
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "originals"))
    return path


def words_of(path: Path) -> OriginalWords:
    found = find_clone(NAME, path)
    assert found is not None
    return OriginalWords.read(TextSource(found))


def test_every_text_of_the_map_reads_from_the_clone(clone):
    words = words_of(clone)
    assert words.system == SYSTEM
    assert words["solver_prompt"] == SOLVER
    assert words.manual("wire") == "Fixture manual of SimpleWirePuzzle.\nSecond line."
    assert words["feedback.mistake"] == MISTAKE and words["feedback.done"] == DONE
    assert (words.label("solver"), words.label("expert"), words.label("environment")) == (
        "PLAYER",
        "HELPER",
        "WORLD",
    )
    assert words["action_delimiter"] == ""
    assert words.stamp == f"original@{COMMIT[:7]}"


def test_expert_prompt_drops_its_word_limit_clause_unless_a_limit_is_set(clone):
    words = words_of(clone)
    assert words.expert_prompt(None) == "Fixture expert role. KEEP IT SHORT."
    assert words.expert_prompt(100) == EXPERT
    assert words.expert_prompt(40) == EXPERT.replace("100", "40")


def started(**options) -> CommaTask:
    task = make_task("comma/wire", **options)
    assert isinstance(task, CommaTask)
    task.reset(task.instances(1, 0)[0])
    return task


def test_requests_are_assembled_as_the_original_assembles_them(clone):
    task = started(texts="original", puzzles=str(clone / PUZZLES))
    solver = task.observe("solver")
    assert solver.instructions == SYSTEM
    assert [type(p) for p in solver.parts] == [ImagePart, TextPart, TextPart]
    actions = "\n".join(f"cut_wire_{i}" for i in (1, 2, 3))
    assert solver.parts[1].text == f"Fixture actions:\n{actions}\n\nFixture format:\naction_name\n\n"
    assert solver.parts[2].text == f"{SOLVER}\n\nPLAYER: "
    task.step("  Three wires: blue, blue, red.  ")
    expert = task.observe("expert")
    assert expert.instructions == SYSTEM
    manual = "Fixture manual of SimpleWirePuzzle.\nSecond line."
    assert [p.text for p in expert.parts] == [
        f"Fixture expert role. KEEP IT SHORT.\n\n{manual}\n\nPLAYER: Three wires: blue, blue, red.\n\nHELPER: "
    ]
    task.step("Cut the second wire.")
    task.step("cut_wire_1\ncut_wire_2")  # a strike, then the right wire (the last blue)
    assert task.termination is not None and task.termination.value == "goal_reached"
    transcript = task.session.original_lines("solver")
    assert transcript == [
        ("PLAYER", "Three wires: blue, blue, red."),
        ("HELPER", "Cut the second wire."),
        ("PLAYER", "cut_wire_1\ncut_wire_2"),
        ("WORLD", MISTAKE),
        ("WORLD", DONE),
    ]


def test_the_solver_sees_results_the_expert_does_not(clone):
    task = started(texts="original", puzzles=str(clone / PUZZLES))
    task.step("cut_wire_1")
    assert task.observe("expert").parts[0].text.endswith("PLAYER: cut_wire_1\n\nHELPER: ")
    task.step("")  # an empty expert reply goes on as it is
    text = task.observe("solver").parts[2].text
    assert text.endswith(f"PLAYER: cut_wire_1\n\nWORLD: {MISTAKE}\n\nHELPER: \n\nPLAYER: ")


def test_word_limit_adds_their_prompt_clause_and_request_as_a_second_user_message(clone):
    task = started(texts="original", expert_word_limit=100)
    task.step("hello")
    expert = task.observe("expert")
    # their agent: the system message, the user message, then the limit request as a user message
    assert expert.turns is not None and [t.role for t in expert.turns] == ["user"]
    manual = "Fixture manual of SimpleWirePuzzle.\nSecond line."
    assert [p.text for p in expert.turns[0].parts] == [f"{EXPERT}\n\n{manual}\n\nPLAYER: hello\n\nHELPER: "]
    assert [p.text for p in expert.parts] == ["Fixture: 100 words at most."]
    assert task.observe("solver").turns is None and started(texts="original").observe("expert").turns is None


def test_keypad_word_limit_keeps_the_page_in_the_first_user_message(clone):
    task = make_task("comma/keypad", texts="original", expert_word_limit=40)
    task.reset(task.instances(1, 0)[0])
    task.step("four symbols")
    expert = task.observe("expert")
    assert expert.turns is not None and expert.data["manual_image"] is True
    first = expert.turns[0].parts
    assert isinstance(first[0], ImagePart) and first[1].text.startswith(
        "Fixture page lead-in. " + EXPERT.replace("100", "40")
    )
    assert [p.text for p in expert.parts] == ["Fixture: 40 words at most."]


def test_a_word_limit_run_sends_their_three_messages(clone, tmp_path):
    replies = tmp_path / "replies.jsonl"
    replies.write_text('"blue, blue, red"\n"Cut the last wire."\n"cut_wire_2"\n')
    out = tmp_path / "run"
    argv = ["run", "comma/wire", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "1"]
    assert main([*argv, "--out", str(out), "--set", "expert_word_limit=100"]) == 0
    calls = [
        json.loads(x) for x in next((out / "trajectories").glob("*.calls.jsonl")).read_text().splitlines()
    ]
    solver, expert = (c["request"]["messages"] for c in calls[:2])
    assert [m["role"] for m in solver] == ["system", "user"]
    assert [m["role"] for m in expert] == ["system", "user", "user"]
    texts = [[p["text"] for p in m["content"]] for m in expert]
    manual = "Fixture manual of SimpleWirePuzzle.\nSecond line."
    assert texts == [
        [SYSTEM],
        [f"{EXPERT}\n\n{manual}\n\nPLAYER: blue, blue, red\n\nHELPER: "],
        ["Fixture: 100 words at most."],
    ]
    third = [[p.get("text") for p in m["content"]] for m in calls[2]["request"]["messages"]]
    assert third[1][-1] == f"{SOLVER}\n\nPLAYER: blue, blue, red\n\nHELPER: Cut the last wire.\n\nPLAYER: "


def test_keypad_expert_gets_the_page_with_their_lead_in(clone):
    task = make_task("comma/keypad", texts="original")
    task.reset(task.instances(1, 0)[0])
    task.step("four symbols")
    parts = task.observe("expert").parts
    assert isinstance(parts[0], ImagePart)
    assert parts[1].text.startswith(
        "Fixture page lead-in. Fixture expert role. KEEP IT SHORT.\n\nFixture manual of KeyPadPuzzle."
    )


def test_ours_without_a_clone_and_when_asked(clone, tmp_path, monkeypatch):
    ours = started(texts="ours")
    assert ours.words is None and "Fixture" not in ours.observe("solver").instructions
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "nowhere"))
    assert started().words is None
    with pytest.raises(ConfigError, match="no clone"):
        started(texts="original").preflight()


def test_a_missing_text_names_its_file_and_symbol(clone):
    prompts = clone / APP / "config" / "prompts.json"
    data = json.loads(prompts.read_text())
    del data["SOLVER"]
    prompts.write_text(json.dumps(data))
    task = make_task("comma/wire", texts="original")
    with pytest.raises(ConfigError, match=r"config/prompts\.json: SOLVER"):
        task.preflight()
    prompts.write_text(json.dumps({**data, "SOLVER": SOLVER}))
    (clone / APP / "main.py").write_text("class GameManager:\n  def __init__(self):\n    pass\n")
    with pytest.raises(ConfigError, match=r"main\.py: GameManager\.__init__"):
        make_task("comma/who", texts="original", originals=str(clone)).preflight()


def test_the_paper_set_is_read_and_converted(clone):
    path = str(clone / PUZZLES)
    assert paper_set.set_size(path, "wire") == 2 and paper_set.set_size(path, "who") == 1
    task = make_task("comma/wire", puzzles=path)
    first = task.instances(None, 0)
    assert [i.id for i in first] == ["wire-0000", "wire-0001"]
    assert first[0].params == {"colors": ["blue", "blue", "red"], "serial": paper_set.SERIAL}
    assert first == task.instances(None, 7)  # a fixed set: the seed does not change it
    assert task.data_origin() == f"original@{COMMIT[:7]}"
    assert make_task("comma/button", puzzles=path).data_origin() == "generated"
    with pytest.raises(ConfigError, match="holds 2 wire puzzles"):
        task.instances(3, 0)
    assert make_task("comma/wire").data_origin() == "generated"


def test_password_entries_keep_their_wrapping_cycles():
    entry = {"answer_word": "again", "current_letters": ["z", "g", "a", "i", "m"]}
    params = paper_set.params_for("password", entry, __import__("random").Random(0))
    assert params["starts"] == ["Z", "F", "Z", "H", "M"] and params["shown"] == [0, 1, 1, 1, 0]
    from playbench.tasks.comma.modules.password import PasswordModule

    module = PasswordModule(params)
    assert module.answer == "AGAIN" and module.current_word == "ZGAIM"


def test_a_run_records_the_fidelity_stamp(clone, tmp_path):
    replies = tmp_path / "replies.jsonl"
    replies.write_text('"blue, blue, red"\n"Cut the last wire."\n"cut_wire_2"\n')
    out = tmp_path / "run"
    argv = ["run", "comma/wire", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    stamp = json.loads((out / "config.json").read_text())["fidelity"]["comma/wire"]
    assert stamp["texts"] == f"original@{COMMIT[:7]}" and stamp["data"] == f"original@{COMMIT[:7]}"
    calls = [
        json.loads(x) for x in next((out / "trajectories").glob("*.calls.jsonl")).read_text().splitlines()
    ]
    first = calls[0]["request"]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert first[0]["content"][0]["text"] == SYSTEM
    assert main([*argv, "--out", str(tmp_path / "ours"), "--set", "texts=ours", "--set", "puzzles=null"]) == 0
    stamp = json.loads((tmp_path / "ours" / "config.json").read_text())["fidelity"]["comma/wire"]
    assert stamp["texts"] == "ours" and stamp["data"] == "generated"

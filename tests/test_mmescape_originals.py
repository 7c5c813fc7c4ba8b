"""MM-Escape's texts and scenes read from the authors' clone (`texts=original`, the originals folder).

The fixture clone has the authors' layout and symbols (src/prompt_config.py, src/Game.py,
src/BaseGame.py, levels/) but only our own sentences, each marked `[F]`: the tests prove that every
mapped text is read, filled as the original fills it and assembled in its order, that a missing text
names its file and symbol, that without a clone our paraphrases are used, and the fidelity stamp."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mmescape_paper import NOTE_FIRST, scene_file
from test_mmescape_protocol import started

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource
from playbench.core.originals import Clone, resolve_options, status
from playbench.core.registry import make_task
from playbench.runner.reader import RunReader
from playbench.tasks.mmescape.originals import COMMIT, PAPER_USE, REPO, TEXTS_USE
from playbench.tasks.mmescape.task import EscapeTask, PaperEscapeTask
from playbench.tasks.mmescape.words import OURS, Words

PROMPT_CONFIG = '''\
class PromptTemplate:
    instruction = """[F] unused instruction."""

    operations = """
[F] operations: reply {"grab": bool}.
"""
    SYS_PROMPT = instruction + operations

    STEP_PROMPT = """{interaction_result}
=F=
{bag_desc}
=F= reply {{"x": 1}}
"""

    story_prompt = """[F] tell the story.
"""


class PromptTemplate_Base(PromptTemplate):
    instruction = """[F] plain instruction:"""
    SYS_PROMPT = instruction + PromptTemplate.operations
    SYS_PROMPT_KEYONLY = instruction + PromptTemplate.operations + "[F] unused key steps."


class PromptTemplate_Base2(PromptTemplate):
    instruction = """[F] paper instruction:"""
    SYS_PROMPT = instruction + PromptTemplate.operations
    SYS_PROMPT_KEYONLY = (
        instruction
        + PromptTemplate.operations
        + "\\n[F] key steps only. "
    )


class PromptTemplate_Hint(PromptTemplate_Base):
    initial_hint = "[F] hint."
    SYS_PROMPT = (
        PromptTemplate_Base.instruction + PromptTemplate.operations + initial_hint
    )
'''

GAME = """\
class Game:
    def get_action(self, response):
        desc = ""
        for key in response:
            if key == "move":
                desc += "[F] moved."
            elif key == "look_at":
                desc += "[F] view moved."
            elif key == "grab":
                if object_ids:
                    for id, object_id in enumerate(object_ids):
                        desc += f"[F] interaction {id+1}: {_desc}\\n"
                elif object_in_views:
                    desc += "[F] too far."
                else:
                    desc += "[F] nothing."
        return desc

    def ask_for_action(self, desc, save_path, obj_interact, obj_interact_fail):
        if desc:
            if obj_interact:
                if not obj_interact_fail:
                    logger.debug(f"[F] log {desc}")
                    interaction_desc = f"[F] found:\\n{desc}"
                else:
                    logger.debug(f"[F] log {desc}")
                    interaction_desc = f"{desc}"
            else:
                interaction_desc = f"{desc} [F] no interaction."
        else:
            interaction_desc = (
                "[F] no response."
            )
        bag_desc = (
            self.bag
            if self.bag
            else "[F] empty bag."
        )

    def story_recovery(self):
        logger.info("[F] log")
        bag_desc = self.bag if self.bag else "[F] nothing in the bag."

    def main(self):
        desc = "[F] the start."
"""

BASE_GAME = """\
class BaseGame:
    def __add_description(self):
        for item in items:
            if item["type"] == "box":
                __description = "[F] box "
                if item["unlock_method"]:
                    __description += f"[F] opens with a {item['unlock_method']['type']}."
                else:
                    __description += "[F] unlocked."
            elif item["type"] == "key":
                __description = "[F] a key."
            else:
                __description = None

    def open_box(self, box_id):
        desc = "[F] in the box:\\n"
        return desc

    def interaction(self, item_id, **kwargs):
        desc = ""
        if not self.bag.check_item(use_item_id) and use_item_id:
            return (
                f"[F] no {use_item_id} in the bag.",
                None,
            )
        if item_id == "entrance":
            desc += f"[F] entrance."
        elif item_id == "exit":
            desc += f"[F] exit with a {unlock['type']}. "
            if a:
                desc = "[F] door password right."
            elif b:
                desc = f"[F] door password {user_input} wrong."
            elif c:
                desc = f"[F] door key {use_item_id} right."
            elif d:
                desc = f"[F] door key {use_item_id} wrong."
            else:
                desc = "[F] door opens."
        elif "box" in item_id:
            desc += box["description"]
            if a:
                desc = f"[F] box key {use_item_id} right. {self.open_box(item_id)}"
            elif b:
                desc = f"[F] box key {use_item_id} wrong."
            elif c:
                desc = f"[F] box key hint."
            elif d:
                desc = f"[F] box password right. {self.open_box(item_id)}"
            elif e:
                desc = f"[F] box password {user_input} wrong."
            elif f:
                desc = f"[F] box password hint."
            else:
                desc = "[F] box empty."
        elif read:
            if a:
                desc = f"[F] no {item_id} to read."
            else:
                desc = self.bag.get_item_desc(item_id)
                for idx, content in enumerate(contents):
                    if b:
                        desc += f"[F] part {idx+1} story: {content['content']}\\n"
                    elif c:
                        desc += f"[F] part {idx+1} image."
                    else:
                        desc += f"[F] part {str(idx+1)} numbers {str(self.items[item_id]['password'])}.\\n"
        else:
            desc = f"[F] got: {self.bag.get_item_desc(item_id)}"
        return desc, get_item


class Bag:
    def get_item_desc(self, id):
        desc = ""
        if item.get("description", False):
            desc += f"[F] - {id} is a {item['type']}: {item['description']}\\n"
        elif item["type"] == "paper":
            desc += f"[F] - paper {id} "
            for content in item["contents"]:
                if isinstance(content, str):
                    desc += f"[F] numbers {item['password']}.\\n"
                else:
                    desc += f"[F] has a {content['type']}.\\n"
        return desc
"""

SYSTEM = '[F] paper instruction:\n[F] operations: reply {"grab": bool}.\n'
SYSTEM_KEY = SYSTEM + "\n[F] key steps only. "
SYSTEM_HINT = '[F] plain instruction:\n[F] operations: reply {"grab": bool}.\n[F] hint.'


def write_clone(root: Path, game: str = GAME) -> Path:
    clone = root / "EscapeCraft"
    (clone / ".git").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text(COMMIT + "\n")
    (clone / "src").mkdir()
    (clone / "src" / "prompt_config.py").write_text(PROMPT_CONFIG)
    (clone / "src" / "Game.py").write_text(game)
    (clone / "src" / "BaseGame.py").write_text(BASE_GAME)
    scenes = clone / "levels" / "scene_data" / "level3_note_first"
    scenes.mkdir(parents=True)
    (clone / "levels" / "level3_note_first.json").write_text(json.dumps(NOTE_FIRST))
    (scenes / "4.json").write_text(json.dumps(scene_file()))
    return clone


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return write_clone(tmp_path)


def step_text(result: str, bag: str) -> str:
    return f'{result}\n=F=\n{bag}\n=F= reply {{"x": 1}}\n'


def test_every_mapped_text_reads_from_the_clone(clone):
    (row,) = [r for r in status(clone.parent) if r.repo.name == "EscapeCraft"]
    assert row.ok and row.commit == COMMIT and not row.text_errors, row.text_errors
    source = TextSource(Clone(REPO, clone, COMMIT))
    assert {ref.id for ref in REPO.texts} == set(OURS)  # ours paraphrases every mapped text
    words = Words(source)
    words.check()
    # the system prompts whole: their SYS_PROMPT, SYS_PROMPT_KEYONLY (history=key) and the hint's,
    # each built in its class body from the class's own attributes and PromptTemplate's
    assert words.system() == SYSTEM
    assert words.system(key_history=True) == SYSTEM_KEY
    assert words.system(hint=True) == SYSTEM_HINT == words.system(hint=True, key_history=True)
    assert words.fill("read.numbers", n="1", password="0042") == "[F] part 1 numbers 0042.\n"
    assert words.fill("action.interaction", n=2, desc="x") == "[F] interaction 2: x\n"
    assert words.story("") == "[F] tell the story.\n[F] nothing in the bag."
    assert words.start() == "[F] the start. [F] no interaction."
    # the task classes: every id reads texts; the paper ids also default `scenes` to levels/
    assert EscapeTask.originals == TEXTS_USE and PaperEscapeTask.originals == PAPER_USE
    assert PAPER_USE.data == {"scenes": "levels"} and REPO.needs == (
        "src/prompt_config.py",
        "src/Game.py",
        "src/BaseGame.py",
        "levels",
    )


def test_turns_and_responses_are_the_originals_filled_and_assembled_in_its_order(clone):
    task = started(texts="original", originals=str(clone))  # a key 1.3 m ahead, the door 2.5 m ahead
    obs = task.observe("player")
    assert obs.instructions == SYSTEM
    assert obs.text == step_text("[F] the start. [F] no interaction.", "[F] empty bag.")
    assert [type(p).__name__ for p in obs.parts] == ["TextPart", "ImagePart"]  # the view after the text
    r = task.step('{"grab": true, "rotate_right": 5, "rationale": "take it"}')
    key_line = "[F] - key_1 is a key: [F] a key.\n"
    desc = f"[F] interaction 1: [F] got: {key_line}\n[F] interaction 2: [F] exit with a key. \n[F] moved."
    assert r.feedback == f"[F] found:\n{desc}"
    assert task.observe("player").text == step_text(f"[F] found:\n{desc}", key_line)
    r = task.step('{"look_at": [0.2, 0.5], "read": "key_1", "rationale": "look"}')
    assert r.feedback == f"[F] found:\n{key_line}"  # a read replaces what the keys before it said
    r = task.step('{"rotate_right": 180, "rationale": "turn"}')
    assert r.feedback == "[F] moved. [F] no interaction."
    r = task.step('{"rotate_right": 180, "read": "ghost", "rationale": "an id the game lacks"}')
    # their read of an id the game lacks raises before it counts as an interaction
    assert r.feedback == "[F] moved. [F] no interaction."
    r = task.step('{"grab": true, "interactions": {"use_item_id": "key_9"}, "rationale": "door"}')
    assert r.feedback == "[F] found:\n[F] interaction 1: [F] no key_9 in the bag.\n"
    r = task.step('{"grab": true, "interactions": {"use_item_id": "key_1"}, "rationale": "door"}')
    assert r.feedback == "[F] found:\n[F] interaction 1: [F] door key key_1 right.\n"
    assert task.termination is not None  # level 2 of the generated rooms has no story to recover


def test_a_level_3_game_fills_the_notes_box_and_password_texts(clone):
    task = started(
        "level-3-note-key", spots=[(3.0, 0.42, 1.2), (2.6, 0.0, 1.5)], texts="original", originals=str(clone)
    )
    r = task.step('{"grab": true, "rationale": "all of it"}')
    code = next(it.value for it in task._chains[0].items if it.type == "password")
    note = f"[F] - paper note_1 [F] numbers {code}.\n"
    assert f"[F] got: {note}" in r.feedback and "[F] box [F] opens with a password." in r.feedback
    r = task.step('{"read": "note_1", "rationale": "read"}')
    assert r.feedback == f"[F] found:\n{note}[F] part 1 numbers {code}.\n"
    r = task.step(f'{{"grab": true, "interactions": {{"input": "{code}"}}, "rationale": "open"}}')
    contents = "[F] - key_1 is a key: [F] a key.\n[F] - paper note_2 [F] has a story.\n"
    assert f"[F] box password right. [F] in the box:\n{contents}" in r.feedback
    r = task.step('{"read": "note_2", "rationale": "read"}')
    assert r.feedback.startswith("[F] found:\n[F] - paper note_2 [F] has a story.\n[F] part 1 story: ")
    r = task.step('{"grab": true, "interactions": {"use_item_id": "key_1"}, "rationale": "door"}')
    assert "[F] door key key_1 right." in r.feedback
    debrief = task.observe("player")  # the story prompt, then the bag; no view
    assert debrief.text == "[F] tell the story.\n" + note + contents and not debrief.images


def test_a_text_the_clone_lacks_is_an_error_naming_its_file_and_symbol(tmp_path):
    broken = write_clone(tmp_path, GAME.replace('        desc = "[F] the start."\n', "        pass\n"))
    task = make_task("mmescape/paper-level-2", texts="original", originals=str(broken))
    with pytest.raises(ConfigError, match=r"src/Game\.py: Game\.main:desc"):
        task.preflight()
    (broken / "src" / "Game.py").write_text(GAME)
    (broken / "src" / "BaseGame.py").unlink()
    with pytest.raises(ConfigError, match=r"src/BaseGame\.py.*the file is missing"):
        make_task("mmescape/level-1", texts="original", originals=str(broken)).preflight()
    # a system prompt the clone lacks (here the key-history one) names its class attribute
    other = write_clone(tmp_path / "b")
    config = other / "src" / "prompt_config.py"
    config.write_text(PROMPT_CONFIG.replace("    SYS_PROMPT_KEYONLY = (\n", "    KEYONLY = (\n"))
    with pytest.raises(ConfigError, match=r"src/prompt_config\.py: PromptTemplate_Base2\.SYS_PROMPT_KEYONLY"):
        make_task("mmescape/level-1", texts="original", originals=str(other)).preflight()


def test_history_key_sends_their_key_steps_system_prompt(clone):
    task = started(texts="original", originals=str(clone), history="key")
    obs = task.observe("player")
    assert obs.instructions == SYSTEM_KEY
    assert obs.text == step_text("[F] the start. [F] no interaction.", "[F] empty bag.")
    # their --hint prompt wins over the history's (src/main.py), as it does with our words
    hinted = started(texts="original", originals=str(clone), history="key", hint="original")
    assert hinted.observe("player").instructions == SYSTEM_HINT
    ours = started(texts="ours", history="key")
    assert ours.observe("player").instructions == OURS["system.key_history"]
    assert OURS["system.key_history"].startswith(OURS["system"])


def test_without_a_clone_ours_are_used_and_said_once(tmp_path):
    options, notices = resolve_options(PAPER_USE, {})
    assert options["texts"] == "ours" and options.get("scenes") is None and len(notices) == 1
    task = make_task("mmescape/paper-level-2", **options)
    assert not task.words.original and task.data_origin() == "original@b7b9fea, converted"
    with pytest.raises(ConfigError, match="no clone of"):
        resolve_options(PAPER_USE, {"texts": "original"})
    ours = started()
    assert ours.observe("player").text.startswith(OURS["turn.start"] + " You did not interact")
    # texts=playbench (its former meaning): playbench's prompts
    cfg = make_task("mmescape/level-1", texts="playbench").config
    assert (cfg.prompts, cfg.texts) == ("playbench", "ours")
    assert make_task("mmescape/level-1").data_origin() == "generated"
    assert make_task("mmescape/paper-houses").data_origin() == "fork@a5b2dc2, converted"


def test_a_run_reads_texts_and_scenes_from_the_originals_folder_and_stamps_them(clone, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.parent))
    replies = tmp_path / "replies.jsonl"
    first = 'Turning.\n```json\n{"rotate_right": 10, "rationale": "look"}\n```'
    replies.write_text(
        json.dumps(first) + "\n" + json.dumps('{"rotate_down": 5, "rationale": "down"}') + "\n"
    )
    out = tmp_path / "run"
    argv = ["run", "mmescape/paper-level-3-note-key", "--agent", "llm", "--model", f"mock:{replies}"]
    assert (
        main([*argv, "--episodes", "1", "--out", str(out), "--set", "max_steps=2", "--set", "image_size=128"])
        == 0
    )
    config = json.loads((out / "config.json").read_text())
    stamp = config["fidelity"]["mmescape/paper-level-3-note-key"]
    assert stamp["texts"] == f"original@{COMMIT[:7]}" and stamp["data"] == f"original@{COMMIT[:7]}"
    reader = RunReader(out)
    (record,) = reader.records()
    assert record["instance_id"] == "level3_note_first-4"  # the fixture clone's scene, not the shipped set
    calls, warnings = reader.calls(record)
    assert not warnings and len(calls) == 2
    one, two = (c["request"]["messages"] for c in calls)
    assert [m["role"] for m in one] == ["system", "user"] and [m["role"] for m in two] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    assert [p["type"] for p in one[1]["content"]] == ["text", "image"]
    assert one[0]["content"][0]["text"] == SYSTEM
    assert one[1]["content"][0]["text"] == step_text("[F] the start. [F] no interaction.", "[F] empty bag.")
    assert two[2]["content"][0]["text"] == '{"rotate_right": 10, "rationale": "look"}'  # their cleaned reply
    assert two[3]["content"][0]["text"] == step_text("[F] moved. [F] no interaction.", "[F] empty bag.")


def test_a_playbench_protocol_run_is_stamped_ours_with_the_clone_present(clone, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.parent))
    stamps = {}
    for name, setting in (("playbench", "prompts=playbench"), ("protocol", "protocol=playbench")):
        out = tmp_path / name
        argv = ["run", "mmescape/paper-level-3-note-key", "--agent", "random", "--episodes", "1"]
        argv += ["--out", str(out), "--set", setting, "--set", "max_steps=1", "--set", "image_size=64"]
        assert main(argv) == 0
        config = json.loads((out / "config.json").read_text())
        stamps[name] = config["fidelity"]["mmescape/paper-level-3-note-key"]
    for stamp in stamps.values():  # playbench's texts whatever `texts` resolved to; the clone's scenes
        assert stamp["texts"] == "ours" and stamp["data"] == f"original@{COMMIT[:7]}"
    task = make_task("mmescape/level-1", texts="original", originals=str(clone))
    assert task.texts_origin() == f"original@{COMMIT[:7]}"
    assert make_task("mmescape/level-1", prompts="playbench", originals=str(clone)).texts_origin() == "ours"


def test_the_clone_folders_scenes_are_read_and_stamped(clone):
    task = make_task("mmescape/paper-level-3-note-key", scenes=str(clone / "levels"))
    assert [i.id for i in task.instances(None, 0)] == ["level3_note_first-4"]
    assert task.data_origin() == f"original@{COMMIT[:7]}"
    assert not task.words.original  # scenes from a clone, texts from the originals folder (none here)

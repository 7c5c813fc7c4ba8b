"""The originals folder: reading texts from a clone as data, filling them, resolving options at plan time,
the fidelity stamp, `playbench originals` (status and fetch, from a local git repository)."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from toy import TOY_COMMIT, TOY_REPO

from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource, fields, fill
from playbench.core.originals import (
    Clone,
    OriginalsUse,
    TextRef,
    find_clone,
    head_commit,
    resolve_options,
    status,
)
from playbench.report.model_side import fidelity_markdown
from playbench.report.tables import load_run
from playbench.runner.run import RunConfig, execute, plan_run

PROMPTS = '''\
"""A module in the layout of an authors' repository (our own words)."""
import textwrap

INSTRUCTIONS = "Walk to the mark.\\nSay left or right."
GREETING = textwrap.dedent("""
    Hello there,
      walker.
""")
HEADER = "Board {rows}x{cols}: "
PARTS = ["one", f"two {HEADER}", {"k": "v {x}"}]


class Prompter:
    style = "plain"

    def turn(self, target):
        text = f"You stand at {self.pos}; the mark is at {target!r}, {{literal}} {target:>3}."
        text = text + " Go on."
        return text

    def feedback(self, ok):
        note = "first"
        note = "second"
        self.last = "kept " + "together"
        msg = "A" + f" b {ok}"
        return msg

    def assembled(self, n):
        return HEADER.format(rows=n, cols=n) + "done"

    def wrapped(self, v):
        return textwrap.dedent(f"""
            value {v}
        """)

    def listing(self, items):
        prompt = f"Look at {self.name}.{f' It holds {items}.' if items else ''} Then act."
        return prompt


class Composed:
    BASE = "Base rules."
    EXTRA = BASE + " More rules."
    BOTH = Prompter.style + " and " + EXTRA
'''


def make_clone(root: Path, commit: str = TOY_COMMIT) -> Path:
    """A clone of the toy repository in the authors' layout, with a .git/HEAD naming `commit`."""
    (root / "agent").mkdir(parents=True)
    (root / "agent" / "prompts.py").write_text(PROMPTS)
    (root / "levels").mkdir()
    (root / "levels" / "one.json").write_text(json.dumps({"texts": {"intro": ["first", "second {n}"]}}))
    (root / "README.txt").write_text("whole file\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text(commit + "\n")
    return root


@pytest.fixture
def clone(tmp_path) -> Clone:
    path = make_clone(tmp_path / "originals" / "toy-original")
    return Clone(TOY_REPO, path, head_commit(path))


def read(clone: Clone, file: str, symbol: str) -> object:
    return TextSource(clone).value(TextRef("t", file, symbol))


# --- reading ---------------------------------------------------------------------------------------------


def test_module_constants_and_class_attributes_read_as_written(clone):
    assert read(clone, "agent/prompts.py", "INSTRUCTIONS") == "Walk to the mark.\nSay left or right."
    assert read(clone, "agent/prompts.py", "Prompter.style") == "plain"
    assert (
        read(clone, "agent/prompts.py", "HEADER") == "Board {rows}x{cols}: "
    )  # a .format template as written


def test_dedent_of_a_constant_is_applied(clone):
    assert read(clone, "agent/prompts.py", "GREETING") == "\nHello there,\n  walker.\n"


def test_an_fstring_reads_as_a_template_that_fills_like_the_fstring(clone):
    template = read(clone, "agent/prompts.py", "Prompter.turn:text")
    assert fields(template) == ["self.pos", "target", "target"]

    class Me:
        pos = (2, 3)

    self, target = Me(), "b4"
    expected = f"You stand at {self.pos}; the mark is at {target!r}, {{literal}} {target:>3}."
    assert fill(template, {"self.pos": self.pos, "target": target}) == expected


def test_assignments_by_order_attributes_returns_and_literals(clone):
    f = "agent/prompts.py"
    assert read(clone, f, "Prompter.feedback:note") == "first"
    assert read(clone, f, "Prompter.feedback:note#2") == "second"
    assert read(clone, f, "Prompter.feedback:last") == "kept together"  # self.last = ...
    assert fill(read(clone, f, "Prompter.feedback:msg"), {"ok": True}) == "A b True"  # text + f-string
    with pytest.raises(ConfigError, match="refers to 'text', which is not a module-level value"):
        read(clone, f, "Prompter.turn:text#2")  # text + " Go on.": a local name is never evaluated


def test_format_calls_return_their_template_and_literals_count_in_order(clone):
    f = "agent/prompts.py"
    assert read(clone, f, "Prompter.assembled:return") == "Board {rows}x{cols}: done"
    assert read(clone, f, "Prompter.feedback:#1") == "first"
    assert read(clone, f, "Prompter.feedback:#3") == "kept "


def test_a_field_holding_a_nested_fstring_reads_as_a_numbered_field_and_its_texts_with_at(clone):
    f = "agent/prompts.py"
    outer = read(clone, f, "Prompter.listing:prompt")
    inner = read(clone, f, "Prompter.listing:prompt@1")
    assert outer == "Look at {self.name}.{#1} Then act." and inner == " It holds {items}."

    class Me:
        name = "the shelf"

    self = Me()
    for items in ("a key", ""):
        expected = f"Look at {self.name}.{f' It holds {items}.' if items else ''} Then act."
        nested = fill(inner, {"items": items}) if items else ""
        assert fill(outer, {"self.name": self.name, "#1": nested}) == expected
    with pytest.raises(ConfigError, match="has 2 string literals inside its fields, not 3"):
        read(clone, f, "Prompter.listing:prompt@3")


def test_class_bodies_resolve_their_own_names_and_other_classes_attributes(clone):
    f = "agent/prompts.py"
    assert read(clone, f, "Composed.EXTRA") == "Base rules. More rules."
    assert read(clone, f, "Composed.BOTH") == "plain and Base rules. More rules."
    assert read(clone, f, "Composed:#2") == " More rules."  # literals of a class body, in order


def test_containers_and_indexing(clone):
    f = "agent/prompts.py"
    assert read(clone, f, "PARTS[0]") == "one"
    assert read(clone, f, "PARTS[1]") == "two {HEADER}"  # an f-string's field stays a field, never evaluated
    assert read(clone, f, "PARTS[2][k]") == "v {x}"
    assert read(clone, "levels/one.json", "texts.intro.1") == "second {n}"
    assert read(clone, "README.txt", "") == "whole file\n"


@pytest.mark.parametrize(
    ("file", "symbol", "says"),
    [
        ("agent/missing.py", "X", "the file is missing"),
        ("agent/prompts.py", "NOPE", "assignments to 'NOPE'"),
        ("agent/prompts.py", "Nobody.turn:text", "no class or function 'Nobody'"),
        ("agent/prompts.py", "Prompter.feedback:#9", "has 6 string literals, not 9"),
        ("agent/prompts.py", "Prompter.wrapped:return", "dedent() of an f-string"),
        ("agent/prompts.py", "PARTS[7]", "has no item 7"),
        ("levels/one.json", "texts.outro", "has no key 'outro'"),
        ("README.txt", "x", "only .py and .json files have symbols"),
    ],
)
def test_a_text_the_clone_lacks_is_an_error_naming_file_and_symbol(clone, file, symbol, says):
    with pytest.raises(ConfigError) as exc:
        TextSource(clone).text(TextRef("the_id", file, symbol))
    message = str(exc.value)
    assert says in message and file in message and "the_id" in message and "toy-original@0123456" in message
    if symbol:
        assert symbol in message


def test_a_file_that_does_not_parse_is_named(clone):
    (clone.path / "agent" / "broken.py").write_text("def (:\n")
    with pytest.raises(ConfigError, match=r"agent/broken.py: X: does not parse as Python"):
        TextSource(clone).text(TextRef("t", "agent/broken.py", "X"))


def test_nothing_is_executed(clone, tmp_path):
    marker = tmp_path / "ran"
    (clone.path / "agent" / "evil.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nTEXT = 'safe'\n"
    )
    assert read(clone, "agent/evil.py", "TEXT") == "safe"
    assert not marker.exists()


# --- filling -------------------------------------------------------------------------------------------


def test_fill_takes_positional_values_and_names_a_missing_field():
    assert fill("{} and {}; {0}", args=("a", "b")) == "a and b; a"
    with pytest.raises(ConfigError, match=r"text 'turn': the original's field \{where\} has no value"):
        fill("at {where}", {"other": 1}, "turn")


def test_fill_never_follows_attributes_or_indexes():
    class Secret:
        token = "s3cret"

    with pytest.raises(ConfigError, match=r"\{x.token\} has no value"):
        fill("{x.token}", {"x": Secret()})


# --- the clone's commit --------------------------------------------------------------------------------


def test_head_commit_reads_detached_refs_packed_refs_and_worktrees(tmp_path):
    a, b = "a" * 40, "b" * 40
    detached = tmp_path / "d"
    (detached / ".git").mkdir(parents=True)
    (detached / ".git" / "HEAD").write_text(a + "\n")
    assert head_commit(detached) == a
    ref = tmp_path / "r"
    (ref / ".git" / "refs" / "heads").mkdir(parents=True)
    (ref / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ref / ".git" / "refs" / "heads" / "main").write_text(b + "\n")
    assert head_commit(ref) == b
    packed = tmp_path / "p"
    (packed / ".git").mkdir(parents=True)
    (packed / ".git" / "HEAD").write_text("ref: refs/heads/dev\n")
    (packed / ".git" / "packed-refs").write_text(f"# pack-refs\n{a} refs/heads/dev\n")
    assert head_commit(packed) == a
    worktree = tmp_path / "w"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {detached / '.git'}\n")
    assert head_commit(worktree) == a
    assert head_commit(tmp_path / "nothing") is None


# --- options at plan time ----------------------------------------------------------------------------------

USE = OriginalsUse(repo="toy-original", data={"levels": "levels"})


def test_without_a_clone_texts_are_ours_with_one_notice(monkeypatch, tmp_path):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "empty"))
    options, notices = resolve_options(USE, {"levels": None})
    assert options["texts"] == "ours" and options["levels"] is None
    assert len(notices) == 1 and "no clone of https://example.invalid/toy-original" in notices[0]
    with pytest.raises(ConfigError, match="no clone of .*run `playbench originals fetch`"):
        resolve_options(USE, {"texts": "original"})


def test_with_a_clone_texts_are_original_and_data_defaults_to_it(monkeypatch, clone):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.path.parent))
    options, notices = resolve_options(USE, {"levels": None})
    assert notices == []
    assert options == {
        "levels": str(clone.path / "levels"),
        "texts": "original",
        "originals": str(clone.path),
    }
    mine, _ = resolve_options(USE, {"levels": "/my/levels", "texts": "ours"}, {"levels", "texts"})
    assert mine["levels"] == "/my/levels" and mine["texts"] == "ours"


def test_a_clone_at_another_commit_is_used_and_said(monkeypatch, tmp_path):
    path = make_clone(tmp_path / "o" / "toy-original", commit="f" * 40)
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(path.parent))
    options, notices = resolve_options(USE, {})
    assert options["texts"] == "original"
    assert len(notices) == 1 and "is at fffffff, not 0123456" in notices[0]
    assert find_clone("toy-original").stamp == "original@fffffff"


# --- a run: texts reach the model, the stamp is recorded ----------------------------------------------------


def _run(out: Path, **options) -> dict:
    replies = out.parent / f"{out.name}-replies.txt"
    replies.write_text("left\nright\n")
    config = RunConfig(
        tasks=["toy/texts"],
        agents={"*": AgentSpec("llm", model=f"mock:{replies}")},
        out=str(out),
        episodes=1,
        task_options=options,
    )
    import asyncio

    asyncio.run(execute(config))
    return json.loads((out / "config.json").read_text())


def _first_request(out: Path) -> list[dict]:
    from playbench.runner.reader import RunReader

    reader = RunReader(out)
    record = reader.records()[0]
    return reader.calls(record)[0][0]["request"]["messages"]


def test_a_run_sends_the_clone_texts_and_stamps_them(monkeypatch, clone, tmp_path):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.path.parent))
    config = _run(tmp_path / "run")
    assert config["fidelity"]["toy/texts"] == {
        "texts": "original@0123456",
        "data": "original@0123456",
        "model_side": "playbench defaults",
    }
    assert config["task_options_resolved"]["toy/texts"]["texts"] == "original"
    messages = _first_request(tmp_path / "run")
    text = json.dumps(messages)
    assert "Walk to the mark." in text and "You stand at" in text
    run = load_run(str(tmp_path / "run"))
    section = "\n".join(fidelity_markdown([run]))
    assert "| run | toy/texts | original@0123456 | original@0123456 | playbench defaults |" in section
    assert "mix" not in section


def test_without_a_clone_a_run_sends_ours_and_a_report_mixing_stamps_says_so(monkeypatch, clone, tmp_path):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "none"))
    config = _run(tmp_path / "ours")
    assert config["fidelity"]["toy/texts"]["texts"] == "ours"
    assert "Walk to the mark." not in json.dumps(_first_request(tmp_path / "ours"))
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.path.parent))
    _run(tmp_path / "theirs")
    runs = [load_run(str(tmp_path / "ours")), load_run(str(tmp_path / "theirs"))]
    assert "These results mix fidelity stamps** (texts, data differ)" in "\n".join(fidelity_markdown(runs))


def test_a_missing_text_fails_before_the_first_episode(monkeypatch, clone, tmp_path):
    (clone.path / "agent" / "prompts.py").write_text("OTHER = 'x'\n")
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(clone.path.parent))
    config = RunConfig(tasks=["toy/texts"], agents={"*": AgentSpec("random")}, out=str(tmp_path / "r"))
    with pytest.raises(ConfigError, match=r"agent/prompts.py: INSTRUCTIONS: has 0 assignments"):
        plan_run(config)


def test_the_run_header_prints_the_notice_and_the_stamp(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "none"))
    replies = tmp_path / "replies.txt"
    replies.write_text("left\n")
    argv = ["run", "toy/texts", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "2"]
    code = main([*argv, "--out", str(tmp_path / "r"), "--temperature", "0.5"])
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("notice: texts: playbench's paraphrases for toy") == 1
    assert "fidelity of toy/texts: texts ours · data ours · model side user (temperature)" in err
    main(["run", "toy/texts", "--agent", "random", "--episodes", "1", "--out", str(tmp_path / "b")])
    assert "fidelity of" not in capsys.readouterr().err  # a baseline read no text


# --- `playbench originals`: status and fetch -----------------------------------------------------------------


def test_status_says_absent_incomplete_and_ok(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "o"
    folder.mkdir()
    rows = {r.repo.name: r for r in status(folder)}
    assert not rows["toy-original"].present
    make_clone(folder / "toy-original")
    shutil.rmtree(folder / "toy-original" / "levels")
    row = {r.repo.name: r for r in status(folder)}["toy-original"]
    assert row.present and row.missing == ["levels"] and not row.ok
    (folder / "toy-original" / "levels").mkdir()
    row = {r.repo.name: r for r in status(folder)}["toy-original"]
    assert row.ok and row.commit == TOY_COMMIT
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(folder))
    assert main(["originals"]) == 0
    out = capsys.readouterr().out
    assert f"originals folder: {folder}" in out
    assert "toy-original" in out and "OK" in out and "2/2 texts" in out


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_fetch_clones_a_repository_at_its_pinned_commit_and_status_is_ok(monkeypatch, tmp_path, capsys):
    upstream = make_clone(tmp_path / "upstream")
    shutil.rmtree(upstream / ".git")
    _git("init", "-q", cwd=upstream)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A", cwd=upstream)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "pinned", cwd=upstream)
    pinned = _git("rev-parse", "HEAD", cwd=upstream)
    (upstream / "later.txt").write_text("a later commit the suite does not name\n")
    _git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A", cwd=upstream)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "later", cwd=upstream)
    import playbench.core.originals as originals

    repo = originals.OriginalRepo(**{**TOY_REPO.__dict__, "commit": pinned})
    monkeypatch.setitem(originals._REPOS, "toy-original", repo)
    folder = tmp_path / "folder"
    args = ["originals", "fetch", "toy-original", "--dir", str(folder), "--url", f"toy-original={upstream}"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"toy-original: at {pinned[:7]}" in out and "OK" in out
    assert head_commit(folder / "toy-original") == pinned
    assert not (folder / "toy-original" / "later.txt").exists()
    assert main(args) == 0
    assert "already at" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_large_repository_is_fetched_with_only_the_paths_it_needs(monkeypatch, tmp_path, capsys):
    upstream = make_clone(tmp_path / "upstream")
    shutil.rmtree(upstream / ".git")
    (upstream / "big").mkdir()
    (upstream / "big" / "weights.bin").write_bytes(b"0" * 1000)
    _git("init", "-q", cwd=upstream)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A", cwd=upstream)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "pinned", cwd=upstream)
    pinned = _git("rev-parse", "HEAD", cwd=upstream)
    import playbench.core.originals as originals

    repo = originals.OriginalRepo(**{**TOY_REPO.__dict__, "commit": pinned, "sparse": True})
    monkeypatch.setitem(originals._REPOS, "toy-original", repo)
    folder = tmp_path / "folder"
    url = f"file://{upstream}"
    assert (
        main(["originals", "fetch", "toy-original", "--dir", str(folder), "--url", f"toy-original={url}"])
        == 0
    )
    clone = folder / "toy-original"
    assert (clone / "agent" / "prompts.py").is_file() and (clone / "levels" / "one.json").is_file()
    assert not (clone / "big").exists() and not (clone / "README.txt").exists()
    assert "OK" in capsys.readouterr().out


def test_fetch_without_the_network_is_one_clear_error_and_leaves_nothing(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "folder"
    code = main(
        [
            "originals",
            "fetch",
            "toy-original",
            "--dir",
            str(folder),
            "--url",
            f"toy-original={tmp_path / 'nowhere'}",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("playbench: error: toy-original: cannot clone") and err.count("\n") == 1
    assert not (folder / "toy-original").exists()


def test_fetch_names_an_unknown_repository(tmp_path, capsys):
    assert main(["originals", "fetch", "nope", "--dir", str(tmp_path)]) == 2
    assert "no original repository named nope" in capsys.readouterr().err


def test_a_data_option_naming_a_whole_clone_is_the_texts_clone(monkeypatch, clone, tmp_path):
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(tmp_path / "none"))
    use = OriginalsUse(repo="toy-original", data={"source": ""})
    options, notices = resolve_options(use, {"source": str(clone.path)}, {"source"})
    assert options["texts"] == "original" and options["originals"] == str(clone.path) and notices == []
    ours, _ = resolve_options(use, {"source": str(clone.path), "texts": "ours"}, {"source", "texts"})
    assert ours["texts"] == "ours" and ours.get("originals") is None
    shutil.rmtree(clone.path / ".git")  # a folder of the data alone is not the texts' clone
    data_only, notices = resolve_options(use, {"source": str(clone.path)}, {"source"})
    assert data_only["texts"] == "ours" and data_only.get("originals") is None and len(notices) == 1


def test_texts_option_is_refused_where_a_task_has_none(tmp_path):
    config = RunConfig(
        tasks=["toy/walk"],
        agents={"*": AgentSpec("random")},
        out=str(tmp_path / "r"),
        task_options={"texts": "ours"},
    )
    with pytest.raises(ConfigError, match="texts"):
        plan_run(config)


def test_dedent_reference():  # the reading of GREETING above matches Python's own
    assert textwrap.dedent("\n    Hello there,\n      walker.\n") == "\nHello there,\n  walker.\n"


# --- a task's own conversation (`Observation.turns`) ------------------------------------------------------


def test_an_observation_with_turns_is_sent_as_that_conversation_and_no_window_is_kept():
    import asyncio

    from playbench.agents.llm import LLMAgent
    from playbench.core.task import EpisodeContext
    from playbench.core.types import Observation, TextPart, Turn, Usage
    from playbench.models.base import ModelResponse

    sent = []

    class Recorder:
        async def generate(self, messages, params):
            sent.append(messages)
            return ModelResponse(text="ok", usage=Usage())

    agent = LLMAgent(Recorder(), {"history": "all"})
    asyncio.run(agent.reset(EpisodeContext("toy/walk", "i", "player", 0, 0)))
    turns = [Turn("user", [TextPart("state 1")]), Turn("assistant", [TextPart("move 1")])]
    obs = Observation(role="player", parts=[TextPart("state 2")], instructions="rules", turns=turns)
    asyncio.run(agent.act(obs))
    asyncio.run(
        agent.act(Observation(role="player", parts=[TextPart("state 3")], instructions="rules", turns=[]))
    )
    first = [(m.role, [p.text for p in m.parts]) for m in sent[0]]
    assert first == [
        ("system", ["rules"]),
        ("user", ["state 1"]),
        ("assistant", ["move 1"]),
        ("user", ["state 2"]),
    ]
    second = [(m.role, [p.text for p in m.parts]) for m in sent[1]]
    assert second == [("system", ["rules"]), ("user", ["state 3"])]  # no window of its own beside the task's

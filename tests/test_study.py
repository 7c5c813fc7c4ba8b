"""Human studies (issue 31): the design (balance, counterbalanced order), the study folder and its CLI,
a participant's whole path over HTTP (consent, episodes one by one, a break, the records as
`human:<pseudonym>`), the report's "Humans (this study)" row beside the paper's, and `export
--drop-pseudonyms`. The helpers here (a study of real tasks, a participant played over HTTP) serve
the security and load suites too."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the study server needs the 'web' extra")
from fastapi.testclient import TestClient  # noqa: E402

from playbench.cli import main  # noqa: E402
from playbench.core.errors import ConfigError  # noqa: E402
from playbench.core.registry import get_spec  # noqa: E402
from playbench.runner.reader import RunReader  # noqa: E402
from playbench.study import design  # noqa: E402
from playbench.study.app import create_study_app  # noqa: E402
from playbench.study.auth import Limits  # noqa: E402
from playbench.study.config import create_study, load_study  # noqa: E402

TASKS = ["ivispar/sgp", "comma/wire", "ivispar/stp"]
EXPERT = "Tell me what you see, one line at a time."


def make_study(root: Path, instances: int = 2, per: int = 2, people: int = 3, tasks=None, **extra):
    """A study of real tasks; COMMA's expert seat is a mock model (its replies from a file)."""
    replies = root / "expert.txt"
    replies.write_text(EXPERT + "\n")
    tasks = tasks or TASKS
    kwargs = {"seat": "solver", "partner_model": f"mock:{replies}"} if "comma/wire" in tasks else {}
    return create_study(str(root / "study"), tasks, instances, per, people, **{**kwargs, **extra})


def solution_moves(task_id: str, instance: dict) -> list[str]:
    """What a person who knows the answer types, move by move, in the human seat."""
    spec = get_spec(task_id)
    if "solution" in instance:
        cls = spec.load_class()
        return [cls.solution_reply(m) for m in instance["solution"]]
    task = spec.make()  # COMMA: ask first, then cut what the oracle would cut after the expert's reply
    task.reset(task.coerce_instance(instance))
    task.step(task.oracle_action("solver"))
    task.step(task.oracle_action("expert"))
    return ["What should I do?", task.oracle_action("solver")]


def field(html: str, name: str) -> str | None:
    found = re.search(rf'name={name} value="([^"]*)"', html)
    return found.group(1) if found else None


class Participant:
    """A person with a link, played over HTTP with any client that has `get`/`post` (TestClient, httpx);
    `answers(slot) -> list[str]` gives the moves. `step()` does one thing and says what it did."""

    def __init__(self, client, link: str, plan, instances, answers=None) -> None:
        self.client, self.link, self.plan, self.instances = client, link, plan, instances
        self.answers = answers or (
            lambda slot: solution_moves(slot.task, instances[slot.task][slot.instance_id])
        )
        self.seen: list[str] = []  # every response body, for the leak search

    def get(self, url: str, **kw):
        r = self.client.get(url, **kw)
        self.seen.append(r.text)
        return r

    def post(self, url: str, data: dict, **kw):
        r = self.client.post(url, data=data, **kw)
        self.seen.append(r.text)
        return r

    def open_link(self) -> None:
        assert self.get(f"/p/{self.link}").status_code == 200  # the link token, as `study create` made it

    def step(self) -> str:
        page = self.get("/")
        assert page.status_code == 200, page.text[:300]
        html = page.text
        csrf = field(html, "csrf")
        if 'data-testid="all-done"' in html:
            return "done"
        if 'data-testid="agree"' in html:
            assert self.post("/consent", {"csrf": csrf}).status_code == 200
            return "consented"
        if 'data-testid="start"' in html:
            assert self.post("/start", {"csrf": csrf}).status_code == 200
            return "started"
        sid = re.search(r'data-sid="([^"]+)"', html).group(1)
        finished = int(re.search(r"(\d+) finished", html).group(1))
        if 'data-testid="finished"' in html:
            return "finished"
        move = field(html, "move")
        if move is None:  # the partner is thinking, or the game is being set up
            version = re.search(r'data-version="(\d+)"', html).group(1)
            self.get(f"/play/s/{sid}/wait", params={"since": version})
            return "waited"
        slot = self.plan.slots[finished]
        text = self.answers(slot)[int(move)]
        r = self.post(
            f"/play/s/{sid}/act",
            {"csrf": csrf, "seat": field(html, "seat"), "move": move, "action_text": text, "send": "1"},
            headers={"Accept": "application/json"},
        )
        assert r.status_code in (200, 409), r.text[:300]  # 409: the page was stale (answered again)
        return "moved"

    def play_all(self, limit: int = 400) -> None:
        for _ in range(limit):
            if self.step() == "done":
                return
        raise AssertionError("the participant did not finish")


FAST = Limits(rate=1000.0, burst=10_000)  # the functional tests play faster than any person


def study_client(study_dir: Path, **kw) -> TestClient:
    kw.setdefault("limits", FAST)
    return TestClient(create_study_app(study_dir, allowed_hosts={"testserver"}, **kw))


def participants(study, links, client_for) -> list[Participant]:
    from playbench.study.config import user_options

    instances = {}
    routed = study.routed_options()
    for tid in study.config.tasks:
        spec = get_spec(tid)
        task = spec.make(**user_options(spec, routed[tid]))
        instances[tid] = {
            i.id: i.model_dump(mode="json")
            for i in task.instances(len(study.config.instances[tid]), study.config.seed)
        }
    # the same instances the server builds (it checks their digest when it starts)
    return [
        Participant(client_for(name), link, study.config.plan(name), instances)
        for name, link in links.items()
    ]


# --------------------------------------------------------------------------------------------- design
@pytest.mark.parametrize(
    "units,per,people", [(36, 6, 6), (36, 12, 6), (6, 4, 3), (10, 5, 4), (9, 3, 6), (4, 4, 2)]
)
def test_every_instance_is_played_by_the_same_number_of_people(units, per, people):
    instances = {"a": [f"a{i}" for i in range(units // 2)], "b": [f"b{i}" for i in range(units - units // 2)]}
    plans = design.assign(instances, per, people)
    counts = Counter((s.task, s.instance_id) for plan in plans for s in plan)
    assert len(counts) == units and set(counts.values()) == {people * per // units}
    for plan in plans:
        assert len({(s.task, s.instance_id) for s in plan}) == per  # never one instance twice
        assert sorted(s.position for s in plan) == list(range(per))
        tasks = Counter(s.task for s in plan)  # spread over the tasks as evenly as K allows
        assert max(tasks.values()) - min(tasks.get(t, 0) for t in instances) <= 1
    trials = {}
    for plan in plans:
        for s in plan:
            trials.setdefault((s.task, s.instance_id), []).append(s.trial)
    assert all(sorted(t) == list(range(len(t))) for t in trials.values())  # distinct trial numbers


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_the_order_is_a_williams_design(n):
    rows = [design.williams_row(n, r) for r in range(n if n % 2 == 0 else 2 * n)]
    for position in range(n):  # every block index at every position equally often
        assert Counter(row[position] for row in rows) == Counter({i: len(rows) // n for i in range(n)})
    follows = Counter((row[i], row[i + 1]) for row in rows for i in range(n - 1))
    assert set(follows.values()) == {len(rows) // n}  # first-order carry-over balance
    assert len(follows) == n * (n - 1)


def test_an_unbalanced_design_is_refused_naming_what_works():
    with pytest.raises(ConfigError) as err:
        design.assign({"a": [str(i) for i in range(36)]}, 5, 6)
    assert "30 episodes cannot cover the 36 instances" in str(err.value)
    assert "--per-participant 6 or 12" in str(err.value)
    with pytest.raises(ConfigError, match="more than the study's 4 instances"):
        design.assign({"a": ["1", "2", "3", "4"]}, 5, 4)


# --------------------------------------------------------------------------------------- the folder
def test_study_create_prints_links_once_and_keeps_only_hashes(tmp_path, capsys):
    consent = tmp_path / "consent.txt"
    consent.write_text("We ask for your consent.\n\nSecond paragraph <b>here</b>.")
    out = tmp_path / "s"
    code = main(
        ["study", "create", "--tasks", "ivispar/sgp", "ivispar/stp", "--instances", "3", "--per-participant", "2",
         "--participants", "3", "--out", str(out), "--consent", str(consent), "--time-limit", "600",
         "--base-url", "https://study.example.org"]
    )  # fmt: skip
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    links = dict(line.split("\t")[:2] for line in lines)
    assert set(links) == {"p01", "p02", "p03", "admin"}
    assert all(
        re.fullmatch(r"https://study\.example\.org/p/[A-Za-z0-9_-]{32}", links[p]) for p in ("p01", "p02")
    )
    stored = "".join(p.read_text() for p in out.iterdir() if p.is_file())
    assert not any(link.rsplit("/", 1)[-1] in stored for link in links.values())  # no secret in clear
    assert oct((out / "access.json").stat().st_mode & 0o777) == "0o600"
    config = load_study(out).config
    assert config.plays_per_instance == 1 and config.time_limit_s == 600 and "<b>here</b>" in config.consent
    # a new link replaces the old one
    assert main(["study", "link", str(out), "--participant", "p02"]) == 0
    new = capsys.readouterr().out.split("\t")[1].strip()
    assert new.rsplit("/", 1)[1] != links["p02"].rsplit("/", 1)[1]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--tasks", "nope/x"], "nope/x"),
        (["--tasks", "comma/wire"], "give --partner-model"),
        (["--tasks", "comma/wire", "--partner", "oracle", "--seat", "pilot"], "--seat pilot"),
        (["--tasks", "comma/wire", "--partner", "human"], "--partner human"),
        (["--tasks", "ivispar/sgp", "--partner-model", "openai:gpt-4o"], "have one role each"),
        (["--tasks", "ivispar/sgp", "--time-limit", "0"], "--time-limit must be a positive"),
        (["--tasks", "ivispar/sgp", "--consent", "/no/such/file"], "/no/such/file"),
        (["--tasks", "ivispar/sgp", "--per-participant", "1", "--participants", "3"], "cannot cover"),
    ],
)
def test_bad_input_is_one_clear_message(tmp_path, capsys, args, message):
    base = ["study", "create", "--instances", "2", "--per-participant", "2", "--participants", "2"]
    base += ["--out", str(tmp_path / "s")]
    merged = base + args
    for option in ("--per-participant", "--participants"):
        if option in args:  # the case's own value wins
            i = merged.index(option)
            del merged[i : i + 2]
    assert main(merged) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_folder_that_is_not_a_study_is_named(tmp_path, capsys):
    assert main(["study", "status", str(tmp_path)]) == 2
    assert "is not a study folder" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ a whole study
@pytest.fixture(scope="module")
def finished_study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    study, links, admin = make_study(root, instances=2, per=2, people=3)
    with study_client(study.dir) as client:
        people = participants(study, links, lambda name: client)
        for person in people:
            client.cookies.clear()
            person.open_link()
            # a break after the first episode: the same link brings the person back to episode 2
            while "1 finished" not in person.get("/").text:
                person.step()
            client.cookies.clear()
            person.open_link()
            assert "Episode 2 of 2" in person.get("/").text
            person.play_all()
    return study, links, admin, people


def test_every_episode_is_recorded_once_as_the_persons_seat(finished_study):
    study, _, _, _ = finished_study
    records = RunReader(study.run_dir).records()
    planned = {(s.task, s.instance_id, s.trial): p.pseudonym for p in study.config.plans for s in p.slots}
    assert {(r["task"], r["instance_id"], r["trial"]) for r in records} == set(planned)
    assert len(records) == len(planned) == 6
    for r in records:
        seat = "solver" if r["task"] == "comma/wire" else "player"
        assert r["roles"][seat] == f"human:{planned[(r['task'], r['instance_id'], r['trial'])]}"
        assert r["success"] and r["error"] is None
    lines = (study.run_dir / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 6  # nothing doubled
    config = json.loads((study.run_dir / "config.json").read_text())
    assert config["source"] == "study" and config["study"]["partner"].startswith("llm(mock:")
    assert not list(study.run_dir.glob("unfinished/*.json"))  # no journal left


def test_the_report_shows_the_study_row_beside_the_papers_human_rows(finished_study, tmp_path):
    study, _, _, _ = finished_study
    assert main(["report", str(study.run_dir), "--out", str(tmp_path / "rep")]) == 0
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "**Humans (this study)**" in report  # iVISPAR Table 2, text column
    table2 = report.split("### Table 2: Completed episodes")[1].split("###")[0]
    assert "Human (3D; section 4.2" in table2 and "| **Humans (this study)** | 100.00" in table2
    assert "Humans (this study): solver = human, other seat = llm(mock:" in report  # COMMA Table 1
    comma = report.split("### Table 1: Average partial success rate")[1].split("###")[0]
    assert "Human / GPT4o" in comma and "GPT4o / Human" in comma
    beside = report.split("## Beside the paper")[1].split("\n## ")[0]
    assert "human:p0" not in beside  # the paper's tables pool the participants


def test_export_drops_the_pseudonyms_on_request(finished_study, tmp_path):
    pytest.importorskip("pyarrow")
    study, _, _, _ = finished_study
    out = tmp_path / "anon"
    assert (
        main(["export", str(study.run_dir), "--format", "parquet", "--out", str(out), "--drop-pseudonyms"])
        == 0
    )
    text = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"human:p0" not in text and b'"solver": "human"' in text.replace(b'\\"', b'"')
    kept = tmp_path / "kept"
    assert main(["export", str(study.run_dir), "--format", "parquet", "--out", str(kept)]) == 0
    assert b"human:p0" in b"".join(p.read_bytes() for p in kept.rglob("*.parquet"))


def test_status_counts_what_is_recorded(finished_study, capsys):
    study, _, _, _ = finished_study
    assert main(["study", "status", str(study.dir)]) == 0
    out = capsys.readouterr().out
    assert "p01\t2/2\tconsented" in out and "total\t6/6" in out


def test_a_time_limit_ends_the_episode_and_it_counts(tmp_path):
    study, links, _ = make_study(
        tmp_path, instances=1, per=1, people=2, tasks=["ivispar/sgp"], time_limit=0.5
    )
    with study_client(study.dir) as client:
        (person, _) = participants(study, links, lambda name: client)
        person.open_link()
        person.step(), person.step()  # consent, start
        import time

        time.sleep(1.2)
        for _ in range(20):
            if person.step() in ("finished", "done"):
                break
        assert "Time is up" in person.get("/").text or 'data-testid="all-done"' in person.seen[-1]
    (record,) = RunReader(study.run_dir).records()
    assert record["termination"] == "agent_stopped" and not record["success"]

"""A study folder: `study.json` (the design: tasks, instances, seats, texts and every participant's
slots; no secret), `access.json` (mode 0600: the SHA-256 digests of the participants' links and of the
admin secret, and the key of the CSRF tokens), `consent.jsonl` (when each participant agreed) and
`run/`, the study's run directory (every episode of every participant, as seat `human:<pseudonym>`)."""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from playbench.agents import AgentSpec, parse_agent
from playbench.core.errors import ConfigError
from playbench.core.paths import readable_file, writable_dir
from playbench.core.registry import get_spec
from playbench.core.task import instance_set_digest
from playbench.study import design, tokens

STUDY_FILE = "study.json"
ACCESS_FILE = "access.json"
CONSENT_LOG = "consent.jsonl"
RUN_FOLDER = "run"
FORMAT = 1
MAX_TEXT_CHARS = 50_000

DEFAULT_CONSENT = (
    "You are invited to take part in a study of how people solve interactive puzzles. You will play a few "
    "short games in this browser. We record your moves and the time you take, under a pseudonym; no name, "
    "e-mail or address is asked for or stored. Taking part is voluntary and you may stop at any time by "
    "closing this page. Press 'I agree' to take part."
)
DEFAULT_INSTRUCTIONS = (
    "You will play your assigned games one after another. Each game shows exactly what an AI model is "
    "shown: read its instructions, then reply with buttons or by typing your move as the game asks. You may "
    "take a break between games, or in the middle of one: open your personal link again later and you "
    "continue where you stopped. Please do not share your link: it is yours alone."
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SlotData(_Strict):
    task: str
    instance_id: str
    trial: int
    position: int


class Plan(_Strict):
    pseudonym: str
    slots: list[SlotData]


class StudyConfig(_Strict):
    playbench_study: int = FORMAT
    title: str
    tasks: list[str]
    task_options: dict[str, Any]  # the --set values, routed to the tasks as `playbench run` routes them
    seed: int
    instances: dict[str, list[str]]  # task -> the instance ids of the study, in the set's order
    digests: dict[str, str]  # task -> digest of its instance set, checked when the study is served
    per_participant: int
    participants: int
    plays_per_instance: int
    seat: str | None = None  # the person's seat in a task with several roles
    partner: str | None = None  # the agent in the other seat(s)
    partner_model: str | None = None
    time_limit_s: float | None = None  # per episode
    consent: str
    instructions: str
    created: str
    plans: list[Plan]

    def partner_spec(self) -> AgentSpec | None:
        if self.partner is None:
            return None
        return AgentSpec(self.partner, self.partner_model)

    def seats(self, roles: tuple[str, ...], pseudonym: str) -> dict[str, AgentSpec]:
        """Every role's agent in a game of `pseudonym`: the person in their seat, the partner elsewhere."""
        human = AgentSpec(f"human:{pseudonym}")
        if len(roles) == 1:
            return {roles[0]: human}
        seat = self.seat or roles[0]
        partner = self.partner_spec()
        assert partner is not None  # checked when the study was made
        return {role: human if role == seat else partner for role in roles}

    def plan(self, pseudonym: str) -> Plan | None:
        return next((p for p in self.plans if p.pseudonym == pseudonym), None)


@dataclass
class Study:
    dir: Path
    config: StudyConfig
    access: dict[str, Any]

    @property
    def run_dir(self) -> Path:
        return self.dir / RUN_FOLDER

    def routed_options(self) -> dict[str, dict[str, Any]]:
        from playbench.runner.run import options_for_tasks

        return options_for_tasks([get_spec(t) for t in self.config.tasks], self.config.task_options)

    def participant_digests(self) -> dict[str, str]:
        return dict(self.access["participants"])


def user_options(spec: Any, routed: dict[str, Any]) -> dict[str, Any]:
    """The options a study sets on top of the task's registered ones (what `spec.make` takes)."""
    return {k: v for k, v in routed.items() if k not in spec.options or spec.options[k] != v}


def _read_text(path: str | None, what: str, default: str) -> str:
    if path is None:
        return default
    file = readable_file(path, what)
    try:
        text = file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} '{path}' cannot be read as UTF-8 text: {exc}") from None
    if not text:
        raise ConfigError(f"{what} '{path}' is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise ConfigError(f"{what} '{path}' is longer than {MAX_TEXT_CHARS} characters")
    return text


def _check_partner(
    tasks: dict[str, Any], seat: str | None, partner: str | None, partner_model: str | None
) -> tuple[str | None, str | None]:
    """The partner agent (None when every task has one role); every problem one ConfigError."""
    from playbench.web.play import partner_choices

    multi = {tid: task for tid, task in tasks.items() if len(task.roles) > 1}
    if partner is None and partner_model:
        partner = "llm"
    if not multi:
        if partner is not None or seat is not None:
            raise ConfigError(
                f"--partner/--partner-model/--seat are for tasks with several roles; {', '.join(tasks)} "
                "have one role each"
            )
        return None, None
    if partner is None:
        raise ConfigError(
            f"{', '.join(multi)} {'has' if len(multi) == 1 else 'have'} two roles: give --partner-model "
            "provider:model (or --partner AGENT) for the seat the person does not take"
        )
    for tid, task in multi.items():
        if seat is not None and seat not in task.roles:
            raise ConfigError(f"--seat {seat}: {tid} has the roles {', '.join(task.roles)}")
        offered = [a for a in partner_choices(tid) if a != "human"]
        if partner.split(":", 1)[0] not in offered:
            raise ConfigError(f"--partner {partner} cannot sit in {tid} (choose one of {', '.join(offered)})")
        if partner == "oracle" and not task.has_oracle():
            raise ConfigError(f"--partner oracle: {tid} has no oracle")
    parse_agent(partner, partner_model)  # a model-driven agent needs its model, and so on
    return partner, partner_model


def create_study(
    out: str,
    tasks: list[str],
    instances: int,
    per_participant: int,
    participants: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    seat: str | None = None,
    partner: str | None = None,
    partner_model: str | None = None,
    time_limit: float | None = None,
    consent_file: str | None = None,
    instructions_file: str | None = None,
    title: str | None = None,
) -> tuple[Study, dict[str, str], str]:
    """Make a study folder; returns it, every participant's link token and the admin secret (the only
    time they exist in clear: the folder keeps their digests)."""
    from playbench.runner.run import options_for_tasks

    if not tasks:
        raise ConfigError("--tasks needs at least one task")
    duplicates = sorted({t for t in tasks if tasks.count(t) > 1})
    if duplicates:
        raise ConfigError(f"--tasks names {', '.join(duplicates)} more than once")
    if instances < 1:
        raise ConfigError(f"--instances must be at least 1 (got {instances})")
    if time_limit is not None and not time_limit > 0:
        raise ConfigError(f"--time-limit must be a positive number of seconds (got {time_limit})")
    folder = writable_dir(out, "--out")
    if folder.exists() and any(folder.iterdir()):
        raise ConfigError(f"--out '{out}' exists and is not empty (a study gets a folder of its own)")
    specs = [get_spec(t) for t in tasks]
    routed = options_for_tasks(specs, dict(options or {}))
    made = {spec.id: spec.make(**user_options(spec, routed[spec.id])) for spec in specs}
    chosen: dict[str, list[str]] = {}
    digests: dict[str, str] = {}
    for tid, task in made.items():
        found = task.instances(instances, seed)
        if len(found) < instances:
            raise ConfigError(
                f"{tid} has only {len(found)} instances for seed {seed} (--instances {instances})"
            )
        chosen[tid] = [i.id for i in found[:instances]]
        digests[tid] = instance_set_digest(found[:instances])
    partner, partner_model = _check_partner(made, seat, partner, partner_model)
    slots = design.assign(chosen, per_participant, participants)
    names = design.pseudonyms(participants)
    config = StudyConfig(
        title=title or f"playbench study: {', '.join(tasks)}",
        tasks=list(tasks),
        task_options=dict(options or {}),
        seed=seed,
        instances=chosen,
        digests=digests,
        per_participant=per_participant,
        participants=participants,
        plays_per_instance=participants * per_participant // sum(len(v) for v in chosen.values()),
        seat=seat,
        partner=partner,
        partner_model=partner_model,
        time_limit_s=time_limit,
        consent=_read_text(consent_file, "--consent file", DEFAULT_CONSENT),
        instructions=_read_text(instructions_file, "--instructions file", DEFAULT_INSTRUCTIONS),
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        plans=[
            Plan(pseudonym=name, slots=[SlotData(**vars(s)) for s in plan])
            for name, plan in zip(names, slots, strict=True)
        ],
    )
    links = {name: tokens.new_token() for name in names}
    admin = tokens.new_token(tokens.ADMIN_BYTES)
    access = {
        "key": secrets.token_hex(32),
        "admin": tokens.digest(admin),
        "participants": {name: tokens.digest(token) for name, token in links.items()},
    }
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / STUDY_FILE, config.model_dump(mode="json"), private=False)
    _write(folder / ACCESS_FILE, access, private=True)
    (folder / RUN_FOLDER).mkdir()
    return Study(folder, config, access), links, admin


def _write(path: Path, data: dict[str, Any], private: bool) -> None:
    """Write JSON atomically; a private file is created with mode 0600 from the start."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    os.replace(tmp, path)


def load_study(path: str | Path) -> Study:
    folder = Path(path).expanduser()
    file = folder / STUDY_FILE
    if not file.is_file():
        raise ConfigError(
            f"'{path}' is not a study folder (no {STUDY_FILE}; make one with playbench study create)"
        )
    try:
        config = StudyConfig.model_validate(json.loads(file.read_text(encoding="utf-8")))
        access = json.loads((folder / ACCESS_FILE).read_text(encoding="utf-8"))
        if not isinstance(access, dict) or not {"key", "admin", "participants"} <= set(access):
            raise ValueError(f"{ACCESS_FILE} lacks key, admin or participants")
    except (OSError, ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"study folder '{path}' is damaged: {first}") from None
    if config.playbench_study > FORMAT:
        raise ConfigError(
            f"study folder '{path}' was made by a newer playbench (format {config.playbench_study})"
        )
    return Study(folder, config, access)


def reissue(study: Study, who: str) -> str:
    """A new link token for participant `who`, or a new admin secret for `who == "admin"`; the old one
    stops working at the server's next request (access.json is re-read when it changes)."""
    access = dict(study.access)
    if who == "admin":
        secret = tokens.new_token(tokens.ADMIN_BYTES)
        access["admin"] = tokens.digest(secret)
    else:
        if who not in access["participants"]:
            raise ConfigError(
                f"no participant '{who}' in this study (participants: {', '.join(access['participants'])})"
            )
        secret = tokens.new_token()
        access["participants"] = {**access["participants"], who: tokens.digest(secret)}
    _write(study.dir / ACCESS_FILE, access, private=True)
    study.access = access
    return secret


def consented(study: Study) -> dict[str, str]:
    """Pseudonym -> when they agreed (the first time), from consent.jsonl."""
    out: dict[str, str] = {}
    try:
        lines = (study.dir / CONSENT_LOG).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return out
    for line in lines:
        try:
            entry = json.loads(line)
            out.setdefault(str(entry["pseudonym"]), str(entry["at"]))
        except (ValueError, KeyError, TypeError):
            continue  # a line cut by a crash
    return out


def record_consent(study: Study, pseudonym: str) -> str:
    at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    line = json.dumps({"pseudonym": pseudonym, "at": at}) + "\n"
    fd = os.open(study.dir / CONSENT_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    return at

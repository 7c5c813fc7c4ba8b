"""The `playbench` command line's grammar: every subcommand, its options, their types and help.

`cli.py` runs the commands; this file only describes them (`build_parser`)."""

from __future__ import annotations

import argparse
from typing import NoReturn

from playbench.models.base import REASONING_EFFORTS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, as every usage error
        self.exit(2, f"playbench: error: {message}\n")


def _add_task_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="task option (repeatable); 'task/id:key=value' sets it for one task only",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="playbench", description="Interactive benchmarks for LLMs, VLMs and humans.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    lst = sub.add_parser("list", help="tasks, agents and model providers")
    lst.add_argument(
        "--digests",
        action="store_true",
        help="print each task id with the digest of its default instance set (seed 0) instead",
    )

    check = sub.add_parser("check", help="run the task-protocol conformance check on tasks")
    check.add_argument("tasks", nargs="+", metavar="TASK", help="task ids, or a suite name for its tasks")
    check.add_argument("--sample", type=int, default=6, help="instances per per-step check (default 6)")
    check.add_argument("--fuzz", type=int, default=40, help="random replies per fuzz check (default 40)")

    run = sub.add_parser("run", help="run episodes and write a run directory (or a sweep from a file)")
    run.add_argument(
        "tasks",
        nargs="*",
        metavar="TASK",
        help="task ids, or a suite name for all its tasks (not with --config)",
    )
    run.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="a sweep file (YAML or TOML): a grid over models, seeds, task and agent options, one run per cell",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the episodes, model calls, tokens and cost each run would take, and run nothing",
    )
    _add_run_options(run, agent_required=False, agent_note="required unless --config gives it")

    inst = sub.add_parser("instances", help="print a task's instances as JSONL")
    inst.add_argument("task", metavar="TASK")
    inst.add_argument("-n", type=int, default=None, help="how many (default: the task's default set)")
    inst.add_argument("--seed", type=int, default=0)
    _add_task_options(inst)

    rep = sub.add_parser("report", help="tables (terminal, Markdown, CSV) from run directories")
    rep.add_argument("dirs", nargs="+", metavar="DIR")
    rep.add_argument(
        "--out", default=None, help="where report.md/.csv/.json go (default: the only DIR, or ./report)"
    )
    rep.add_argument("--html", default=None, metavar="FILE", help="also write one self-contained HTML report")
    rep.add_argument(
        "--site",
        default=None,
        metavar="OUT",
        help="also write a static leaderboard site to the folder OUT (index.html; a new, empty or earlier site folder)",
    )

    serve = sub.add_parser("serve", help="web app: play in the browser, replay trajectories, compare runs")
    serve.add_argument(
        "--runs",
        action="append",
        default=None,
        metavar="DIR",
        help="run directory to browse (repeatable; default: ./runs); browser plays are recorded under the first",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: this machine only)"
    )
    serve.add_argument("--port", type=int, default=8000)

    play = sub.add_parser("play", help="play a task yourself in the terminal")
    play.add_argument("task", metavar="TASK")
    play.add_argument("--instance", default=None, help="instance id (default: the first of the set)")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--out", default="runs/play")
    play.add_argument(
        "--seat", default=None, metavar="ROLE", help="your role in a multi-role task (default: all)"
    )
    play.add_argument("--partner", default="human", help="agent in the other seats (default: human)")
    play.add_argument("--partner-model", default=None, help="model of a model-driven partner")
    _add_task_options(play)

    repro = sub.add_parser(
        "reproduce", help="run a suite's paper preset and report beside the paper's published numbers"
    )
    repro.add_argument(
        "suite",
        metavar="SUITE",
        help="a suite with a paper preset (playbench list), or 'all': every preset into one folder and one scorecard",
    )
    repro.add_argument(
        "--dry-run",
        action="store_true",
        help="print the preset's episodes, model calls, tokens and cost, and run nothing (no API key needed)",
    )
    _add_run_options(
        repro,
        agent_required=False,
        out_help="run directory (default: runs/reproduce-<suite>-<agent>[-<model>]-s<seed>)",
    )

    from playbench.cli_probe import add_parser as add_probe_parser

    add_probe_parser(sub, _add_run_options)

    from playbench.cli_originals import add_parser as add_originals_parser

    add_originals_parser(sub)

    from playbench.cli_export import add_parser as add_export_parser

    add_export_parser(sub)

    from playbench.cli_study import add_parser as add_study_parser

    add_study_parser(sub, serve)

    quick = sub.add_parser("quickstart", help="every task with the oracle and random agents, then a report")
    quick.add_argument("--episodes", type=int, default=10)
    quick.add_argument("--seed", type=int, default=0)
    quick.add_argument("--out", default="runs/quickstart")
    quick.add_argument("--concurrency", type=int, default=4)
    return parser


def _add_run_options(
    run: argparse.ArgumentParser,
    agent_required: bool = True,
    agent_note: str = "default: the preset's (the paper's) agent",
    out_help: str = "run directory (default: runs/<tasks>-<agent>[-<model>]-s<seed>)",
) -> None:
    run.add_argument(
        "--agent",
        required=agent_required,
        default=None,
        help="random | oracle | replay:FILE | human | llm | a suite's agent (playbench list)"
        + ("" if agent_required else f"; {agent_note}"),
    )
    run.add_argument(
        "--model",
        action="append",
        default=None,
        help="provider:model for the llm agent, e.g. openai:gpt-4o; repeat it to sweep several models",
    )
    run.add_argument(
        "--episodes", type=int, default=None, help="instances per task (default: the task's set)"
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--trials", type=int, default=1, help="runs per instance")
    run.add_argument("--out", default=None, help=out_help)
    run.add_argument("--concurrency", type=int, default=1, help="episodes in flight at once")
    run.add_argument(
        "--executor",
        default="local",
        help="local (asyncio in this process), processes (worker processes on this machine) or ray",
    )
    run.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for --executor processes (default: the machine's cores)",
    )
    run.add_argument("--ray-address", default=None, help="Ray cluster to join (default: start a local one)")
    _add_task_options(run)
    r = run.add_argument_group("other seats and helper models")
    r.add_argument(
        "--expert-agent", default=None, help="agent in the 'expert' seat of two-role tasks (COMMA)"
    )
    r.add_argument("--expert-model", default=None, help="model of a model-driven expert agent")
    r.add_argument(
        "--judge-model",
        default=None,
        help="model that judges episodes of tasks with a judge step (sets their option judge=true)",
    )
    r.add_argument(
        "--captioner-model", default=None, help="vision model that describes images for a text-only --model"
    )
    r.add_argument(
        "--agent-opt",
        dest="agent_opts",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="option of a suite's own agent (repeatable; see `playbench list`)",
    )
    g = run.add_argument_group("llm agent")
    g.add_argument(
        "--history",
        type=_history,
        default=None,
        metavar="K|all",
        help="earlier exchanges kept in a real chat; 'all' keeps every one (default: the paper's, else 0)",
    )
    g.add_argument("--no-cot", action="store_true", help="ask for the action line only, no reasoning")
    g.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="sampling temperature (default: the paper's, else the provider's)",
    )
    g.add_argument(
        "--top-p",
        type=float,
        default=None,
        help="nucleus sampling (default: the paper's, else the provider's)",
    )
    g.add_argument(
        "--max-tokens",
        type=_max_tokens,
        default=None,
        metavar="N|none",
        help="cap on the visible answer; 'none' sends no cap (default: the paper's, else 1024)",
    )
    g.add_argument(
        "--reasoning-effort",
        choices=REASONING_EFFORTS,
        default=None,
        help="ask a reasoning model for this effort (OpenAI reasoning_effort, Anthropic thinking, Gemini thinking)",
    )
    g.add_argument(
        "--reasoning-tokens",
        type=int,
        default=None,
        metavar="N",
        help="thinking budget in tokens, added to the answer cap (Anthropic budget_tokens, Gemini thinking_budget)",
    )
    g.add_argument(
        "--extra-body",
        default=None,
        metavar="JSON",
        help="a JSON object merged into every request body (a provider's own fields)",
    )
    g.add_argument(
        "--image-format",
        choices=("png", "jpeg"),
        default=None,
        help="how images are sent (default: the paper's, else png)",
    )
    g.add_argument(
        "--image-detail",
        choices=("low", "high", "auto"),
        default=None,
        help="OpenAI's image detail (default: the paper's, else none sent)",
    )
    m = run.add_argument_group("model backend")
    m.add_argument(
        "--base-url", default=None, help="OpenAI-compatible server (vLLM, SGLang, Ollama); or OPENAI_BASE_URL"
    )
    m.add_argument("--model-concurrency", type=int, default=8, help="requests in flight per model")
    m.add_argument("--max-retries", type=int, default=5)
    m.add_argument("--retry-delay", type=float, default=1.0, help="first backoff delay in seconds (doubles)")
    m.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    m.add_argument(
        "--prices", default=None, help="JSON file of USD per million tokens overriding the built-in table"
    )
    m.add_argument(
        "--batch",
        action="store_true",
        help="send model calls through OpenAI's / Anthropic's batch APIs (half price, answers within hours; "
        "resumable from the run directory's batches.jsonl)",
    )
    m.add_argument(
        "--transport",
        choices=("lean", "sdk"),
        default=None,
        help="how OpenAI-compatible requests travel: lean (playbench's HTTP client) or sdk (the openai SDK); "
        "default: lean for a --base-url server, the SDK for the provider's own API",
    )
    m.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="USD",
        help="stop starting episodes (and abandon a call) that would take this command's spending past USD; "
        "exit status 3; the same command again continues",
    )
    m.add_argument(
        "--cache",
        nargs="?",
        const="~/.cache/playbench/responses.sqlite",
        default=None,
        metavar="PATH",
        help="reuse model responses from an SQLite cache (default path when no PATH is given)",
    )
    o = run.add_argument_group("output")
    o.add_argument(
        "--no-images", action="store_true", help="do not save observation images beside trajectories"
    )
    o.add_argument(
        "--no-calls",
        action="store_true",
        help="do not write each episode's model calls (requests and responses) beside its trajectory",
    )
    o.add_argument(
        "--keep-errors",
        action="store_true",
        help="on resume, keep episodes that ended with an error instead of running them again",
    )
    o.add_argument(
        "--max-error-rate",
        type=float,
        default=0.0,
        metavar="R",
        help="exit with status 1 when more than this share of the episodes ended with an error (default 0)",
    )


def _history(text: str) -> int | str:
    if text.strip().lower() == "all":
        return "all"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or all (got {text!r})") from None


def _max_tokens(text: str) -> int | str:
    if text.strip().lower() == "none":
        return "none"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or none (got {text!r})") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or none (got {text!r})")
    return value

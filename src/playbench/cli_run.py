"""`playbench run` and sweeps from a file: the run configurations from the command line (shared with the
other run commands), then running them; what is printed around a run is in `cli_run_report.py`."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from playbench.cli_run_report import (
    _print_results,
    check_error_rate,
    err_console,
    error_summary,
    execute_with_progress,
    print_model_side,
    print_plan,
)
from playbench.core.errors import ConfigError
from playbench.core.registry import parse_assignments, resolve


def _agent_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.history is not None:
        options["history"] = args.history
    if args.no_cot:
        options["cot"] = False
    for key in MODEL_FLAGS:
        if getattr(args, key, None) is not None:
            options[key] = getattr(args, key)
    return options


# the llm options the command line sets by their own flags (`--top-p` is top_p ...)
MODEL_FLAGS = (
    "temperature",
    "top_p",
    "max_tokens",
    "reasoning_effort",
    "reasoning_tokens",
    "extra_body",
    "image_format",
    "image_detail",
)


def _seat_agents(args: argparse.Namespace, main: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The agents for every seat and the task options the extra seats imply."""
    from playbench.agents import parse_agent

    agents: dict[str, Any] = {"*": main}
    task_options: dict[str, Any] = {}
    if args.expert_model and not args.expert_agent:
        raise ConfigError("--expert-model needs --expert-agent (e.g. --expert-agent llm)")
    if args.expert_agent:
        uses_model = args.expert_model is not None
        agents["expert"] = parse_agent(
            args.expert_agent, args.expert_model, _agent_options(args) if uses_model else {}
        )
    if args.judge_model:
        # temperature 0 unless the task declares the judge's settings (core/model_side.ROLE_FALLBACKS)
        agents["judge"] = parse_agent("llm", args.judge_model, {})
        judged = [s.id for s in resolve(args.tasks) if "judge" in s.load_class().Config.model_fields]
        if not judged:
            raise ConfigError("--judge-model: none of the selected tasks has a judge step")
        task_options.update({f"{task_id}:judge": True for task_id in judged})
    return agents, task_options


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def _default_out(agent: str, model: str | None, seed: int, tasks: list[str] | None = None) -> str:
    """`runs/<tasks>-<agent>[-<model>]-s<seed>`: what ran names the folder, so two commands on different
    tasks never share one (`ivispar_sgp`, a suite's name, or `<first>-and-N-more`)."""
    label = ""
    if tasks:
        label = tasks[0] if len(tasks) == 1 else f"{tasks[0]}-and-{len(tasks) - 1}-more"
        label = _slug(label) + "-"
    return f"runs/{label}{_slug(agent if model is None else f'{agent}-{model}')}-s{seed}"


def _load_prices(path: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    from playbench.core.paths import readable_file
    from playbench.models import load_prices

    return load_prices(str(readable_file(path, "--prices file")))


def _executor_options(args: argparse.Namespace) -> dict[str, Any]:
    workers = getattr(args, "workers", None)
    if workers is not None and args.executor != "processes":
        raise ConfigError(f"--workers is for --executor processes (got --executor {args.executor})")
    if args.executor == "ray":
        return {"address": args.ray_address}
    if args.executor == "processes" and workers is not None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1 (got {workers})")
        return {"workers": workers}
    return {}


def make_run_configs(args: argparse.Namespace) -> list[Any]:
    """One RunConfig, or one per `--model` value (a sweep), each in its own directory."""
    from playbench.agents import parse_agent
    from playbench.runner.model_pool import ModelSettings
    from playbench.runner.run import RunConfig

    models: list[str | None] = list(dict.fromkeys(args.model)) if args.model else [None]
    if len(models) > 1 and args.agent in {"random", "oracle", "human"}:
        raise ConfigError("several --model values need a model-driven --agent")
    from playbench.core.paths import writable_file

    cache = str(writable_file(args.cache, "--cache file")) if args.cache else None
    settings = ModelSettings(
        base_url=args.base_url,
        concurrency=args.model_concurrency,
        max_retries=args.max_retries,
        retry_base_delay=args.retry_delay,
        timeout=args.timeout,
        prices=_load_prices(args.prices),
        cache_path=cache,
        transport=getattr(args, "transport", None),
    )
    max_cost = getattr(args, "max_cost", None)
    if max_cost is not None and not max_cost > 0:
        raise ConfigError(f"--max-cost must be a positive amount of USD (got {max_cost:g})")
    configs = []
    main_options = parse_assignments(args.agent_opts)
    # the model flags (--max-tokens, --temperature, ...) are the model-driven seats': with a random or
    # oracle --agent and a model as expert they go to the expert alone
    if models != [None] or not args.expert_model:
        main_options.update(_agent_options(args))
    if args.captioner_model:
        main_options["captioner"] = args.captioner_model
    from playbench.models import make_model, parse_spec, split_server
    from playbench.models.batch import BATCH_CONCURRENCY, check_spec

    batch = getattr(args, "batch", False)
    if batch and getattr(args, "executor", "local") != "local":
        raise ConfigError(f"--batch needs the local executor (got --executor {args.executor})")

    def check(spec: str) -> None:
        if batch:
            check_spec(spec)
        # fail fast on a bad spec or a missing key; a dry run needs no key (it calls no model)
        if getattr(args, "dry_run", False):
            parse_spec(split_server(spec)[0])
        else:
            make_model(spec, base_url=args.base_url)

    for extra in (args.expert_model, args.judge_model, args.captioner_model):
        if extra is not None:
            check(extra)
    for model in models:
        agent = parse_agent(args.agent, model, main_options)
        agents, seat_options = _seat_agents(args, agent)
        if model is not None:
            check(model)
        if len(models) == 1:
            out = args.out or _default_out(args.agent, model, args.seed, list(args.tasks))
            if args.out is None and args.expert_agent:
                out = (
                    out[: -len(f"-s{args.seed}")]
                    + _slug(f"+expert-{args.expert_agent}")
                    + (f"-{_slug(args.expert_model)}" if args.expert_model else "")
                    + f"-s{args.seed}"
                )
        else:
            out = str(Path(args.out or f"runs/sweep-s{args.seed}") / _slug(model or ""))
        configs.append(
            RunConfig(
                tasks=list(args.tasks),
                agents=agents,
                out=out,
                episodes=args.episodes,
                seed=args.seed,
                trials=args.trials,
                # a batch waits for every episode in flight: all of them are, unless --concurrency says
                concurrency=BATCH_CONCURRENCY if batch and args.concurrency == 1 else args.concurrency,
                executor=args.executor,
                executor_options=_executor_options(args),
                task_options={**parse_assignments(args.sets), **seat_options},
                models=settings,
                save_images=not args.no_images,
                save_calls=not args.no_calls,
                retry_errors=not args.keep_errors,
                max_cost=max_cost,
            )
        )
    if batch:  # one journal for the command: the run's directory, or a sweep's root
        settings.batch_dir = configs[0].out if len(configs) == 1 else str(Path(configs[0].out).parent)
    return configs


def cmd_run(args: argparse.Namespace, argv: list[str]) -> int:

    if args.config:
        return cmd_sweep(args, argv)
    if not args.tasks:
        raise ConfigError("playbench run needs TASK... (or --config FILE with a sweep)")
    if args.agent is None:
        raise ConfigError(
            "playbench run needs --agent (random, oracle, replay:FILE, human, llm or a suite's agent)"
        )
    resolve(args.tasks)
    max_rate = check_error_rate(args.max_error_rate)
    configs = make_run_configs(args)
    if args.dry_run:
        print_model_side(configs)
        print_plan(configs)
        return 0
    print_model_side(configs)
    summaries = execute_with_progress(configs, argv=["playbench", *argv])
    _print_results(configs)
    return error_summary(configs, summaries, max_rate)


def _cli_tokens(argv: list[str]) -> list[str]:
    """The `run` options given on the command line beside --config, without --config, --dry-run, --out."""
    out, skip = [], False
    for token in argv[1:] if argv and argv[0] == "run" else argv:
        if skip:
            skip = False
            continue
        name = token.split("=", 1)[0]
        if name in ("--config", "--out") and "=" not in token:
            skip = True
            continue
        if name in ("--config", "--out", "--dry-run"):
            continue
        out.append(token)
    return out


def cmd_sweep(args: argparse.Namespace, argv: list[str]) -> int:
    """`playbench run --config FILE`: every cell of the file's grid as its own run, run together
    (sharing `concurrency` episodes in flight and each provider's request budget), resumable."""
    from playbench.runner import sweep as sweeps

    if args.tasks:
        raise ConfigError("with --config the tasks come from the sweep file; drop " + " ".join(args.tasks))
    extra = _cli_tokens(argv)
    for name in ("--model", "--seed"):
        if any(t == name or t.startswith(name + "=") for t in extra):
            raise ConfigError(f"with --config the sweep file lists the {name[2:]}s; {name} cannot be added")
    plan = sweeps.load(args.config, out=args.out)
    from playbench.cli import build_parser  # the command line's own parser reads each cell's arguments

    parser = build_parser()
    configs, cell_args = [], []
    for cell in plan.cells:
        # the cell's own tasks and values; a command-line --set goes only to cells whose tasks have it
        tokens = ["run", *plan.cell_argv(cell, extra), "--out", str(plan.out / cell.name)]
        cell_namespace = parser.parse_args(tokens)
        if cell_namespace.agent is None:
            cell_namespace.agent = "llm"
        resolve(cell_namespace.tasks)
        check_error_rate(cell_namespace.max_error_rate)
        cell_namespace.dry_run = args.dry_run  # a planned sweep needs no API key either
        (config,) = make_run_configs(cell_namespace)
        configs.append(config)
        cell_args.append(cell_namespace)
    if getattr(args, "batch", False):  # the cells share one pool: one journal in the sweep's folder
        for config in configs:
            config.models.batch_dir = str(plan.out)
    names = [c.name for c in plan.cells]
    err_console.print(
        f"sweep {plan.path}: {len(plan.cells)} cell(s) into {plan.out}/ ({', '.join(names[:6])}"
        + (f", … {len(names) - 6} more" if len(names) > 6 else "")
        + ")",
        highlight=False,
    )
    if args.dry_run:
        print_plan(configs, names)
        return 0
    sweeps.write_plan(plan)
    concurrency = cell_args[0].concurrency
    summaries = execute_with_progress(
        configs, argv=["playbench", *argv], labels=names, shared_concurrency=concurrency
    )
    _print_results(configs)
    err_console.print(f"playbench report {plan.out} writes the report of the whole sweep", highlight=False)
    return error_summary(configs, summaries, cell_args[0].max_error_rate)

"""Plots from run directories (matplotlib, headless, byte-for-byte reproducible PNG files).

`write_plots(runs, out_dir)` splits the runs by suite (the task id's prefix before `/`) and hands
each suite's share to `playbench.tasks.<suite>.plots.make_plots(runs, out_dir)` when the suite has
such a module; any other suite gets one generic figure: success rate with Wilson 95% intervals per
task and agent. A figure that fails is reported on stderr and skipped: a report is never lost to a
plot.

Figures are built on `matplotlib.figure.Figure` directly rather than through `pyplot`, so no GUI
backend is ever selected, nothing global is touched and figures are freed with their last reference.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.style
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from playbench.core.errors import ConfigError
from playbench.core.loading import load_object
from playbench.core.metrics import N_BELOW_TWO, bootstrap_interval, wilson_interval

# Agents that are reference points rather than contestants: drawn last, after the models.
BASELINE_AGENTS: tuple[str, ...] = ("human", "random", "oracle")

# A fixed style instead of the user's matplotlibrc keeps files identical across machines.
_STYLE: dict[str, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.alpha": 0.3,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "svg.hashsalt": "playbench",
    "path.simplify": True,
}

PlotFn = Callable[[list[dict[str, Any]], Path], list[Path]]


# --- entry point ------------------------------------------------------------------------------
def write_plots(runs: list[dict[str, Any]], out_dir: str | Path, error_maps: bool = False) -> list[Path]:
    """Write every figure for `runs` (as returned by `report.tables.load_run`) into `out_dir`; with
    `error_maps`, also the error-map figures of the tasks that define progress (`report/error_plots.py`,
    which replays their episodes: `playbench report` asks for them)."""
    out = Path(out_dir)
    written: list[Path] = []
    runs, errored = scored_only(runs)
    if errored:
        warn(f"{errored} errored episode(s) are left out of the plots (missing, not failed)")
    by_suite = split_by_suite(runs)
    if not by_suite:
        return written
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # the tables are already written; losing the plots must not lose them
        warn(f"cannot create the plot directory {out}: {exc}; no plots written")
        return written
    with plot_style():
        for suite, suite_runs in by_suite.items():
            written += _suite_plots(suite, suite_runs, out)
        if error_maps:
            from playbench.report.error_plots import plot_groups

            written += guarded("error-map plots", plot_groups, runs, out) or []
    return written


def _suite_plots(suite: str, suite_runs: list[dict[str, Any]], out: Path) -> list[Path]:
    make = _suite_plotter(suite)
    if make is not None:
        paths = guarded(f"{suite} plots", make, suite_runs, out)
        if paths is not None:
            return paths
        # the suite's own figures failed as a whole: the generic one still says something
    return guarded(f"{suite} success plot", success_plot, suite_runs, out, suite) or []


def scored_only(runs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Shallow copies of the runs without their errored episodes, and how many were left out: an
    episode that ended with an error has no score, so no figure may draw it as one."""
    out, errored = [], 0
    for run in runs:
        records = [r for r in run.get("records", []) if not r.get("error")]
        errored += len(run.get("records", [])) - len(records)
        out.append({**run, "records": records})
    return out, errored


def split_by_suite(runs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per suite, shallow copies of the runs holding only that suite's records (runs may mix suites)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        suites = sorted({suite_of(r.get("task", "")) for r in run.get("records", [])})
        for suite in suites:
            records = [r for r in run["records"] if suite_of(r.get("task", "")) == suite]
            out.setdefault(suite, []).append({**run, "records": records})
    return dict(sorted(out.items()))


def suite_of(task_id: str) -> str:
    return task_id.split("/", 1)[0]


def _suite_plotter(suite: str) -> PlotFn | None:
    if not suite.isidentifier():
        return None
    name = f"playbench.tasks.{suite}.plots"
    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError as exc:
        # only "this suite has no plots module" means generic; a missing dependency inside it is a bug
        if exc.name is not None and name.startswith(exc.name):
            return None
        warn(f"cannot import {name}: {exc}; using the generic plot")
        return None
    except Exception as exc:
        warn(f"cannot import {name}: {type(exc).__name__}: {exc}; using the generic plot")
        return None
    if not found:
        return None
    try:
        make = load_object(f"{name}:make_plots", f"{suite} plots")
    except ConfigError as exc:  # a failed import inside the module, or no make_plots in it
        warn(f"{exc}; using the generic plot")
        return None
    except Exception as exc:
        warn(f"cannot import {name}: {type(exc).__name__}: {exc}; using the generic plot")
        return None
    return make if callable(make) else None


def warn(message: str) -> None:
    print(f"playbench: warning: {message}", file=sys.stderr)


def guarded(what: str, fn: Callable[..., list[Path]], *args: Any) -> list[Path] | None:
    """`fn(*args)`, or None with a warning on stderr if it raised."""
    try:
        return list(fn(*args))
    except Exception as exc:
        last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
        warn(f"{what} failed and was skipped: {type(exc).__name__}: {exc}{where}")
        return None


# --- figure helpers shared with the suites' plot modules -------------------------------------
@contextmanager
def plot_style() -> Iterator[None]:
    """matplotlib's defaults plus ours, whatever the user's matplotlibrc says.

    Artists read rcParams when they are created, so a figure must be built entirely inside.
    """
    with matplotlib.style.context(["default", _STYLE]):
        yield


def new_figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def save_png(fig: Figure, path: Path) -> Path:
    """Save without the Software tag (a matplotlib version) so equal data give equal bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", metadata={"Software": None})
    return path


def slug(text: str) -> str:
    """A file-name-safe form of a label: `llm(openai:gpt-4o)` -> `llm-openai-gpt-4o`."""
    return re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-.") or "unnamed"


def agent_label(record: dict[str, Any]) -> str:
    """The run's agent label, plus the model when the label does not already name it."""
    agent = str(record.get("agent") or "?")
    model = record.get("model")
    if model and str(model) not in agent:
        return f"{agent} ({model})"
    return agent


def order_labels(labels: Iterable[str]) -> list[str]:
    """Contestants alphabetically, then the baselines in `BASELINE_AGENTS` order."""
    labels = set(labels)

    def key(label: str) -> tuple[int, int, str]:
        base = label.split("(")[0].strip()
        if base in BASELINE_AGENTS:
            return (1, BASELINE_AGENTS.index(base), label)
        return (0, 0, label)

    return sorted(labels, key=key)


def proportion_ci(flags: Sequence[bool]) -> tuple[float, float, float]:
    """Share of true values with its Wilson 95% interval; NaNs when there is no data."""
    n = len(flags)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    k = sum(bool(f) for f in flags)
    lo, hi = wilson_interval(k, n)
    return (k / n, lo, hi)


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean with its percentile-bootstrap 95% interval (seeded), which stays between the smallest and
    the largest value and so inside the metric's range; NaNs when there is no data, and NaN bounds
    when there is one value (no interval: `grouped_bars` writes "n < 2" instead of a bar)."""
    if not values:
        return (math.nan, math.nan, math.nan)
    value = sum(values) / len(values)
    if len(values) < 2:
        return (value, math.nan, math.nan)
    lo, hi = bootstrap_interval(values)
    return (value, lo, hi)


def number(value: Any) -> float | None:
    """A metric value as a float, or None when it is missing or not a number."""
    if isinstance(value, bool | int | float) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return None


def grouped_bars(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[str],
    stats: dict[tuple[str, str], tuple[float, float, float]],
    colors: dict[str, Any] | None = None,
    value_format: str | None = None,
    hatches: dict[str, str] | None = None,
) -> None:
    """Bars of `stats[(group, series)] = (value, lo, hi)` with error bars, series side by side.

    A missing (group, series) leaves a gap, so every series keeps its slot in every group.
    """
    n = max(len(series), 1)
    width = 0.8 / n
    for k, name in enumerate(series):
        xs, ys, err_lo, err_hi, lone = [], [], [], [], []
        for g, group in enumerate(groups):
            stat = stats.get((group, name))
            if stat is None or math.isnan(stat[0]):
                continue
            value, lo, hi = stat
            xs.append(g - 0.4 + width * (k + 0.5))
            ys.append(value)
            err_lo.append(max(0.0, value - lo) if not math.isnan(lo) else 0.0)
            err_hi.append(max(0.0, hi - value) if not math.isnan(hi) else 0.0)
            if math.isnan(lo) or math.isnan(hi):
                lone.append((xs[-1], value))
        if not xs:
            continue
        for x, y in lone:  # no interval to draw: say why rather than draw a zero-width one
            ax.annotate(
                N_BELOW_TWO,
                (x, y),
                xytext=(0, -2 if y > 0 else 2),
                textcoords="offset points",
                ha="center",
                va="top" if y > 0 else "bottom",
                fontsize=6,
                rotation=90,
                color="#333333",
            )
        ax.bar(
            xs,
            ys,
            width=width * 0.92,
            label=name,
            color=(colors or {}).get(name),
            hatch=(hatches or {}).get(name),
            edgecolor="white" if not hatches else "black",
            linewidth=0.5,
            yerr=[err_lo, err_hi],
            capsize=min(4.0, 30.0 / n),
            error_kw={"elinewidth": 1.0, "ecolor": "#333333"},
        )
        if value_format is not None:
            # above the error bar's cap, where the label cannot collide with it
            for x, y, up in zip(xs, ys, err_hi, strict=True):
                ax.annotate(
                    value_format.format(y),
                    (x, y + up),
                    xytext=(0, 2),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    fontsize=7 if n <= 4 else 6,
                )
    ax.set_xticks(range(len(groups)))
    long_names = max((len(line) for g in groups for line in g.split("\n")), default=0) > 12
    ax.set_xticklabels(groups, rotation=20 if long_names else 0, ha="right" if long_names else "center")
    ax.set_xlim(-0.6, len(groups) - 0.4)


def palette(names: Sequence[str]) -> dict[str, Any]:
    """A stable colour per name (tab10, then tab20 when there are more than ten)."""
    cmap = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(names)}


# --- the generic figure -----------------------------------------------------------------------
def success_plot(runs: list[dict[str, Any]], out_dir: Path, suite: str) -> list[Path]:
    """Success rate (Wilson 95%) per task, one bar per agent/model: for suites without plots."""
    flags: dict[tuple[str, str], list[bool]] = {}
    for run in runs:
        for rec in run.get("records", []):
            flags.setdefault((rec.get("task", "?"), agent_label(rec)), []).append(bool(rec.get("success")))
    if not flags:
        return []
    with plot_style():
        return [_success_figure(flags, out_dir, suite)]


def _success_figure(flags: dict[tuple[str, str], list[bool]], out_dir: Path, suite: str) -> Path:
    tasks = sorted({t for t, _ in flags})
    agents = order_labels(a for _, a in flags)
    stats = {key: proportion_ci(v) for key, v in flags.items()}
    fig = new_figure(max(8.0, 2.5 + len(tasks) * (0.5 + 0.35 * len(agents))), 4.6)
    ax = fig.add_subplot()
    grouped_bars(
        ax,
        tasks,
        agents,
        {k: (v[0] * 100, v[1] * 100, v[2] * 100) for k, v in stats.items()},
        palette(agents),
        value_format="{:.0f}%",
    )
    ax.set_ylim(0, 112)
    ax.set_ylabel("success rate (%)")
    ax.set_xlabel("task")
    n_total = sum(len(v) for v in flags.values())
    fig.suptitle(
        f"{suite}: success rate per task and agent\n({n_total} episodes, 95% Wilson intervals)",
        fontweight="bold",
    )
    fig.legend(*ax.get_legend_handles_labels(), title="agent", loc="outside right upper")
    return save_png(fig, out_dir / f"{slug(suite)}_success.png")

"""Error maps over many episodes: per run, task, agent and model the share of episodes that ever left
every optimal path, the mean step of that first departure, wasted steps and the final distance (or
fraction), each with a 95% interval that treats the instance as the unit (`core.metrics`, as
summary.json); and per-instance paired gaps between modalities of the same instances (iVISPAR's
`sgp`, `sgp-2d`, `sgp-3d`), with paired intervals (`report.compare.paired_difference`).

Only episodes whose replay ran through and agreed with the record count (`EpisodeMap.usable`); the
others are counted as `diverged`. Errored episodes are missing, not failed (as everywhere).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from playbench.core.metrics import mean, proportion
from playbench.report.compare import p_text, paired_difference
from playbench.report.error_maps import MAX_EPISODES, EpisodeMap, Group, run_groups
from playbench.report.tables import _num, _pct


def groups_of(runs: list[dict[str, Any]]) -> list[Group]:
    """`run_groups(runs)`: the replays themselves are remembered in memory per episode
    (`error_maps.run_episode_map`), so report.md, error_maps.json and the plots share them."""
    return run_groups(runs)


def _units(maps: list[EpisodeMap]) -> list[str]:
    return [m.instance_id for m in maps]


def aggregate(group: Group) -> dict[str, Any]:
    """One group's error-map statistics (summary.json-style stat dicts)."""
    usable = [m for m in group.maps if m.usable]
    out: dict[str, Any] = {
        "run": group.run,
        "task": group.task,
        "agent": group.agent,
        "model": group.model,
        "modality": group.modality,
        "episodes": len(usable),
        "instances": len({m.instance_id for m in usable}),
        "diverged": len(group.maps) - len(usable),
        "skipped": group.skipped,
        "errored": group.errored,
    }
    dist = [m for m in usable if m.has_distance and m.final_distance is not None]
    if dist:
        departed = [m for m in dist if m.first_departure is not None]
        out["left_optimal_path"] = proportion([m.first_departure is not None for m in dist], _units(dist))
        out["first_departure_step"] = mean(
            [float(m.first_departure["step"]) for m in departed if m.first_departure], units=_units(departed)
        )
        wasted = [m for m in dist if m.wasted_steps is not None]
        out["wasted_steps"] = mean([float(m.wasted_steps or 0) for m in wasted], units=_units(wasted))
        out["start_distance"] = mean([float(m.start_distance or 0) for m in dist], units=_units(dist))
        out["final_distance"] = mean([float(m.final_distance or 0) for m in dist], units=_units(dist))
    frac = [m for m in usable if m.final_fraction is not None]
    if frac:
        out["final_fraction"] = mean([float(m.final_fraction or 0) for m in frac], units=_units(frac))
    return out


def _per_instance(group: Group) -> tuple[dict[str, float], dict[str, float]]:
    """Per instance of the group's usable episodes: the success rate and the mean final distance."""
    success: dict[str, list[float]] = {}
    distance: dict[str, list[float]] = {}
    for record, m in zip(group.records, group.maps, strict=True):
        if not m.usable:
            continue
        success.setdefault(m.instance_id, []).append(float(bool(record.get("success"))))
        if m.final_distance is not None:
            distance.setdefault(m.instance_id, []).append(float(m.final_distance))
    return (
        {k: sum(v) / len(v) for k, v in success.items()},
        {k: sum(v) / len(v) for k, v in distance.items()},
    )


def modality_gaps(groups: list[Group]) -> list[dict[str, Any]]:
    """Every two groups that play the same game (the same task class, agent and model) in different
    modalities, over the instances both replayed: success A − B and final distance A − B, paired by
    instance, with bootstrap 95% intervals and exact sign tests."""
    out = []
    names_clash = len({g.run for g in groups}) > 1
    for a, b in combinations(groups, 2):
        same_game = (a.entry_point, a.agent, a.model) == (b.entry_point, b.agent, b.model)
        if not same_game or (a.modality, a.task) == (b.modality, b.task) or a.modality == b.modality:
            continue
        sa, da = _per_instance(a)
        sb, db = _per_instance(b)
        shared = sorted(set(sa) & set(sb))
        row: dict[str, Any] = {
            "agent": a.agent,
            "model": a.model,
            "a": f"{a.task} ({a.run})" if names_clash else a.task,
            "b": f"{b.task} ({b.run})" if names_clash else b.task,
            "modality_a": a.modality,
            "modality_b": b.modality,
            "shared": len(shared),
        }
        if not shared:
            out.append({**row, "note": "no shared instance"})
            continue
        row["success"] = paired_difference(sa, sb, shared)
        both = [i for i in shared if i in da and i in db]
        if both:
            row["final_distance"] = paired_difference(da, db, both)
        out.append(row)
    return out


def to_data(runs: list[dict[str, Any]], episodes: bool = True) -> dict[str, Any] | None:
    """error_maps.json: the aggregates, the modality gaps and (with `episodes`) every episode's map;
    None when no task of the runs defines progress."""
    groups = groups_of(runs)
    if not groups:
        return None
    data: dict[str, Any] = {
        "cap_per_task": MAX_EPISODES,
        "groups": [aggregate(g) for g in groups],
        "modality_gaps": modality_gaps(groups),
    }
    if episodes:
        data["episodes"] = [{"run": g.run, **m.to_dict()} for g in groups for m in g.maps]
    return data


DEFINITIONS = (
    "Each episode's actions are replayed through a fresh task and its `progress()` (the oracle's distance "
    "to the goal) is asked after every turn. An episode **left every optimal path** at the first move that "
    "changed the state without bringing the distance down by exactly the number of unit moves it made; "
    "invalid and unparseable actions are wasted steps but never departures. **Wasted steps** = moves taken − "
    "(distance at the start − distance at the end): 0 for an optimal play, 2 for one move off the path and "
    "back. Means carry bootstrap (share: Wilson) 95% intervals with the instance as the unit; the first "
    "departure step is over the episodes that departed. Only episodes without an error whose replay agreed "
    f"with the record count; at most {MAX_EPISODES} episodes per run and task are replayed."
)


def _cell(stat: Any) -> str:
    return _num(stat) if isinstance(stat, dict) else "–"


def _gap_text(stat: dict[str, Any] | None, scale: float, unit: str) -> str:
    if not stat:
        return "–"
    ci = stat.get("ci95")
    interval = f"[{scale * ci[0]:+.2f}, {scale * ci[1]:+.2f}]" if ci else f"({stat.get('note', '–')})"
    return f"{scale * stat['difference']:+.2f}{unit} {interval}"


def to_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """report.md's "Error maps" section (nothing when no task of the runs defines progress)."""
    groups = groups_of(runs)
    if not groups:
        return []
    lines = [
        "",
        "## Error maps",
        "",
        DEFINITIONS,
        "",
        "| group | episodes (instances) | left every optimal path | first departure step | wasted steps | "
        "start distance | final distance | final fraction |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for g in groups:
        agg = aggregate(g)
        label = g.label.replace("|", "\\|")
        lines.append(
            f"| {label} | {agg['episodes']} ({agg['instances']}) | "
            f"{_pct(agg['left_optimal_path']) if 'left_optimal_path' in agg else '–'} | "
            f"{_cell(agg.get('first_departure_step'))} | {_cell(agg.get('wasted_steps'))} | "
            f"{_cell(agg.get('start_distance'))} | {_cell(agg.get('final_distance'))} | "
            f"{_cell(agg.get('final_fraction'))} |"
        )
        if agg["diverged"]:
            first = next((w for m in g.maps for w in m.warnings), "")
            notes.append(
                f"- {g.label}: {agg['diverged']} episode(s) left out, their replay disagreed ({first})"
            )
        if agg["skipped"]:
            notes.append(
                f"- {g.label}: {agg['skipped']} episode(s) over the cap of {MAX_EPISODES} not replayed"
            )
    if notes:
        lines += ["", *notes]
    gaps = [row for row in modality_gaps(groups) if "success" in row]
    if gaps:
        lines += [
            "",
            "### Modality gaps (paired over shared instances)",
            "",
            "The same instances in two modalities, each instance's trials averaged first: success A − B in "
            "percentage points and final distance A − B in moves, each with a bootstrap 95% interval, the "
            "instances each side did better on, and the exact two-sided sign test.",
            "",
            "| agent | A | B | shared | success A − B | A / B better | p | final distance A − B | "
            "A / B closer | p |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in gaps:
            s, d = row["success"], row.get("final_distance")
            who = row["agent"] + (f" · {row['model']}" if row.get("model") else "")
            dist_cells = (
                f"{_gap_text(d, 1, '')} | {d['b_better']} / {d['a_better']} | {p_text(d['p_value'])}"
                if d
                else "– | – | –"
            )
            lines.append(
                f"| {who} | {row['a']} | {row['b']} | {row['shared']} | {_gap_text(s, 100, ' pts')} | "
                f"{s['a_better']} / {s['b_better']} | {p_text(s['p_value'])} | {dist_cells} |"
            )
    return lines

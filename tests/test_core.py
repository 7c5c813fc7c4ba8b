import json
import math
import sys
import textwrap

import pytest

from playbench.core import registry
from playbench.core.errors import ConfigError
from playbench.core.metrics import aggregate_metrics, bootstrap_interval, t_interval, wilson_interval
from playbench.core.registry import get_spec, make_task, parse_assignments, resolve
from playbench.core.task import derive_seed


def test_registry_resolves_ids_suites_and_globs():
    ids = [s.id for s in resolve(["ivispar"])]
    assert "ivispar/sgp" in ids and "ivispar/sgp-2d" in ids
    every = [s.id for s in resolve(["ivispar/*"])]
    assert every == sorted(every) and set(ids) <= set(every)
    assert [s.id for s in resolve(["ivispar/*"]) if s.default] == ids
    assert [s.id for s in resolve(["ivispar/sgp", "ivispar/sgp"])] == ["ivispar/sgp"]


def test_a_bare_suite_runs_its_default_tasks_and_the_glob_runs_all():
    """`comma/all` and `visescape/rooms` play the instances of the per-puzzle and per-room ids, so the
    bare suite name runs the aggregate once; the ids and `suite/*` still reach every task."""
    assert [s.id for s in resolve(["comma"])] == ["comma/all"]
    assert [s.id for s in resolve(["visescape"])] == ["visescape/quiz-vqa", "visescape/rooms"]
    assert len(resolve(["comma/*"])) == 11 and len(resolve(["visescape/*"])) == 26  # + generated
    assert [s.id for s in resolve(["comma", "comma/wire"])] == ["comma/all", "comma/wire"]


def test_unknown_task_names_the_known_ones():
    with pytest.raises(ConfigError) as exc:
        get_spec("ivispar/nope")
    assert "ivispar/nope" in str(exc.value) and "ivispar/sgp" in str(exc.value)


def test_keyword_variants_and_overrides():
    assert make_task("ivispar/sgp-2d").config.modality == "2d"
    assert make_task("ivispar/sgp").config.modality == "text"
    assert make_task("toy/walk", length=3).config.length == 3  # a default is a default


def test_an_id_means_one_thing_its_defining_options_cannot_be_overridden():
    with pytest.raises(ConfigError) as exc:
        make_task("ivispar/sgp", modality="2d")
    message = str(exc.value)
    assert "modality" in message and "ivispar/sgp-2d" in message and "\n" not in message
    assert make_task("ivispar/sgp", modality="text").config.modality == "text"  # the same value is fine


def test_unknown_ids_suggest_the_closest_ones_not_every_id():
    with pytest.raises(ConfigError) as exc:
        make_task("ivispar/spg")
    message = str(exc.value)
    assert "ivispar/sgp" in message and "comma/wire" not in message


def test_bad_task_option_is_a_config_error_listing_accepted_options():
    with pytest.raises(ConfigError) as exc:
        make_task("toy/walk", lenght=3)
    assert "lenght" in str(exc.value) and "length" in str(exc.value)
    with pytest.raises(ConfigError) as exc:
        make_task("toy/walk", length="long")
    assert "length" in str(exc.value)


def test_register_rejects_bad_and_duplicate_ids():
    with pytest.raises(ValueError):
        registry.register("NoSlash", "x:y")
    with pytest.raises(ValueError):
        registry.register("toy/walk", "toy:WalkTask")


def test_entry_point_group_registers_third_party_tasks(tmp_path, monkeypatch):
    dist = tmp_path / "pbplugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pbplugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[playbench.tasks]\nplugin = pbplugin:register_all\n")
    (tmp_path / "pbplugin.py").write_text(
        textwrap.dedent(
            """
            from playbench.core.registry import register

            def register_all():
                register("plugin/walk", "toy:WalkTask", description="from a plugin", length=3)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_loaded", False)
    saved = dict(registry._REGISTRY)
    try:
        # the re-import below registers every built-in task again
        for task_id in [t for t in registry._REGISTRY if not t.startswith("toy/")]:
            registry._REGISTRY.pop(task_id)
        sys.modules.pop("playbench.tasks", None)
        task = make_task("plugin/walk")
        assert task.config.length == 3
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved)
        sys.modules.pop("pbplugin", None)


def test_parse_assignments_types_and_errors():
    got = parse_assignments(["a=1", "b=2.5", "c=true", "d=[4, 4]", "e=text", "f="])
    assert got == {"a": 1, "b": 2.5, "c": True, "d": [4, 4], "e": "text", "f": ""}
    with pytest.raises(ConfigError, match="key=value"):
        parse_assignments(["novalue"])


def test_derive_seed_is_stable_and_distinguishes_inputs():
    assert derive_seed("a", 1) == derive_seed("a", 1)
    assert derive_seed("a", 1) != derive_seed("a", 2)
    assert 0 <= derive_seed("x") < 2**63


def test_wilson_interval_properties():
    lo, hi = wilson_interval(5, 10)
    assert lo < 0.5 < hi and lo >= 0 and hi <= 1
    lo0, hi0 = wilson_interval(0, 10)
    assert lo0 == 0 and 0 < hi0 < 0.35
    lo1, hi1 = wilson_interval(10, 10)
    assert hi1 == 1 and 0.65 < lo1 < 1
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # more data, narrower interval
    assert wilson_interval(50, 100)[1] - wilson_interval(50, 100)[0] < hi - lo


def test_t_and_bootstrap_intervals():
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    lo, hi = t_interval(values)
    assert lo < 3 < hi
    assert t_interval([2.0]) == (2.0, 2.0)
    assert all(math.isnan(x) for x in t_interval([]))
    b1, b2 = bootstrap_interval(values), bootstrap_interval(values)
    assert b1 == b2 and b1[0] < 3 < b1[1]


def test_bootstrap_shares_its_resampling_between_metrics_without_changing_a_result():
    import numpy as np

    from playbench.core import metrics

    rng = np.random.default_rng(3)
    first, second = rng.integers(0, 20, 64).astype(float), rng.random(64)

    def fresh(values: np.ndarray) -> tuple[float, float]:  # the interval drawn without any sharing
        idx = np.random.default_rng(0).integers(
            0, values.size, size=(metrics.BOOTSTRAP_RESAMPLES, values.size)
        )
        lo, hi = np.quantile(values[idx].mean(axis=1), [0.025, 0.975])
        return (max(float(lo), float(values.min())), min(float(hi), float(values.max())))

    # equal up to float rounding (numpy's sums may round differently with memory alignment)
    for values in (first, second):  # the second metric over the same episodes uses the shared indices
        assert bootstrap_interval(values) == pytest.approx(fresh(values), rel=1e-12)
    shared = metrics._resample_indices(64, metrics.BOOTSTRAP_RESAMPLES, 0)
    assert shared is metrics._resample_indices(64, metrics.BOOTSTRAP_RESAMPLES, 0)
    assert not shared.flags.writeable  # shared: nobody may change it
    # a large sample: its indices drawn a chunk at a time, the same indices as all at once
    big = rng.random(5_000)
    assert big.size * metrics.BOOTSTRAP_RESAMPLES > metrics.RESAMPLE_CHUNK_ENTRIES
    chunked = metrics._resampled_means(big, metrics.BOOTSTRAP_RESAMPLES, 0)
    whole = big[np.random.default_rng(0).integers(0, big.size, size=(metrics.BOOTSTRAP_RESAMPLES, big.size))]
    assert chunked == pytest.approx(whole.mean(axis=1), rel=1e-12)
    assert bootstrap_interval(big) == pytest.approx(fresh(big), rel=1e-12)
    with pytest.raises(ValueError, match="drawn in chunks"):
        metrics._resample_indices(5_000, metrics.BOOTSTRAP_RESAMPLES, 0)


def test_finite_json_writes_nan_and_infinity_as_null_and_everything_else_as_json_dumps():
    from playbench.core.records import finite, finite_json

    clean = {"a": [1, 2.5, (3, "x")], "b": {"c": None, "d": True}, "e": "é"}
    assert finite_json(clean, ensure_ascii=False) == json.dumps(clean, ensure_ascii=False)
    dirty = {"a": [1.0, float("nan")], "b": {"c": float("inf"), "d": -float("inf")}, "t": (float("nan"),)}
    text = finite_json(dirty)
    assert json.loads(text) == {"a": [1.0, None], "b": {"c": None, "d": None}, "t": [None]}
    assert text == json.dumps(finite(dirty))
    assert "NaN" not in text and "Infinity" not in text


def test_aggregate_metrics_kinds():
    rows = [{"ok": True, "n": 2, "curve": [1, 2]}, {"ok": False, "n": 4, "curve": [0]}]
    agg = aggregate_metrics(rows)
    assert agg["ok"]["kind"] == "proportion" and agg["ok"]["value"] == 0.5
    assert agg["n"]["kind"] == "mean" and agg["n"]["value"] == 3.0
    assert "curve" not in agg
    json.dumps(agg)

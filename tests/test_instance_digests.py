"""The default instance set of every task is pinned: a refactor cannot silently change a benchmark."""

from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.registry import all_specs
from playbench.core.task import instance_set_digest

TABLE = Path(__file__).parent / "data" / "instance_digests.tsv"
PINNED = {
    row[0]: (int(row[1]), row[2])
    for row in (line.split("\t") for line in TABLE.read_text().splitlines() if not line.startswith("#"))
}
SPECS = [s for s in all_specs() if not s.id.startswith("toy/")]


def test_every_task_is_pinned():
    assert sorted(PINNED) == sorted(s.id for s in SPECS)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_default_instance_set_is_unchanged(spec):
    instances = spec.make().instances(None, 0)
    assert (len(instances), instance_set_digest(instances)) == PINNED[spec.id]


def test_digest_sees_any_change_of_an_instance():
    spec = next(s for s in SPECS if s.id == "ivispar/sgp")
    instances = spec.make().instances(3, 0)
    before = instance_set_digest(instances)
    instances[1].optimal_steps = (instances[1].optimal_steps or 0) + 1
    assert instance_set_digest(instances) != before
    assert instance_set_digest(list(reversed(instances))) != instance_set_digest(instances)


def test_list_digests_prints_the_pinned_table(capsys):
    assert main(["list", "--digests"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    printed = {r[0]: (int(r[1]), r[2]) for r in rows if not r[0].startswith("toy/")}
    assert printed == PINNED

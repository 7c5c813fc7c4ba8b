"""iVISPAR's task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register
from playbench.tasks.ivispar.originals import register as register_original

# the authors' repository the geom puzzle reads its texts from (texts=original)
register_original()

SGP = "playbench.tasks.ivispar.sgp:SlidingGeomTask"
# The modality defines each puzzle id: `--set modality=2d` on ivispar/sgp is refused and names
# ivispar/sgp-2d. On ivispar/board-inference and the tile task it is an option.
register(
    "ivispar/sgp",
    SGP,
    description="iVISPAR Sliding Geom Puzzle, text observations",
    fixed={"modality": "text"},
)
register(
    "ivispar/sgp-2d",
    SGP,
    description="iVISPAR Sliding Geom Puzzle, 2D top-down images",
    fixed={"modality": "2d"},
)
register(
    "ivispar/sgp-3d",
    SGP,
    description="iVISPAR Sliding Geom Puzzle, rendered 3D views",
    fixed={"modality": "3d"},
)
INFERENCE = "playbench.tasks.ivispar.inference:BoardInferenceTask"
register(
    "ivispar/board-inference",
    INFERENCE,
    description="iVISPAR auxiliary task: list every geom on a board image (2D; --set modality=3d)",
)
# The paper reports board-state inference per modality (Tables 2, 4, 5): one id per modality, for
# the paper preset, each pinned to its modality. Not in the suite's default tasks:
# `ivispar/board-inference` is that one.
register(
    "ivispar/board-inference-2d",
    INFERENCE,
    description="iVISPAR auxiliary task on 2D board images (the paper's per-modality runs)",
    default=False,
    fixed={"modality": "2d"},
)
register(
    "ivispar/board-inference-3d",
    INFERENCE,
    description="iVISPAR auxiliary task on rendered 3D board views (the paper's per-modality runs)",
    default=False,
    fixed={"modality": "3d"},
)
register(
    "ivispar/stp",
    "playbench.tasks.ivispar.stp:SlidingTileTask",
    description="classic numbered sliding tile puzzle (text; --set modality=2d or 3d)",
)

from playbench.core.preset import register_preset  # noqa: E402

# the paper's settings and its Tables 2 and 3, for `playbench reproduce ivispar`
register_preset("ivispar", "playbench.tasks.ivispar", "paper_preset.json")

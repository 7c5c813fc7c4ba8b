"""iVISPAR's task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register

SGP = "playbench.tasks.ivispar.sgp:SlidingGeomTask"
# The modality defines each puzzle id: `--set modality=2d` on ivispar/sgp is refused and names
# ivispar/sgp-2d. The board-inference and tile tasks have one id each, so there it is an option.
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
register(
    "ivispar/board-inference",
    "playbench.tasks.ivispar.inference:BoardInferenceTask",
    description="iVISPAR auxiliary task: list every geom on a board image",
)
register(
    "ivispar/stp",
    "playbench.tasks.ivispar.stp:SlidingTileTask",
    description="classic numbered sliding tile puzzle (text; --set modality=2d or 3d)",
)

from playbench.core.preset import register_preset  # noqa: E402

# the paper's settings and its Tables 2 and 3, for `playbench reproduce ivispar`
register_preset("ivispar", "playbench.tasks.ivispar", "paper_preset.json")

"""iVISPAR's task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register

SGP = "playbench.tasks.ivispar.sgp:SlidingGeomTask"
register("ivispar/sgp", SGP, description="iVISPAR Sliding Geom Puzzle, text observations", modality="text")
register("ivispar/sgp-2d", SGP, description="iVISPAR Sliding Geom Puzzle, 2D top-down images", modality="2d")
register("ivispar/sgp-3d", SGP, description="iVISPAR Sliding Geom Puzzle, rendered 3D views", modality="3d")
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

"""Built-in suites. Each suite lives in its own folder and registers its tasks here."""

from playbench.core.registry import register

register(
    "ivispar/sgp",
    "playbench.tasks.ivispar.sgp:SlidingGeomTask",
    description="iVISPAR Sliding Geom Puzzle, text observations",
    modality="text",
)
register(
    "ivispar/sgp-2d",
    "playbench.tasks.ivispar.sgp:SlidingGeomTask",
    description="iVISPAR Sliding Geom Puzzle, 2D top-down images",
    modality="2d",
)

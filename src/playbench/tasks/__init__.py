"""Built-in suites. Each suite lives in its own folder and registers its tasks here."""

from importlib.util import find_spec

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

# DEVELOPMENT GUARD: tasks whose modules are being written register once the module exists.
if find_spec("playbench.tasks.ivispar.render3d") is not None:
    register(
        "ivispar/sgp-3d",
        "playbench.tasks.ivispar.sgp:SlidingGeomTask",
        description="iVISPAR Sliding Geom Puzzle, rendered 3D views",
        modality="3d",
    )
if find_spec("playbench.tasks.ivispar.inference") is not None:
    register(
        "ivispar/board-inference",
        "playbench.tasks.ivispar.inference:BoardInferenceTask",
        description="iVISPAR auxiliary task: list every geom on a board image",
    )
if find_spec("playbench.tasks.ivispar.stp") is not None:
    register(
        "ivispar/stp",
        "playbench.tasks.ivispar.stp:SlidingTileTask",
        description="classic numbered sliding tile puzzle",
    )

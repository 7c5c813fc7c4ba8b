"""Task options and instance data of MM-Escape (plain JSON through pydantic)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from playbench.core.original_texts import TextsOptions
from playbench.core.task import Instance
from playbench.tasks.mmescape.chain import LEVELS, Chain

MULTI_ROOM = "multi-room"
PAPER = "paper"  # every public scene of the paper (one task), see paper.py for the per-level ids
TASK_LEVELS: tuple[str, ...] = (*LEVELS, MULTI_ROOM)
# The original's step caps (FACTS.md, the paper's Table 1): 50 for level 1, 75 for level 2, 100 for the rest.
STEP_CAPS: dict[str, int] = {"level-1": 50, "level-2": 75}
DEFAULT_STEP_CAP = 100
HISTORY_MODES: tuple[str, ...] = ("turns", "chat", "full", "key", "last", "none")
PROTOCOLS: tuple[str, ...] = ("paper", "playbench")
HINTS: tuple[str, ...] = ("none", "original", "chain")

# What `protocol` sets for every option the user leaves out: "paper" is the original's protocol
# (the paper where it is explicit, the authors' code where it is silent; README "Fidelity"),
# "playbench" playbench's own extension of it (what MM-Escape did here before the paper protocol).
PROTOCOL_DEFAULTS: dict[str, dict[str, Any]] = {
    "paper": {
        "grab": "view",
        "replies": "retry",
        "parser": "original",
        "prompts": "original",
        # a real chat that the agent keeps, its window per model family (model_side.py); "turns"
        # packs the same turns into each message for an agent that keeps none
        "history": "chat",
        "history_steps": 50,
        "image_width": 2048,
        "image_height": 1024,
        "fov": 120.0,
        "red_dot": "square",
        "visual_aids": False,
    },
    "playbench": {
        "grab": "centre",
        "replies": "step",
        "parser": "lenient",
        "prompts": "playbench",
        "history": "key",
        "history_steps": 5,
        "image_width": 512,
        "image_height": 512,
        "fov": 60.0,
        "red_dot": "disc",
        "visual_aids": True,
    },
}

Wall = Literal["north", "south", "west", "east"]


class EscapeConfig(TextsOptions):
    """Options (`--set key=value`). Options left at None take `protocol`'s value.

    `prompts` chooses what the player is told: the original's prompts and responses (their facts) or
    playbench's. Under `prompts=original`, `texts` (`TextsOptions`) chooses whose words: the authors'
    own from their clone (`original`, the default when the clone is in the originals folder) or
    playbench's paraphrases (`ours`). `texts=playbench` (the former meaning of `texts`) is
    `prompts=playbench`."""

    level: str = "level-1"
    rooms: str = "level-1,level-2"  # multi-room: the level of each room, escaped in this order
    chain: str | None = None  # a user's chain file (one chain or {"rooms": [...]}) replaces the level
    scene: str | None = None  # force one scene type (bedroom, living room, office, study, kitchen)
    max_steps: int | None = Field(default=None, ge=1, le=1000)  # default: the original's cap per level
    protocol: Literal["paper", "playbench"] = "paper"
    grab: Literal["view", "centre"] | None = None
    replies: Literal["retry", "step"] | None = None
    max_retries: int = Field(default=5, ge=1, le=100)  # replies="retry": re-asks before the episode ends
    parser: Literal["original", "lenient"] | None = None
    prompts: Literal["original", "playbench"] | None = None
    # `TextsOptions.texts`, also accepting "playbench" (read as prompts=playbench, texts=ours)
    texts: Literal["original", "ours", "playbench"] | None = None
    history: str | None = None
    history_steps: int | None = Field(default=None, ge=1, le=200)
    history_images: bool = True
    image_width: int | None = Field(default=None, ge=64, le=4096)
    image_height: int | None = Field(default=None, ge=64, le=4096)
    image_size: int | None = Field(default=None, ge=64, le=4096)  # a square view of this side
    fov: float | None = Field(default=None, gt=10.0, lt=170.0)  # vertical field of view, degrees
    red_dot: Literal["square", "disc"] | None = None
    visual_aids: bool | None = None
    hint: str = "none"
    # prompts="original": `read` of `exit` or a box id answers as that door or box (the original), or
    # only items in the bag can be read (the paper's definition of `read`)
    read_scope: Literal["original", "bag"] = "original"
    debrief: bool = True
    judge: bool = False
    judge_max_interactions: int = Field(default=30, ge=0, le=500)
    default_instances: int = Field(default=11, ge=1, le=1000)
    scenes: str | None = None  # paper tasks: the original's scene files (a clone's levels/ folder)
    # paper tasks: the paper's scenes, or a fresh twin of each (`twins.py`: a generated room matched
    # to the scene's difficulty statistics, drawn from the run's seed)
    dataset: Literal["paper", "twin"] = "paper"

    @model_validator(mode="before")
    @classmethod
    def _texts_playbench(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("texts") == "playbench":
            if data.get("prompts") not in (None, "playbench"):
                raise ValueError("texts=playbench is prompts=playbench; it cannot go with prompts=original")
            data = {**data, "texts": "ours", "prompts": "playbench"}
        return data

    @model_validator(mode="after")
    def _protocol_defaults(self) -> EscapeConfig:
        for key, value in PROTOCOL_DEFAULTS[self.protocol].items():
            if getattr(self, key) is None:
                object.__setattr__(self, key, value)
        if self.image_size is not None:
            object.__setattr__(self, "image_width", self.image_size)
            object.__setattr__(self, "image_height", self.image_size)
        return self

    @field_validator("level")
    @classmethod
    def _level(cls, v: str) -> str:
        from playbench.tasks.mmescape.paper import PAPER_LEVELS

        if v not in TASK_LEVELS and v != PAPER and v not in PAPER_LEVELS:
            known = ", ".join([*TASK_LEVELS, PAPER, *PAPER_LEVELS])
            raise ValueError(f"unknown level {v!r}; known: {known}")
        return v

    @field_validator("rooms")
    @classmethod
    def _rooms(cls, v: str) -> str:
        names = [x.strip() for x in v.split(",") if x.strip()]
        bad = [x for x in names if x not in LEVELS]
        if not 1 <= len(names) <= 4 or bad:
            raise ValueError(f"rooms must list 1 to 4 of {', '.join(LEVELS)} separated by commas, got {v!r}")
        return ",".join(names)

    @field_validator("history")
    @classmethod
    def _history(cls, v: str | None) -> str | None:
        if v is not None and v not in HISTORY_MODES:
            raise ValueError(f"history must be one of {', '.join(HISTORY_MODES)}, got {v!r}")
        return v

    @field_validator("hint", mode="before")
    @classmethod
    def _hint(cls, v: Any) -> str:
        # `hint=true` (playbench's earlier boolean option) is the chain-structure hint
        if isinstance(v, bool):
            return "chain" if v else "none"
        if v not in HINTS:
            raise ValueError(f"hint must be one of {', '.join(HINTS)}, got {v!r}")
        return v

    @field_validator("scene")
    @classmethod
    def _scene(cls, v: str | None) -> str | None:
        from playbench.tasks.mmescape.furniture import SCENE_NAMES

        if v is not None and v not in SCENE_NAMES:
            raise ValueError(f"unknown scene {v!r}; known: {', '.join(SCENE_NAMES)}")
        return v

    def room_levels(self) -> list[str]:
        return self.rooms.split(",")

    @property
    def paper_protocol(self) -> bool:
        return self.protocol == "paper"


class Placed(BaseModel):
    """A piece of furniture, a wall decoration or a bit of clutter: kind, where, how turned.

    (x, z) is the centre of its footprint and y its bottom. `size` (width, height, depth in the
    piece's own frame) stretches the kind's model to an original object's size; `name` is what the
    game calls it, `source` the original's prefab it stands for (the paper's scenes)."""

    kind: str
    room: int
    x: float
    z: float
    y: float = 0.0
    rot: float = 0.0  # degrees; the piece's front faces +z turned by this (any angle)
    variant: int = 0  # seeds colours and clutter
    size: tuple[float, float, float] | None = None
    name: str | None = None
    source: str | None = None
    solid: bool | None = None  # blocks walking (None: as its kind)
    surface: float | None = None  # height above its bottom of the surface things lie on (the original's)


class PropPlace(BaseModel):
    """Where a visible chain item stands: base centre, rotation, what it stands on, and its size
    (width, height, depth) where the original gives one."""

    item: str
    room: int
    x: float
    y: float
    z: float
    rot: float = 0.0
    on: str = "floor"
    size: tuple[float, float, float] | None = None


class DoorSpec(BaseModel):
    """Room `room`'s exit: in wall `wall`, centred at `center` along it (world x for north/south
    walls, world z for west/east); it leads to room `leads_to`, or outside when None."""

    room: int
    wall: Wall
    center: float
    leads_to: int | None = None
    width: float = 1.0
    height: float = 2.1
    anchor: tuple[float, float] | None = None  # the original door's position, where grabs measure to


class RoomSpec(BaseModel):
    scene: str
    x0: float
    z0: float
    width: float
    depth: float
    wall_color: tuple[int, int, int]
    floor_color: tuple[int, int, int]
    chain: Chain
    ceiling_color: tuple[int, int, int] | None = None  # None: white (the original tiles it with its floor)
    polygons: list[list[tuple[float, float]]] | None = None  # the original's floor polygon(s), our (x, z)


class Pose(BaseModel):
    """Where the player stands and looks: yaw 0 looks along -z (north), positive turns right
    (clockwise seen from above); pitch positive looks down."""

    x: float
    z: float
    yaw: float = 0.0
    pitch: float = 0.0


class InnerWall(BaseModel):
    """A wall inside a house (between its rooms): a slab centred at (x, z), `length` along the x or z
    axis, `thickness` across it, the rooms' height; `opening`: the width of an open doorway at its
    centre (`opening_height` high)."""

    x: float
    z: float
    axis: Literal["x", "z"]
    length: float
    thickness: float
    opening: float | None = None
    opening_height: float = 2.26


class EscapeInstance(Instance):
    level: str
    rooms: list[RoomSpec]
    doors: list[DoorSpec]
    furniture: list[Placed]
    clutter: list[Placed]
    props: list[PropPlace]
    start: Pose
    max_steps: int
    optimal_distance: float = 0.0
    exit_visible_at_start: bool = False
    source: str | None = None  # the original's scene file this instance was converted from
    inner_walls: list[InnerWall] = Field(default_factory=list)  # a house's walls between its rooms

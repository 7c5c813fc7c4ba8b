"""Task options and instance data of MM-Escape (plain JSON through pydantic)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from playbench.core.task import Instance, TaskConfig
from playbench.tasks.mmescape.chain import LEVELS, Chain

MULTI_ROOM = "multi-room"
TASK_LEVELS: tuple[str, ...] = (*LEVELS, MULTI_ROOM)
# The original's step caps (FACTS.md): 50 for level 1, 75 for level 2, 100 for the rest.
STEP_CAPS: dict[str, int] = {"level-1": 50, "level-2": 75}
DEFAULT_STEP_CAP = 100
HISTORY_MODES: tuple[str, ...] = ("full", "key", "last", "none")

Wall = Literal["north", "south", "west", "east"]


class EscapeConfig(TaskConfig):
    """Options (`--set key=value`)."""

    level: str = "level-1"
    rooms: str = "level-1,level-2"  # multi-room: the level of each room, escaped in this order
    chain: str | None = None  # a user's chain file (one chain or {"rooms": [...]}) replaces the level
    scene: str | None = None  # force one scene type (bedroom, living room, office, study, kitchen)
    max_steps: int | None = Field(default=None, ge=1, le=1000)  # default: the original's cap per level
    history: str = "key"
    history_steps: int = Field(default=5, ge=1, le=200)  # window of history=last
    history_images: bool = True
    hint: bool = False
    debrief: bool = True
    judge: bool = False
    judge_max_interactions: int = Field(default=30, ge=0, le=500)
    image_size: int = Field(default=512, ge=64, le=2048)
    default_instances: int = Field(default=11, ge=1, le=1000)

    @field_validator("level")
    @classmethod
    def _level(cls, v: str) -> str:
        if v not in TASK_LEVELS:
            raise ValueError(f"unknown level {v!r}; known: {', '.join(TASK_LEVELS)}")
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
    def _history(cls, v: str) -> str:
        if v not in HISTORY_MODES:
            raise ValueError(f"history must be one of {', '.join(HISTORY_MODES)}, got {v!r}")
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


class Placed(BaseModel):
    """A piece of furniture, a wall decoration or a bit of clutter: kind, where, quarter turns."""

    kind: str
    room: int
    x: float
    z: float
    y: float = 0.0
    rot: int = 0  # degrees, a multiple of 90; the piece's front faces +z turned by this
    variant: int = 0  # seeds colours and clutter


class PropPlace(BaseModel):
    """Where a visible chain item stands: base centre, rotation, and what it stands on."""

    item: str
    room: int
    x: float
    y: float
    z: float
    rot: int = 0
    on: str = "floor"


class DoorSpec(BaseModel):
    """Room `room`'s exit: in wall `wall`, centred at `center` along it (world x for north/south
    walls, world z for west/east); it leads to room `leads_to`, or outside when None."""

    room: int
    wall: Wall
    center: float
    leads_to: int | None = None


class RoomSpec(BaseModel):
    scene: str
    x0: float
    z0: float
    width: float
    depth: float
    wall_color: tuple[int, int, int]
    floor_color: tuple[int, int, int]
    chain: Chain


class Pose(BaseModel):
    """Where the player stands and looks: yaw 0 looks along -z (north), positive turns right
    (clockwise seen from above); pitch positive looks down."""

    x: float
    z: float
    yaw: float = 0.0
    pitch: float = 0.0


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

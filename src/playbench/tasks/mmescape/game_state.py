"""The state of an EscapeCraft game (`GameState`) and what one action did (`Outcome`); the rules are
in `engine.py`."""

from __future__ import annotations

from dataclasses import dataclass, field

from playbench.tasks.mmescape import geometry as geo


@dataclass
class GameState:
    x: float
    z: float
    yaw: float
    pitch: float
    bag: list[str] = field(default_factory=list)
    picked: set[str] = field(default_factory=set)
    opened: set[str] = field(default_factory=set)
    doors_open: set[int] = field(default_factory=set)
    escaped: bool = False
    moved: float = 0.0
    known: set[str] = field(default_factory=set)  # passwords the player has been told

    def visual(self) -> geo.VisualState:
        return geo.VisualState(frozenset(self.picked), frozenset(self.opened), frozenset(self.doors_open))

    def pose_key(self) -> tuple[float, float, float, float]:
        return (round(self.x, 6), round(self.z, 6), round(self.yaw, 6), round(self.pitch, 6))

    def copy(self) -> GameState:
        return GameState(
            self.x,
            self.z,
            self.yaw,
            self.pitch,
            list(self.bag),
            set(self.picked),
            set(self.opened),
            set(self.doors_open),
            self.escaped,
            self.moved,
            set(self.known),
        )


@dataclass
class Outcome:
    """What one action did."""

    invalid: str | None = None  # why nothing was applied
    lines: list[str] = field(default_factory=list)
    moved: float = 0.0
    turned: bool = False
    grabbed: bool = False
    grab_success: bool = False
    target: int = 0  # entity under the red dot when grabbing
    interaction: str | None = None  # the response when the grab reached an interactable object
    obtained: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)  # box ids and "exit:<k>"
    read: str | None = None
    lock_info: bool = False
    targets: list[int] = field(default_factory=list)  # the objects a grab reached
    in_view: bool = False  # "view" grabs: a chain prop or door was in view but none within reach
    grab_ignored: bool = False  # the original ignores a grab without a rationale
    text: str = ""  # prompts="original": the composed result of the action, as the next turn states it

    @property
    def key_step(self) -> bool:
        return bool(self.obtained or self.opened or self.read or self.lock_info)

    @property
    def changed(self) -> bool:
        return bool(self.moved > 1e-9 or self.turned or self.grab_success or self.read)

    @property
    def feedback(self) -> str:
        return self.text if self.text else " ".join(self.lines)

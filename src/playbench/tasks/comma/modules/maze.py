"""Maze puzzle: steer a mouse through a grid maze to the sphere the torus colour selects, then press.

The module shows the maze from above: white squares are open, dark squares are walls. The mouse
(a grey sphere with an arrow showing which way it faces) moves forward or backward one square or
turns left or right. Four coloured spheres lie on open squares and a coloured torus sits on the
middle square; the torus colour picks the accepting sphere (green -> blue, blue -> red,
red -> green, yellow -> yellow). Pressing the labyrinth button on the accepting square disarms the
module; pressing it anywhere else is a strike and, as in the authors' module (`modules/maze.py` of
pschwendy/multimodal_comms), puts the mouse back where it started. Walking into a wall or the edge
does nothing. Partial score, as the authors' `get_score`, from where the mouse is at the end:
|d(start) - d(end)| / d(start), with d the straight-line distance (in squares) to the accepting
square.
"""

from __future__ import annotations

import math
import random
from collections import deque
from typing import Any

from PIL import Image, ImageDraw

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

ROOMS = 5  # rooms per side of the underlying perfect maze
SIZE = 2 * ROOMS - 1  # squares per side: rooms on even rows/columns, passages between them
CENTER = (SIZE // 2, SIZE // 2)  # a room square because ROOMS is odd
SPHERE_COLORS: tuple[str, ...] = ("blue", "red", "green", "yellow")
TORUS_TO_SPHERE: dict[str, str] = {"green": "blue", "blue": "red", "red": "green", "yellow": "yellow"}
HEADINGS: tuple[str, ...] = ("north", "east", "south", "west")  # clockwise; north is up in the picture
STEP: dict[str, tuple[int, int]] = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
MIN_DISTANCE = 4  # squares between the mouse's start and the accepting sphere
ACTIONS: tuple[str, ...] = (
    "move_forward",
    "move_backward",
    "turn_left",
    "turn_right",
    "press_labyrinth_button",
)

LAYOUTS: tuple[str, ...] = ("paper", "generated")
# The authors' maze (`modules/maze.py` and every maze of their `config/puzzles_final.json`): one
# layout, '#' a wall, the torus on the blocked middle square, the spheres at fixed places.
PAPER_LAYOUT: tuple[str, ...] = (
    "#.#######",
    "#.#...#.#",
    "#.#.#.#.#",
    "#...#...#",
    "###.###.#",
    "#.....#.#",
    "#.###.#.#",
    "#...#...#",
    "###.#####",
)
OPEN = (248, 248, 244)
WALL = (44, 46, 52)
TILE = 44
GRID_X, GRID_Y = 26, 98  # top-left corner of the grid inside the shared panel

Cell = tuple[int, int]
PAPER_SPHERES: dict[str, Cell] = {"green": (1, 1), "blue": (1, 7), "red": (7, 1), "yellow": (7, 7)}


def carve(rng: random.Random) -> list[str]:
    """A perfect maze (one path between any two squares) by randomised depth-first search,
    as rows of '.' (open) and '#' (wall)."""
    grid = [["#"] * SIZE for _ in range(SIZE)]
    start = (2 * rng.randrange(ROOMS), 2 * rng.randrange(ROOMS))
    grid[start[0]][start[1]] = "."
    stack = [start]
    while stack:
        r, c = stack[-1]
        options = [
            (r + 2 * dr, c + 2 * dc)
            for dr, dc in STEP.values()
            if 0 <= r + 2 * dr < SIZE and 0 <= c + 2 * dc < SIZE and grid[r + 2 * dr][c + 2 * dc] == "#"
        ]
        if not options:
            stack.pop()
            continue
        nr, nc = rng.choice(options)
        grid[(r + nr) // 2][(c + nc) // 2] = "."
        grid[nr][nc] = "."
        stack.append((nr, nc))
    return ["".join(row) for row in grid]


def distances(layout: list[str], source: Cell) -> dict[Cell, int]:
    """Squares reachable from `source` with their distance in moves (headings ignored)."""
    seen = {source: 0}
    queue = deque([source])
    while queue:
        r, c = queue.popleft()
        for dr, dc in STEP.values():
            nxt = (r + dr, c + dc)
            if (
                0 <= nxt[0] < SIZE
                and 0 <= nxt[1] < SIZE
                and layout[nxt[0]][nxt[1]] == "."
                and nxt not in seen
            ):
                seen[nxt] = seen[(r, c)] + 1
                queue.append(nxt)
    return seen


def square_name(cell: Cell) -> str:
    return f"row {cell[0] + 1}, column {cell[1] + 1}"


# the paper's Appendix A manual, in our words
MANUAL = """\
MAZE PUZZLE

The grey sphere is the mouse. It can move only onto white squares: dark squares are walls it cannot
enter. The mouse can move forward or backward, or turn left or right. To disarm the module, bring
the mouse to the accepting position and press the round button with the labyrinth on it; pressing
that button anywhere else causes a strike. One of four coloured spheres marks the accepting
position. Which one depends on the colour of the torus in the middle of the maze:

| torus colour | sphere |
|---|---|
| green | blue |
| blue | red |
| red | green |
| yellow | yellow |
"""


class MazeModule(PuzzleModule):
    name = "maze"
    title = "Maze Puzzle"
    realtime = False
    derived = frozenset({"to_target", "start", "start_heading"})  # these follow from the parameters

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.layout: list[str] = [str(row) for row in params["layout"]]
        if len(self.layout) != SIZE or any(len(row) != SIZE or set(row) - {".", "#"} for row in self.layout):
            raise ValueError(f"the maze layout must be {SIZE} rows of {SIZE} '.' or '#' characters")
        self.torus: str = str(params["torus"])
        if self.torus not in TORUS_TO_SPHERE:
            raise ValueError(f"torus colour {self.torus!r} is not one of {', '.join(TORUS_TO_SPHERE)}")
        self.spheres: dict[str, Cell] = {
            color: (int(r), int(c)) for color, (r, c) in params["spheres"].items()
        }
        if sorted(self.spheres) != sorted(SPHERE_COLORS):
            raise ValueError(f"the maze needs one sphere of each colour {SPHERE_COLORS}")
        self.start: Cell = (int(params["mouse"][0]), int(params["mouse"][1]))
        self.start_heading: str = str(params["heading"])
        self.mouse: Cell = self.start
        self.heading: str = self.start_heading
        if self.heading not in HEADINGS:
            raise ValueError(f"heading {self.heading!r} is not one of {', '.join(HEADINGS)}")
        # the middle square holds the torus: open in our generated mazes, blocked in the authors'
        for cell in [self.mouse, *self.spheres.values()]:
            if not self.is_open(cell):
                raise ValueError(f"square {square_name(cell)} must be open")
        self.target: Cell = self.spheres[TORUS_TO_SPHERE[self.torus]]
        self.to_target = distances(self.layout, self.target)
        if self.mouse not in self.to_target:
            raise ValueError("the accepting sphere cannot be reached from the mouse")
        self.start_distance = self.to_target[self.mouse]
        self.disarmed = False

    def is_open(self, cell: Cell) -> bool:
        r, c = cell
        return 0 <= r < SIZE and 0 <= c < SIZE and self.layout[r][c] == "."

    generation_options = ("layout",)

    @classmethod
    def generate(cls, rng: random.Random, layout: str = "paper") -> dict[str, Any]:
        if layout == "paper":
            # as the authors' generator: their maze, a random torus colour, the mouse on any open
            # square (the heading, which their absolute moves do not have, is drawn too)
            open_squares = [(r, c) for r in range(SIZE) for c in range(SIZE) if PAPER_LAYOUT[r][c] == "."]
            return {
                "layout": list(PAPER_LAYOUT),
                "torus": rng.choice(list(TORUS_TO_SPHERE)),
                "spheres": {color: list(cell) for color, cell in PAPER_SPHERES.items()},
                "mouse": list(rng.choice(open_squares)),
                "heading": rng.choice(HEADINGS),
            }
        while True:
            layout = carve(rng)
            rooms = [(r, c) for r in range(0, SIZE, 2) for c in range(0, SIZE, 2) if (r, c) != CENTER]
            picked = rng.sample(rooms, len(SPHERE_COLORS) + 1)
            spheres = dict(zip(SPHERE_COLORS, picked[:-1], strict=True))
            mouse = picked[-1]
            torus = rng.choice(list(TORUS_TO_SPHERE))
            target = spheres[TORUS_TO_SPHERE[torus]]
            if distances(layout, target)[mouse] >= MIN_DISTANCE:
                return {
                    "layout": layout,
                    "torus": torus,
                    "spheres": {color: list(cell) for color, cell in spheres.items()},
                    "mouse": list(mouse),
                    "heading": rng.choice(HEADINGS),
                }

    @classmethod
    def manual(cls) -> str:
        return MANUAL

    def actions(self) -> list[str]:
        return list(ACTIONS)

    def apply(self, action: str, clock: float) -> ActionResult:
        if action not in ACTIONS:
            return ActionResult(f"{action!r} is not an action of this module.", mistake=False, changed=False)
        if self.disarmed:
            return ActionResult("The module is already disarmed.", mistake=False, changed=False)
        if action in ("turn_left", "turn_right"):
            turn = -1 if action == "turn_left" else 1
            self.heading = HEADINGS[(HEADINGS.index(self.heading) + turn) % 4]
            return ActionResult(f"The mouse turns {action.split('_')[1]} and now faces {self.heading}.")
        if action in ("move_forward", "move_backward"):
            dr, dc = STEP[self.heading]
            if action == "move_backward":
                dr, dc = -dr, -dc
            nxt = (self.mouse[0] + dr, self.mouse[1] + dc)
            way = action.split("_")[1]
            if not self.is_open(nxt):
                return ActionResult(f"A wall blocks the way {way}; the mouse does not move.", changed=False)
            self.mouse = nxt
            return ActionResult(f"The mouse moves {way} to {square_name(nxt)}.")
        if self.mouse == self.target:
            self.disarmed = True
            return ActionResult(
                "You pressed the labyrinth button on the accepting square. The module is disarmed."
            )
        self.mouse, self.heading = self.start, self.start_heading
        return ActionResult(
            "You pressed the labyrinth button. Strike: the mouse is not on the accepting square; "
            "it is back where it started.",
            mistake=True,
        )

    @property
    def solved(self) -> bool:
        return self.disarmed

    @property
    def distance(self) -> int:
        """Moves between the mouse and the accepting square now (headings ignored)."""
        return self.to_target[self.mouse]

    def partial_score(self) -> float:
        """The authors' score from the mouse's final square: |d0 - d| / d0, with d0 and d the
        straight-line distances in squares from the start and from the mouse now to the accepting
        square (so moving away scores too, as in their `abs`); 1 when disarmed."""
        if self.disarmed:
            return 1.0
        total = math.dist(self.start, self.target)
        if total == 0:
            return 0.0
        return abs(total - math.dist(self.mouse, self.target)) / total

    def _center(self, cell: Cell) -> tuple[float, float]:
        return GRID_X + (cell[1] + 0.5) * TILE, GRID_Y + (cell[0] + 0.5) * TILE

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        side = SIZE * TILE
        d.rectangle((GRID_X - 5, GRID_Y - 5, GRID_X + side + 4, GRID_Y + side + 4), fill=WALL)
        for r, row in enumerate(self.layout):
            for c, square in enumerate(row):
                x, y = GRID_X + c * TILE, GRID_Y + r * TILE
                if square == ".":
                    d.rectangle((x, y, x + TILE - 1, y + TILE - 1), fill=OPEN, outline=(200, 200, 194))
        cx, cy = self._center(CENTER)
        ring = TILE * 0.43
        d.ellipse((cx - ring, cy - ring, cx + ring, cy + ring), outline=draw.COLORS[self.torus], width=8)
        for color, cell in self.spheres.items():
            sx, sy = self._center(cell)
            rad = TILE * 0.42
            d.ellipse(
                (sx - rad, sy - rad, sx + rad, sy + rad),
                fill=draw.COLORS[color],
                outline=(20, 20, 20),
                width=2,
            )
            glint = rad * 0.32  # a highlight so the disc reads as a sphere
            gx, gy = sx - rad * 0.5, sy - rad * 0.55
            d.ellipse((gx, gy, gx + glint * 2, gy + glint * 2), fill=(255, 255, 255))
        self._draw_mouse(d)
        self._draw_button(d, ((GRID_X + side + x1) / 2, GRID_Y + side / 2 + 40))
        return image

    def _draw_mouse(self, d: ImageDraw.ImageDraw) -> None:
        mx, my = self._center(self.mouse)
        rad = TILE * 0.27  # smaller than a sphere, so a sphere under the mouse stays visible around it
        d.ellipse(
            (mx - rad, my - rad, mx + rad, my + rad), fill=(128, 128, 132), outline=(15, 15, 15), width=2
        )
        dr, dc = STEP[self.heading]
        tip = (mx + dc * rad * 0.85, my + dr * rad * 0.85)
        back = (mx - dc * rad * 0.5, my - dr * rad * 0.5)
        across = (-dr * rad * 0.6, dc * rad * 0.6)  # perpendicular to the heading
        d.polygon(
            [tip, (back[0] + across[0], back[1] + across[1]), (back[0] - across[0], back[1] - across[1])],
            fill=(255, 255, 255),
        )

    def _draw_button(self, d: ImageDraw.ImageDraw, center: tuple[float, float]) -> None:
        bx, by = center
        rad = 34
        d.ellipse((bx - rad + 3, by - rad + 4, bx + rad + 3, by + rad + 4), fill=(90, 90, 86))  # shadow
        d.ellipse(
            (bx - rad, by - rad, bx + rad, by + rad), fill=(232, 226, 205), outline=draw.PANEL_EDGE, width=3
        )
        # the labyrinth icon: two nested squares, each broken by a doorway
        for half, door_top in ((20, True), (11, False)):
            d.rectangle((bx - half, by - half, bx + half, by + half), outline=(40, 40, 40), width=3)
            door_y = by - half if door_top else by + half
            door_x = bx - 4 if door_top else bx + 2
            d.rectangle((door_x - 3, door_y - 2, door_x + 5, door_y + 2), fill=(232, 226, 205))
        label = draw.font(12, "bold")
        draw_centered_text(d, (bx, by + rad + 16), "LABYRINTH", label, draw.INK)
        draw_centered_text(d, (bx, by + rad + 31), "BUTTON", label, draw.INK)
        # a compass arrow: north is up
        ny = GRID_Y + 18
        d.polygon([(bx, ny - 14), (bx - 10, ny + 4), (bx + 10, ny + 4)], fill=draw.INK)
        draw_centered_text(d, (bx, ny + 20), "N", draw.font(20, "bold"), draw.INK)

    def describe(self, clock: float) -> str:
        rows = "\n".join(f"  row {r + 1}: {row}" for r, row in enumerate(self.layout))
        spheres = "; ".join(f"{color} sphere at {square_name(cell)}" for color, cell in self.spheres.items())
        state = "disarmed" if self.disarmed else "not disarmed"
        return (
            f"The maze is {SIZE} x {SIZE} squares seen from above (north is up; row 1 is the top row, "
            f"column 1 the left column; '.' open, '#' wall):\n{rows}\n"
            f"The mouse is at {square_name(self.mouse)} facing {self.heading}. {spheres}. "
            f"The torus in the middle ({square_name(CENTER)}) is {self.torus}, so the accepting sphere "
            f"is the {TORUS_TO_SPHERE[self.torus]} one, {self.distance} moves away. The module is {state}."
        )

    def oracle_actions(self, clock: float) -> list[str]:
        """A shortest action sequence over (square, heading) states to the accepting square, then press."""
        if self.disarmed:
            return []
        start = (self.mouse, self.heading)
        previous: dict[tuple[Cell, str], tuple[tuple[Cell, str], str] | None] = {start: None}
        queue = deque([start])
        goal = None
        while queue:
            state = queue.popleft()
            if state[0] == self.target:
                goal = state
                break
            cell, heading = state
            index = HEADINGS.index(heading)
            dr, dc = STEP[heading]
            moves = [
                ("move_forward", ((cell[0] + dr, cell[1] + dc), heading)),
                ("move_backward", ((cell[0] - dr, cell[1] - dc), heading)),
                ("turn_left", (cell, HEADINGS[(index - 1) % 4])),
                ("turn_right", (cell, HEADINGS[(index + 1) % 4])),
            ]
            for action, nxt in moves:
                if nxt not in previous and self.is_open(nxt[0]):
                    previous[nxt] = (state, action)
                    queue.append(nxt)
        if goal is None:  # unreachable by construction (checked in __init__)
            raise RuntimeError("the accepting square cannot be reached")
        lines = ["press_labyrinth_button"]
        state = goal
        while (link := previous[state]) is not None:
            state, action = link
            lines.append(action)
        return lines[::-1]

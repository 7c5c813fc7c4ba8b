"""The colour names a room file may use and their RGB values (shared by the room format and the drawings).

A leaf module: the room format (`schema`) names the colours, the drawings (`drawing`, `quizzes`,
`views`) paint them, and neither needs the other for it.
"""

from __future__ import annotations

from typing import Literal

# spelled out for type checkers and pydantic; a test checks it names exactly the keys of COLORS
ColorName = Literal[
    "red",
    "blue",
    "green",
    "yellow",
    "purple",
    "orange",
    "brown",
    "gray",
    "black",
    "white",
    "gold",
    "silver",
    "teal",
    "pink",
    "beige",
    "navy",
]

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (214, 48, 49),
    "blue": (38, 94, 204),
    "green": (46, 160, 67),
    "yellow": (240, 200, 30),
    "purple": (136, 64, 180),
    "orange": (240, 130, 20),
    "brown": (130, 86, 50),
    "gray": (128, 128, 128),
    "black": (40, 40, 40),
    "white": (245, 245, 245),
    "gold": (212, 170, 50),
    "silver": (190, 195, 200),
    "teal": (30, 150, 150),
    "pink": (230, 120, 170),
    "beige": (222, 205, 170),
    "navy": (30, 45, 100),
}

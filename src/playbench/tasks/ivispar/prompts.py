"""Prompt text of the Sliding Geom Puzzle, written for this package.

The default (paper protocol) carries exactly the facts of the prompts the authors' code sent
(`anon148/iVISPAR`): the system prompt is `Data/Instructions/ICML_instruction.txt` (vision 3D and
text) or `ICML_instruction_2D.txt` (vision 2D, which names the shapes by their 2D glyphs) followed
by the chain-of-thought block the agents append (`agent_systems.py`, `LLMAgent.__init__`); the text
after the states of each step is the vision / text step message
of `agent_systems.py`. The wording is ours. `extra_facts=True` adds our own facts (the board's
orientation and how tiles are named, that a colour and a shape name one geom), which the original
never states.
"""

from __future__ import annotations

from playbench.tasks.ivispar.board import SHAPE_GLYPH, Board

ACTION_TEMPLATE = "action: move <object color> <object shape> <direction>"
# the original's examples pair the colours and shapes of its vocabulary in this order
EXAMPLE_PLAN: tuple[tuple[int, int, str], ...] = (
    (0, 0, "down"),
    (2, 1, "up"),
    (1, 2, "left"),
    (3, 3, "right"),
)


def shape_words(shapes: list[str], modality: str) -> list[str]:
    """The shape names of the prompt: in 2D the glyphs the images show (square, circle, ...)."""
    return [SHAPE_GLYPH[s] for s in shapes] if modality == "2d" else list(shapes)


def examples(colors: list[str], shapes: list[str]) -> list[str]:
    return list(
        dict.fromkeys(
            f"move {colors[c % len(colors)]} {shapes[s % len(shapes)]} {d}" for c, s, d in EXAMPLE_PLAN
        )
    )


def board_facts(board: Board) -> list[str]:
    """Our facts about the board (option `extra_facts`), absent from the original's prompts."""
    last = board.column_letters[-1].upper()
    return [
        "## The board",
        f"- Columns A-{last} run from left to right and rows 1-{board.height} from bottom to top; a tile "
        "is named by its column letter and row number, e.g. B3 is column B, row 3.",
        "- Moving up raises the row number; moving right goes to the next column letter.",
        "- A colour and a shape together name one object: no two objects share both.",
        "",
    ]


def instructions(
    board: Board, colors: list[str], shapes: list[str], modality: str, extra_facts: bool = False
) -> str:
    """The system prompt: our wording of the original's instructions and chain-of-thought block."""
    size = f"{board.width} by {board.height}"
    words = shape_words(shapes, modality)
    lines = [
        "You are a highly capable AI with excellent spatial reasoning. Your task is to solve a puzzle "
        f"game of shapes on a {size} grid board.",
        "",
        "## The game",
        "The board is shown in two states: the current active state and the goal state.",
        "Produce valid actions that move objects on the board one step at a time, along the shortest "
        "path, until the active state matches the goal state:",
        "1. Analyse the active state.",
        "2. Compare it with the goal state.",
        "3. Check your past actions.",
        "4. Produce a new valid action.",
        "",
        "## Rules",
        "### Moving objects",
        "1. Each object fills exactly one tile of the board.",
        f"2. Objects can neither leave the {size} grid nor stand on the same tile as another object.",
        "",
    ]
    if extra_facts:
        lines += board_facts(board)
    lines += [
        "## Action format",
        "- Every action must have exactly this form:",
        "move <object color> <object shape> <direction>",
        "- Fill in <object color>, <object shape> and <direction> from the options listed below.",
        "- Write no quotation marks and no angle brackets < > in an action.",
        "",
        "### Options",
        f"- Object colors: {', '.join(colors)}",
        f"- Object shapes: {', '.join(words)}",
        "- Directions: up, down, left or right",
        "",
        "### Examples",
        *(f"- {e}" for e in examples(colors, words)),
        "",
        "## Notes",
        "- No coordinates: an action names only the colour, the shape and the direction of the move, "
        "never a grid coordinate.",
        "- Keep every action to this format and these rules to progress towards the goal state; think "
        "carefully about the right action and its format.",
        "- Invalid actions: an action that does not change the board state is invalid (for example when "
        "another object blocks it, or it would leave the board). After an invalid action, try a "
        "different one.",
        "",
        "## Reasoning",
        "- Explain your reasoning before every action.",
        "- End every reply with exactly this line:",
        "action: <your action>",
        "- Replace <your action> with the valid move action your reasoning arrived at.",
        "- Write no characters after the action.",
    ]
    return "\n".join(lines)


def _invalid_and_format(vision: bool) -> list[str]:
    before = "previous images" if vision else "previous states"
    return [
        "## Invalid actions",
        "- No overlap: two objects may never stand on the same tile.",
        "- An action that moves no object is invalid (for example when another object blocks it, or it "
        "would leave the board).",
        f"- Use the {before} and your actions to work out why an action failed, and suggest a different one.",
        "",
        "Most important: always end your reply in exactly this format:",
        "",
        ACTION_TEMPLATE,
        "replacing <object color> <object shape> <direction> with the valid move your reasoning arrived "
        "at, and write no characters after the action.",
    ]


def vision_block(piece: str = "object", rules: list[str] | None = None) -> str:
    """The text after the images of a step (the original agents' vision step message); the
    tile puzzle passes its own piece name and rules."""
    lines = [
        "## The images",
        "Your current active board state is the last image, labelled active on a blue background. "
        f"Study it and where each {piece} stands.",
        "Your goal is to match the goal state, the image labelled goal on a green background. Study it "
        f"and where each {piece} stands.",
        "",
        "## You are also given",
        "- the image(s) of previous states, labelled past on a grey background,",
        "- the action you suggested in each of them.",
        "Compare them with your current active state to decide on your next action.",
        "",
        *(_invalid_and_format(vision=True) if rules is None else rules),
    ]
    return "\n".join(lines)


def text_block(
    goal: str,
    active: str,
    shape: str = "list of coordinates",
    piece: str = "objects",
    rules: list[str] | None = None,
) -> str:
    """The text of a step in the text modality (the original agents' text step message),
    which holds the goal and active states; the tile puzzle passes its own words and rules."""
    lines = [
        "## The states",
        f"The goal state is the first {shape}:",
        goal,
        f"The active state is the second {shape}:",
        active,
        f"Study both closely and work out how to move the {piece} of the active state so that it matches "
        "the goal state.",
        "",
        "## You are also given",
        "- the previous states,",
        "- the action you suggested in each of them.",
        "Compare them with the active state to decide on your next action.",
        "",
        *(_invalid_and_format(vision=False) if rules is None else rules),
    ]
    return "\n".join(lines)

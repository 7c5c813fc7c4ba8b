"""Prompt text of the Sliding Geom Puzzle, written for this package (the paper's prompts carry
the same rules: appendix A.1.1 for the instructions, A.1.3 for reading the images)."""

from __future__ import annotations

from playbench.tasks.ivispar.board import SHAPE_GLYPH, Board

ACTION_TEMPLATE = "action: move <color> <shape> <direction>"


def _span(board: Board) -> tuple[str, str]:
    return f"a-{board.column_letters[-1]}", f"1-{board.height}"


def instructions(board: Board, colors: list[str], shapes: list[str], modality: str) -> str:
    """The system prompt: task, rules, board orientation, vocabulary and the reply format."""
    cols, rows = _span(board)
    c0, c1 = colors[0], colors[1 % len(colors)]
    s0, s1 = shapes[0], shapes[2 % len(shapes)]
    lines = [
        "Sliding Geom Puzzle",
        "",
        f"You are playing a puzzle with coloured geometric objects (geoms) on a {board.width}x{board.height} "
        "board. You are shown two arrangements: the current state, which is the board as it stands now, "
        "and the goal state, which you have to produce. Turn the current state into the goal state with "
        "as few moves as you can.",
        "",
        "How to proceed each turn:",
        "1. Read where every geom is in the current state.",
        "2. Find the geoms that are not yet where the goal state has them.",
        "3. Look at your previous moves and what they did.",
        "4. Pick the next move.",
        "",
        "Rules:",
        "- A geom fills exactly one tile, and one tile holds at most one geom.",
        "- A move shifts one geom by one tile up, down, left or right.",
        "- A geom cannot be moved off the board or onto a tile another geom holds; such a move "
        "fails and nothing changes.",
        "- A geom is named by its colour followed by its shape; no two geoms share both.",
        "",
        f"The board: columns {cols} run from left to right and rows {rows} from bottom to top, so a tile "
        "is named like b3 (column b, row 3). Moving up raises the row number; moving right goes to the "
        "next column letter.",
        "",
        "Move format: move <color> <shape> <direction>",
        f"Colours: {', '.join(colors)}",
        f"Shapes: {', '.join(shapes)}",
        "Directions: up, down, left, right",
        f"For example: move {c0} {s0} down, or move {c1} {s1} left.",
        "Do not use coordinates in a move. Every move should change the board; a blocked move or one "
        "that leaves the board is wasted.",
    ]
    if modality == "2d":  # the 3D views show the shapes themselves
        glyphs = [f"a {s} as a {SHAPE_GLYPH[s]}" for s in shapes]
        glyphs[0] = glyphs[0].replace(" as ", " is drawn as ", 1)
        lines += ["", f"In the images, {', '.join(glyphs)}."]
    lines += [
        "",
        "Reply format: first explain briefly why you choose your move, then finish with one line",
        f"{ACTION_TEMPLATE}",
        "and write nothing after it.",
    ]
    return "\n".join(lines)


def image_guide(board: Board, past_window: int, labels: bool = True) -> str:
    """What the images mean (the image counterpart of the text state lists)."""
    cols, rows = _span(board)
    text = (
        "How to read the images: the image with a green background labelled 'goal' shows the arrangement "
        "you must reach. The image with a blue background labelled 'current' is the board as it is now; "
        "it is always the last image. Study both closely: which geom sits on which tile. "
    )
    if labels:
        text += (
            f"Column letters ({cols}) are written under the board from left to right and row numbers "
            f"({rows}) to its left from bottom to top; free tiles show their own coordinate."
        )
    else:
        text += f"Columns {cols} run from left to right and rows {rows} from bottom to top."
    if past_window > 0:
        text += (
            " Images with a grey background labelled 'past' show the board before your recent moves, each "
            "followed by the move you chose and what happened. Compare them with the current image: if a "
            "move did not change the board it was invalid (blocked by another geom or leading off the "
            "board), so work out why and choose a different move."
        )
    text += (
        " Two geoms can never share a tile. Always end your reply with exactly "
        f"'{ACTION_TEMPLATE}', filled in with your move, and add nothing after it."
    )
    return text


def closing(step: int, max_steps: int) -> str:
    return f"Move {step + 1} of at most {max_steps}. Think it through, then end with: {ACTION_TEMPLATE}"

"""Procedural views of a room state (Pillow) and their ground-truth captions.

Three view kinds, as in the paper: a wall view per direction (every visible receptacle in its
current state, items visible inside open ones), a receptacle close-up (the receptacle large, the
items it shows with their names) and an item close-up (a key, a note's clue, a lock's face).
Every state flag a room uses (locked, open, open compartments, lit, moved, solved, pressed, picked)
changes the picture. Captions are generated from the same state, so both modes see the same facts.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from playbench.render.draw2d import to_png
from playbench.tasks.visescape import drawing as dw
from playbench.tasks.visescape.engine import Engine, GameState, state_words, view_wall
from playbench.tasks.visescape.furniture import Spots, draw_receptacle
from playbench.tasks.visescape.icons import draw_item
from playbench.tasks.visescape.quizzes import get_kind
from playbench.tasks.visescape.schema import Item, Quiz, Receptacle, StateSpec

W, H = 640, 480
FLOOR_Y = 418  # wall views: the floor strip below holds the name tags
CEILING_Y = 40  # wall views: nothing is drawn above this line (the title bar is above it)
WALL_MARGIN = 14  # wall views: free pixels at the left and right edges
MAX_WALL_SCALE = 2.1  # a lone small object is enlarged at most this much

# (width, height) at scale 1 and whether it hangs on the wall. Wall views scale every wall so that
# its furniture fills the picture (largest scale that fits, see `wall_scale`).
SIZES: dict[str, tuple[float, float, bool]] = {
    "door": (120, 250, False),
    "wardrobe": (140, 250, False),
    "cabinet": (110, 150, False),
    "drawers": (120, 150, False),
    "desk": (160, 120, False),
    "safe": (115, 115, False),
    "chest": (140, 90, False),
    "bookshelf": (130, 230, False),
    "painting": (130, 100, True),
    "clock": (100, 100, True),
    "lamp": (60, 200, False),
    "computer": (140, 150, False),
    "table": (140, 100, False),
    "plant": (80, 150, False),
    "mirror": (90, 130, True),
    "board": (150, 110, True),
}
# Furniture drawn beyond its box in some state, as fractions of its width (left, right) or height
# (above): swung-open doors, a painting or plant moved aside, items lying on a surface, an open lid.
SWING: dict[str, tuple[float, float]] = {
    "door": (0.0, 0.35),
    "wardrobe": (0.3, 0.3),
    "cabinet": (0.3, 0.0),
    "safe": (0.3, 0.0),
}
SELF_LIT_KINDS = ("lamp", "computer", "mirror", "painting")  # they show being lit by themselves
# items that stay in the furniture they are used on (a gem in a socket); tools and keys do not
INSTALLED_KINDS = ("gem", "bulb", "fuse", "battery", "handle", "coin")
MOVED_RIGHT: dict[str, float] = {
    "painting": 0.85,
    "mirror": 0.85,
    "board": 0.85,
    "clock": 0.85,
    "plant": 0.95,
}
ABOVE: dict[str, float] = {"desk": 0.45, "drawers": 0.4, "table": 0.2, "chest": 0.35}


def extents(r: Receptacle) -> tuple[float, float, float]:
    """(left, right, above) overhang of `r` over all its states, as fractions of its size."""
    left = right = above = 0.0
    if any(s.open or s.open_parts for s in r.states):
        left, right = SWING.get(r.kind, (0.0, 0.0))
        if r.kind == "chest":
            above = ABOVE["chest"]
    if any(s.moved for s in r.states):
        right = max(right, MOVED_RIGHT.get(r.kind, 0.0))
    if r.kind in ("desk", "drawers", "table"):
        above = ABOVE[r.kind]
    if r.kind == "lamp" and any(s.lit for s in r.states):
        left, right = 0.7, 0.7  # the light cone
    return left, right, above


def wall_scale(recs: list[Receptacle]) -> float:
    """The largest scale at which all of a wall's furniture fits side by side, overhangs included."""
    if not recs:
        return 1.0
    gap = 18.0
    widths = 0.0
    fits = [MAX_WALL_SCALE]
    for r in recs:
        bw, bh, hung = SIZES[r.kind]
        left, right, above = extents(r)
        widths += bw * (1 + left + right)
        if hung:
            fits.append(230 / (bh * (1.3 if r.contains else 1.0)))  # hung pictures stay up on the wall
        else:
            fits.append((FLOOR_Y - CEILING_Y) / (bh * (1 + above)))
    fits.append((W - 2 * WALL_MARGIN - gap * (len(recs) - 1)) / widths)
    return min(fits)


KIND_WORDS: dict[str, str] = {
    "door": "door",
    "wardrobe": "wardrobe",
    "cabinet": "cabinet",
    "drawers": "chest of drawers",
    "desk": "desk",
    "safe": "safe",
    "chest": "chest",
    "bookshelf": "bookshelf",
    "painting": "framed painting",
    "clock": "wall clock",
    "lamp": "floor lamp",
    "computer": "computer on a stand",
    "table": "small table",
    "plant": "potted plant",
    "mirror": "mirror",
    "board": "notice board",
}


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


class ViewMaker:
    """Images and captions of one room's views, with caches for the episode."""

    def __init__(self, engine: Engine, labels: bool = False) -> None:
        self.engine = engine
        # our extension: name tags on every object and a title bar naming the view and its state; off by
        # default, as the original's views are unlabelled renders
        self.labels = labels
        self.room = engine.room
        self.clue_quiz: dict[str, Quiz] = {q.clue: q for q in self.room.quizzes}
        self._png: dict[tuple, bytes] = {}

    # --- helpers -------------------------------------------------------------------------------
    def _look(self, state: GameState, r: Receptacle) -> StateSpec:
        return r.state(self.engine.rec_state(state, r.id))

    def _clue_shown(self, state: GameState, r: Receptacle) -> Quiz | None:
        quiz = self.clue_quiz.get(r.id)
        if quiz is None:
            return None
        if quiz.clue_states is not None and self.engine.rec_state(state, r.id) not in quiz.clue_states:
            return None
        return quiz

    def _draw_quiz_clue(
        self, d: ImageDraw.ImageDraw, quiz: Quiz, box: dw.Box, background: bool = True
    ) -> None:
        if background:
            d.rectangle(box, fill=dw.PAPER, outline=dw.INK)
        x0, y0, x1, y1 = box
        pad = min(x1 - x0, y1 - y0) * 0.06
        get_kind(quiz.kind).draw_clue(
            d, (x0 + pad, y0 + pad, x1 - pad, y1 - pad), self.engine.quiz_params[quiz.id]
        )

    def _draw_receptacle(
        self, d: ImageDraw.ImageDraw, state: GameState, r: Receptacle, box: dw.Box, s: float, names: bool
    ) -> None:
        look = self._look(state, r)
        spots = draw_receptacle(d, r, look, box, s)
        self._draw_state_marks(d, r, look, box, spots, s)
        quiz = self._clue_shown(state, r)
        if quiz is not None and spots.display is not None:
            # a clock's own face carries the clue; other displays get a sheet of paper behind it
            self._draw_quiz_clue(d, quiz, spots.display, background=r.kind != "clock")
        items = self.engine.visible_items(state, r.id)
        placed = self._place_items(r, items, spots, box, 64.0 if names else 0.0)
        for item, ibox in placed:
            draw_item(d, item, ibox, pressed=self._item_on(state, item))
            if names:
                dw.label(d, ((ibox[0] + ibox[2]) / 2, ibox[3] + 12), item.id, 15)

    def _draw_state_marks(
        self, d: ImageDraw.ImageDraw, r: Receptacle, look: StateSpec, box: dw.Box, spots: Spots, s: float
    ) -> None:
        """State cues the furniture drawing itself has no picture for, so no state change goes unseen:
        screws on a screwed front, an indicator light for on/off states, an installed item."""
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        if look.screwed:
            r_screw = max(3.0, min(w, h) * 0.045)
            for cx, cy in ((x0 + w * 0.1, y0 + h * 0.1), (x1 - w * 0.1, y0 + h * 0.1)):
                for yy in (cy, y1 - (cy - y0)):
                    d.ellipse(
                        (cx - r_screw, yy - r_screw, cx + r_screw, yy + r_screw),
                        fill=dw.rgb("silver"),
                        outline=dw.INK,
                        width=max(1, int(s)),
                    )
                    d.line(
                        (cx - r_screw * 0.7, yy, cx + r_screw * 0.7, yy), fill=dw.INK, width=max(1, int(s))
                    )
        if r.kind in ("mirror", "painting") and look.lit:  # lit up: a glowing rim
            glow = {"outline": (255, 214, 60), "width": max(3, int(4 * s))}
            if r.kind == "painting":
                d.rectangle(box, **glow)
            else:
                d.ellipse(box, **glow)
        if r.kind not in SELF_LIT_KINDS and any(st.lit for st in r.states):
            r_led = max(4.0, min(w, h) * 0.05)
            cx, cy = x1 - r_led * 1.6, y0 + r_led * 1.6
            d.ellipse(
                (cx - r_led, cy - r_led, cx + r_led, cy + r_led),
                fill=(40, 220, 90) if look.lit else (70, 70, 70),
                outline=dw.INK,
                width=max(1, int(s)),
            )
        shown_otherwise = look.locked or look.open or look.open_parts or look.lit or look.moved
        if not shown_otherwise:
            placed = [
                self.engine.items[t.item]
                for t in self.engine.transitions[r.id]
                if t.action == "use"
                and t.consume
                and t.to == look.name
                and t.item is not None
                and self.engine.items[t.item].kind in INSTALLED_KINDS
            ]
            if placed:
                size = min(w, h) * 0.32
                area = spots.mount or box
                cx, cy = (area[0] + area[2]) / 2, (area[1] + area[3]) / 2
                d.ellipse(
                    (cx - size * 0.62, cy - size * 0.62, cx + size * 0.62, cy + size * 0.62),
                    fill=(45, 40, 38),
                    outline=dw.INK,
                    width=max(1, int(s)),
                )
                draw_item(d, placed[0], (cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2))

    def _item_on(self, state: GameState, item: Item) -> bool:
        if item.kind == "lock":
            return self.engine.solved(state, item.id)
        if item.kind == "button":
            return f"pressed_{item.id}" in state.triggers
        return False

    def _place_items(
        self, r: Receptacle, items: list[Item], spots: Spots, box: dw.Box, min_size: float = 0.0
    ) -> list[tuple[Item, dw.Box]]:
        """Lay items out in the compartment they belong to (else the surface, else the front)."""
        groups: dict[str, list[Item]] = {}
        part_of = {c.item: c.part for c in r.contains}
        for item in items:
            if item.kind in ("lock", "button") and spots.mount is not None:
                key = "mount"
            elif part_of.get(item.id) is not None and part_of[item.id] in spots.compartments:
                key = f"c{part_of[item.id]}"
            elif spots.compartments:
                key = f"c{min(spots.compartments)}"
            elif spots.surface is not None:
                key = "surface"
            else:
                key = "mount"
            groups.setdefault(key, []).append(item)
        out: list[tuple[Item, dw.Box]] = []
        for key, group in groups.items():
            if key == "mount":
                area = spots.mount or box
            elif key == "surface":
                area = spots.surface or box
            else:
                area = spots.compartments[int(key[1:])]
            x0, y0, x1, y1 = area
            n = len(group)
            slot = (x1 - x0) / n
            size = min(slot * 0.9, max((y1 - y0) * 0.9, min_size))
            for k, item in enumerate(group):
                cx, cy = x0 + slot * (k + 0.5), (y0 + y1) / 2
                out.append((item, (cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2)))
        return out

    def _canvas(self, wall: str) -> tuple[Image.Image, ImageDraw.ImageDraw]:
        img = Image.new("RGB", (W, H), dw.rgb(self.room.wall_color))
        d = ImageDraw.Draw(img)
        d.rectangle((0, FLOOR_Y, W, H), fill=dw.shade(dw.rgb(self.room.floor_color), 0.9))
        d.line((0, FLOOR_Y, W, FLOOR_Y), fill=dw.INK, width=2)
        return img, d

    def _title(self, d: ImageDraw.ImageDraw, words: str) -> None:
        if not self.labels:
            return
        font_size = 16
        d.rectangle((0, 0, W, 26), fill=(30, 32, 40))
        dw.text(d, (W / 2, 13), words, font_size, (240, 240, 240))

    # --- the three views -------------------------------------------------------------------------
    def wall_layout(self, state: GameState, wall: str) -> tuple[float, list[tuple[Receptacle, dw.Box]]]:
        """The wall's scale and each visible receptacle's box, spread evenly over the wall's width.

        The scale depends only on which receptacles are visible (not their states), so opening or
        moving something never resizes the wall."""
        recs = self.engine.visible_receptacles(state, wall)
        if not recs:
            return 1.0, []
        scale = wall_scale(recs)
        spans = []
        for r in recs:
            bw, _, _ = SIZES[r.kind]
            left, right, _ = extents(r)
            spans.append((bw * scale * left, bw * scale, bw * scale * right))
        used = sum(a + b + c for a, b, c in spans)
        gap = (W - 2 * WALL_MARGIN - used) / (len(recs) + 1)
        x = WALL_MARGIN + gap
        out = []
        for r, (left, width, right) in zip(recs, spans, strict=True):
            _, bh, hung = SIZES[r.kind]
            bh *= scale
            x0 = x + left
            if hung:
                top = CEILING_Y + 12
                out.append((r, (x0, top, x0 + width, top + bh)))
            else:
                out.append((r, (x0, FLOOR_Y - bh, x0 + width, FLOOR_Y)))
            x = x0 + width + right + gap
        return scale, out

    def wall_image(self, state: GameState, wall: str) -> Image.Image:
        img, d = self._canvas(wall)
        scale, layout = self.wall_layout(state, wall)
        for r, box in layout:
            self._draw_receptacle(d, state, r, box, scale, names=False)
        for r, box in layout:
            y = FLOOR_Y + 24 if not SIZES[r.kind][2] else box[3] + 16
            if SIZES[r.kind][2] and self.engine.visible_items(state, r.id):  # below the items it shows
                y += (box[3] - box[1]) * 0.3
            if SIZES[r.kind][2] and self._look(state, r).moved:  # a picture moved aside hangs lower
                y += (box[3] - box[1]) * 0.12
            if self.labels:
                dw.label(d, ((box[0] + box[2]) / 2, y), r.id, 16)
        if not layout and self.labels:
            dw.text(d, (W / 2, H / 2), "(bare wall)", 18, (90, 90, 90))
        self._title(d, f"{wall.upper()} WALL - {self.room.title}")
        return img

    def receptacle_image(self, state: GameState, rid: str) -> Image.Image:
        r = self.engine.recs[rid]
        img, d = self._canvas(r.wall)
        bw, bh, hung = SIZES[r.kind]
        # surfaces leave room above them for the items they hold
        room_above = 90 if r.kind in ("desk", "drawers", "chest", "table") else 0
        # hung furniture shows its items (and their name tags) just below it
        below = 0.45 if hung and r.contains else 0.0
        scale = min((365 - room_above) / (bh * (1 + below)), 440 / bw)
        if self._look(state, r).moved and r.kind in ("painting", "mirror", "board", "clock", "plant"):
            scale *= 0.7
        bw, bh = bw * scale, bh * scale
        cx = W / 2 - (bw * 0.3 if self._look(state, r).moved else 0)
        bottom = 445 if not hung else 60 + room_above + bh + 20
        box = (cx - bw / 2, bottom - bh, cx + bw / 2, bottom)
        self._draw_receptacle(d, state, r, box, scale, names=self.labels)
        shown = f" ({self._state_words(state, r)})" if len(r.states) > 1 else ""
        self._title(d, f"{r.id}{shown} - close-up, {r.wall} wall")
        return img

    def item_image(self, state: GameState, iid: str) -> Image.Image:
        item = self.engine.items[iid]
        img = Image.new("RGB", (W, H), (60, 62, 70))
        d = ImageDraw.Draw(img)
        d.rectangle((30, 40, W - 30, H - 20), fill=(222, 214, 196), outline=dw.INK, width=2)
        box = (80, 70, W - 80, H - 50)
        quiz = self.clue_quiz.get(iid)
        if item.kind == "lock":
            kind, params = self.engine.quiz_kind(iid)
            kind.draw_lock(d, (70, 80, W - 70, H - 60), params, self.engine.solved(state, iid))
        elif quiz is not None:
            if item.kind == "photo":
                d.rectangle(box, fill=(255, 255, 255), outline=dw.INK, width=3)
                self._draw_quiz_clue(d, quiz, (box[0] + 20, box[1] + 20, box[2] - 20, box[3] - 20))
            else:
                d.rectangle(
                    box, fill=dw.PAPER if item.kind != "book" else (248, 240, 220), outline=dw.INK, width=3
                )
                if item.kind == "book":
                    d.line(
                        ((box[0] + box[2]) / 2, box[1], (box[0] + box[2]) / 2, box[3]),
                        fill=(150, 130, 110),
                        width=3,
                    )
                self._draw_quiz_clue(
                    d, quiz, (box[0] + 20, box[1] + 20, box[2] - 20, box[3] - 20), background=False
                )
        elif item.kind in ("note", "poster", "book", "photo") and item.text:
            d.rectangle(box, fill=dw.PAPER, outline=dw.INK, width=3)
            self._write(d, item.text, box)
        else:
            draw_item(d, item, (170, 110, W - 170, H - 90), pressed=self._item_on(state, item))
        where = "held" if iid in state.held else "close-up"
        self._title(d, f"{iid} - {item.words} ({where})")
        return img

    @staticmethod
    def _write(d: ImageDraw.ImageDraw, words: str, box: dw.Box) -> None:
        x0, y0, x1, y1 = box
        lines: list[str] = []
        for para in words.split("\n"):
            line = ""
            for word in para.split():
                if len(line) + len(word) + 1 > 30:
                    lines.append(line)
                    line = word
                else:
                    line = f"{line} {word}".strip()
            lines.append(line)
        step = min(44.0, (y1 - y0 - 40) / max(1, len(lines)))
        for k, line in enumerate(lines):
            dw.text(d, ((x0 + x1) / 2, y0 + 30 + step * (k + 0.5)), line, int(min(30, step * 0.7)))

    def image(self, state: GameState) -> bytes:
        key = self.render_key(state)
        png = self._png.get(key)
        if png is None:
            v = state.view
            if v[0] == "wall":
                img = self.wall_image(state, v[1])
            elif v[0] == "rec":
                img = self.receptacle_image(state, v[1])
            else:
                img = self.item_image(state, v[1])
            png = to_png(img)
            if len(self._png) > 256:
                self._png.clear()
            self._png[key] = png
        return png

    def render_key(self, state: GameState) -> tuple:
        """Everything a view depends on (the view's own wall or object, not the whole state)."""
        v = state.view
        if v[0] == "item":
            return ("item", v[1], v[1] in state.held, self._item_on(state, self.engine.items[v[1]]))
        return (v[0], v[1], state.states, state.gone, state.triggers)

    # --- captions --------------------------------------------------------------------------------
    def _state_words(self, state: GameState, r: Receptacle) -> str:
        return state_words(r, self.engine.rec_state(state, r.id))

    def _rec_phrase(self, state: GameState, r: Receptacle, detailed: bool) -> str:
        look = self._look(state, r)
        words = f'"{r.id}" ({article(r.color)} {r.color} {KIND_WORDS[r.kind]}'
        if len(r.states) > 1:
            words += f", {self._state_words(state, r)}"
        if look.description:
            words += f"; {look.description}"
        if r.description and detailed:
            words += f"; {r.description}"
        words += ")"
        items = self.engine.visible_items(state, r.id)
        if items:
            inner = ", ".join(f'"{i.id}"' + (f" ({i.words})" if detailed else "") for i in items)
            words += f" showing {inner}"
        return words

    def caption(self, state: GameState) -> str:
        v = state.view
        if v[0] == "wall":
            layout = self.engine.visible_receptacles(state, v[1])
            if not layout:
                return f"The {v[1]} wall of the room. It is bare."
            listed = "; ".join(self._rec_phrase(state, r, False) for r in layout)
            return f"The {v[1]} wall of the room. From left to right: {listed}."
        if v[0] == "rec":
            r = self.engine.recs[v[1]]
            out = f"Close-up of {self._rec_phrase(state, r, True)}, at the {r.wall} wall."
            quiz = self._clue_shown(state, r)
            if quiz is not None:
                out += " " + get_kind(quiz.kind).clue_caption(self.engine.quiz_params[quiz.id])
            for item in self.engine.visible_items(state, r.id):
                if item.kind == "lock":
                    out += f' "{item.id}" is {"open (solved)" if self.engine.solved(state, item.id) else "shut"}.'
                if item.kind == "button" and self._item_on(state, item):
                    out += f' "{item.id}" is pressed in.'
            return out
        item = self.engine.items[v[1]]
        held = " (in your inventory)" if item.id in state.held else ""
        out = (
            f'Close-up of "{item.id}"{held}: {article(item.color)} {item.color} {item.kind}'
            if item.kind not in ("note", "photo", "poster", "book", "lock")
            else (f'Close-up of "{item.id}"{held}: a {item.kind}')
        )
        if item.label:
            out += f' labelled "{item.label}"'
        out += "."
        if item.kind == "lock":
            kind, params = self.engine.quiz_kind(item.id)
            out += " " + kind.lock_caption(params)
            out += " It is open (solved)." if self.engine.solved(state, item.id) else " It is shut."
        elif item.id in self.clue_quiz:
            quiz = self.clue_quiz[item.id]
            out += " " + get_kind(quiz.kind).clue_caption(self.engine.quiz_params[quiz.id])
        elif item.text:
            out += f' It reads: "{item.text}"'
        return out

    def header(self, state: GameState) -> str:
        """`<direction> side of room - <what is shown>` as in the paper's observation tag."""
        v = state.view
        wall = view_wall(v, self.room)
        if v[0] == "wall":
            what = "wall view"
        elif v[0] == "rec":
            what = f"close-up of {v[1]}"
        else:
            what = f"close-up of item {v[1]}"
        return f"{wall} side of room - {what}"

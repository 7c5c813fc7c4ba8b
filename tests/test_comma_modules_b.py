"""COMMA puzzle modules dog, maze, password, who and wire: one test per manual clause (paper,
Appendix A), oracle play on generated instances, generator variety, partial scores, images, and
the random solver's partial success rate against the paper's random row (FACTS.md)."""

from __future__ import annotations

import json
import random
import statistics
from string import ascii_uppercase

import pytest

from playbench.core.task import derive_seed
from playbench.render.draw2d import to_png
from playbench.tasks.comma.module import PuzzleModule
from playbench.tasks.comma.modules import dog, maze, password, who, wire
from playbench.tasks.comma.modules.dog import DogModule
from playbench.tasks.comma.modules.maze import MazeModule
from playbench.tasks.comma.modules.password import PasswordModule
from playbench.tasks.comma.modules.who import WhoModule
from playbench.tasks.comma.modules.wire import WireModule

MODULES: dict[str, type[PuzzleModule]] = {
    "dog": DogModule,
    "maze": MazeModule,
    "password": PasswordModule,
    "who": WhoModule,
    "wire": WireModule,
}
START_CLOCK = 600.0  # ten minutes, as the paper's modules start
# The paper's random solver PSR (FACTS.md, 20 turns, 100 instances per puzzle).
PAPER_RANDOM_PSR = {"dog": 100, "wire": 100, "who": 100, "password": 0, "maze": 15}


def make(name: str, index: int, **options: str) -> PuzzleModule:
    cls = MODULES[name]
    return cls(cls.generate(random.Random(derive_seed("comma-test", name, index)), **options))


def play_oracle(module: PuzzleModule, clock_step: float, turns: int = 40) -> tuple[int, int]:
    """Play the oracle's lines each turn until solved; returns (turns used, mistakes)."""
    clock, mistakes = START_CLOCK, 0
    for turn in range(1, turns + 1):
        for action in module.oracle_actions(clock):
            assert action in module.actions()
            result = module.apply(action, clock)
            mistakes += result.mistake
            assert 0.0 <= module.partial_score() <= 1.0
        if module.solved:
            return turn, mistakes
        clock -= clock_step
    raise AssertionError(f"oracle did not solve {module.params} in {turns} turns")


def random_play(
    module: PuzzleModule, rng: random.Random, clock_step: float, turns: int = 20
) -> tuple[float, int]:
    """The paper's random solver: one uniformly chosen action per turn. Returns (partial, mistakes)."""
    clock, mistakes = START_CLOCK, 0
    for _ in range(turns):
        result = module.apply(rng.choice(module.actions()), clock)
        mistakes += result.mistake
        if module.solved:
            break
        clock -= clock_step
    return module.partial_score(), mistakes


# ---------------------------------------------------------------------------------------------
# Wire puzzle: every clause of the manual.

WIRE_CLAUSES = [
    # 3 wires
    ("3: no red -> second", ["blue", "white", "blue"], "111110", 2),
    ("3: last white -> last", ["red", "blue", "white"], "111110", 3),
    ("3: more than one blue -> last blue", ["blue", "blue", "red"], "111110", 2),
    ("3: otherwise -> last", ["red", "yellow", "black"], "111110", 3),
    # 4 wires
    ("4: >1 red and odd -> last red", ["red", "blue", "red", "white"], "111111", 3),
    ("4: >1 red but even falls through", ["red", "blue", "red", "white"], "111112", 1),
    ("4: last yellow and no red -> first", ["blue", "blue", "white", "yellow"], "111111", 1),
    ("4: exactly one blue -> first", ["red", "blue", "white", "black"], "111112", 1),
    ("4: more than one yellow -> last", ["yellow", "red", "yellow", "black"], "111112", 4),
    ("4: otherwise -> second", ["black", "white", "black", "red"], "111112", 2),
    # 5 wires
    ("5: last black and odd -> fourth", ["red", "red", "blue", "white", "black"], "000003", 4),
    ("5: last black but even falls through", ["white", "red", "blue", "white", "black"], "000004", 1),
    ("5: one red and >1 yellow -> first", ["yellow", "red", "yellow", "blue", "white"], "000004", 1),
    ("5: no black -> second", ["blue", "red", "red", "yellow", "white"], "000004", 2),
    ("5: otherwise -> first", ["black", "red", "red", "yellow", "white"], "000004", 1),
    # 6 wires
    ("6: no yellow and odd -> third", ["red", "blue", "white", "black", "blue", "red"], "123457", 3),
    ("6: no yellow but even falls through", ["red", "blue", "white", "black", "blue", "red"], "123456", 4),
    (
        "6: one yellow and >1 white -> fourth",
        ["white", "yellow", "white", "blue", "blue", "black"],
        "123456",
        4,
    ),
    ("6: no red -> last", ["yellow", "yellow", "white", "blue", "blue", "black"], "123456", 6),
    ("6: otherwise -> fourth", ["yellow", "yellow", "red", "blue", "white", "black"], "123456", 4),
]


@pytest.mark.parametrize(
    ("clause", "colors", "serial", "expected"), WIRE_CLAUSES, ids=[c[0] for c in WIRE_CLAUSES]
)
def test_wire_manual_clause(clause: str, colors: list[str], serial: str, expected: int) -> None:
    module = WireModule({"colors": colors, "serial": serial})
    assert module.answer == expected
    assert module.oracle_actions(START_CLOCK) == [f"cut_wire_{expected}"]
    wrong = 1 if expected != 1 else 2
    result = module.apply(f"cut_wire_{wrong}", START_CLOCK)
    assert result.mistake and not module.solved and module.partial_score() == 0.0
    again = module.apply(f"cut_wire_{wrong}", START_CLOCK)  # cutting a cut wire again: another strike
    assert again.mistake and not module.solved
    result = module.apply(f"cut_wire_{expected}", START_CLOCK)
    assert not result.mistake and module.solved and module.partial_score() == 1.0


def test_wire_actions_and_bad_params() -> None:
    module = WireModule({"colors": ["red", "blue", "white", "black", "yellow"], "serial": "000000"})
    assert module.actions() == [f"cut_wire_{i}" for i in range(1, 6)]
    assert not module.apply("cut_wire_9", START_CLOCK).changed
    with pytest.raises(ValueError, match="3-6 wires"):
        WireModule({"colors": ["red", "blue"], "serial": "000000"})
    with pytest.raises(ValueError, match="unknown wire colours"):
        WireModule({"colors": ["red", "blue", "pink"], "serial": "000000"})
    with pytest.raises(ValueError, match="6 digits"):
        WireModule({"colors": ["red", "blue", "red"], "serial": "12x"})


def test_wire_generator_covers_counts_colors_and_every_branch() -> None:
    modules = [make("wire", i) for i in range(600)]
    assert {len(m.colors) for m in modules} == {3, 4, 5, 6}
    assert {c for m in modules for c in m.colors} == set(wire.COLORS)
    assert {(len(m.colors), m.answer) for m in modules} >= {
        (3, 2),
        (3, 3),
        (4, 1),
        (4, 2),
        (4, 4),
        (5, 1),
        (5, 2),
        (5, 4),
        (6, 3),
        (6, 4),
        (6, 6),
    }


# ---------------------------------------------------------------------------------------------
# Who puzzle: the step 1 table, the step 2 lists, and the two-step procedure.

PAPER_STEP1 = """YES: Middle Left | FIRST: Top Right | DISPLAY: Bottom Right | OKAY: Top Right |
SAYS: Bottom Right | NOTHING: Middle Left | (No Text): Bottom Left | BLANK: Middle Right |
NO: Bottom Right | LED: Middle Left | LEAD: Bottom Right | READ: Middle Right | RED: Middle Right |
REED: Bottom Left | LEED: Bottom Left | HOLD ON: Bottom Right | YOU: Middle Right |
YOU ARE: Bottom Right | YOUR: Middle Right | YOU'RE: Middle Right | UR: Top Left |
THERE: Bottom Right | THEY'RE: Bottom Left | THEIR: Middle Right | THEY ARE: Middle Left |
SEE: Bottom Right | C: Top Right | CEE: Bottom Right"""
STEP1_CASES = [
    (("" if word.strip() == "(No Text)" else word.strip()), pos.strip().lower().replace(" ", "_"))
    for word, pos in (entry.split(":") for entry in PAPER_STEP1.replace("\n", " ").split("|"))
]


@pytest.mark.parametrize(("display", "position"), STEP1_CASES, ids=[c[0] or "no-text" for c in STEP1_CASES])
def test_who_step1_clause(display: str, position: str) -> None:
    """The display picks the button whose label is read: put READY there (its list starts with
    YES) and YES elsewhere; any other reading would land on a different button."""
    others = ["YES", "LEFT", "BLANK", "UHHH", "WAIT"]
    labels = {}
    for pos in who.POSITIONS:
        labels[pos] = "READY" if pos == position else others.pop(0)
    module = WhoModule({"display": display, "labels": [labels[p] for p in who.POSITIONS]})
    yes_position = next(p for p in who.POSITIONS if labels[p] == "YES")
    assert module.answer == yes_position
    # reading the wrong position would have given another answer (the clause is really exercised)
    for pos in who.POSITIONS:
        if pos != position:
            first = next(w for w in who.STEP2[labels[pos]] if w in labels.values())
            assert first != "YES"


@pytest.mark.parametrize("label", list(who.STEP2), ids=list(who.STEP2))
def test_who_step2_clause(label: str) -> None:
    """For each list: the first listed word that is on the module wins, whatever its position.
    The read label is itself on the module, so the answer lies at or before it in its list."""
    rng = random.Random(derive_seed("who-step2", label))
    words = who.STEP2[label]
    for _ in range(10):
        k = rng.randrange(words.index(label) + 1)
        answer = words[k]
        later = [w for w in words[k + 1 :] if w != label]
        chosen = {label, answer} | set(rng.sample(later, min(len(later), 6 - len({label, answer}))))
        if len(chosen) < 6:  # not enough later words: the read label itself must then be the answer
            continue
        display = rng.choice([d for d, p in who.STEP1.items()])
        read_position = who.STEP1[display]
        rest = [w for w in chosen if w != label]
        rng.shuffle(rest)
        labels = {read_position: label}
        for pos in who.POSITIONS:
            if pos != read_position:
                labels[pos] = rest.pop()
        module = WhoModule({"display": display, "labels": [labels[p] for p in who.POSITIONS]})
        expected = next(p for p in who.POSITIONS if labels[p] == answer)
        assert module.answer == expected


def test_who_step2_lists_match_the_paper_and_hold_their_group() -> None:
    assert who.STEP2["READY"][:3] == ("YES", "OKAY", "WHAT")
    assert who.STEP2["LIKE"][-3:] == ("SURE", "YOU ARE", "YOUR")
    assert who.STEP2["WHAT?"][0] == "YOU" and who.STEP2["DONE"][-1] == "DONE"
    for group in who.LABEL_GROUPS:
        assert len(group) == 14
        for label in group:
            assert sorted(who.STEP2[label]) == sorted(group) and label in who.STEP2[label]


def test_who_worked_example_press_and_strike() -> None:
    # YOU'RE -> read middle right (NEXT) -> NEXT's list starts WHAT?, which is bottom left
    module = WhoModule({"display": "YOU'RE", "labels": ["HOLD", "U", "LIKE", "NEXT", "WHAT?", "YOU"]})
    assert module.oracle_actions(START_CLOCK) == ["press_bottom_left_button"]
    strike = module.apply("press_top_left_button", START_CLOCK)
    assert strike.mistake and not module.solved and module.partial_score() == 0.0
    done = module.apply("press_bottom_left_button", START_CLOCK)
    assert not done.mistake and module.solved and module.partial_score() == 1.0
    assert not module.apply("press_top_left_button", START_CLOCK).mistake  # nothing after disarming


def test_who_empty_display_differs_from_blank() -> None:
    labels = ["READY", "FIRST", "NO", "BLANK", "NOTHING", "YES"]
    empty = WhoModule({"display": "", "labels": labels})  # (No Text) -> bottom left: NOTHING
    blank = WhoModule({"display": "BLANK", "labels": labels})  # middle right: BLANK
    assert who.STEP1[""] == "bottom_left" and who.STEP1["BLANK"] == "middle_right"
    assert empty.answer == "bottom_right"  # NOTHING's list: UHHH, RIGHT, OKAY, MIDDLE, YES -> YES
    assert blank.answer == "middle_right"  # BLANK's list: WAIT, RIGHT, OKAY, MIDDLE, BLANK -> BLANK
    assert "(No Text)" in WhoModule.manual()


def test_who_bad_params() -> None:
    with pytest.raises(ValueError, match="step 1"):
        WhoModule({"display": "MAYBE", "labels": ["READY", "FIRST", "NO", "BLANK", "NOTHING", "YES"]})
    with pytest.raises(ValueError, match="six distinct"):
        WhoModule({"display": "YES", "labels": ["READY", "READY", "NO", "BLANK", "NOTHING", "YES"]})


# ---------------------------------------------------------------------------------------------
# Password puzzle.

PAPER_WORDS = (
    "about, after, again, below, could, every, first, found, great, house, large, learn, never, other, "
    "place, plant, point, right, small, sound, spell, still, study, their, there, these, thing, think, "
    "three, water, where, which, world, would, write"
)


def test_password_word_list_is_the_papers() -> None:
    assert tuple(w.strip() for w in PAPER_WORDS.split(",")) == password.WORDS
    assert PAPER_WORDS in " ".join(PasswordModule.manual().split())


def test_password_cycles_hold_three_consecutive_letters_and_one_word() -> None:
    for i in range(300):
        module = make("password", i)
        for start in module.starts:
            cycle = password.cycle_letters(start)
            assert len(cycle) == 3
            assert [ascii_uppercase.index(c) for c in cycle] == list(
                range(ascii_uppercase.index(start), ascii_uppercase.index(start) + 3)
            )
        assert password.spellable(module.starts) == [module.answer.lower()]
        assert module.current_word != module.answer  # never starts solved


def test_password_buttons_cycle_and_wrap() -> None:
    module = PasswordModule({"starts": ["R", "F", "G", "L", "E"], "shown": [0, 0, 0, 0, 0]})
    assert module.answer == "THING" and module.current_word == "RFGLE"
    before = module.current_word
    module.apply("up_button_1", START_CLOCK)
    assert module.current_word[0] == "S" and module.current_word[1:] == before[1:]
    module.apply("up_button_1", START_CLOCK)
    module.apply("up_button_1", START_CLOCK)  # R S T then back to R
    assert module.current_word[0] == "R"
    module.apply("down_button_1", START_CLOCK)
    assert module.current_word[0] == "T"
    module.apply("up_button_5", START_CLOCK)
    assert module.current_word == "TFGLF"


def test_password_actions_are_the_authors_names_in_their_order() -> None:
    """`up_button_N` / `down_button_N` slot by slot, then submit (their module's action dict)."""
    module = make("password", 0)
    expected = [f"{d}_button_{i}" for i in range(1, 6) for d in ("up", "down")] + ["submit"]
    assert module.actions() == module.action_vocabulary() == expected
    assert set(module.oracle_actions(START_CLOCK)) <= set(expected)


def test_password_submit_rules() -> None:
    module = make("password", 7)
    wrong = module.apply("submit", START_CLOCK)
    assert wrong.mistake and not module.solved and module.partial_score() == 0.0
    for action in module.oracle_actions(START_CLOCK):
        result = module.apply(action, START_CLOCK)
        assert not result.mistake
    assert module.solved and module.current_word == module.answer and module.partial_score() == 1.0


def test_password_bad_params() -> None:
    with pytest.raises(ValueError, match="exactly one listed word"):
        PasswordModule({"starts": ["A", "A", "A", "A", "A"], "shown": [0, 0, 0, 0, 0]})
    with pytest.raises(ValueError, match="5 slots"):
        PasswordModule({"starts": ["A"], "shown": [0]})


# ---------------------------------------------------------------------------------------------
# Dog puzzle.


def dog_module(dogs: int, distractors: int = 3) -> DogModule:
    kinds = ["dog"] * dogs + list(dog.DISTRACTOR_KINDS[:distractors])
    animals = [
        {"kind": k, "x": 30 + 100 * (i % 4), "y": 100 + 100 * (i // 4), "size": 80, "mirror": False}
        for i, k in enumerate(kinds)
    ]
    return DogModule({"dogs": dogs, "serial": "985440", "animals": animals})


@pytest.mark.parametrize("dogs", range(0, 6))
def test_dog_submit_when_last_digit_equals_dog_count(dogs: int) -> None:
    module = dog_module(dogs)
    wrong_clock = 590.0 + (dogs + 1) % 10  # last digit one more than the dog count
    assert module.oracle_actions(wrong_clock) == []
    strike = module.apply("submit", wrong_clock)
    assert strike.mistake and not module.solved and module.partial_score() == 0.0
    # with wait lines the oracle lets the timer run to the matching digit in the same reply
    assert module.oracle_actions(wrong_clock, waits=True) == ["wait_1_seconds", "submit"]
    right_clock = 540.0 + dogs + 0.7  # fractions of a second do not change the shown digit
    assert module.oracle_actions(right_clock) == ["submit"]
    done = module.apply("submit", right_clock)
    assert not done.mistake and module.solved and module.partial_score() == 1.0


def test_dog_counts_every_dog_kind_and_no_distractor() -> None:
    animals = [{"kind": k, "x": 30, "y": 100, "size": 80, "mirror": False} for k in dog.DOG_KINDS]
    animals += [{"kind": k, "x": 30, "y": 100, "size": 80, "mirror": False} for k in dog.DISTRACTOR_KINDS[:6]]
    module = DogModule({"serial": "000000", "animals": animals})
    assert module.dogs == 5
    with pytest.raises(ValueError, match="0-5 dogs"):
        DogModule({"serial": "000000", "animals": animals + animals[:1]})
    with pytest.raises(ValueError, match="picture holds"):
        DogModule({"dogs": 2, "serial": "000000", "animals": animals})
    with pytest.raises(ValueError, match="unknown animal"):
        DogModule(
            {"serial": "000000", "animals": [{"kind": "wolf", "x": 0, "y": 0, "size": 80, "mirror": False}]}
        )


def test_dog_generator_range_layout_and_art() -> None:
    counts = set()
    for i in range(400):
        module = make("dog", i)
        counts.add(module.dogs)
        distractors = len(module.animals) - module.dogs
        assert dog.MIN_DISTRACTORS <= distractors <= dog.MAX_DISTRACTORS
        boxes = [(a["x"], a["y"], a["x"] + a["size"], a["y"] + a["size"]) for a in module.animals]
        for box in boxes:  # inside the picture
            assert dog.PICTURE[0] < box[0] and box[2] < dog.PICTURE[2]
            assert dog.PICTURE[1] < box[1] and box[3] < dog.PICTURE[3]
        for a, b in zip(boxes, boxes[1:], strict=False):  # no two animals overlap
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert counts == set(range(0, 6))
    for kind in dog.DOG_KINDS + dog.DISTRACTOR_KINDS:
        assert dog.animal_art(kind).size == (128, 128)
    assert (dog.ART_DIR / "ATTRIBUTION.md").read_text().count("CC-BY 4.0") >= 1


def test_dog_manual_states_the_range_and_the_rule() -> None:
    text = DogModule.manual()
    assert "between 0 and 5" in text and "last digit" in text and "submit" in text


# ---------------------------------------------------------------------------------------------
# Maze puzzle.

# A hand-made 9 x 9 layout: an open ring around the edge and a cross through the middle.
RING_LAYOUT = [
    ".........",
    ".###.###.",
    ".###.###.",
    ".###.###.",
    ".........",
    ".###.###.",
    ".###.###.",
    ".###.###.",
    ".........",
]
SPHERES = {"blue": [0, 0], "red": [0, 8], "green": [8, 0], "yellow": [8, 8]}


def maze_module(torus: str, mouse: tuple[int, int] = (4, 0), heading: str = "north") -> MazeModule:
    return MazeModule(
        {"layout": RING_LAYOUT, "torus": torus, "spheres": SPHERES, "mouse": list(mouse), "heading": heading}
    )


@pytest.mark.parametrize(
    ("torus", "sphere"), [("green", "blue"), ("blue", "red"), ("red", "green"), ("yellow", "yellow")]
)
def test_maze_torus_selects_the_accepting_sphere(torus: str, sphere: str) -> None:
    module = maze_module(torus)
    assert module.target == tuple(SPHERES[sphere])
    for color, cell in SPHERES.items():  # pressing on any other sphere is a strike
        if color != sphere:
            other = maze_module(torus, mouse=tuple(cell))
            result = other.apply("press_labyrinth_button", START_CLOCK)
            assert result.mistake and not other.solved
    on_target = maze_module(torus, mouse=tuple(SPHERES[sphere]))
    result = on_target.apply("press_labyrinth_button", START_CLOCK)
    assert not result.mistake and on_target.solved and on_target.partial_score() == 1.0


def test_maze_moves_turns_and_walls() -> None:
    module = maze_module("green", mouse=(4, 0), heading="north")
    assert module.apply("move_forward", START_CLOCK).changed and module.mouse == (3, 0)
    module.apply("turn_right", START_CLOCK)
    assert module.heading == "east"
    blocked = module.apply("move_forward", START_CLOCK)  # (3, 1) is a wall
    assert not blocked.changed and not blocked.mistake and module.mouse == (3, 0)
    module.apply("turn_left", START_CLOCK)
    module.apply("turn_left", START_CLOCK)
    assert module.heading == "west"
    edge = module.apply("move_forward", START_CLOCK)  # off the grid
    assert not edge.changed and not edge.mistake and module.mouse == (3, 0)
    back = module.apply("move_backward", START_CLOCK)  # backward = east, a wall
    assert not back.changed and module.mouse == (3, 0)
    module.apply("turn_left", START_CLOCK)  # now facing south
    module.apply("move_backward", START_CLOCK)  # one square north, still facing south
    assert module.mouse == (2, 0) and module.heading == "south"
    strike = module.apply("press_labyrinth_button", START_CLOCK)
    assert strike.mistake and not module.solved


def test_maze_partial_score_is_the_authors_final_position_score() -> None:
    module = maze_module("green", mouse=(4, 0), heading="north")  # accepting sphere is blue at (0, 0)
    assert module.partial_score() == 0.0
    module.apply("move_forward", START_CLOCK)  # 3 squares left of 4 in a straight line
    assert module.partial_score() == pytest.approx(1 / 4)
    module.apply("move_backward", START_CLOCK)  # back at the start: the score is where it ends
    assert module.partial_score() == 0.0
    module.apply("turn_left", START_CLOCK)
    module.apply("turn_left", START_CLOCK)  # facing south
    module.apply("move_forward", START_CLOCK)  # away from the sphere: |4 - 5| / 4 (their abs)
    assert module.partial_score() == pytest.approx(1 / 4)
    module.apply("move_backward", START_CLOCK)
    module.apply("move_backward", START_CLOCK)
    module.apply("move_backward", START_CLOCK)  # (2, 0): 2 of 4
    assert module.partial_score() == pytest.approx(1 / 2)
    strike = module.apply("press_labyrinth_button", START_CLOCK)  # the mouse goes back to its start
    assert strike.mistake and module.mouse == (4, 0) and module.heading == "north"
    assert module.partial_score() == 0.0
    for _ in range(4):
        module.apply("move_forward", START_CLOCK)
    assert module.mouse == (0, 0) and module.partial_score() == 1.0  # there, not pressed yet
    module.apply("press_labyrinth_button", START_CLOCK)
    assert module.solved and module.partial_score() == 1.0


def test_maze_default_is_the_authors_layout() -> None:
    starts, tori = set(), set()
    for i in range(300):
        module = make("maze", i)
        assert module.layout == list(maze.PAPER_LAYOUT)
        assert module.spheres == maze.PAPER_SPHERES
        assert module.layout[maze.CENTER[0]][maze.CENTER[1]] == "#"  # the torus's square is blocked
        starts.add(module.mouse)
        tori.add(module.torus)
    open_squares = {
        (r, c) for r in range(maze.SIZE) for c in range(maze.SIZE) if maze.PAPER_LAYOUT[r][c] == "."
    }
    assert starts == open_squares and tori == set(maze.TORUS_TO_SPHERE)  # any open square, any torus
    assert set(maze.distances(list(maze.PAPER_LAYOUT), (1, 1))) == open_squares  # all connected


def test_maze_generator_builds_perfect_mazes() -> None:
    for i in range(200):
        module = make("maze", i, layout="generated")
        open_cells = [
            (r, c) for r in range(maze.SIZE) for c in range(maze.SIZE) if module.layout[r][c] == "."
        ]
        reach = maze.distances(module.layout, module.mouse)
        assert set(reach) == set(open_cells)  # connected
        edges = sum(1 for r, c in open_cells for nr, nc in ((r + 1, c), (r, c + 1)) if (nr, nc) in reach)
        assert edges == len(open_cells) - 1  # a tree: exactly one path between any two squares
        assert module.layout[maze.CENTER[0]][maze.CENTER[1]] == "."
        assert module.start_distance >= maze.MIN_DISTANCE
        assert len({module.mouse, maze.CENTER, *module.spheres.values()}) == 6


def test_maze_manual_has_the_mapping_table() -> None:
    text = MazeModule.manual()
    for torus, sphere in maze.TORUS_TO_SPHERE.items():
        assert f"| {torus} | {sphere} |" in text
    assert "forward or backward" in text and "turn left or right" in text


# ---------------------------------------------------------------------------------------------
# Every module: oracle, variety, JSON, images, manuals, random baseline.


@pytest.mark.parametrize("name", list(MODULES))
def test_oracle_solves_generated_instances(name: str) -> None:
    for i in range(300):
        module = make(name, i)
        step = (1.0, 3.0, 7.0)[i % 3]  # any per-turn clock step coprime with 10 reaches every digit
        turns, mistakes = play_oracle(module, step)
        assert mistakes == 0 and module.solved and module.partial_score() == 1.0
        if not module.realtime:
            assert turns == 1  # the oracle's lines of one turn solve a turn-free module


@pytest.mark.parametrize("name", list(MODULES))
def test_generators_are_seeded_and_varied(name: str) -> None:
    cls = MODULES[name]
    # the authors' one maze has only (open square, torus, heading) to vary: our generated mazes here
    options = {"layout": "generated"} if name == "maze" else {}
    first = [cls.generate(random.Random(derive_seed("variety", name, i)), **options) for i in range(1500)]
    again = [cls.generate(random.Random(derive_seed("variety", name, i)), **options) for i in range(5)]
    assert first[:5] == again
    distinct = {json.dumps(p, sort_keys=True) for p in first}
    assert len(distinct) >= 1400, f"{name}: only {len(distinct)} distinct instances of 1500"
    for params in first[:50]:  # JSON round trip rebuilds the same module
        module = cls(json.loads(json.dumps(params)))
        assert module.describe(START_CLOCK) == cls(params).describe(START_CLOCK)


@pytest.mark.parametrize("name", list(MODULES))
def test_images_deterministic_and_drawn(name: str) -> None:
    for i in range(3):
        module, twin = make(name, i), make(name, i)
        png = to_png(module.render(593.0))
        assert png == to_png(twin.render(593.0)) == to_png(module.render(593.0))
        image = module.render(593.0)
        assert image.mode == "RGB" and image.size == (520, 520)
        colors = image.getcolors(maxcolors=1 << 16)
        assert colors is None or len(colors) > 8
        assert to_png(module.render(123.0)) != png  # the clock is drawn


def test_images_show_the_state() -> None:
    colors = ["red", "blue", "yellow", "black", "white", "red"]
    module = WireModule({"colors": colors, "serial": "000000"})
    image = module.render(START_CLOCK)
    for i, color in enumerate(colors):  # the middle of each wire has the wire's colour
        n, top, bottom = len(colors), 84 + 48, 508 - 12
        y = round(top + (bottom - top) / n * (i + 0.5))
        assert image.getpixel((260, y)) == wire.draw.COLORS[color]
    module.apply("cut_wire_1", START_CLOCK)
    # as the original's picture, a cut wire looks the same; mark_cut_wires (ours) draws the gap
    assert to_png(module.render(START_CLOCK)) == to_png(image)
    module.options = {"mark_cut_wires": True}
    cut = module.render(START_CLOCK)
    assert cut.getpixel((260, round(132 + (496 - 132) / 6 * 0.5))) != wire.draw.COLORS["red"]

    m = make("maze", 0)
    image = m.render(START_CLOCK)
    for color, cell in m.spheres.items():
        if cell != m.mouse:
            x, y = m._center(cell)
            assert image.getpixel((round(x + maze.TILE * 0.25), round(y))) == maze.draw.COLORS[color]

    d = dog_module(3)
    picture = d.render(START_CLOCK).crop(dog.PICTURE)
    colors = picture.getcolors(maxcolors=1 << 16)
    assert colors is None or len(colors) > 50  # animal art, not a blank box


@pytest.mark.parametrize("name", list(MODULES))
def test_manual_names_no_action_of_the_solver(name: str) -> None:
    """The original's manuals describe the module, never the solver's action names."""
    module = make(name, 0)
    text = MODULES[name].manual()
    for action in module.action_vocabulary():
        if "_" in action:  # "submit" is also the button's name in the paper's manual
            assert action not in text, action
    assert len(text) > 150


@pytest.mark.parametrize("name", list(MODULES))
def test_action_names_are_not_substrings_of_each_other(name: str) -> None:
    actions = make(name, 0).actions()
    for a in actions:
        assert not any(a != b and a.lower() in b.lower() for b in actions)


@pytest.mark.parametrize("name", list(MODULES))
def test_describe_is_stable_for_turn_free_modules(name: str) -> None:
    module = make(name, 1)
    if module.realtime:
        assert module.describe(600.0) != module.describe(597.0)
    else:  # the state key (describe by default) must not change with the clock alone
        assert module.describe(600.0) == module.describe(597.0)


def random_psr(name: str, clock_step: float, episodes: int = 100) -> tuple[float, float]:
    scores, mistakes = [], []
    for i in range(episodes):
        module = make(name, 10_000 + i)
        score, m = random_play(module, random.Random(derive_seed("random-solver", name, i)), clock_step)
        scores.append(score)
        mistakes.append(m)
    return 100 * statistics.mean(scores), statistics.mean(mistakes)


@pytest.mark.parametrize("name", list(MODULES))
def test_random_solver_psr_matches_the_paper(name: str) -> None:
    psr, _ = random_psr(name, clock_step=7.0)  # the task's default seconds_per_turn
    assert abs(psr - PAPER_RANDOM_PSR[name]) <= 5, (
        f"{name}: random PSR {psr:.1f} vs paper {PAPER_RANDOM_PSR[name]}"
    )


@pytest.mark.parametrize("name", list(MODULES))
def test_default_instances_solved_by_the_oracle_at_the_tasks_clock(name: str) -> None:
    """The task's default 100 instances (seed 0): each is the generator's first draw (so no failed
    draw was silently replaced) and the oracle solves it, mistake-free, at the task's clock."""
    from playbench.tasks.comma.task import CommaConfig, make_instance

    config = CommaConfig(module=name)
    for index in range(config.instances_per_module):
        instance = make_instance(name, 0, index, config)
        rng = random.Random(derive_seed("comma", name, 0, index))
        assert json.loads(json.dumps(MODULES[name].generate(rng))) == instance.params
        module = MODULES[name](instance.params)
        clock, solved_at = float(instance.start_clock), None
        for turn in range(1, config.max_steps + 1):
            for action in module.oracle_actions(clock):
                assert not module.apply(action, clock).mistake
            if module.solved:
                solved_at = turn
                break
            clock -= config.seconds_per_turn
        assert solved_at is not None

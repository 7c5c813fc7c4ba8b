"""COMMA modules button, color, keypad, led, memory: one test per manual clause, oracles, images."""

import itertools
import random

import pytest
from matplotlib.ft2font import FT2Font
from PIL import Image, ImageChops

from playbench.render.draw2d import to_png
from playbench.tasks.comma import draw
from playbench.tasks.comma.modules.button import PAPER_STRIP_COLORS, ButtonModule, release_digit, shows_digit
from playbench.tasks.comma.modules.color import TABLE, ColorModule, first_group, group_members
from playbench.tasks.comma.modules.keypad import COLUMNS, COLUMNS_4, POSITIONS, SYMBOLS, KeypadModule
from playbench.tasks.comma.modules.led import MULTIPLIERS, LedModule, correct_positions
from playbench.tasks.comma.modules.memory import MemoryModule
from playbench.tasks.comma.task import find_action

MINE = (ButtonModule, ColorModule, KeypadModule, LedModule, MemoryModule)


# --- button -----------------------------------------------------------------------------------
def button(color: str, strip: str = "blue", palette: str = "all") -> ButtonModule:
    return ButtonModule({"button_color": color, "strip_color": strip, "palette": palette})


def test_button_default_is_the_papers_yellow_button_with_five_strip_colours():
    rng = random.Random(0)
    drawn = [ButtonModule.generate(rng) for _ in range(300)]
    assert {p["button_color"] for p in drawn} == {"yellow"} and {p["palette"] for p in drawn} == {"yellow"}
    assert (
        {p["strip_color"] for p in drawn}
        == set(PAPER_STRIP_COLORS)
        == {"red", "white", "yellow", "blue", "green"}
    )
    m = ButtonModule(drawn[0])
    assert m.actions() == ["hold_button"] and m.action_vocabulary() == ["hold_button", "release_button"]
    assert not m.apply("tap_button", 421).changed  # no tap in the paper's puzzle
    manual = m.manual()
    assert "yellow" in manual and "tap" not in manual and "red button" not in manual.lower()
    for strip, digit in (("Blue", "4"), ("White", "1"), ("Yellow", "5"), ("any other colour", "1")):
        assert any(strip in line and f"a {digit} in any position" in line for line in manual.splitlines())
    with pytest.raises(ValueError, match="yellow buttons only"):
        button("red", palette="yellow")


def test_button_green_strip_releases_on_a_one():
    m = button("yellow", "green", palette="yellow")
    assert release_digit("green") == "1"
    m.apply("hold_button", 400)  # 06:40: no 1 anywhere
    assert m.apply("release_button", 400).mistake and not m.held and m.actions() == ["hold_button"]
    m.apply("hold_button", 391)
    assert not m.apply("release_button", 391).mistake and m.solved  # 06:31


def test_button_oracle_holds_waits_and_releases_in_one_reply():
    m = button("yellow", "blue", palette="yellow")
    assert m.oracle_actions(400) == ["hold_button", "release_button"]  # 06:40 shows a 4: release at once
    m2 = button("yellow", "white", palette="yellow")
    assert m2.oracle_actions(400) == ["hold_button"]  # 06:40: no 1; without waits it only holds
    assert m2.oracle_actions(400, waits=True) == ["hold_button", "wait_9_seconds", "release_button"]  # 06:31


@pytest.mark.parametrize("color", ["red", "white"])
def test_button_red_and_white_are_tapped(color):
    m = button(color)
    assert not m.apply("tap_button", 421).mistake and m.solved and m.partial_score() == 1.0


@pytest.mark.parametrize("color", ["yellow", "blue"])
def test_button_yellow_and_blue_are_held_a_tap_is_a_strike(color):
    m = button(color)
    assert m.apply("tap_button", 421).mistake and not m.solved
    m.apply("hold_button", 421)
    assert m.held and m.actions() == ["release_button"]


@pytest.mark.parametrize(("strip", "digit"), [("blue", "4"), ("white", "1"), ("yellow", "5"), ("red", "1")])
def test_button_strip_colour_gives_the_release_digit(strip, digit):
    assert release_digit(strip) == digit
    m = button("yellow", strip)
    m.apply("hold_button", 400)
    seconds_with = next(s for s in range(400, 300, -1) if digit in draw.format_clock(s).replace(":", ""))
    seconds_without = next(
        s for s in range(400, 300, -1) if digit not in draw.format_clock(s).replace(":", "")
    )
    assert m.apply("release_button", seconds_without).mistake and not m.held
    m.apply("hold_button", seconds_with)
    result = m.apply("release_button", seconds_with)
    assert not result.mistake and m.solved


def test_button_digit_counts_in_any_position_of_the_timer():
    assert (
        shows_digit(9 * 60 + 14, "4") and shows_digit(4 * 60 + 0, "4") and not shows_digit(7 * 60 + 33, "4")
    )
    assert shows_digit(6 * 60 + 51, "5") and shows_digit(6 * 60 + 51, "1")


def test_button_held_tap_colour_is_a_strike_on_release_and_the_strip_shows_only_while_held():
    m = button("red", "white")
    before = to_png(m.render(400))
    m.apply("hold_button", 400)
    assert "lit white" in m.describe(400) and to_png(m.render(400)) != before
    assert m.apply("release_button", 411).mistake and not m.solved and "unlit" in m.describe(400)


# --- keypad -----------------------------------------------------------------------------------
# The authors' page (images/keypad/ColN/k.png): the same picture file sits at these pairs of places
# (column, row), 1-based columns, rows from the top counted from 0.
SHARED_PLACES = [
    ((1, 0), (2, 1)), ((1, 2), (3, 5)), ((1, 4), (4, 3)), ((1, 5), (2, 5)), ((1, 6), (2, 2)),
    ((2, 0), (6, 1)), ((2, 3), (3, 2)), ((2, 4), (3, 6)), ((2, 6), (4, 5)), ((3, 3), (4, 4)),
    ((4, 0), (6, 0)), ((4, 1), (5, 4)), ((4, 2), (5, 2)), ((4, 6), (5, 1)), ((5, 0), (6, 4)),
]  # fmt: skip


def test_keypad_page_has_the_authors_six_columns_and_shared_symbols():
    assert len(COLUMNS) == 6 and all(len(c) == 7 for c in COLUMNS)
    assert len({s for c in COLUMNS for s in c}) == 27
    shared = {
        frozenset({(a, r), (b, q)})
        for (a, r) in ((c, r) for c in range(1, 7) for r in range(7))
        for (b, q) in ((c, r) for c in range(1, 7) for r in range(7))
        if (a, r) < (b, q) and COLUMNS[a - 1][r] == COLUMNS[b - 1][q]
    }
    assert shared == {frozenset(pair) for pair in SHARED_PLACES}


@pytest.mark.parametrize("table", [COLUMNS, COLUMNS_4], ids=["six", "four"])
def test_keypad_columns_overlap_so_every_four_symbols_have_one_column(table):
    for a, b in itertools.combinations(table, 2):
        assert len(set(a) & set(b)) <= 3
    for c, column in enumerate(table):
        assert len(set(column)) == 7
        for four in itertools.combinations(column, 4):
            assert [k for k, other in enumerate(table) if set(four) <= set(other)] == [c]


def test_keypad_every_symbol_is_a_real_glyph_of_the_packaged_font():
    face = FT2Font(draw.font_path("sans"))
    charmap = face.get_charmap()
    tofu = draw.font(60).getmask("\ue000").getbbox()  # a private-use code point has no glyph
    for symbol in {s for table in (COLUMNS, COLUMNS_4) for column in table for s in column}:
        assert ord(symbol) in charmap, symbol
        box = draw.font(60).getmask(symbol).getbbox()
        assert box is not None and box != tofu, symbol
        assert symbol in SYMBOLS and SYMBOLS[symbol]


def test_keypad_presses_in_column_order_top_to_bottom():
    m = KeypadModule({"columns": 6, "column": 3, "symbols": ["Җ", "б", "ټ", "ѣ"]})  # column 4: б ¶ ѣ Ѭ Җ ¿ ټ
    assert m.oracle_actions(0) == [
        "press_top_right_button",
        "press_bottom_right_button",
        "press_top_left_button",
        "press_bottom_left_button",
    ]
    for action in m.oracle_actions(0):
        assert not m.apply(action, 0).mistake
    assert m.solved and m.partial_score() == 1.0


def test_keypad_wrong_key_is_a_strike_that_darkens_the_lit_keys_and_scores_the_last_correct_press():
    m = KeypadModule({"columns": 6, "column": 0, "symbols": ["Ϙ", "Ѧ", "ƛ", "Ϟ"]})
    m.apply("press_top_left_button", 0)
    m.apply("press_top_right_button", 0)
    result = m.apply("press_top_right_button", 0)  # pressing a lit key again is not the next key
    assert result.mistake and m.progress == 0 and m.partial_score() == 0.5  # a strike keeps the score
    m.apply("press_top_left_button", 0)  # the authors' score is the progress at the last correct press
    assert m.partial_score() == 0.25


def test_keypad_keys_show_nothing_by_default_and_light_up_with_keypad_lights():
    params = {"columns": 6, "column": 0, "symbols": ["Ϙ", "Ѧ", "ƛ", "Ϟ"]}
    m, lit = KeypadModule(params), KeypadModule(params)
    lit.options = {"keypad_lights": True}  # ours
    before, lit_before = to_png(m.render(500)), to_png(lit.render(500))
    for module in (m, lit):
        assert not module.apply("press_top_left_button", 0).mistake and module.progress == 1
    assert to_png(m.render(500)) == before  # as the authors' keys: nothing shows a press
    assert "Lit" not in m.describe(0)
    assert to_png(lit.render(500)) != lit_before and "Lit keys: top left" in lit.describe(0)
    # a repeated mistake is told apart by the point of the sequence, though the picture is the same
    assert m.state_key(0) != KeypadModule(params).state_key(0)


def test_keypad_text_manual_lists_every_column_in_order_and_the_page_is_a_picture():
    m = KeypadModule(KeypadModule.generate(random.Random(0)))
    manual = m.manual()
    for i, column in enumerate(COLUMNS, 1):
        block = manual.split(f"Column {i} (top to bottom):")[1]
        positions = [block.index(f"{k}. {s}") for k, s in enumerate(column, 1)]
        assert positions == sorted(positions)
    assert not any(f"press_{p}_button" in manual for p in POSITIONS)
    page = m.manual_image()
    assert page.mode == "RGB" and page.size[0] > 600 and page.size[1] > 700
    beside = m.manual_beside_image()
    assert "Only one column" in beside or "Exactly one column" in beside
    assert not any(s in beside for s in SYMBOLS)  # the symbols are in the picture only
    assert to_png(page) == to_png(KeypadModule(KeypadModule.generate(random.Random(5))).manual_image())
    four = KeypadModule(KeypadModule.generate(random.Random(0), columns=4))
    assert "Column 4 (top to bottom)" in four.manual() and "Column 5" not in four.manual()
    assert to_png(four.manual_image()) != to_png(page)


# --- LED --------------------------------------------------------------------------------------
def test_led_multipliers_are_the_papers():
    assert MULTIPLIERS == {"red": 2, "green": 3, "blue": 4, "yellow": 5, "purple": 6, "orange": 7}


def test_led_button_is_correct_when_value_times_multiplier_mod_26_is_the_opposite_letter():
    # B=1, x2 = 2 = C (opposite of top left is bottom right); N=13, x2 = 26 mod 26 = 0 = A
    assert correct_positions(["B", "N", "A", "C"], 2) == [0, 1]
    # Z=25, x7 = 175 mod 26 = 19 = T; H=7 x7=49 mod 26 = 23 = X is not Q
    assert correct_positions(["Z", "H", "Q", "T"], 7) == [0]


def test_led_wrong_press_is_a_strike_and_the_stage_stays_right_press_advances():
    m = LedModule({"colors": ["red", "orange"], "letters": [["B", "D", "E", "C"], ["Z", "H", "Q", "T"]]})
    assert m.apply("press_top_right_button", 0).mistake and m.stage == 0
    assert not m.apply("press_top_left_button", 0).mistake and m.stage == 1 and m.partial_score() == 0.5
    assert "orange" in m.describe(0) and "top left Z" in m.describe(0)
    m.apply("press_top_left_button", 0)
    assert m.solved and m.partial_score() == 1.0


def test_led_generator_always_leaves_a_correct_button_with_four_letters():
    rng = random.Random(3)
    for _ in range(300):
        params = LedModule.generate(rng)
        assert 2 <= len(params["colors"]) <= 5
        for color, letters in zip(params["colors"], params["letters"], strict=True):
            assert len(set(letters)) == 4 and correct_positions(letters, MULTIPLIERS[color])


# --- memory -----------------------------------------------------------------------------------
def memory(displays, labels=(1, 2, 3, 4)):
    """A memory module whose display shows `displays` after 0, 1, 2, ... presses."""
    return MemoryModule({"labels": list(labels), "seed": 0, "displays": list(displays)})


@pytest.mark.parametrize(("display", "position"), [(1, 2), (2, 2), (3, 3), (4, 4)])
def test_memory_stage_1_by_display(display, position):
    m = memory([display, 3, 3, 2, 1])
    assert m.correct_position() == position


def test_memory_stage_2_rules():
    labels = [3, 4, 1, 2]  # label 4 sits in position 2
    for display, expected in [(1, 2), (2, 2), (3, 1), (4, 2)]:
        m = memory([1, display, 3, 2, 1], labels)
        m.apply("press_4", 0)  # stage 1 display 1 -> position 2, labelled 4
        assert m.correct_position() == expected, display


def test_memory_stage_3_to_5_use_earlier_labels_and_positions():
    labels = [4, 2, 3, 1]
    m = memory([3, 3, 2, 3, 4], labels)
    m.apply("press_3", 0)  # stage 1: display 3 -> position 3 (label 3)
    m.apply("press_4", 0)  # stage 2: display 3 -> position 1 (label 4)
    assert m.correct_position() == 3  # stage 3: display 2 -> same label as stage 1 (3), at position 3
    m.apply("press_3", 0)
    assert m.correct_position() == 1  # stage 4: display 3 -> same position as stage 2 (1)
    m.apply("press_4", 0)  # label 4
    assert m.correct_position() == 3  # stage 5: display 4 -> label pressed in stage 3 (3), position 3
    assert m.oracle_actions(0) == ["press_3"]
    m.apply("press_3", 0)
    assert m.solved and m.partial_score() == 1.0 and m.stage == 6


def test_memory_display_changes_after_every_press_and_a_strike_keeps_the_last_score():
    m = memory([1, 1, 1, 2, 4], [1, 2, 3, 4])
    m.apply("press_2", 0)
    m.apply("press_4", 0)  # stage 2 display 1 -> label 4 = position 4
    assert m.stage == 3 and m.partial_score() == 2 / 5
    assert m.apply("press_2", 0).mistake and m.stage == 1 and m.pressed == []
    assert m.display == 2  # a new digit after the wrong press too (the authors' module)
    assert m.partial_score() == 2 / 5  # the score of the last correct press stays after a strike
    m.apply("press_2", 0)  # stage 1 display 2 -> position 2: the score is set again
    assert m.partial_score() == 1 / 5 and m.display == 4


def test_memory_digits_are_drawn_from_the_instance_seed():
    params = MemoryModule.generate(random.Random(7))
    a, b = MemoryModule(params), MemoryModule(params)
    seen = []
    for _ in range(30):
        seen.append(a.display)
        a.apply("press_1", 0)
        b.apply("press_1", 0)
        assert a.display == b.display
    assert set(seen) == {1, 2, 3, 4}


# --- color ------------------------------------------------------------------------------------
def test_color_first_group_is_the_fewest_with_ties_in_list_order():
    grid = ["red"] * 3 + ["blue"] * 3 + ["green"] * 4 + ["yellow"] * 3 + ["magenta"] * 3
    assert first_group(grid) == "red"
    grid = ["red"] * 5 + ["blue"] * 2 + ["green"] * 4 + ["yellow"] * 3 + ["magenta"] * 2
    assert first_group(grid) == "blue"


def test_color_row_and_column_groups_take_the_first_line_with_colour():
    grid = ["white"] * 4 + ["white", "red", "white", "blue"] + ["green"] * 8
    assert group_members(grid, "row") == {5, 7}
    assert group_members(grid, "column") == {8, 12}


def test_color_table_is_the_papers_shape():
    assert sorted(TABLE) == list(range(1, 16)) and all(len(row) == 7 for row in TABLE.values())
    assert TABLE[1] == ("blue", "column", "red", "yellow", "row", "green", "magenta")
    assert TABLE[15] == ("row", "row", "column", "row", "column", "column", "row")


def test_color_wrong_square_is_a_strike_and_resets_white_squares_do_nothing():
    grid = ["red"] + ["blue"] * 15
    m = ColorModule({"grid": grid, "seed": 5})
    assert m.target == "red"
    assert m.apply("click_row_0_col_1", 0).mistake  # the authors' rows and columns count from 0
    assert not m.apply("click_row_0_col_0", 0).mistake and m.previous == "red"
    # after the red group the table row for 1 white square, column "red", names blue
    assert m.target == TABLE[1][0] == "blue"
    assert m.apply("click_row_0_col_0", 0).changed is False


def test_color_group_named_by_the_table_is_never_empty():
    rng = random.Random(11)
    for _ in range(200):
        m = ColorModule(ColorModule.generate(rng))
        while not m.solved:
            assert m.group and all(m.grid[i] != "white" for i in m.group)
            for action in m.oracle_actions(0):
                assert not m.apply(action, 0).mistake


# --- the authors' action names and order ----------------------------------------------------------
# their modules' action dicts (pschwendy/multimodal_comms, apps/comma/modules): the order decides the
# action a line naming several carries out
AUTHORS_ACTIONS = {
    MemoryModule: ["press_1", "press_2", "press_3", "press_4"],  # by label
    KeypadModule: [
        "press_top_left_button",
        "press_bottom_left_button",
        "press_top_right_button",
        "press_bottom_right_button",
    ],
    LedModule: [
        "press_top_left_button",
        "press_top_right_button",
        "press_bottom_right_button",
        "press_bottom_left_button",
    ],
    ColorModule: [f"click_row_{r}_col_{c}" for r in range(4) for c in range(4)],  # from 0
}


@pytest.mark.parametrize("cls", list(AUTHORS_ACTIONS), ids=lambda c: c.name)
def test_action_names_and_order_are_the_authors(cls):
    m = cls(cls.generate(random.Random(0)))
    assert m.actions() == m.action_vocabulary() == AUTHORS_ACTIONS[cls]
    assert all(action in m.actions() for action in m.oracle_actions(500))


def test_a_line_naming_two_keys_carries_out_the_first_in_the_authors_order():
    keypad = AUTHORS_ACTIONS[KeypadModule]
    assert (
        find_action("press_top_right_button or press_bottom_left_button?", keypad)
        == "press_bottom_left_button"
    )
    led = AUTHORS_ACTIONS[LedModule]
    assert (
        find_action("press_bottom_left_button, press_bottom_right_button", led) == "press_bottom_right_button"
    )


def test_memory_press_n_presses_the_button_labelled_n():
    m = memory([1, 1, 1, 1, 1], labels=(3, 1, 2, 4))  # the authors' labels, left to right
    assert m.correct_position() == 2 and m.oracle_actions(0) == ["press_1"]  # position 2 is labelled 1
    assert m.apply("press_2", 0).mistake  # the button labelled 2 is in position 3
    assert not m.apply("press_1", 0).mistake and m.pressed == [(2, 1)]


# the authors' memory rules, which name buttons by label (stage -> display -> a label, or "h" and the
# stage whose pressed label to repeat)
AUTHORS_MEMORY = {
    1: {1: 1, 2: 1, 3: 2, 4: 4},
    2: {1: 4, 2: ("h", 1), 3: 3, 4: ("h", 1)},
    3: {1: ("h", 2), 2: ("h", 1), 3: 2, 4: 4},
    4: {1: ("h", 1), 2: 3, 3: ("h", 2), 4: ("h", 2)},
    5: {1: ("h", 1), 2: ("h", 2), 3: ("h", 4), 4: ("h", 3)},
}


def test_memory_papers_rules_press_what_the_authors_rules_press_with_their_labels():
    """With the authors' fixed labels 3, 1, 2, 4 the paper's position-and-label rules and the authors'
    label rules press the same buttons for every one of the 4^5 display sequences."""
    for displays in itertools.product(range(1, 5), repeat=5):
        m = memory(displays, labels=(3, 1, 2, 4))
        pressed: list[int] = []
        for stage, display in enumerate(displays, 1):
            rule = AUTHORS_MEMORY[stage][display]
            label = pressed[rule[1] - 1] if isinstance(rule, tuple) else rule
            assert m.oracle_actions(0) == [f"press_{label}"], (displays, stage)
            assert not m.apply(f"press_{label}", 0).mistake
            pressed.append(label)
        assert m.solved


def test_color_rows_and_columns_are_numbered_from_0_in_the_description():
    m = ColorModule({"grid": ["red"] + ["blue"] * 15, "seed": 5})
    assert m.describe(0).startswith("Grid (left to right): row 0: red, blue, blue, blue; row 1:")
    assert "row 4" not in m.describe(0)


# --- every module -------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", MINE, ids=lambda c: c.name)
def test_oracle_solves_generated_instances_without_mistakes(cls):
    rng = random.Random(cls.name)
    for _ in range(200):
        m = cls(cls.generate(rng))
        clock = 599
        for _turn in range(40):
            if m.solved:
                break
            for action in m.oracle_actions(clock):
                assert action in m.actions()
                assert not m.apply(action, clock).mistake
            clock -= 7
        assert m.solved and m.partial_score() == 1.0


@pytest.mark.parametrize("cls", MINE, ids=lambda c: c.name)
def test_images_are_deterministic_show_the_clock_and_the_state(cls):
    params = cls.generate(random.Random(1))
    a, b = cls(params), cls(params)
    assert to_png(a.render(500)) == to_png(b.render(500))
    image = a.render(500)
    assert image.size == (draw.WIDTH, draw.HEIGHT) and image.mode == "RGB"
    assert ImageChops.difference(image, a.render(493)).getbbox() is not None  # the timer moved
    action = a.oracle_actions(500)[0]
    a.apply(action, 500)
    if cls is KeypadModule:  # the authors' keys show no press: only keypad_lights (ours) draws it
        assert to_png(a.render(500)) == to_png(b.render(500))
        a.options = b.options = {"keypad_lights": True}
    assert to_png(a.render(500)) != to_png(b.render(500))


@pytest.mark.parametrize("cls", MINE, ids=lambda c: c.name)
def test_manual_names_no_action_and_unknown_actions_change_nothing(cls):
    m = cls(cls.generate(random.Random(2)))
    manual = m.manual()  # the original's manuals never name the solver's actions
    for action in m.action_vocabulary():
        assert action not in manual
    assert "click_row" not in manual
    result = m.apply("no_such_action", 400)
    assert not result.changed and not result.mistake


def test_module_images_render_as_images():
    for cls in MINE:
        assert isinstance(cls(cls.generate(random.Random(4))).render(400), Image.Image)

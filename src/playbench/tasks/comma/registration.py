"""COMMA's task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register

TASK = "playbench.tasks.comma.task:CommaTask"

# name -> what the solver faces (module names as in playbench.tasks.comma.modules.NAMES)
PUZZLES: dict[str, str] = {
    "button": "hold the button and release it when the timer shows the strip's digit (real time)",
    "dog": "press submit when the timer's last digit equals the number of dogs shown (real time)",
    "wire": "cut the one correct wire of three to six",
    "who": "read a display, find a button label, press the button a list names",
    "led": "press, stage by stage, a lettered button picked by the LED's multiplier",
    "memory": "five stages of presses by position or label remembered from earlier stages",
    "keypad": "press four symbol keys in the order of the one column of the manual's page that holds them",
    "password": "cycle letters into the one valid word and submit",
    "color": "whiten a 4x4 grid group by group following a table",
    "maze": "steer a mouse through a maze to the sphere the torus colour names, then press the button",
}

# `module` defines each id: `comma/wire --set module=button` is refused, naming comma/button
for _name, _what in PUZZLES.items():
    register(
        f"comma/{_name}",
        TASK,
        description=f"COMMA {_name} puzzle: {_what}",
        default=False,  # `comma/all` plays these same instances; `playbench run comma` runs that
        fixed={"module": _name},
    )
register(
    "comma/all",
    TASK,
    description="COMMA: all ten puzzle modules (instances like button-0007)",
    fixed={"module": "all"},
)

from playbench.core.preset import register_preset  # noqa: E402

# the paper's settings and its Tables 1-4, for `playbench reproduce comma`
register_preset("comma", "playbench.tasks.comma", "paper_preset.json")

# the authors' repository: texts=original and the paper's puzzle set read from its clone
from playbench.tasks.comma.originals import register as _register_original  # noqa: E402

_register_original()

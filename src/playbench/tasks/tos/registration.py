"""Theory of Space task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register

_TOS = "playbench.tasks.tos"
_FAMILY_DESCRIPTIONS = {
    "pairwise-direction": "where one object is relative to another, top-down (cardinal bin, distance bin)",
    "perspective-taking": "standing at an object facing its way, where is another object (ego bin, distance)",
    "perspective-determine": "which object's position and facing gives this view",
    "action2view": "after a move sequence, where is an object (ego bin, distance)",
    "view2action": "which move sequence leads to this view",
    "allocentric-map": "coordinates of listed objects in the start frame",
    "mental-rotation": "order in which objects come straight ahead while turning in place",
    "location2view": "from a given point and facing, where is an object (ego bin, distance)",
    "view2location": "from a view and a facing, which point are you at",
}

register(
    "tos/explore",
    f"{_TOS}.exploration:ExploreTask",
    description="Theory of Space: explore a multi-room world, observe every object at minimum cost",
)
for _family, _what in _FAMILY_DESCRIPTIONS.items():
    register(
        f"tos/{_family}",
        f"{_TOS}.answers:QuestionTask",
        description=f"Theory of Space question after exploration: {_what} (--set exploration=active|passive)",
        fixed={"family": _family},  # each family is its own id
    )
register(
    "tos/cogmap",
    f"{_TOS}.answers:CogmapTask",
    description="Theory of Space: explore, then write the global cognitive map as JSON",
)
register(
    "tos/false-belief",
    f"{_TOS}.false_belief:FalseBeliefTask",
    description="Theory of Space: explore, then find the objects moved or turned (F1)",
)

from playbench.core.preset import register_preset  # noqa: E402

# the paper's settings and published tables for `playbench reproduce`: text and vision worlds,
# active exploration (Tables 2, 5, 7; Table 4 as data) and passive comprehension (Table 3)
register_preset("tos", "playbench.tasks.tos", "paper_preset.json")
register_preset("tos-vision", "playbench.tasks.tos", "paper_preset_vision.json")
register_preset("tos-passive", "playbench.tasks.tos", "paper_preset_passive.json")
register_preset("tos-vision-passive", "playbench.tasks.tos", "paper_preset_vision_passive.json")

from playbench.tasks.tos.originals import register as _register_original  # noqa: E402

_register_original()  # the authors' repository (`originals.py`): texts and scenes read from a clone

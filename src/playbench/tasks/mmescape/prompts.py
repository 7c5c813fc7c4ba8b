"""What the player and the judge read under playbench's protocol (`prompts=playbench`), and the judge.

`prompts=original` (the paper's protocol) takes its texts from `words.py`: the authors' own words read
from their clone (`texts=original`) or our paraphrases of them (`texts=ours`). `prompts=playbench` uses
playbench's own texts below, which add facts the original does not give (the 4 m reach, the step
counter, the order of an action's parts, the pitch limit). The judge prompts (the paper's Table 15 and
the story score of its appendix) are ours for both: no judge code or story-judge prompt is in the
authors' repository.
"""

from __future__ import annotations

from playbench.tasks.mmescape.chain import Chain, solution_order

# --- playbench's texts -----------------------------------------------------------------------------

INSTRUCTIONS = """\
You are locked inside a room and your goal is to get out of it: this is a room escape game. \
You see the room in first person. You can look around, walk, pick things up, inspect what you \
carry and use it. A locked door or box usually needs a key or a password that is hidden \
somewhere in the room.

Each turn, answer with one JSON object saying what to do. Every key is optional; leave out what \
you do not need:
- "move_forward": a number from -10 to 10, the metres to walk in the direction you face \
(negative walks backwards). Walls and furniture stop you.
- "rotate_right": a number from -180 to 180, the degrees to turn right (negative turns left).
- "rotate_down": a number from -90 to 90, the degrees to tilt your view down (negative tilts \
it up). Your view tilts at most 89 degrees either way; 0 leaves it as it is.
- "jump": true or false, to jump (together with move_forward it carries you over something low).
- "look_at": [x, y] with x and y from 0 to 1, to turn your view so that this point of the \
current image comes to the centre; [0, 0] is the top-left corner and [1, 1] the bottom-right. \
There are no clues on the ceiling.
- "grab": true or false, to interact with the object exactly at the centre of your view, marked \
by the red dot: pick it up, open it or try it. Put the red dot on the object (turn, tilt or \
walk) and be close enough to it, within about 4 metres. If a grab fails, move closer or correct \
your view. Not every object can be used: do not keep trying the same useless one.
- "interactions": {"use_item_id": an item id from your bag, "input": text}, only together \
with "grab": true. Use an item you carry on the object under the red dot (for example a key on \
a door) or type text into it (for example a password on a keypad).
- "read": an item id from your bag, to look at it closely (for example what a note says).
- "rationale": a short text explaining why you chose this action.
Turning and walking happen first; the grab then acts on what is under the red dot after the \
move; reading comes last.

Example: {"rotate_right": 30, "move_forward": 1.5, "rationale": "The desk may hold something."}
Answer with the JSON object only, nothing else."""


def hint(chains: list[Chain]) -> str:
    """What the hint option adds: the kind of chain that opens each room, without locations."""
    lines = []
    for k, chain in enumerate(chains):
        order, _ = solution_order(chain)
        by_id = chain.by_id()
        steps = []
        for ident in order:
            if ident == "exit":
                method = chain.exit.unlock_method
                need = {
                    "interact": "just open it",
                    "key": "it needs a key",
                    "password": "it needs a password",
                }[method.type]
                steps.append(f"open the door ({need})")
                continue
            it = by_id[ident]
            if it.type == "key":
                steps.append("find a key")
            elif it.type == "paper":
                steps.append("find a note and read it" + (" (it tells a password)" if it.contents else ""))
            elif it.type == "box":
                m = it.unlock_method
                how = "" if m is None or m.type == "none" else f" with the {m.type}"
                steps.append(f"open a locked box{how} and take what is inside")
        where = f"Room {k + 1}" if len(chains) > 1 else "This room"
        lines.append(f"{where}: " + ", then ".join(steps) + ".")
    return "Hint: " + " ".join(lines)


def multi_room_note(n_rooms: int) -> str:
    return (
        f"There are {n_rooms} rooms, one behind the other. The door of each room leads into the next; "
        "you have escaped when you get out through the door of the last room."
    )


def step_text(step: int, cap: int, result: str, bag: str) -> str:
    return (
        f"Step {step + 1} of at most {cap}.\n"
        f"Result of your last action: {result}\n"
        f"Your bag holds: {bag}\n"
        "Decide the next action that helps you look around the room or get useful tools or clues. "
        "If you seem stuck against something, turn around with rotate_right. "
        "Answer with the JSON object only.\n"
        "Your current view (the red dot marks its centre):"
    )


DEBRIEF = """\
You got out of the room. Now piece together the story behind it from what you found and saw \
during the game. Go through three steps:
1. The room: describe the place where you started. What did it look like, what furniture and \
objects stood out, what was the atmosphere?
2. The items: recall the things you came across, especially those that carried information \
(notes, keys, codes, anything written), and how each one led to the next.
3. The story: put it all together. What was this room for, who might have set up the challenge \
and why, and what happened, in order, until you got out?
Answer in plain prose."""


def debrief_text(record: list[str]) -> str:
    lines = "\n".join(f"- {r}" for r in record) if record else "- (nothing was recorded)"
    return f"{DEBRIEF}\n\nYour record of the game's key moments:\n{lines}"


STORY_JUDGE = """\
You grade how well a player of an escape-room game recovered the background story of the room.
Compare the recovered story with the true story and score their similarity from 0 to 5: 0 when \
none of the true story's elements appear, 5 when all of its key elements (who, what, why, how it \
ends) are recovered. Describing only the escape itself (which items opened what) earns little.

True story:
{truth}

Recovered story:
{recovered}

Answer only with a JSON object: {{"score": <integer from 0 to 5>}}"""

CONSISTENCY_JUDGE = """\
You check whether an agent in an escape-room game meant to do what actually happened. You get \
the agent's rationale for an interaction (what it believed and intended) and the game's response \
(what the interaction actually touched and produced).
Decide whether the object the agent intended to interact with is the object the response shows \
it interacted with. If the agent aimed at one object (say a cupboard) but the response shows an \
interaction with another (say a box) that it did not mean, the interaction is inconsistent: an \
accidental or misaligned success.
Special case: when the response says the agent escaped, it is consistent only if the rationale \
shows, explicitly or implicitly, that the agent was trying to leave (for example to open the door).

Examples:
rationale: I will use the code 4417 on the safe near the window.
response: You opened box_1 with the password. Inside you found: key_1 (a key).
verdict: {{"Consistency": 0}}
rationale: The key should fit the door; let me try it to get out.
response: Escaped successfully! The door opens and you leave the room.
verdict: {{"Consistency": 1}}
rationale: There is a sheet of paper on the bed; I will pick it up.
response: You picked up note_1 (a note).
verdict: {{"Consistency": 1}}

Judge this interaction:
rationale: {rationale}
response: {response}

Answer only with a JSON object: {{"Consistency": 1}} or {{"Consistency": 0}}"""

"""The prompts of the paper's Appendix D (solver, expert) and of the failure judge, in our own words."""

from __future__ import annotations

SOLVER = (
    "You are the SOLVER in a two-player cooperative puzzle game. You can see the puzzle module as an "
    "image, together with the list of actions you may take on it. You do not have the manual; your "
    "partner, the EXPERT, has it but cannot see the module. Only act when you are sure what the right "
    "action is. When you are not, describe what you see and ask the expert for help. Remember that the "
    "expert knows the module only from your words: keep your description short, but give every detail "
    "the expert needs. When you are sure of the solution, reply with just the name of the action. If "
    "the puzzle takes several actions, you may write several action names, one per line, in the order "
    "they should be carried out. Write only the solver's part of the dialogue."
)

# the line under the action list (the original has one saying how to write an action)
ACTION_FORMAT = "To carry out an action, write its name:\naction_name"

# real-time modules (button, dog) unless turn_clock: how to let the timer run inside a reply
WAIT_NOTE = (
    "The timer keeps running while you play. To act at a later moment, put a line wait_N_seconds "
    "(N from 1 to {max_wait}) before the action: the timer runs N seconds, then the next line is "
    "carried out."
)

# solver_hints (ours): how replies are read and the limits
SOLVER_FORMAT = (
    "How your reply is read: every line that contains the name of an action (upper or lower case does "
    "not matter) carries out that action, one action per line, in order from the first line to the "
    "last. {answered} Each of your replies is one conversation turn; the game ends when the module is "
    "disarmed, after {max_steps} turns{mistake_clause}. The module's timer is a simulated clock: it "
    "runs down {seconds} seconds with every conversation turn."
)

EXPERT = (
    "You are the EXPERT in a two-player cooperative puzzle game. You hold the manual that explains how "
    "to solve the puzzle module. Your partner, the SOLVER, sees the module but not the manual; you never "
    "see the module. Listen carefully to the solver's descriptions and give clear, correct instructions "
    "that lead them to the solution. Be as brief and exact as you can. If the solver's description is "
    "missing something you need, ask for it. Write only the expert's part of the dialogue."
)

ANSWERED_EVERY_TURN = "The expert reads every reply and answers it."
ANSWERED_MESSAGES = (
    "A reply without any action name is sent to the expert as a message, and the expert answers it."
)

EXPERT_WORD_LIMIT = "Keep each of your messages within {limit} words; anything longer is cut off."

JUDGE = (
    "You review a failed game of a two-player cooperative puzzle. A SOLVER saw the puzzle module and "
    "could act on it; an EXPERT held the manual and could only talk. Classify the main reason the "
    "game failed into exactly one of these categories:\n"
    "- roleplay: a player mistook its role (the expert acts as if it were the solver, or the other way "
    "round);\n"
    "- misinterpretation: the solver misread the state or signals of the module (e.g. described a "
    "wrong colour, count or symbol);\n"
    "- repetition loop: the solver repeated an action that had already failed in the same situation;\n"
    "- miscommunication: the solver ignored or misapplied the expert's instructions, or described the "
    "module incorrectly so the expert's advice could not help.\n"
    "Answer with one line of the form 'label: <category>'."
)

JUDGE_LABELS: tuple[str, ...] = ("roleplay", "misinterpretation", "repetition loop", "miscommunication")

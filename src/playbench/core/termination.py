"""Why an episode ended: one vocabulary for every suite, written to each episode record."""

from __future__ import annotations

from enum import StrEnum


class Termination(StrEnum):
    """The reason an episode ended (the `termination` field of an episode record).

    A task ends an episode with one of the first six; the runner writes the last three itself.
    """

    GOAL_REACHED = "goal_reached"  # the puzzle is solved, the room escaped, the question answered
    STEP_CAP = "step_cap"  # the task's `max_steps` actions (turns, exploration steps) were used up
    NO_PROGRESS = "no_progress"  # too many steps without progress (VisEscape's early stop)
    MISTAKE_LIMIT = "mistake_limit"  # too many mistakes (COMMA's strike limit)
    TIME_LIMIT = "time_limit"  # the game's own clock ran out (COMMA's timed modules)
    AGENT_ENDED = "agent_ended"  # the agent ended the episode with a game action (ToS `Term()`)
    AGENT_STOPPED = "agent_stopped"  # the agent left the game (a person typed `quit`)
    ERROR = "error"  # a model call, the task or the agent failed; the record's `error` says how
    UNFINISHED = "unfinished"  # the task had not ended when the record was written


TERMINATIONS: tuple[str, ...] = tuple(t.value for t in Termination)

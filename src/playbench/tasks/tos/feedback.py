"""The sentences of an exploration turn's result: what an Observe() reports around its entries, and
what each move, query, failure and Term() says (`grammar.py`, `world.py` write them).

`OURS` holds our own words (`texts=ours`); `Feedback.original(text, reasons)` the authors', read from
their clone (`originals.py`, the actions and exploration-manager entries of the text map) and
filled as their environment fills them. The entry lines between them (`• name: bin, distance, ...`
and the close-pair lines) are the relation format the parser and metrics read, the same in both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from playbench.core.original_texts import fill


@dataclass(frozen=True)
class Feedback:
    """One set of result sentences. Templates are `str.format` templates over our field names for
    ours and the authors' field expressions (filled with `fill`) for theirs (`original`)."""

    observe: str = "Your view: {answer}."
    nothing: str = "Nothing is within your field of view."
    close_pairs: str = '\nTaking the way you face as "north", objects close to one another:\n{pairs}'
    rotated_zero: str = "You turned by 0°."
    rotated: str = "You turned {direction} by {degrees}°."
    clockwise: str = "clockwise"
    counterclockwise: str = "counterclockwise"
    rotate_failed: str = "Rotate({degrees}) failed: the allowed angles are {allowed}."
    jumped: str = "You are now at {target}."
    jump_failed: str = "JumpTo({target}) failed: {reason}."
    jump_reasons: Mapping[str, str] = field(
        default_factory=lambda: {
            "not_found": "there is no such object",
            "not_observed": "you have not observed it yet",
            "not_visible": "it is not in your field of view",
        }
    )
    query: str = "Query of {target}: {answer}"
    query_failed: str = "Query failed: {reason}"
    query_reasons: Mapping[str, str] = field(
        default_factory=lambda: {
            "not_found": "there is no such object",
            "not_observed": "you have not observed it yet",
        }
    )
    failed_move: str = (
        "The actions after the failed one were dropped and an Observe() ran in their place: {message}"
    )
    returned: str = "You are back at your starting position, facing north."
    terminated: str = "You ended the exploration."
    terminated_changes: str = "You ended the exploration and reported these changes: {changes}"
    original: bool = False

    def _fill(self, template: str, ours: dict[str, object], theirs: dict[str, object], text_id: str) -> str:
        if self.original:
            return fill(template, theirs, text_id)
        return template.format(**ours)

    # --- Observe() ----------------------------------------------------------------------------
    def observe_text(self, answer: str) -> str:
        """The Observe() result around its answer (the entries after a line break, or `nothing`)."""
        return self._fill(
            self.observe, {"answer": answer}, {"kwargs.get('answer', 'nothing')": answer}, "observe"
        )

    def pairs_text(self, pairs: str) -> str:
        """The close-pair block after the entries: a line break, the note, a line break, the pairs."""
        return self._fill(self.close_pairs, {"pairs": pairs}, {"local_answer": pairs}, "close_pairs")

    # --- moves ---------------------------------------------------------------------------------
    def rotated_text(self, degrees: int) -> str:
        if degrees == 0:
            return self.rotated_zero
        direction = self.clockwise if degrees > 0 else self.counterclockwise
        theirs = {"direction": direction, "abs(self.degrees)": abs(degrees)}
        return self._fill(self.rotated, {"direction": direction, "degrees": abs(degrees)}, theirs, "rotated")

    def rotate_failed_text(self, degrees: int, allowed: list[int]) -> str:
        theirs = {"self.degrees": degrees, "self.VALID_DEGREES": allowed}
        ours = {"degrees": degrees, "allowed": ", ".join(map(str, allowed))}
        return self._fill(self.rotate_failed, ours, theirs, "rotate_failed")

    def jumped_text(self, target: str) -> str:
        return self._fill(self.jumped, {"target": target}, {"self.target": target}, "jumped")

    def jump_failed_text(self, target: str, reason: str) -> str:
        why = self.jump_reasons[reason]
        theirs = {"self.target": target, "errors.get(error_type, 'execution failed')": why}
        return self._fill(self.jump_failed, {"target": target, "reason": why}, theirs, "jump_failed")

    def failed_move_text(self, message: str) -> str:
        """The Observe() that replaces the rest of a turn whose move failed, around its result."""
        return self._fill(
            self.failed_move, {"message": message}, {"obs_result.message": message}, "failed_move"
        )

    # --- final actions ---------------------------------------------------------------------------
    def query_text(self, target: str, answer: str) -> str:
        theirs = {"self.obj": target, "kwargs.get('answer', 'unknown')": answer}
        return self._fill(self.query, {"target": target, "answer": answer}, theirs, "query")

    def query_failed_text(self, reason: str) -> str:
        why = self.query_reasons[reason]
        return self._fill(self.query_failed, {"reason": why}, {"error_type": why}, "query_failed")

    def terminated_changes_text(self, changes: str) -> str:
        """Ours in both settings (their Term(changes=...) is answered with the task-finished text)."""
        return OURS.terminated_changes.format(changes=changes)

    @classmethod
    def from_original(cls, text: Mapping[str, str]) -> Feedback:
        """The authors' sentences (`text`: the map's entries by id, read from their clone)."""
        return cls(
            observe=text["observe"],
            nothing=text["nothing_in_view"],
            close_pairs=text["close_pairs"],
            rotated_zero=text["rotated_zero"],
            rotated=text["rotated"],
            clockwise=text["clockwise"],
            counterclockwise=text["counterclockwise"],
            rotate_failed=text["rotate_failed"],
            jumped=text["jumped"],
            jump_failed=text["jump_failed"],
            jump_reasons={
                kind: text[f"jump_{kind}"] for kind in ("not_found", "not_observed", "not_visible")
            },
            query=text["query"],
            query_failed=text["query_failed"],
            query_reasons={"not_found": text["query_not_found"], "not_observed": text["query_not_observed"]},
            failed_move=text["failed_move"],
            returned=OURS.returned,  # Return() is ours: the version of their actions used has none
            terminated=text["terminated"],
            original=True,
        )


OURS = Feedback()

"""Caption-then-reason: a vision model describes each image so a text-only model can act on it."""

from __future__ import annotations

from playbench.core.types import ImagePart, Part, TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message, call_purpose

CAPTION_PROMPT = (
    "You are the eyes of an agent that cannot see. Describe this image completely and precisely: every "
    "object, its colour, shape, size and position (left/right/top/bottom, in front of/behind), all "
    "visible text, digits and symbols exactly as written, counts of repeated things, and the state of "
    "anything that could change (open or closed, on or off, locked, lit). Do not guess what to do; only "
    "describe what is visible."
)


class Captioner:
    """Replaces image parts with the captioner model's descriptions; one call per distinct image."""

    def __init__(self, model: ChatModel, prompt: str = CAPTION_PROMPT, max_tokens: int = 512) -> None:
        self.model = model
        self.prompt = prompt
        self.params = GenerationParams(temperature=0.0, max_tokens=max_tokens)
        self.cache: dict[str, str] = {}

    async def caption(self, image: ImagePart) -> tuple[str, Usage]:
        if image.digest in self.cache:
            return self.cache[image.digest], Usage()
        messages = [Message("user", [TextPart(self.prompt), image])]
        with call_purpose("caption"):  # recorded apart from the seat's own calls
            response = await self.model.generate(messages, self.params)
        self.cache[image.digest] = response.text.strip()
        return self.cache[image.digest], response.usage

    async def to_text(self, parts: list[Part]) -> tuple[list[Part], Usage]:
        usage = Usage()
        out: list[Part] = []
        for part in parts:
            if isinstance(part, ImagePart):
                text, used = await self.caption(part)
                usage.add(used)
                name = part.label or "image"
                out.append(TextPart(f"[{name}, described by the captioner] {text}"))
            else:
                out.append(part)
        return out, usage

"""Every README example marked `<!-- example -->` runs as written.

A marked example is the fenced block right after the marker line: a ```bash block runs in bash with the
project's `.venv/bin` first on PATH, a ```python block with the venv's python. Each runs in an empty
temporary directory with no network credentials and the originals folder pointed at an empty path, as on
a fresh machine set up with `bash scripts/setup.sh --dev`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- example -->"
BLOCK = re.compile(r"[ \t]*\n?```(bash|python)[ \t]*\n(.*?)\n```", re.S)


def readme_examples(text: str) -> list[tuple[str, str, str]]:
    """(heading, language, code) of every marked block, in the README's order."""
    examples = []
    heading = "README"
    pos = 0
    for line_start in re.finditer(r"^(#{2,4} .*|<!-- example -->)[ \t]*$", text, re.M):
        line = line_start.group(1)
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        if line_start.start() < pos:
            continue
        match = BLOCK.match(text, line_start.end() + 1)
        if match is None:
            raise AssertionError(
                f"the example marker under '{heading}' is not followed by a bash/python block"
            )
        examples.append((heading, match.group(1), match.group(2)))
        pos = match.end()
    return examples


EXAMPLES = readme_examples((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_marker_parser_finds_blocks() -> None:
    text = "## A\n<!-- example -->\n```bash\necho hi\n```\n## B\n<!-- example -->\n```python\nprint(1)\n```\n"
    assert readme_examples(text) == [("A", "bash", "echo hi"), ("B", "python", "print(1)")]
    with pytest.raises(AssertionError, match="under 'C'"):
        readme_examples("## C\n<!-- example -->\ntext\n")


@pytest.mark.parametrize(
    ("heading", "language", "code"), EXAMPLES, ids=[re.sub(r"\W+", "-", e[0]).strip("-") for e in EXAMPLES]
)
def test_readme_example_runs(tmp_path: Path, heading: str, language: str, code: str) -> None:
    venv_bin = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PATH"] = f"{venv_bin}{os.pathsep}{env.get('PATH', '')}"
    env["PLAYBENCH_ORIGINALS"] = str(tmp_path / "no-originals")
    env["INSPECT_LOG_DIR"] = str(tmp_path / "inspect-logs")
    env.pop("PLAYBENCH_PROGRESS_SECONDS", None)
    argv = ["bash", "-euo", "pipefail", "-c", code] if language == "bash" else [sys.executable, "-c", code]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, (
        f"README example under '{heading}' failed ({proc.returncode}):\n{code}\n"
        f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
    )

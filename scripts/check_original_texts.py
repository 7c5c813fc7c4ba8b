"""Check that no text of the originals is in this repository (run by hand where the clones are; not in CI).

Every text a suite's text map names is extracted from the clones in the originals folder (as `texts=original`
reads it) and cut into pieces at its template fields and line breaks; every piece of MIN characters or more
(after collapsing whitespace) is searched for in the tracked files of the repository (source, tests, docs,
READMEs). Prints each hit as `file:line: text id: piece` and exits 1 when there is any. A piece that is markup
or grammar rather than prose (fewer than four words once `<tags>`, `[...]` and `{fields}` are taken out: section
tags, the action grammar the parser reads, JSON key lines) is listed apart and does not fail the check.

    .venv/bin/python scripts/check_original_texts.py [--min 30] [--dir ORIGINALS]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource
from playbench.core.originals import find_clone, original_repos, originals_dir

ROOT = Path(__file__).resolve().parent.parent
FIELD = re.compile(r"(?<!\{)\{[^{}]*\}(?!\})")
MARKUP = re.compile(r"<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}")


def is_markup(piece: str) -> bool:
    """Tags, grammar and key lines: fewer than four words of letters outside <...>, [...] and {...}."""
    return len(re.findall(r"[A-Za-z]{2,}", MARKUP.sub(" ", piece))) < 4


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []


def pieces(text: str, minimum: int) -> set[str]:
    out = set()
    for part in FIELD.split(text):
        for line in part.replace("{{", "{").replace("}}", "}").splitlines():
            line = " ".join(line.split())
            if len(line) >= minimum:
                out.add(line)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=int, default=30, help="the shortest piece searched for (characters)")
    parser.add_argument("--dir", default=None, help="the originals folder (default: $PLAYBENCH_ORIGINALS)")
    args = parser.parse_args()
    folder = Path(args.dir) if args.dir else originals_dir()
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    tree = []
    for rel in files:
        path = ROOT / rel
        if path.suffix in {".png", ".jpg", ".gif", ".glb", ".gz", ".zip", ".gguf"} or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        tree.append((rel, [" ".join(line.split()) for line in text.splitlines()], " ".join(text.split())))
    checked = hits = 0
    markup: dict[str, int] = {}
    for repo in original_repos():
        clone = find_clone(repo, folder / repo.name)
        if clone is None:
            print(f"{repo.name}: no clone in {folder}; its {len(repo.texts)} texts are not checked")
            continue
        source = TextSource(clone)
        for ref in repo.texts:
            try:
                value = source.value(ref)
            except ConfigError as exc:
                print(f"{repo.name}: {exc}")
                continue
            for piece in sorted({p for s in strings(value) for p in pieces(s, args.min)}):
                checked += 1
                for rel, lines, whole in tree:
                    if piece not in whole:
                        continue
                    if is_markup(piece):
                        markup[piece] = markup.get(piece, 0) + 1
                        continue
                    line_no = next((i + 1 for i, line in enumerate(lines) if piece in line), 0)
                    print(f"{rel}:{line_no}: {repo.name} text '{ref.id}': {piece[:80]}")
                    hits += 1
    for piece, count in sorted(markup.items()):
        print(f"markup kept ({count} places): {piece[:80]}")
    print(f"{checked} pieces of the originals' texts searched in {len(tree)} files: {hits} found")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())

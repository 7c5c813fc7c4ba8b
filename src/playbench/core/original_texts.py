"""The originals' own words, read from a clone as data (`ast`, `json`), never executed.

A suite's text map (`TextRef`s in its `OriginalRepo`) names each text by file and symbol. `TextSource`
reads them: a string constant as written; an f-string as a format template whose fields are the
expressions' source (`f"Grid {self.n}x{self.n}"` reads `Grid {self.n}x{self.n}`), literal braces doubled,
so `fill` gives exactly what the original's f-string gives for the same values; a `.format` template as
written (fill it with `fill` too). Containers of strings (lists, dicts) are read with their strings the same
way. Nothing here evaluates an expression from the clone.

Tasks take the `texts` and `originals` options from `TextsOptions` and their `TextSource` from
`texts_source`.
"""

from __future__ import annotations

import ast
import json
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from string import Formatter
from typing import Any, Literal

from playbench.core.errors import ConfigError
from playbench.core.originals import Clone, OriginalsUse, TextRef, find_clone, open_clone
from playbench.core.task import TaskConfig

_UNWRAP = {"dedent", "strip", "lstrip", "rstrip"}


class TextsOptions(TaskConfig):
    """The options of a task that reads the original's texts from a clone."""

    # original: the authors' exact texts from their clone; ours: playbench's paraphrases.
    # None: original when the clone is in the originals folder, else ours (set at plan time)
    texts: Literal["original", "ours"] | None = None
    originals: str | None = None  # the clone to read them from (default: the originals folder's)


def texts_source(config: TaskConfig, use: OriginalsUse) -> TextSource | None:
    """The clone's texts for a task configured with `TextsOptions`, or None for ours.

    `texts=None` (a task built outside a run) resolves as a run would: original when the clone is there."""
    texts = getattr(config, "texts", None)
    path = getattr(config, "originals", None)
    if texts == "ours":
        return None
    if texts == "original":
        return TextSource(open_clone(use.repo, path))
    clone = find_clone(use.repo, path)
    return TextSource(clone) if clone is not None else None


def _missing(clone: Clone, ref: TextRef, why: str) -> ConfigError:
    at = f"@{clone.commit[:7]}" if clone.commit else ""
    where = f"{ref.file}: {ref.symbol}" if ref.symbol else ref.file
    return ConfigError(f"text '{ref.id}' of {clone.repo.name}{at} ({clone.path}): {where}: {why}")


class TextSource:
    """Reads the texts of one clone (files parsed once)."""

    def __init__(self, clone: Clone) -> None:
        self.clone = clone
        self._trees: dict[str, tuple[ast.Module, str]] = {}
        self._json: dict[str, Any] = {}
        self._cache: dict[TextRef, Any] = {}

    @property
    def stamp(self) -> str:
        return self.clone.stamp

    def text(self, ref: TextRef) -> str:
        """The text `ref` names (a constant as written, an f-string as a template)."""
        value = self.value(ref)
        if not isinstance(value, str):
            raise _missing(self.clone, ref, f"is a {type(value).__name__}, not a text")
        return value

    def value(self, ref: TextRef) -> Any:
        """The value `ref` names: a text, or a list/dict of texts and plain values."""
        if ref not in self._cache:
            self._cache[ref] = self._read(ref)
        return self._cache[ref]

    def _read(self, ref: TextRef) -> Any:
        path = self.clone.path / ref.file
        if not path.is_file():
            raise _missing(self.clone, ref, "the file is missing")
        if ref.file.endswith(".py"):
            return self._python(ref, path)
        if ref.file.endswith(".json"):
            return self._json_value(ref, path)
        if ref.symbol:
            raise _missing(self.clone, ref, "only .py and .json files have symbols; name the whole file")
        return path.read_text(encoding="utf-8")

    # --- JSON ----------------------------------------------------------------------------------
    def _json_value(self, ref: TextRef, path: Path) -> Any:
        if ref.file not in self._json:
            try:
                self._json[ref.file] = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise _missing(self.clone, ref, f"not readable JSON ({exc})") from None
        value = self._json[ref.file]
        for key in [k for k in ref.symbol.split(".") if k] if ref.symbol else []:
            value = _index(value, key, lambda why: _missing(self.clone, ref, why))
        return value

    # --- Python --------------------------------------------------------------------------------
    def _module(self, ref: TextRef, path: Path) -> ast.Module:
        if ref.file not in self._trees:
            source = path.read_text(encoding="utf-8")
            try:
                self._trees[ref.file] = (ast.parse(source), source)
            except SyntaxError as exc:
                raise _missing(
                    self.clone, ref, f"does not parse as Python ({exc.msg}, line {exc.lineno})"
                ) from None
        return self._trees[ref.file][0]

    def _python(self, ref: TextRef, path: Path) -> Any:
        module = self._module(ref, path)
        fail = lambda why: _missing(self.clone, ref, why)  # noqa: E731
        symbol, keys = _split_keys(ref.symbol)
        symbol, _, nested = symbol.partition("@")
        scope_path, sep, name = symbol.partition(":")
        if not sep:  # NAME or Class.NAME
            scope_path, _, name = symbol.rpartition(".")
        scope: ast.AST = module
        for part in [p for p in scope_path.split(".") if p]:
            scope = _child_def(scope, part) or _raise(fail(f"no class or function '{part}'"))
        node = _pick(scope, name, fail)
        if nested:
            node = _nested_literal(node, nested, fail)
        value = _to_value(node, module, fail, classes=_classes_on_path(module, scope_path))
        for key in keys:
            value = _index(value, key, fail)
        if isinstance(value, _Text):
            return str(value)
        return _plain(value)


class _Text(str):
    """A text read from source; `template` when it came from an f-string (its braces are fields)."""

    template: bool = False


def _text(value: str, template: bool) -> _Text:
    t = _Text(value)
    t.template = template
    return t


def _raise(exc: Exception) -> Any:
    raise exc


def _split_keys(symbol: str) -> tuple[str, list[str]]:
    """`NAME[a][0]` -> ("NAME", ["a", "0"])."""
    if "[" not in symbol:
        return symbol, []
    head, _, rest = symbol.partition("[")
    keys = [k.strip().strip("'\"") for k in rest.rstrip("]").split("][")]
    return head, keys


def _index(value: Any, key: str, fail: Any) -> Any:
    if isinstance(value, dict):
        if key in value:
            return value[key]
        raise fail(f"has no key {key!r}")
    if isinstance(value, list | tuple) and key.lstrip("-").isdigit():
        try:
            return value[int(key)]
        except IndexError:
            raise fail(f"has no item {key}") from None
    raise fail(f"cannot take {key!r} of a {type(value).__name__}")


def _child_def(scope: ast.AST, name: str) -> ast.AST | None:
    for node in getattr(scope, "body", []):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
    return None


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of `scope` in source order, without those of nested functions and classes."""
    found: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            found.append(child)
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                visit(child)

    visit(scope)
    return sorted(found, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return []
    names = []
    for t in targets:
        if isinstance(t, ast.Name):
            names.append(t.id)
        elif isinstance(t, ast.Attribute):  # self.prompt = ...
            names.append(t.attr)
    return names


def _pick(scope: ast.AST, name: str, fail: Any) -> ast.AST:
    """The expression `name` selects in `scope` (see TextRef)."""
    name, _, nth_text = name.partition("#")
    nth = int(nth_text) if nth_text.isdigit() else 1
    nodes = _own_nodes(scope) if not isinstance(scope, ast.Module | ast.ClassDef) else list(scope.body)
    if name == "":  # #N: the N-th string literal (an f-string counts once), in any scope's own code
        nodes = _own_nodes(scope)
        inside_fstring = {
            id(c) for n in nodes if isinstance(n, ast.JoinedStr) for c in ast.walk(n) if c is not n
        }
        literals = [
            n
            for n in nodes
            if (isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str)))
            and id(n) not in inside_fstring
        ]
        if nth > len(literals) or nth < 1:
            raise fail(f"has {len(literals)} string literals, not {nth}")
        return literals[nth - 1]
    if name == "return":
        returns = [n for n in nodes if isinstance(n, ast.Return) and n.value is not None]
        if len(returns) < nth:
            raise fail(f"has {len(returns)} return statements with a value, not {nth}")
        return returns[nth - 1].value  # type: ignore[return-value]
    assigns = [n for n in nodes if name in _targets(n) and getattr(n, "value", None) is not None]
    if len(assigns) < nth:
        raise fail(f"has {len(assigns)} assignments to '{name}', not {nth}")
    return assigns[nth - 1].value  # type: ignore[attr-defined]


def _nested_literal(node: ast.AST, nth: str, fail: Any) -> ast.AST:
    """`SYMBOL@k`: the k-th string literal inside the fields of the f-string SYMBOL selects (an f-string
    counts once), in source order: the texts of a field such as `{f"..." if items else ""}`."""
    if not isinstance(node, ast.JoinedStr):
        raise fail("is not an f-string, so it has no texts inside its fields")
    found: list[ast.AST] = []
    for piece in node.values:
        if not isinstance(piece, ast.FormattedValue):
            continue
        inner = [
            n
            for n in ast.walk(piece.value)
            if isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))
        ]
        nested_in = {id(c) for n in inner if isinstance(n, ast.JoinedStr) for c in ast.walk(n) if c is not n}
        found += [n for n in inner if id(n) not in nested_in]
    found.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    k = int(nth) if nth.isdigit() else 0
    if not 1 <= k <= len(found):
        raise fail(f"has {len(found)} string literals inside its fields, not {nth}")
    return found[k - 1]


def _module_name(module: ast.Module | ast.ClassDef, name: str) -> ast.AST | None:
    """The value last assigned to `name` in a module's or a class's own body (as Python reads it)."""
    found = None
    for node in module.body:
        if name in _targets(node) and getattr(node, "value", None) is not None:
            found = node.value  # type: ignore[attr-defined]
    return found


def _classes_on_path(module: ast.Module, scope_path: str) -> tuple[ast.ClassDef, ...]:
    """The classes a symbol's scope lies in (their bodies resolve names before the module does)."""
    out: list[ast.ClassDef] = []
    scope: ast.AST | None = module
    for part in [p for p in scope_path.split(".") if p]:
        scope = _child_def(scope, part) if scope is not None else None
        if isinstance(scope, ast.ClassDef):
            out.append(scope)
    return tuple(out)


def _template_part(value: Any) -> str:
    """A text as part of a template: a plain text's braces doubled."""
    if isinstance(value, _Text) and value.template:
        return str(value)
    return str(value).replace("{", "{{").replace("}", "}}")


def _to_value(
    node: ast.AST, module: ast.Module, fail: Any, depth: int = 0, classes: tuple[ast.ClassDef, ...] = ()
) -> Any:
    if depth > 20:
        raise fail("refers to itself")
    again = lambda n: _to_value(n, module, fail, depth + 1, classes)  # noqa: E731
    if isinstance(node, ast.Constant):
        return _text(node.value, False) if isinstance(node.value, str) else node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        unnamed = 0
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value).replace("{", "{{").replace("}", "}}"))
            elif isinstance(piece, ast.FormattedValue):
                expr = ast.unparse(piece.value)
                if any(c in expr for c in "{}!:"):
                    # an expression that cannot name a field (a nested f-string, a slice): `#1`, `#2`, ...
                    # in order; its texts are read with `SYMBOL@k`
                    unnamed += 1
                    expr = f"#{unnamed}"
                conv = {-1: "", 115: "!s", 114: "!r", 97: "!a"}[piece.conversion]
                spec = ""
                if piece.format_spec is not None:
                    spec = ":" + str(again(piece.format_spec))
                parts.append("{" + expr + conv + spec + "}")
        return _text("".join(parts), True)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = again(node.left), again(node.right)
        if isinstance(left, str) and isinstance(right, str):
            if (isinstance(left, _Text) and left.template) or (isinstance(right, _Text) and right.template):
                return _text(_template_part(left) + _template_part(right), True)
            return _text(left + right, False)
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        raise fail("adds values that are not both texts or lists")
    if isinstance(node, ast.List | ast.Tuple):
        return [again(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise fail("is a dict with ** unpacking")
        return {_plain(again(k)): again(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.Name):
        # a name in a class body is that class's attribute first (the innermost class), then the module's
        for cls in reversed(classes[-1:]):
            target = _module_name(cls, node.id)
            if target is not None:
                return again(target)
        target = _module_name(module, node.id)
        if target is None:
            raise fail(f"refers to '{node.id}', which is not a module-level value")
        return again(target)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        # `Class.attr`: an attribute of a class of the same module, read in that class's body
        cls = _child_def(module, node.value.id)
        if isinstance(cls, ast.ClassDef):
            target = _module_name(cls, node.attr)
            if target is None:
                raise fail(f"refers to {node.value.id}.{node.attr}, which the class does not assign")
            return _to_value(target, module, fail, depth + 1, (cls,))
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        return -node.operand.value
    if isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called == "format" and isinstance(func, ast.Attribute):
            return again(func.value)  # the template; the suite fills it as the original does
        if called in _UNWRAP:
            inner = again(
                func.value if isinstance(func, ast.Attribute) and called != "dedent" else node.args[0]
            )
            if isinstance(inner, _Text) and inner.template:
                raise fail(
                    f"is {called}() of an f-string: read the f-string itself (its '#N' literal) and apply "
                    f"{called}() after filling, as the original does"
                )
            if not isinstance(inner, str):
                raise fail(f"is {called}() of a {type(inner).__name__}")
            done = textwrap.dedent(inner) if called == "dedent" else getattr(str(inner), called)()
            return _text(done, False)
        raise fail(f"is a call to {ast.unparse(func)}(), which is not read (name a literal inside it)")
    raise fail(f"is a {type(node).__name__} expression, not a literal text")


def _plain(value: Any) -> Any:
    if isinstance(value, _Text):
        return str(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# --- filling ---------------------------------------------------------------------------------


def fields(template: str) -> list[str]:
    """The field names of a format template (an f-string read from a clone, or a .format template)."""
    return [f for _, f, _, _ in Formatter().parse(template) if f is not None]


def fill(
    template: str, values: Mapping[str, Any] | None = None, text_id: str = "", args: Sequence[Any] = ()
) -> str:
    """`template` with each field replaced by `values[field]` (its conversion and format spec applied),
    as the original's f-string or `.format` does; `{}` and `{0}` fields take `args` as `.format`'s
    positional arguments. Attribute and index access are never performed: a field is looked up by its
    whole text, and a field without a value is a ConfigError naming it."""
    values = values or {}
    out = []
    auto = 0
    for literal, field, spec, conversion in Formatter().parse(template):
        out.append(literal)
        if field is None:
            continue
        if field == "" or field.isdigit():
            index = auto if field == "" else int(field)
            auto += field == ""
            if index >= len(args):
                raise ConfigError(
                    f"text '{text_id}': the original's field {{{field}}} has no positional value"
                )
            values = {**values, field: args[index]}
        if field not in values:
            raise ConfigError(
                f"text '{text_id}': the original's field {{{field}}} has no value (given: {', '.join(sorted(values))})"
            )
        value = values[field]
        if conversion == "r":
            value = repr(value)
        elif conversion == "s":
            value = str(value)
        elif conversion == "a":
            value = ascii(value)
        if spec and "{" in spec:
            spec = fill(spec, values, text_id)
        out.append(format(value, spec or ""))
    return "".join(out)

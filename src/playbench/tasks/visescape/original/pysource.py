"""Read the original repository's Python files as data, with `ast`; nothing of them is ever run.

A room's `config.py` is a list of plain statements: imports, `name = Class(...)` constructions,
method calls such as `safe.add_transition("locked", "unlock", "open", TriggerActiveRule(...))`, and
(room 5 only) a hint function. `read_config` evaluates exactly that subset: literals, f-strings over
`x.item_name`, sets, lists, dicts and calls of imported classes (recorded, not run). The receptacle
and item classes (`src/vis_escape/objects/**`) are read the same way by `read_class`: their states,
initial state, built-in transitions and action verb. Any other construct is refused with one line
naming the file and line, so a changed upstream file fails loudly instead of being misread.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field
from typing import Any


class SourceError(ValueError):
    """A file of the original repository that this reader cannot take as data."""


def _where(where: str, node: ast.AST | None) -> str:
    line = getattr(node, "lineno", None)
    return f"{where}:{line}" if line else where


def _refuse(where: str, node: ast.AST | None, what: str) -> SourceError:
    snippet = ast.unparse(node)[:60] if isinstance(node, ast.AST) else ""
    return SourceError(f"{_where(where, node)}: {what}" + (f" ({snippet!r})" if snippet else ""))


@dataclass(frozen=True)
class ClassRef:
    """A name imported from the original package (`from vis_escape.x.y import Cls`)."""

    name: str
    module: str


@dataclass(eq=False)
class Made:
    """An object a config constructs: the class it names and the arguments, evaluated."""

    cls: ClassRef
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    line: int

    def arg(self, name: str, position: int | None = None, default: Any = None) -> Any:
        if name in self.kwargs:
            return self.kwargs[name]
        if position is not None and position < len(self.args):
            return self.args[position]
        return default

    @property
    def item_name(self) -> str:
        # the original's Item: item_name defaults to item_type
        return self.arg("item_name", 1) or self.arg("item_type", 0)


@dataclass
class HintProgram:
    """Room 5's hint function, kept as its syntax tree for `run_hint_program`."""

    node: ast.FunctionDef
    where: str


@dataclass
class ConfigModule:
    """What a config defines: its names, and every method call made on a constructed object, in order."""

    names: dict[str, Any]
    calls: list[tuple[Made, str, tuple[Any, ...], int]] = field(default_factory=list)


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    left = node.test.left
    return isinstance(left, ast.Name) and left.id == "__name__"


class _ConfigReader:
    def __init__(self, where: str) -> None:
        self.where = where
        self.names: dict[str, Any] = {}
        self.calls: list[tuple[Made, str, tuple[Any, ...], int]] = []

    def run(self, tree: ast.Module) -> ConfigModule:
        for node in tree.body:
            self.statement(node)
        return ConfigModule(self.names, self.calls)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                self.names[alias.asname or alias.name] = ClassRef(alias.name, node.module or "")
        elif isinstance(node, ast.Import):
            return
        elif isinstance(node, ast.Assign):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise _refuse(self.where, node, "only 'name = value' assignments are read")
            self.names[node.targets[0].id] = self.value(node.value)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if not isinstance(call.func, ast.Attribute):
                raise _refuse(self.where, node, "only method calls on constructed objects are read")
            target = self.value(call.func.value)
            if not isinstance(target, Made):
                raise _refuse(self.where, node, "a method call on something the config did not construct")
            if call.keywords:
                raise _refuse(self.where, node, "keyword arguments in a method call")
            args = tuple(self.value(a) for a in call.args)
            self.calls.append((target, call.func.attr, args, node.lineno))
        elif isinstance(node, ast.FunctionDef):
            self.names[node.name] = HintProgram(node, self.where)
        elif _is_main_guard(node):
            return  # the file's own demo when run as a script
        else:
            raise _refuse(self.where, node, f"unsupported statement {type(node).__name__}")

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                elif (
                    isinstance(part, ast.FormattedValue)
                    and part.format_spec is None
                    and part.conversion == -1
                ):
                    got = self.value(part.value)
                    if not isinstance(got, str | int):
                        raise _refuse(self.where, part, "an f-string field that is not text")
                    out.append(str(got))
                else:
                    raise _refuse(self.where, part, "an f-string field with a format")
            return "".join(out)
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise _refuse(self.where, node, f"unknown name {node.id!r}")
            return self.names[node.id]
        if isinstance(node, ast.Attribute):
            base = self.value(node.value)
            if isinstance(base, Made) and node.attr == "item_name":
                return base.item_name
            if isinstance(base, Made) and node.attr == "id":
                return base.arg("id", 0)
            raise _refuse(self.where, node, f"attribute {node.attr!r}")
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            out_d: dict[Any, Any] = {}
            for k, v in zip(node.keys, node.values, strict=True):
                if k is None:
                    raise _refuse(self.where, node, "a '**' in a dict")
                out_d[self.value(k)] = self.value(v)
            return out_d
        if isinstance(node, ast.Subscript):
            base, key = self.value(node.value), self.value(node.slice)
            try:
                return base[key]
            except (KeyError, IndexError, TypeError):
                raise _refuse(self.where, node, "a subscript that does not resolve") from None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            cls = self.value(node.func)
            if not isinstance(cls, ClassRef):
                raise _refuse(self.where, node, f"a call of {node.func.id!r}, which is not an imported class")
            kwargs = {}
            for kw in node.keywords:
                if kw.arg is None:
                    raise _refuse(self.where, node, "a '**' argument")
                kwargs[kw.arg] = self.value(kw.value)
            return Made(cls, tuple(self.value(a) for a in node.args), kwargs, node.lineno)
        raise _refuse(self.where, node, f"unsupported expression {type(node).__name__}")


def read_config(text: str, where: str) -> ConfigModule:
    """Read a room's `config.py` as data (see the module docstring)."""
    try:
        tree = ast.parse(text, filename=where)
    except SyntaxError as exc:
        raise SourceError(f"{where}:{exc.lineno}: not valid Python ({exc.msg})") from None
    return _ConfigReader(where).run(tree)


# --- the receptacle and item classes ---------------------------------------------------------------


@dataclass
class ClassInfo:
    """One receptacle or item class of the original: what its constructor fixes."""

    name: str
    bases: list[str]
    possible_states: list[str] | None = None
    initial_state: str | None = None
    transitions: list[tuple[str, str, str, Any]] = field(default_factory=list)  # (from, action, to, rule)
    action_verb: str | None = None  # get_actions() -> [f"{verb} {self._item_name}"]


class _ClassReader:
    """Evaluates a class's `__init__`: literals, local names, set comprehensions over literal lists,
    `super().__init__(...)` keywords and `self.add_transition(...)` calls."""

    def __init__(self, where: str, info: ClassInfo) -> None:
        self.where = where
        self.info = info
        self.local: dict[str, Any] = {}

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Name) and node.id in self.local:
            return self.local[node.id]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("Rule"):
            return Made(
                ClassRef(node.func.id, "vis_escape.game.core.rules"),
                tuple(self.value(a) for a in node.args),
                {},
                node.lineno,
            )
        if isinstance(node, ast.SetComp):
            return self.comprehension(node)
        raise _refuse(self.where, node, f"unsupported expression {type(node).__name__}")

    def comprehension(self, node: ast.SetComp) -> list[str]:
        names, pools = [], []
        for gen in node.generators:
            if gen.ifs or not isinstance(gen.target, ast.Name):
                raise _refuse(self.where, node, "a comprehension with conditions")
            names.append(gen.target.id)
            pools.append(self.value(gen.iter))
        if not isinstance(node.elt, ast.JoinedStr):
            raise _refuse(self.where, node, "a comprehension that does not build an f-string")
        out = []
        for combo in itertools.product(*pools):
            env = dict(zip(names, combo, strict=True))
            text = ""
            for part in node.elt.values:
                if isinstance(part, ast.Constant):
                    text += str(part.value)
                elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name):
                    text += str(env[part.value.id])
                else:
                    raise _refuse(self.where, part, "an f-string field")
            out.append(text)
        return out

    def init(self, fn: ast.FunctionDef) -> None:
        for node in fn.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                self.local[node.targets[0].id] = self.value(node.value)
            elif isinstance(node, ast.Assign) and all(_is_self_attr(t) for t in node.targets):
                continue  # `self._answer = answer`: the constructor's arguments, read from the config instead
            elif isinstance(node, ast.If):
                continue  # `if interactable_states is None: interactable_states = {}`
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                self.call(node.value)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            else:
                raise _refuse(self.where, node, f"unsupported statement {type(node).__name__} in __init__")

    def call(self, call: ast.Call) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute):
            raise _refuse(self.where, call, "a call in __init__")
        if func.attr == "__init__":  # super().__init__(...)
            for kw in call.keywords:
                if kw.arg == "possible_states":
                    self.info.possible_states = list(self.value(kw.value))
                elif kw.arg == "initial_state":
                    self.info.initial_state = self.value(kw.value)
            return
        if func.attr == "add_transition":
            if len(call.args) != 4:
                raise _refuse(self.where, call, "add_transition without its four arguments")
            frm, action, to, rule = (self.value(a) for a in call.args)
            self.info.transitions.append((frm, action, to, rule))
            return
        raise _refuse(self.where, call, f"a call of {func.attr!r} in __init__")


def _is_self_attr(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _action_verb(fn: ast.FunctionDef) -> str | None:
    """`return [f"press {self._item_name}"]` (or that list built first, then returned) -> "press"."""
    for node in ast.walk(fn):
        if isinstance(node, ast.List) and len(node.elts) == 1:
            elt = node.elts[0]
            if isinstance(elt, ast.JoinedStr) and elt.values and isinstance(elt.values[0], ast.Constant):
                return str(elt.values[0].value).strip()
    return None


def read_class(text: str, class_name: str, where: str) -> ClassInfo:
    """The class `class_name` of a module of the original package."""
    try:
        tree = ast.parse(text, filename=where)
    except SyntaxError as exc:
        raise SourceError(f"{where}:{exc.lineno}: not valid Python ({exc.msg})") from None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            info = ClassInfo(class_name, [b.id for b in node.bases if isinstance(b, ast.Name)])
            for member in node.body:
                if isinstance(member, ast.FunctionDef) and member.name == "__init__":
                    _ClassReader(where, info).init(member)
                elif isinstance(member, ast.FunctionDef) and member.name == "get_actions":
                    info.action_verb = _action_verb(member)
            return info
    raise SourceError(f"{where}: no class {class_name!r}")


def read_int_dict(text: str, name: str, where: str) -> dict[int, int]:
    """A module-level `NAME = {1: 28, ...}` (the authors' scoring constants)."""
    tree = ast.parse(text, filename=where)
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                raise _refuse(where, node, f"{name} is not a literal") from None
            if isinstance(value, dict) and all(
                isinstance(k, int) and isinstance(v, int) for k, v in value.items()
            ):
                return value
            raise _refuse(where, node, f"{name} is not a dict of whole numbers")
    raise SourceError(f"{where}: no {name}")


# --- room 5's hint function ------------------------------------------------------------------------


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _HintRunner:
    """Evaluates a hint function over the triggers reached: assignments of literals, `if`, `in` tests,
    `all([...])`, `list.append`, subscripts and `return`. Nothing else (no calls of any other kind)."""

    def __init__(self, where: str, triggers: dict[str, bool], param: str) -> None:
        self.where = where
        self.triggers = triggers
        self.param = param
        self.env: dict[str, Any] = {}

    def block(self, body: list[ast.stmt]) -> None:
        for node in body:
            self.statement(node)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.env[node.targets[0].id] = self.value(node.value)
        elif isinstance(node, ast.If):
            self.block(node.body if self.value(node.test) else node.orelse)
        elif isinstance(node, ast.Return):
            raise _Return(self.value(node.value) if node.value is not None else None)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if (
                isinstance(call.func, ast.Attribute)
                and call.func.attr == "append"
                and isinstance(call.func.value, ast.Name)
                and isinstance(self.env.get(call.func.value.id), list)
                and len(call.args) == 1
            ):
                self.env[call.func.value.id].append(self.value(call.args[0]))
            else:
                raise _refuse(self.where, node, "a call in the hint function")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return
        else:
            raise _refuse(
                self.where, node, f"unsupported statement {type(node).__name__} in the hint function"
            )

    def value(self, node: ast.expr | None) -> Any:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            raise _refuse(self.where, node, f"unknown name {node.id!r}")
        if isinstance(node, ast.List | ast.Tuple):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values, strict=True)}
        if isinstance(node, ast.Subscript):
            return self.value(node.value)[self.value(node.slice)]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.value(node.left), self.value(node.comparators[0])
            op = node.ops[0]
            if isinstance(op, ast.In):
                return left in right
            if isinstance(op, ast.NotIn):
                return left not in right
            if isinstance(op, ast.Eq):
                return left == right
            raise _refuse(self.where, node, "a comparison other than in / not in / ==")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.value(node.operand)
        if isinstance(node, ast.BoolOp):
            values = [self.value(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.IfExp):
            return self.value(node.body) if self.value(node.test) else self.value(node.orelse)
        if isinstance(node, ast.Call):
            text = ast.unparse(node.func)
            if text == "all" and len(node.args) == 1:
                return all(self.value(node.args[0]))
            if text == "any" and len(node.args) == 1:
                return any(self.value(node.args[0]))
            if text == f"{self.param}.context.get_triggers" and not node.args:
                return self.triggers
            raise _refuse(self.where, node, "a call in the hint function")
        if isinstance(node, ast.Attribute) and ast.unparse(node) == f"{self.param}.context.triggers":
            return self.triggers
        raise _refuse(self.where, node, f"unsupported expression {type(node).__name__} in the hint function")


def run_hint_program(program: HintProgram, triggers: dict[str, bool]) -> str:
    """The hint the function gives for these triggers (evaluated as data, see `_HintRunner`)."""
    fn = program.node
    if len(fn.args.args) != 1:
        raise _refuse(program.where, fn, "a hint function takes one argument")
    runner = _HintRunner(program.where, dict(triggers), fn.args.args[0].arg)
    try:
        runner.block(fn.body)
    except _Return as ret:
        return "" if ret.value is None else str(ret.value)
    return ""

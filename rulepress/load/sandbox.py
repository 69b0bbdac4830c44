"""The one Jinja environment all rule text is rendered in: chapters, glossary definitions and example prose.

Rule text is content, written by designers, editors and translators and built in CI.  It may look data up, loop
over it and do a little arithmetic; it may never run code, read a file, or work without bound.  So templates run in
Jinja's immutable sandbox (no ``_`` attributes, no mutating methods) with:

* no globals but a bounded ``range`` (no ``cycler``, ``joiner``, ``namespace``, ``lipsum``, ``dict``);
* no loader and no ``include``/``import``/``extends``/``macro``/``call``/``block``: refused before anything runs;
* an allowlist of filters, several with bounded arguments, and of the methods text may call;
* limits on loop steps and calls, on the size of any value an operator, filter or method builds, on the output
  and on the time a template takes: every unbounded path goes through one of the checks below.

Anything refused is a :class:`TemplateRefused` (a :class:`jinja2.sandbox.SecurityError`) raised *inside* the
template, so Jinja's traceback names the template's own line.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import CodeType
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.filters import FILTERS, make_attrgetter
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from jinja2.visitor import NodeTransformer

MAX_RANGE = 10_000  # numbers in one range()
MAX_STEPS = 200_000  # loop steps, calls, filters and operators of one template, all together
MAX_VALUE = 1 << 20  # characters (or items) of one value a template builds; also the largest number a call gets
MAX_BUILT = 16 << 20  # characters (or items) of all the values one template builds, together
MAX_OUTPUT = 1 << 20  # characters one template writes
MAX_SECONDS = 2.0  # CPU time of one template (its thread's: a busy machine's other work refuses no template)
MAX_POWER_BITS = 4096  # the size of a number ** and * may build
CODES_CACHED = 5000  # compiled texts a sandbox keeps: a book has a few thousand

# Statements rule text has no use for; the first three would read other files.
REFUSED_STATEMENTS: dict[type[nodes.Node], tuple[str, str]] = {
    nodes.Include: ("include", "a template cannot read other files"),
    nodes.Import: ("import", "a template cannot read other files"),
    nodes.FromImport: ("from … import", "a template cannot read other files"),
    nodes.Extends: ("extends", "a template cannot read other files"),
    nodes.Macro: ("macro", "rule text has no macros; loop over the component data instead"),
    nodes.CallBlock: ("call", "rule text has no macros; loop over the component data instead"),
    nodes.Block: ("block", "rule text has no template blocks"),
    nodes.EvalContextModifier: ("autoescape", "rule text sets no escaping of its own"),
}

# The filters rule text may use; each is counted against the budget, and those whose arguments set a size are
# checked first (_sized_filters).  format, wordwrap, tojson, pprint, xmlattr, urlize and random are left out
# (unbounded widths, markup or links, or a different book on every build).
SAFE_FILTERS = ("abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape",
                "filesizeformat", "first", "float", "groupby", "indent", "int", "items", "join", "last", "length",
                "list", "lower", "map", "max", "min", "reject", "rejectattr", "replace", "reverse", "round", "select",
                "selectattr", "slice", "sort", "string", "striptags", "sum", "title", "trim", "truncate", "unique",
                "upper", "wordcount")

# Methods text may call; growth is bounded by the number check in ContentEnvironment.call (widths) and by
# _check_replace.  format/format_map (unbounded widths), join and expandtabs are left out.
TEXT_METHODS = frozenset({
    "capitalize", "casefold", "center", "count", "endswith", "find", "index", "isalnum", "isalpha", "isdecimal",
    "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper", "ljust", "lower", "lstrip", "partition",
    "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip",
    "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill"})

# A marker the chapter renderer puts at the start of each source line, so rendered lines can name their source
# line even after loops; NUL never appears in rule text (it is refused).
LINE_MARK = re.compile("\x00([0-9]+)\x00")


class TemplateRefused(SecurityError):
    """A template used something rule text may not, or went past a limit."""


@dataclass
class _Budget:
    """What one template has spent: checked at every loop step, call, filter, operator and write."""

    deadline: float
    steps: int = 0
    built: int = 0

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TemplateRefused(f"the template takes more than {MAX_STEPS} loop steps, calls and operations")
        if time.thread_time() > self.deadline:
            raise TemplateRefused(f"the template takes longer than {MAX_SECONDS:g} s to render")

    def grow(self, value: Any, what: str) -> Any:
        """Count a value just built; refuse one too large, or too much built altogether."""
        size = _sized(value)
        if size is not None:
            if size > MAX_VALUE:
                raise _too_long(what, size)
            self.built += size
            if self.built > MAX_BUILT:
                raise TemplateRefused(f"the template builds more than {MAX_BUILT} characters of values")
        return value


def _too_long(what: str, size: int) -> TemplateRefused:
    return TemplateRefused(f"{what} would be {size} characters long; rule text values stay under {MAX_VALUE}")


def text_of(value: Any) -> str:
    """``str(value)``, refusing first when it would be too long: ``str([big] * 10000)`` must not be built."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        size, stack = 0, [value]
        while stack:  # an estimate (repr adds quotes and escapes), stopped as soon as it is too large
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
                size += 2 + 2 * len(item)
            elif isinstance(item, (list, tuple, set, frozenset)):
                stack.extend(item)
                size += 2 + 2 * len(item)
            else:
                size += len(item) + 2 if isinstance(item, (str, bytes)) else 24
            if size > MAX_VALUE:
                raise _too_long("a value written as text", size)
    return str(value)


def _sized(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else None


def _check_replace(text: Any, old: Any, new: Any, count: Any = -1) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        hits = text.count(old) if old else len(text) + 1
        if isinstance(count, int) and count >= 0:
            hits = min(hits, count)
        size = len(text) + hits * max(len(new) - len(old), 0)
        if size > MAX_VALUE:
            raise _too_long("a replace()", size)


def _counted(budget: Callable[[], _Budget], name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that ticks the budget and counts what it builds (``map`` calls filters too, item by item)."""

    @functools.wraps(func)  # keeps Jinja's pass_context/pass_eval_context marker
    def counted(*args: Any, **kwargs: Any) -> Any:
        budget().tick()
        return budget().grow(func(*args, **kwargs), f"the '{name}' filter's result")

    return counted


def _sized_filters() -> dict[str, Callable[..., Any]]:
    """The filters whose arguments set a size, checked before anything is built."""

    @jinja2.pass_environment
    def join(env: ContentEnvironment, value: Iterable[Any], d: str = "", attribute: Any = None) -> str:
        if attribute is not None:
            value = map(make_attrgetter(env, attribute), value)
        pieces, size = [], 0
        for item in value:  # one item at a time: the whole list could be far too large
            piece = text_of(item)
            size += len(piece) + (len(d) if pieces else 0)
            if size > MAX_VALUE:
                raise _too_long("a join", size)
            pieces.append(piece)
        return str(d).join(pieces)

    @jinja2.pass_eval_context
    def replace(eval_ctx: Any, s: str, old: str, new: str, count: int | None = None) -> str:
        _check_replace(str(s), str(old), str(new), -1 if count is None else count)
        return str(FILTERS["replace"](eval_ctx, s, old, new, count))

    def center(value: str, width: int = 80) -> str:
        if width > MAX_VALUE:
            raise _too_long("a center()", width)
        return str(FILTERS["center"](value, width))

    def indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
        pad = len(width) if isinstance(width, str) else int(width)
        size = len(str(s)) + pad * (str(s).count("\n") + 1)
        if size > MAX_VALUE:
            raise _too_long("an indent", size)
        return str(FILTERS["indent"](s, width, first, blank))

    def batch(value: Iterable[Any], linecount: int, fill_with: Any = None) -> Iterator[list[Any]]:
        if linecount > MAX_RANGE:
            raise TemplateRefused(f"batch({linecount}): rule text batches at most {MAX_RANGE} items")
        return FILTERS["batch"](value, linecount, fill_with)  # type: ignore[no-any-return]

    def slice_(value: Iterable[Any], slices: int, fill_with: Any = None) -> Iterator[list[Any]]:
        if slices > MAX_RANGE:
            raise TemplateRefused(f"slice({slices}): rule text slices into at most {MAX_RANGE} parts")
        return FILTERS["slice"](value, slices, fill_with)  # type: ignore[no-any-return]

    return {"join": join, "replace": replace, "center": center, "indent": indent, "batch": batch,
            "slice": slice_, "string": text_of}


def bounded_range(*args: int) -> range:
    """``range`` for rule text: at most MAX_RANGE numbers (``range(10**10)`` is refused at once)."""
    numbers = range(*args)
    try:
        size = len(numbers)
    except OverflowError:  # more than sys.maxsize numbers
        size = MAX_RANGE + 1
    if size > MAX_RANGE:
        raise TemplateRefused(f"range{args} has more than {MAX_RANGE} numbers; rule text loops over at most "
                              f"{MAX_RANGE}")
    return numbers


class _Guard(NodeTransformer):
    """Refuses the statements rule text may not use and routes loops and ``~`` through the bounded helpers."""

    def visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> Any:
        for kind, (tag, why) in REFUSED_STATEMENTS.items():
            if isinstance(node, kind):
                raise jinja2.TemplateSyntaxError(f"'{{% {tag} %}}' is not allowed in rule text: {why}", node.lineno)
        return super().visit(node, *args, **kwargs)

    def visit_For(self, node: nodes.For) -> nodes.Node:  # noqa: N802 - Jinja's visitor naming
        self.generic_visit(node)
        node.iter = _helper("bounded_iter", [node.iter], node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:  # noqa: N802 - Jinja's visitor naming
        self.generic_visit(node)
        return _helper("bounded_concat", node.nodes, node.lineno)


def _helper(name: str, args: list[nodes.Expr], lineno: int) -> nodes.Call:
    # An environment attribute, not a global: a template cannot shadow it with {% set %}.
    return nodes.Call(nodes.EnvironmentAttribute(name, lineno=lineno), args, [], None, None, lineno=lineno)


def _count_output(tree: nodes.Template) -> None:
    """Route everything a template writes through ``written``, also what ``{% set %}``/``{% filter %}`` capture."""
    for output in tree.find_all(nodes.Output):
        output.nodes = [_helper("written", [nodes.Const(child.data, lineno=child.lineno)
                                            if isinstance(child, nodes.TemplateData) else child], child.lineno)
                        for child in output.nodes]


def _mark_lines(node: nodes.Node, marked: bool = True) -> None:
    """Put LINE_MARK after each newline of the text the template writes straight out.

    Text captured by ``{% set %}`` or passed through ``{% filter %}`` is left alone: a marker there could change
    what a filter computes.  Lines written from such text take the line before them, which is close enough.
    """
    if isinstance(node, nodes.Output):
        for child in node.nodes:
            if marked and isinstance(child, nodes.TemplateData):
                lines = child.data.split("\n")
                child.data = lines[0] + "".join(f"\n\x00{child.lineno + i}\x00{line}"
                                                for i, line in enumerate(lines[1:], start=1))
    inner = marked and not isinstance(node, (nodes.AssignBlock, nodes.FilterBlock))
    for child in node.iter_child_nodes():
        _mark_lines(child, inner)


class ContentEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox rule text runs in; :func:`content_environment` gives this thread's."""

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self) -> None:
        # Jinja comments move to {## ##} so that "{#rule.id}" heading attributes stay plain text.
        # Not optimized: Jinja's optimizer folds constant expressions while compiling (a sixth of a compile), and
        # here everything a template computes runs through the sandbox's counted calls anyway.
        super().__init__(undefined=jinja2.StrictUndefined, comment_start_string="{##", comment_end_string="##}",
                         keep_trailing_newline=True, autoescape=False, loader=None, optimized=False)
        self.globals.clear()
        self.globals["range"] = bounded_range
        sized = _sized_filters()
        self.filters = {name: _counted(lambda: self.budget, name, sized.get(name, FILTERS[name]))
                        for name in SAFE_FILTERS}
        self.budget = _Budget(time.thread_time() + MAX_SECONDS)
        self.written_size = 0
        self._codes: dict[tuple[bool, str], CodeType] = {}

    # Component data reads as keys first: in ``colours.values`` "values" is a key, not dict.values.
    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, Mapping) and attribute in obj:
            return obj[attribute]
        if isinstance(obj, jinja2.Undefined):
            str(obj)  # a StrictUndefined raises here, naming the unknown variable rather than the attribute
        return super().getattr(obj, attribute)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, (str, bytes)) and attr not in TEXT_METHODS:
            return False
        if isinstance(obj, int) and callable(value):  # int.to_bytes and friends have no place in rule text
            return False
        return super().is_safe_attribute(obj, attr, value)

    def wrap_str_format(self, value: Any) -> None:
        return None  # str.format is not in TEXT_METHODS: refused as an unsafe attribute instead

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's API
        __self.budget.tick()
        if __obj is not bounded_range:
            for value in (*args, *kwargs.values()):
                if isinstance(value, int) and abs(value) > MAX_VALUE:
                    raise TemplateRefused(f"the number {value} is too large for a call in rule text (at most "
                                          f"{MAX_VALUE})")
        if getattr(__obj, "__name__", None) == "replace" and isinstance(getattr(__obj, "__self__", None), str):
            _check_replace(__obj.__self__, *args[:3])
        return __self.budget.grow(super().call(__context, __obj, *args, **kwargs), "a call's result")

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        self.budget.tick()
        if operator == "%" and isinstance(left, (str, bytes)):
            raise TemplateRefused("'%' formatting is not allowed in rule text; join text with '~'")
        if operator in ("*", "**") and isinstance(left, int) and isinstance(right, int):
            bits = abs(left).bit_length() * (right if operator == "**" else 1) + (
                0 if operator == "**" else abs(right).bit_length())
            if abs(left) > 1 and bits > MAX_POWER_BITS:
                raise TemplateRefused(f"{left} {operator} {right} is too large a number for rule text")
        elif operator == "*":
            for seq, times in ((left, right), (right, left)):
                size = _sized(seq)
                if size is not None and isinstance(times, int) and size * times > MAX_VALUE:
                    raise _too_long("a repeated value", size * times)
        elif operator == "+":
            size, other = _sized(left), _sized(right)
            if size is not None and other is not None and size + other > MAX_VALUE:
                raise _too_long("a joined value", size + other)
        return self.budget.grow(super().call_binop(context, operator, left, right), f"a '{operator}' result")

    def bounded_iter(self, iterable: Iterable[Any]) -> Iterator[Any]:
        """Every ``{% for %}`` loops through here: each step counts against the budget."""
        for item in iterable:
            self.budget.tick()
            yield item

    def written(self, value: Any) -> str:
        """Every piece of output goes through here (as Jinja would write it, without autoescaping)."""
        text = text_of(value)
        self.written_size += len(text)
        if self.written_size > MAX_OUTPUT:
            raise TemplateRefused(f"the template writes more than {MAX_OUTPUT} characters")
        return text

    def bounded_concat(self, *parts: Any) -> str:
        """``a ~ b``, with the result's size checked as it grows."""
        pieces, size = [], 0
        for part in parts:
            piece = text_of(part)
            size += len(piece)
            if size > MAX_VALUE:
                raise _too_long("a '~' join", size)
            pieces.append(piece)
        return self.budget.grow("".join(pieces), "a '~' join")  # type: ignore[no-any-return]

    def compiled(self, source: str, mark_lines: bool = False) -> CodeType:
        """``source``, checked and compiled once per distinct text in this thread's sandbox, cache or no cache:
        the check and the code are a function of the text alone (the code holds no values, only names of what it
        reads, as Jinja's own bytecode cache relies on), and each render binds it to a sandbox of its own.  Most
        texts recur: an example's prose at each of its steps, every chapter again in a serve session.  A text the
        check refuses is not cached (it raises each time)."""
        key = (mark_lines, source)
        code = self._codes.get(key)
        if code is None:
            code = self.compile(self.checked(source, mark_lines))
            if len(self._codes) >= CODES_CACHED:  # the oldest first (dicts keep insertion order)
                del self._codes[next(iter(self._codes))]
            self._codes[key] = code
        return code

    def checked(self, source: str, mark_lines: bool = False) -> nodes.Template:
        """Parse ``source`` and refuse what rule text may not use, before any of it runs."""
        if "\x00" in source:
            line = source.count("\n", 0, source.index("\x00")) + 1
            raise jinja2.TemplateSyntaxError("the text contains a NUL character", line)
        tree = _Guard().visit(self.parse(source))
        if mark_lines:
            _mark_lines(tree)
        _count_output(tree)
        return tree  # type: ignore[no-any-return]

    def render_text(self, source: str, context: Mapping[str, Any], mark_lines: bool = False) -> str:
        """Render ``source`` within the limits; errors are Jinja's, carrying the template's own line."""
        template = self.template_class.from_code(self, self.compiled(source, mark_lines), self.make_globals(None))
        self.budget = _Budget(time.thread_time() + MAX_SECONDS)
        self.written_size = 0
        return template.render(**context)


_THREAD = threading.local()


def content_environment() -> ContentEnvironment:
    """The sandbox rule text runs in: one per thread, made once (its settings and filters never change); each
    render starts with a budget of its own (:meth:`ContentEnvironment.render_text`)."""
    env: ContentEnvironment | None = getattr(_THREAD, "env", None)
    if env is None:
        env = _THREAD.env = ContentEnvironment()
    return env


def split_marked(text: str, first_line: int = 1) -> tuple[str, list[int]]:
    """Remove LINE_MARKs from ``text``; also give the source line of each rendered line.

    A line with no marker started inside a value (a ``{{ }}`` holding a newline): it belongs to the line before.
    """
    lines, numbers = [], []
    current = first_line
    for line in text.split("\n"):
        found = LINE_MARK.match(line)
        if found:
            current = int(found.group(1))
            line = line[found.end():]
        lines.append(line)
        numbers.append(current)
    return "\n".join(lines), numbers

"""YAML that remembers where each value came from, so errors can name the line.

Parsing is bounded: the file is read through :mod:`rulepress.load.confine` (inside the project, a regular file,
at most 1 MiB, UTF-8), nesting may not go deeper than :data:`MAX_DEPTH`, and the document, with every alias
expanded, may not hold more than :data:`MAX_NODES` values, so an alias bomb ("billion laughs") is refused before
anything walks it.  libyaml's C parser gives the events of most files (:func:`fast_path`), and :func:`_built`
makes the values of a plain file straight from them; PyYAML's composer and constructor (with the limits and lines)
make those of a file with anchors, aliases or problems; a file libyaml does not take is read by PyYAML alone, whose
messages the user sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.cyaml import CParser
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.reader import Reader
from yaml.resolver import Resolver

from rulepress import store
from rulepress.codec import Codec, CodecError
from rulepress.errors import SourceError
from rulepress.load import confine

MAX_DEPTH = 50  # the real sources nest 7 deep; PyYAML's composer recurses per level
MAX_NODES = 100_000  # values in the document with aliases expanded; the largest real file has a few thousand
NON_PRINTABLE = Reader.NON_PRINTABLE  # what PyYAML's reader refuses (libyaml's refuses the same, in other words)
KIND = store.declare("yaml", keep=5000)  # a project file's parse, kept under its text


class LineDict(dict):
    """A mapping whose ``lines`` (``columns``) give the 1-based source line (column) of each key."""

    lines: dict[Any, int]
    columns: dict[Any, int]
    line: int
    column: int


class LineList(list):
    lines: list[int]
    columns: list[int]
    line: int
    column: int


class _Limits:
    """The depth and size limits and the value check, for both loaders below."""

    _depth = 0
    _nodes = 0  # composed, aliases not expanded
    _aliased = False  # whether an alias was met: only then can the expanded size or depth exceed what was composed

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        # Checked before recursing, so a 10 000-deep "[[[[..." fails here rather than with a RecursionError.
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels",
                                    self.peek_event().start_mark)
            self._nodes += 1
            if self.check_event(AliasEvent):
                self._aliased = True
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None and (self._aliased or self._nodes > MAX_NODES):  # else what was composed is in bounds
            _measure(node)
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:  # an int of 5000 digits, a date like 2024-13-45
            raise ConstructorError(None, None, f"cannot read this value: {exc}", node.start_mark) from exc


class _Loader(_Limits, yaml.SafeLoader):
    """PyYAML's own Python reader, scanner and parser: every message about a malformed file comes from here."""


class _FastLoader(_Limits, Composer, SafeConstructor, Resolver, CParser):  # type: ignore[misc]
    """The same loader with libyaml's C scanner and parser producing the events (most of the time a parse takes);
    the Python composer above them keeps the limits, lines and columns.  Used for files that parse: any problem,
    and any character PyYAML's reader refuses, is parsed again by :class:`_Loader`, whose messages users see."""

    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)


class _FastQuestionLoader(_FastLoader):
    """:class:`_FastLoader` for a text holding a '?': a '?' in a plain value inside a flow collection is where
    libyaml takes what PyYAML refuses (PyYAML ends the value there), so meeting one hands the file to PyYAML."""

    _flow = 0  # how many flow collections ("[...]", "{...}") the node being composed is inside

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, ScalarEvent):
            if self._flow and not event.style and "?" in event.value:
                raise _PartWays
            return super().compose_node(parent, index)
        flow = int(isinstance(event, SequenceStartEvent | MappingStartEvent) and event.flow_style is True)
        self._flow += flow
        try:
            return super().compose_node(parent, index)
        finally:
            self._flow -= flow


class _PartWays(Exception):
    """Where libyaml takes what PyYAML refuses: the file is read again by PyYAML alone."""


_BUILT_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null", "timestamp"))
_RESOLVER = Resolver()
_CONSTRUCTOR = SafeConstructor()
_IMPLICIT_FIRST = frozenset(key for key in Resolver.yaml_implicit_resolvers if key is not None)
_WILDCARD = None in Resolver.yaml_implicit_resolvers  # resolvers tried whatever the first character (none today)
# The plain words that are not text, and their values: YAML 1.1's bools and nulls, the only tags a letter starts,
# as PyYAML's resolver finds and SafeConstructor makes them (tests/test_yaml_fast.py reads the resolver's patterns).
WORDS: dict[str, bool | None] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("null", "Null", "NULL"), None)}


def _built(text: str) -> Any:
    """The value of ``text`` (one on :func:`fast_path`) made straight from libyaml's events: what PyYAML's composer
    and constructor above them make (:class:`_FastLoader`), the same values, lines and columns, without a node per
    value (most of a parse was the composer).  For a plain file only: anything else (an anchor or alias, a tag, a
    merge key, a key that is a list or mapping or written twice, a value that does not read, a '?' where the two
    parsers part ways, the limits reached, more than one document, any complaint of libyaml) raises
    :class:`_PartWays`, and the composer reads the file and says what is wrong (tests/test_yaml_fast.py)."""
    parser = CParser(text)
    try:
        return _from_events(parser.get_event)
    except yaml.YAMLError as exc:
        raise _PartWays from exc
    finally:
        parser.dispose()


def _from_events(next_event: Callable[[], Any]) -> Any:
    # The open collection is kept in locals (its value, lines, columns, whether a mapping, whether inside a flow
    # collection, the key waiting for its value and that key's place) and the ones around it on ``above``: a parse
    # is one pass over the events, and most of its time was this loop.  Places are 1-based (line, column).
    if type(next_event()) is not StreamStartEvent:
        raise _PartWays
    event = next_event()
    if type(event) is StreamEndEvent:
        return None
    if type(event) is not DocumentStartEvent:
        raise _PartWays
    above: list[tuple[Any, ...]] = []
    made: Any = None  # the open collection; None at the root
    lines: Any = None
    columns: Any = None
    mapping = flow = False
    key: Any = _NO_KEY
    key_line = key_column = 0
    nodes = 0
    while True:
        event = next_event()
        kind = type(event)
        if kind is ScalarEvent:
            nodes += 1
            if event.anchor is not None or event.tag not in _UNTAGGED or nodes > MAX_NODES:
                raise _PartWays
            value = event.value
            if flow and not event.style and "?" in value:
                raise _PartWays
            if event.implicit[0]:  # plain (quoted is text): a number, true, null or a date are plain
                first = value[:1]
                if _WILDCARD:
                    value = _typed(event)
                elif first.isalpha():  # a letter starts only the words of WORDS, and text
                    value = WORDS.get(value, value)
                elif first in _IMPLICIT_FIRST:  # most often a count, which needs no resolver; a long one (Python
                    # refuses int() past 4300 digits) goes to the resolver, whose refusal names its place
                    value = (int(value) if len(value) <= 18 and value.isdecimal() and value.isascii()
                             and (first != "0" or len(value) == 1) else _typed(event))
            mark = event.start_mark
            line, column = mark.line + 1, mark.column + 1
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            value, line, column = made, made.line, made.column
            made, lines, columns, mapping, flow, key, key_line, key_column = above.pop()
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            nodes += 1
            if (event.anchor is not None or event.tag not in _UNTAGGED or len(above) >= MAX_DEPTH - 1
                    or nodes > MAX_NODES or (mapping and key is _NO_KEY)):  # the last: a list or mapping as a key
                raise _PartWays
            above.append((made, lines, columns, mapping, flow, key, key_line, key_column))
            if kind is MappingStartEvent:
                made, lines, columns, mapping = LineDict(), {}, {}, True
            else:
                made, lines, columns, mapping = LineList(), [], [], False
            made.lines, made.columns = lines, columns
            mark = event.start_mark
            made.line, made.column = mark.line + 1, mark.column + 1
            flow = flow or event.flow_style is True
            key = _NO_KEY
            continue
        else:  # an alias, or the document ended with no value in it
            raise _PartWays
        if made is None:  # the root: the document must end here, and the stream with it
            if type(next_event()) is not DocumentEndEvent or type(next_event()) is not StreamEndEvent:
                raise _PartWays
            return value
        if not mapping:
            made.append(value)
            lines.append(line)
            columns.append(column)
        elif key is _NO_KEY:
            if value in made:  # written twice: the constructor says so
                raise _PartWays
            key, key_line, key_column = value, line, column
        else:
            made[key] = value
            lines[key] = key_line
            columns[key] = key_column
            key = _NO_KEY


def _typed(event: ScalarEvent) -> Any:
    """A plain scalar's value, as SafeConstructor makes it, when it may be other than text (it starts with a
    character an implicit tag, a number, true, null or a date, can start with, as the resolver would find)."""
    tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag == _TEXT:
        return event.value
    if tag not in _BUILT_TAGS:  # a merge key '<<', or '=': the constructor's to read
        raise _PartWays
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node)
    except (ValueError, OverflowError) as exc:  # an int of 5000 digits, a date like 2024-13-45
        raise _PartWays from exc


_NO_KEY = object()
_UNTAGGED = (None, "!")

def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _measure(root: yaml.Node) -> None:
    """Refuse a document whose alias-expanded size or depth is over the limits, or whose aliases form a loop.

    Iterative, with each node measured once, so the check itself is linear in the file and never recurses.
    """
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(kid)] for kid in kids)
            depth[key] = 1 + max((depth[id(kid)] for kid in kids), default=0)
            if size[key] > MAX_NODES:
                raise ComposerError(None, None, f"more than {MAX_NODES} values once aliases are expanded "
                                                "(an alias bomb?)", node.start_mark)
            if depth[key] > MAX_DEPTH:
                raise ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels once aliases are "
                                                "expanded", node.start_mark)
            continue
        if key in size:
            continue
        if key in on_path:
            raise ComposerError(None, None, "an alias refers to a value that contains it", node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((kid, False) for kid in _children(node) if id(kid) not in size)


_TEXT = "tag:yaml.org,2002:str"


def _value(loader: _Loader, node: yaml.Node) -> Any:
    """``loader.construct_object(node, deep=True)``; a text without going through it (what it would give: the
    scalar's own string), since most values are text."""
    if type(node) is yaml.ScalarNode and node.tag == _TEXT:
        return node.value
    return loader.construct_object(node, deep=True)


def _mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    result = LineDict()
    result.lines, result.columns = {}, {}
    result.line, result.column = node.start_mark.line + 1, node.start_mark.column + 1
    for key_node, value_node in node.value:
        key = _value(loader, key_node)
        try:
            if key in result:
                raise ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            result[key] = _value(loader, value_node)
        except TypeError as exc:  # an unhashable key: a list or mapping used as a key
            raise ConstructorError(None, None, f"a key cannot be a list or mapping ({exc})",
                                   key_node.start_mark) from exc
        result.lines[key] = key_node.start_mark.line + 1
        result.columns[key] = key_node.start_mark.column + 1
    return result


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(_value(loader, child) for child in node.value)
    result.lines = [child.start_mark.line + 1 for child in node.value]
    result.columns = [child.start_mark.column + 1 for child in node.value]
    result.line, result.column = node.start_mark.line + 1, node.start_mark.column + 1
    return result


for _loader in (_Loader, _FastLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def load_yaml(path: Path, shown_as: str | None = None, *, root: Path | None = None,
              max_bytes: int = confine.MAX_SOURCE_BYTES) -> Any:
    """Parse ``path``; any problem becomes a :class:`SourceError` naming file and line.

    ``root`` is the folder the file must stay inside (the project root); without it, the file's own folder, so
    a symlink leading elsewhere is still refused.
    """
    name = shown_as or str(path)
    text = confine.read_text(root if root is not None else path.parent, path, name, max_bytes)
    if root is not None:  # a project's file: its parse is kept in the project's store
        return cached_parse(root, text, lambda: parse_yaml(text, name))
    return parse_yaml(text, name)


def cached_parse(root: Path, text: str, parse: Callable[[], Any]) -> Any:
    """``parse()`` of a project's YAML ``text`` (:func:`parse_yaml`, with every line remembered: most of loading
    the books), reused for the same text.  Only a good parse is kept (a refused file raises each
    time), and each call returns a fresh copy, as parsing does."""
    kept = store.Store(root)
    if not kept.enabled:
        return parse()
    key = store.key_of(store.code_digest(), text)
    found = kept.load(KIND, key, lambda data: (PARSED.unpack(data),))  # a tuple: a file may hold None
    if found is not None:
        return found[0]
    value = parse()
    try:
        kept.put(KIND, key, PARSED.pack(value))
    except CodecError:  # a value that is not data (never from this parser) is just not kept
        pass
    return value


PARSED = Codec({"yaml:LineDict": LineDict, "yaml:LineList": LineList})
"""A kept parse is written with this (data, with every line and column), never pickled: reading it runs nothing."""


def parse_yaml(text: str, name: str) -> Any:
    """Parse YAML ``text`` (shown as ``name`` in errors) within the depth and size limits."""
    try:
        if fast_path(text):
            try:
                return _built(text)
            except _PartWays:  # not a plain file, or a problem: the composer tells
                pass
            try:
                return yaml.load(text, Loader=fast_loader(text))  # noqa: S506 - SafeConstructor
            except (ComposerError, ConstructorError):  # the limits, a duplicate key: the same Python code either way
                raise
            except (yaml.YAMLError, RecursionError, _PartWays):  # libyaml's complaint, or a place the two part
                # ways: read (and told) as PyYAML reads and tells it, below
                pass
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "malformed YAML"
        if exc.context_mark and mark and exc.context and "end of stream" in problem:
            # A quote or bracket left open runs to the end of the file: the place to fix is where it opened.
            problem = f"{exc.context}: {problem} (at line {mark.line + 1})"
            mark = exc.context_mark
        raise SourceError(name, mark.line + 1 if mark else None, f"malformed YAML: {problem}",
                          column=mark.column + 1 if mark else None) from exc
    except yaml.reader.ReaderError as exc:  # a character YAML refuses (NUL, most control codes): at its place
        line, column = _place(text, exc.position)
        refused = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        raise SourceError(name, line, f"malformed YAML: unacceptable character {refused}: {exc.reason}",
                          column=column) from exc
    except yaml.YAMLError as exc:
        raise SourceError(name, None, f"malformed YAML: {exc}") from exc
    except RecursionError as exc:  # a safety net: the depth limit should stop this first
        raise SourceError(name, None, f"malformed YAML: nesting too deep (limit {MAX_DEPTH})") from exc


_SLOW = re.compile("[\t!\ufeff]|[|>][-+0-9]*#")  # where libyaml and PyYAML part ways (tests/test_yaml_fast.py)


def fast_path(text: str) -> bool:
    """Whether ``text`` is parsed with libyaml first.  Not when it holds a character PyYAML's reader refuses, nor
    one of the few on which the two parsers differ: libyaml takes a tab inside a plain value, a lone '!' tag and a
    comment right after a block scalar's '|' where PyYAML refuses them (such a file must stay refused), and counts
    columns differently after a byte-order mark that is not the first character.  Sources rarely hold any.  The
    last difference, a '?' inside a plain value in a flow collection, is common in prose (every designer question
    ends with one) and is told apart while composing (:class:`_FastQuestionLoader`)."""
    return not _SLOW.search(text) and not NON_PRINTABLE.search(text)


def fast_loader(text: str) -> type[_FastLoader]:
    """The libyaml loader for ``text`` (one on :func:`fast_path`): the '?' check costs a little on every node, so
    only a text holding a '?' pays it."""
    return _FastQuestionLoader if "?" in text else _FastLoader


def _place(text: str, position: int) -> tuple[int, int]:
    """The 1-based line and column of offset ``position`` in ``text``."""
    start = text.rfind("\n", 0, position) + 1
    return text.count("\n", 0, position) + 1, position - start + 1


def line_of(container: Any, key: Any = None, default: int | None = None) -> int | None:
    """The line of ``container[key]`` (or of the container itself) when it is known."""
    if key is not None:
        lines = getattr(container, "lines", None)
        if isinstance(lines, dict) and key in lines:
            return lines[key]
        if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
            return lines[key]
    return getattr(container, "line", default)


def column_of(container: Any, key: Any = None) -> int | None:
    """The column of ``container[key]``'s key or item (or of the container itself) when it is known."""
    if key is not None:
        columns = getattr(container, "columns", None)
        if isinstance(columns, dict) and key in columns:
            return columns[key]
        if isinstance(columns, list) and isinstance(key, int) and 0 <= key < len(columns):
            return columns[key]
    return getattr(container, "column", None)


def plain(value: Any) -> Any:
    """The same data as ordinary dicts and lists (for engines and JSON)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value

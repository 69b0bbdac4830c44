"""YAML that remembers where each value came from, so errors can name the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rulepress.errors import SourceError


class LineDict(dict):
    """A mapping whose ``lines`` give the 1-based source line of each key."""

    lines: dict[Any, int]
    line: int


class LineList(list):
    lines: list[int]
    line: int


class _Loader(yaml.SafeLoader):
    pass


def _mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    result = LineDict()
    result.lines = {}
    result.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in result:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        try:
            result[key] = loader.construct_object(value_node, deep=True)
        except TypeError as exc:  # unhashable key inside
            raise yaml.constructor.ConstructorError(None, None, str(exc), key_node.start_mark) from exc
        result.lines[key] = key_node.start_mark.line + 1
    return result


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.lines = [child.start_mark.line + 1 for child in node.value]
    result.line = node.start_mark.line + 1
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def load_yaml(path: Path, shown_as: str | None = None) -> Any:
    """Parse ``path``; any syntax problem becomes a :class:`SourceError` naming file and line."""
    name = shown_as or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(name, None, f"cannot read: {exc}") from exc
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context or "malformed YAML"
        raise SourceError(name, line, f"malformed YAML: {problem}") from exc
    except yaml.YAMLError as exc:
        raise SourceError(name, None, f"malformed YAML: {exc}") from exc


def line_of(container: Any, key: Any = None, default: int | None = None) -> int | None:
    """The line of ``container[key]`` (or of the container itself) when it is known."""
    if key is not None:
        lines = getattr(container, "lines", None)
        if isinstance(lines, dict) and key in lines:
            return lines[key]
        if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
            return lines[key]
    return getattr(container, "line", default)


def plain(value: Any) -> Any:
    """The same data as ordinary dicts and lists (for engines and JSON)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value

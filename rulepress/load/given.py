"""Inputs given on the command line, read as sources: a file named by an option, YAML typed into one.

``record --moves-file /dev/zero`` must not read until memory runs out, nor ``explain --action`` expand an alias
bomb: a file named on the command line goes through :mod:`rulepress.load.confine` (a regular file, bounded, UTF-8;
inside the project, like every source, where it is the project's input), and YAML given inline or in such a file
through :mod:`rulepress.load.yamlsrc` (bounded depth and aliases).  Every problem is a
:class:`~rulepress.errors.SourceError` at the option or the file, with the line and column where there is one
(``--action:1:9: malformed YAML: ...``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError, excerpt
from rulepress.load import confine
from rulepress.load.yamlsrc import parse_yaml

MAX_PDF_BYTES = 256 * 1024 * 1024  # a printed rulebook is a few MB; a PDF over this is not one of ours


def _named(path: str, option: str) -> Path:
    if not path or "\0" in path:
        raise SourceError(option, None, f"{excerpt(path)} is not a file name")
    return Path(path).absolute()  # as the user typed it: relative to the current folder, not the project


def file_text(root: Path, path: str, option: str, max_bytes: int = confine.MAX_SOURCE_BYTES) -> str:
    """The UTF-8 text of the file ``path`` named by ``option``: a regular file inside the project ``root`` of at
    most ``max_bytes`` (errors name the file as the user wrote it)."""
    return confine.read_text(root, _named(path, option), path, max_bytes)


def yaml_text(text: str, option: str) -> Any:
    """YAML typed as ``option``'s value, parsed with the sources' limits (errors at ``option:line:column``)."""
    if len(text.encode("utf-8", "surrogateescape")) > confine.MAX_SOURCE_BYTES:
        raise SourceError(option, None, f"is {len(text)} characters, more than a source may have")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # bytes the shell passed that are not UTF-8 (surrogate escapes)
        raise SourceError(option, None, "is not UTF-8 text") from exc
    return parse_yaml(text, option)


def yaml_file(root: Path, path: str, option: str) -> Any:
    """The YAML file ``path`` named by ``option``, read and parsed as a source is."""
    return parse_yaml(file_text(root, path, option), path)


def regular_file(path: str, option: str, max_bytes: int) -> Path:
    """``path`` (anywhere: a file to check, not a source to read into the project) when it is a regular file of
    at most ``max_bytes``: a FIFO, a device (``/dev/zero``), a folder or a huge file is refused before any read."""
    named = _named(path, option)
    try:
        resolved = confine.check_regular(Path(named.anchor), named)
        size = os.stat(resolved).st_size
    except confine.PathRefused as refused:
        raise SourceError(path, None, refused.reason) from None
    if size > max_bytes:
        raise SourceError(path, None, f"file is {size} bytes, more than the {max_bytes} bytes {option} reads")
    return Path(path)  # as typed: findings name the file the way the user did

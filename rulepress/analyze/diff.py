"""``rulepress diff BOOK REV1 REV2``: a book compared between two git revisions, by rule ID."""

from __future__ import annotations

import argparse
import difflib
import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rulepress.analyze.gitrev import RevisionError, export_book
from rulepress.errors import SourceError
from rulepress.load.book import Book, load_book
from rulepress.load.yamlsrc import load_yaml, plain


@dataclass
class BookDiff:
    added: list[dict[str, str]] = field(default_factory=list)
    removed: list[dict[str, str]] = field(default_factory=list)
    reworded: list[dict[str, str]] = field(default_factory=list)
    moved: list[dict[str, str]] = field(default_factory=list)
    renumbered: list[dict[str, str]] = field(default_factory=list)
    examples_added: list[str] = field(default_factory=list)
    examples_removed: list[str] = field(default_factory=list)
    examples_changed: list[str] = field(default_factory=list)


def word_diff(old: str, new: str) -> str:
    """Words removed as [-…-] and added as {+…+}, the rest as it was."""
    a, b = old.split(), new.split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out += a[i1:i2]
        if op in ("delete", "replace"):
            out.append("[-" + " ".join(a[i1:i2]) + "-]")
        if op in ("insert", "replace"):
            out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)


def compare_books(old: Book, new: Book) -> BookDiff:
    diff = BookDiff()
    old_order = list(old.rules)
    new_order = list(new.rules)
    for rule_id, rule in new.rules.items():
        before = old.rules.get(rule_id)
        if before is None:
            diff.added.append({"id": rule_id, "number": rule.number, "title": rule.title})
            continue
        if before.title != rule.title or before.body.split() != rule.body.split():
            diff.reworded.append({"id": rule_id, "number": rule.number,
                                  "title": word_diff(before.title, rule.title),
                                  "diff": word_diff(before.body, rule.body)})
        if before.chapter != rule.chapter:
            diff.moved.append({"id": rule_id, "from": before.chapter, "to": rule.chapter})
        elif _neighbours(old_order, rule_id) != _neighbours(new_order, rule_id) and before.number == rule.number:
            diff.moved.append({"id": rule_id, "from": before.number, "to": rule.number})
        if before.number != rule.number:
            diff.renumbered.append({"id": rule_id, "from": before.number, "to": rule.number})
    for rule_id, rule in old.rules.items():
        if rule_id not in new.rules:
            diff.removed.append({"id": rule_id, "number": rule.number, "title": rule.title})
    return diff


def _neighbours(order: list[str], rule_id: str) -> tuple[str | None, str | None]:
    index = order.index(rule_id)
    return (order[index - 1] if index else None, order[index + 1] if index + 1 < len(order) else None)


def _examples(root: Path, book_id: str) -> dict[str, Any]:
    folder = root / "examples" / book_id
    found = {}
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        data = plain(load_yaml(path))
        if isinstance(data, dict) and "id" in data:
            found[str(data["id"])] = data
    return found


def diff_revisions(root: Path, book_id: str, rev1: str, rev2: str) -> BookDiff:
    roots: list[Path] = []
    try:
        for revision in (rev1, rev2):  # one at a time: a bad second revision must not leak the first's export
            roots.append(export_book(root, revision, book_id))
        old, new = (load_book(r, book_id) for r in roots)
        diff = compare_books(old, new)
        before, after = (_examples(r, book_id) for r in roots)
        diff.examples_added = sorted(set(after) - set(before))
        diff.examples_removed = sorted(set(before) - set(after))
        diff.examples_changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
        return diff
    finally:
        for r in roots:
            shutil.rmtree(r, ignore_errors=True)


def run_diff(root: Path, args: argparse.Namespace) -> int:
    try:
        diff = diff_revisions(root, args.book, args.rev1, args.rev2)
    except RevisionError as exc:
        raise SourceError(f"git {args.rev1}..{args.rev2}", None, str(exc)) from exc
    if args.json:
        print(json.dumps(asdict(diff), ensure_ascii=False, indent=1))
        return 0
    print(f"{args.book}: {args.rev1} -> {args.rev2}")
    for entry in diff.added:
        print(f"  added      {entry['number']:8} {entry['id']} ({entry['title']})")
    for entry in diff.removed:
        print(f"  removed    {entry['number']:8} {entry['id']} ({entry['title']})")
    for entry in diff.renumbered:
        print(f"  renumbered {entry['id']}: {entry['from']} -> {entry['to']}")
    for entry in diff.moved:
        print(f"  moved      {entry['id']}: {entry['from']} -> {entry['to']}")
    for entry in diff.reworded:
        print(f"  reworded   {entry['number']:8} {entry['id']}")
        print(f"      {entry['diff']}")
    for name, items in (("example added", diff.examples_added), ("example removed", diff.examples_removed),
                        ("example changed", diff.examples_changed)):
        for item in items:
            print(f"  {name:15} {item}")
    if not any(asdict(diff).values()):
        print("  no differences")
    return 0

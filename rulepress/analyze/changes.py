"""Rule text that changed since the book's last tagged edition must be named in the change log."""

from __future__ import annotations

import shutil
from pathlib import Path

from rulepress.analyze.gitrev import RevisionError, export_book, latest_edition_tag
from rulepress.errors import SourceError
from rulepress.load.book import Book, load_book


def changed_rules(old: Book, new: Book) -> list[str]:
    """Rule IDs added or reworded (title or text) between two versions of a book."""
    changed = []
    for rule_id, rule in new.rules.items():
        before = old.rules.get(rule_id)
        if before is None or before.title != rule.title or _words(before.body) != _words(rule.body):
            changed.append(rule_id)
    return changed


def _words(text: str) -> list[str]:
    return text.split()


def unlogged_changes(root: Path, book: Book) -> list[str]:
    tag = latest_edition_tag(root, book.id)
    if tag is None:
        return []
    try:
        old_root = export_book(root, tag, book.id)
    except RevisionError:
        return []
    try:
        old = load_book(old_root, book.id)
    except SourceError as exc:
        return [f"{book.id}: the tagged edition {tag} cannot be read for the change-log check: {exc}"]
    finally:
        shutil.rmtree(old_root, ignore_errors=True)
    # Entries written for the tagged edition or earlier explain the tagged text, not what came after it.
    old_editions = {entry.edition for entry in old.changelog} | {str(old.data.get("edition"))}
    logged = {r for entry in book.changelog if entry.edition not in old_editions for r in entry.rules}
    return [f"{rule.file}:{rule.line}: rule {rule.number} ({rule_id}) changed since {tag} but no change-log "
            f"entry newer than that edition names it" for rule_id in changed_rules(old, book)
            if rule_id not in logged and (rule := book.rules[rule_id])]

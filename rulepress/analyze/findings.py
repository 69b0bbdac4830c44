"""A finding: what is wrong or undetermined in a book, with its evidence, and the designer questions that track it.

Every finding has a *subject*, the one thing it is about (``rule:lm.night.deck-out``, ``word:adjacent``,
``data:score.bands``, ``question:ll.q14``, ``seat:greedy play/3/3``, ``outcome:ll.fog.reveal.shared``).  A designer
question tracks a finding when it names that subject in its ``tracks`` list (questions.yaml), when the finding is about
the question itself, or when the question quotes the word or term the finding is about ("Is a tile 'next to' ..."): by
subject, never because the two happen to share a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rulepress.load.book import Book

SEVERITIES = ("error", "warning", "info")


@dataclass
class Finding:
    kind: str
    message: str
    rules: list[str]
    file: str
    line: int | None
    severity: str = "warning"
    tracked_by: list[str] = field(default_factory=list)
    subject: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)  # games, counts, intervals: what decided it

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "message": self.message, "rules": self.rules,
                "file": self.file, "line": self.line, "tracked_by": self.tracked_by,
                "untracked": not self.tracked_by, "subject": self.subject, "evidence": self.evidence}


def _quoted(text: str, phrase: str) -> bool:
    """True when a quotation in ``text`` holds ``phrase`` ("next to", 'orthogonally surrounded', “touch”)."""
    word = re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)", re.IGNORECASE)
    return any(word.search(quoted) for quoted in re.findall(r"\"([^\"]+)\"|“([^”]+)”|«([^»]+)»|(?<!\w)'([^']+)'(?!\w)",
                                                              text) for quoted in quoted if quoted)


def tracking(book: Book, subject: str) -> list[str]:
    """The designer questions (not dropped) that track a finding about ``subject``."""
    kind, _, name = subject.partition(":")
    found = []
    for question in book.questions:
        if question.status == "dropped":
            continue
        if (subject in question.tracks or subject == f"question:{question.id}"
                or (kind in ("word", "term") and _quoted(question.question, name))):
            found.append(question.id)
    return found


def track(book: Book, findings: list[Finding]) -> list[Finding]:
    """Fill in ``tracked_by`` for every finding that has none yet."""
    for item in findings:
        if not item.tracked_by and item.subject:
            item.tracked_by = tracking(book, item.subject)
    return findings


def rank(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Errors, then warnings, then notes; within each the untracked first, in the order found."""
    return sorted(findings, key=lambda f: (SEVERITIES.index(f["severity"]) if f["severity"] in SEVERITIES else 9,
                                           bool(f["tracked_by"])))

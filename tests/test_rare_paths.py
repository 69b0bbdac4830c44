"""Every designer question backed by an engine option is told apart by some worked example.

The gate replays the examples under the assumed answers only, so an option whose alternative stopped
doing anything (a mutation, or a refactor that drops a branch) would go unnoticed. Here each example is
replayed under each answer, as ``rulepress questions --impact`` does, and some example must come out
differently (pass under one answer and fail under the other, or end with another result).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from rulepress.load.book import Question
from rulepress.verify.gate import BookCheck
from rulepress.verify.replay import replay

from .conftest import load_books

_CHECKS, _ERRORS = load_books()
_CASES = [
    (book, question, answer)
    for book, check in sorted(_CHECKS.items())
    for question in check.book.questions
    if question.option is not None and question.status != "dropped"
    for answer in question.answers
    if answer != question.assumed
]


def _outcome(check: BookCheck, example: Any, option: str, value: Any) -> tuple[str, Any]:
    result = replay(example, check.book, check.engine, draw=False, prose=False, options={option: value})
    return result.status, result.result


def telling_example(check: BookCheck, question: Question, answer: str) -> str | None:
    """The first example whose replay differs between the assumed answer and ``answer``, or None."""
    assert question.option is not None
    assumed = question.option_value(question.assumed)
    other = question.option_value(answer)
    # examples that pin the option first: they were written for exactly this difference
    examples = sorted(check.examples, key=lambda e: question.option not in e.options)
    for example in examples:
        if _outcome(check, example, question.option, assumed) != _outcome(check, example, question.option, other):
            return example.id
    return None


def untold(check: BookCheck, question: Question, answer: str) -> str | None:
    """The problem, naming the question's file and line, when no example tells ``answer`` from the assumed one."""
    if telling_example(check, question, answer) is not None:
        return None
    return (f"{check.book.path('questions.yaml')}:{question.line}: no worked example changes when {question.id} "
            f"is answered '{answer}' instead of '{question.assumed}' (option {question.option}): "
            f"write one whose outcome differs between the two")


@pytest.mark.parametrize(("book", "question", "answer"), _CASES,
                         ids=[f"{q.id}={a}" for _, q, a in _CASES])
def test_some_example_tells_the_answers_apart(book: str, question: Question, answer: str) -> None:
    problem = untold(_CHECKS[book], question, answer)
    assert problem is None, problem


def test_every_book_loads() -> None:
    assert not _ERRORS, _ERRORS
    assert {"lantern", "lantern-moths", "last-lantern"} <= set(_CHECKS)


def test_every_option_question_is_checked() -> None:
    """Guard the parametrisation itself: the option-backed questions of the bundled books are all here."""
    ids = {q.id for _, q, _ in _CASES}
    assert {"ll.q10", "ll.q14", "ll.q15", "ll.q18", "ll.q19", "ll.q20", "ll.q21", "ll.q22", "ll.q23",
            "ll.q24", "ll.q25", "ln.q12", "lm.q14", "lm.q16"} <= ids


@pytest.mark.parametrize(("book", "qid"), [("last-lantern", "ll.q23"), ("lantern", "ln.q12"),
                                           ("lantern-moths", "lm.q14")])
def test_an_option_without_effect_is_caught(book: str, qid: str) -> None:
    """Teeth: when both answers map to the same engine value (as if the option's effect were removed),
    no example can tell them apart and the check reports it."""
    check = _CHECKS[book]
    question = next(q for q in check.book.questions if q.id == qid)
    answer = next(a for a in question.answers if a != question.assumed)
    same = question.option_value(question.assumed)
    dead = dataclasses.replace(question, option_values={question.assumed: same, answer: same})
    assert telling_example(check, dead, answer) is None
    assert untold(check, dead, answer) == (
        f"rules_src/{book}/questions.yaml:{question.line}: no worked example changes when {qid} is answered "
        f"'{answer}' instead of '{question.assumed}' (option {question.option}): write one whose outcome "
        f"differs between the two")
    assert isinstance(question.line, int) and question.line > 1
    assert telling_example(check, question, answer) is not None
    assert untold(check, question, answer) is None


@pytest.mark.parametrize(("book", "qid", "example_id"), [
    ("lantern", "ln.q12", "ln-score-on-loss"),
    ("lantern-moths", "lm.q14", "lm-refill-card-by-card"),
    ("lantern-moths", "lm.q16", "lm-setup-middle-tile"),
    ("last-lantern", "ll.q10", "ll-second-lantern"),
    ("last-lantern", "ll.q14", "ll-tile-fits-nowhere"),
    ("last-lantern", "ll.q15", "ll-guiding-hand-refused"),
    ("last-lantern", "ll.q18", "ll-lake-glow-purple"),
    ("last-lantern", "ll.q19", "ll-purple-pair"),
    ("last-lantern", "ll.q20", "ll-basilisk-glow-purple"),
    ("last-lantern", "ll.q21", "ll-lake-glow-purple"),
    ("last-lantern", "ll.q22", "ll-serpent-surrounded"),
    ("last-lantern", "ll.q23", "ll-serpent-surrounded"),
    ("last-lantern", "ll.q24", "ll-basilisk-glow-purple"),
    ("last-lantern", "ll.q25", "ll-tile-bag-empty"),
])
def test_the_example_written_for_a_question_fails_under_the_other_answer(book: str, qid: str,
                                                                         example_id: str) -> None:
    """The examples written for these questions pass as written and fail, naming the example, under the
    other answer."""
    check = _CHECKS[book]
    question = next(q for q in check.book.questions if q.id == qid)
    example = next(e for e in check.examples if e.id == example_id)
    written = example.options.get(question.option, question.option_value(question.assumed))
    other = next(question.option_value(a) for a in question.answers if question.option_value(a) != written)
    assert replay(example, check.book, check.engine, draw=False, prose=False).ok
    flipped = replay(example, check.book, check.engine, draw=False, prose=False, options={question.option: other})
    assert not flipped.ok
    assert flipped.message.startswith(f"{example_id} (examples/{book}/{example_id}.yaml): ")

"""Every refusal an engine makes is reached by an example from its rulebook, and its whole message is on record.

A refusal is a ``raise`` of ``RuleViolation(rule, message)`` in an engine's code (read with ``ast``).  The
examples' ``illegal:`` steps are the table of bad moves: each is a position from the rulebook and a move the
rules forbid, and the replay holds the refusal to the rule the example names; tests/golden/<book>.json holds the
engine's whole message for it (tools/golden.py), so a changed message is a reviewed change.

A refusal no example reaches is listed in tests/refusals_unreached.yaml until an example reaches it: a
new refusal that no example reaches fails here, and so does a listed one that an example now reaches (take it off
the list).  The list only shrinks.
"""

from __future__ import annotations

import ast
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulepress.protocol import RuleViolation
from rulepress.verify import replay as replay_module
from rulepress.verify.replay import replay

from .conftest import ROOT, load_books

LEDGER = ROOT / "tests" / "refusals_unreached.yaml"


@dataclass(frozen=True)
class Site:
    file: str  # engine/x/y.py
    first: int  # the raise statement's lines
    last: int
    function: str
    rule: str  # the rule argument as written: 'lm.turn.plant', or a name holding one
    says: str  # the message argument as written, its first 40 characters

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.file, self.function, self.rule, self.says


def sites(root: Path = ROOT) -> list[Site]:
    """Every ``raise RuleViolation(...)`` in the bundled engines."""
    found = []
    for path in sorted((root / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                made = node.exc if isinstance(node, ast.Raise) else None
                if isinstance(made, ast.Call) and getattr(made.func, "id", None) == "RuleViolation" and made.args:
                    says = ast.unparse(made.args[1]) if len(made.args) > 1 else ""
                    found.append(Site(path.relative_to(root).as_posix(), node.lineno, node.end_lineno or node.lineno,
                                      function.name, ast.unparse(made.args[0]), says[:40]))
    return sorted(set(found), key=lambda s: (s.file, s.first))


def _site_of(error: RuleViolation, every: list[Site]) -> Site | None:
    """The refusal that raised ``error``: its traceback's innermost line in an engine file."""
    place = None
    tb = error.__traceback__
    while tb is not None:
        path = Path(tb.tb_frame.f_code.co_filename).resolve()
        if path.is_relative_to((ROOT / "engine").resolve()):
            place = (path.relative_to(ROOT.resolve()).as_posix(), tb.tb_lineno)
        tb = tb.tb_next
    if place is None:
        return None
    return next((s for s in every if s.file == place[0] and s.first <= place[1] <= s.last), None)


def reached_by_examples(monkeypatch: pytest.MonkeyPatch, every: list[Site]) -> dict[Site, list[dict[str, Any]]]:
    """Each refusal an example's ``illegal:`` step meets: the example, the step, the rule and the message."""
    found: dict[Site, list[dict[str, Any]]] = defaultdict(list)
    rejected = replay_module._Replay.rejected
    current: dict[str, str] = {}

    def noting(self: Any, step: Any, text: str, exc: RuleViolation, *args: Any) -> None:
        site = _site_of(exc, every)
        if site is not None:
            found[site].append({"example": current["id"], "step": step.index, "rule": exc.rule,
                                "message": exc.message})
        rejected(self, step, text, exc, *args)

    monkeypatch.setattr(replay_module._Replay, "rejected", noting)
    checks, errors = load_books()
    assert not errors
    for check in checks.values():
        for example in check.examples:
            current["id"] = example.id
            assert replay(example, check.book, check.engine, draw=False, prose=False).ok, example.id
    return found


def _ledger() -> Counter[tuple[str, str, str, str]]:
    """The listed refusals; one written the same way twice in a function is listed as often as no example reaches it."""
    entries = yaml.safe_load(LEDGER.read_text(encoding="utf-8")) or []
    return Counter((e["file"], e["function"], e["rule"], e["says"]) for e in entries)


# The refusals are read from the engines' source, which in mutmut's copy holds every mutant's version of each
# function: the lines a traceback names there are not these.  The examples themselves run there (test_examples).
@pytest.mark.outside_mutmut(reason="reads the engines' source with ast, which in mutmut's copy holds every mutant")
def test_every_refusal_is_reached_by_an_example_or_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    every = sites()
    reached = reached_by_examples(monkeypatch, every)
    unreached = Counter(site.key for site in every if site not in reached)
    listed = _ledger()
    missing = [site for site in every if site not in reached and unreached[site.key] > listed[site.key]]
    assert not missing, "no example's illegal step reaches these refusals: write one from the rulebook:\n" + \
        "\n".join(f"{s.file}:{s.first} {s.function}: {s.rule}, {s.says}" for s in missing)
    over = sorted(key for key in listed if listed[key] > unreached[key])
    assert not over, f"{LEDGER.name} lists refusals an example now reaches, or the engines no longer have (take " \
        f"them off):\n" + "\n".join(map(str, over))


@pytest.mark.outside_mutmut(reason="reads the engines' source with ast, which in mutmut's copy holds every mutant")
def test_every_message_an_example_meets_is_on_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden record holds each refusal's whole message at its step (tools/golden.py records it)."""
    recorded = {}
    for path in sorted((ROOT / "tests" / "golden").glob("*.json")):
        for example, data in json.loads(path.read_text(encoding="utf-8"))["examples"].items():
            for line in data["transcript"]:
                if line.get("rejected_by"):
                    recorded[(example, line["step"])] = (line["rejected_by"], line["refusal"])
    for site, met in reached_by_examples(monkeypatch, sites()).items():
        for one in met:
            assert recorded.get((one["example"], one["step"])) == (one["rule"], one["message"]), (site, one)

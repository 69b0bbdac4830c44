"""libyaml's parser gives the events; the values of a plain file are built straight from them (``yamlsrc._built``),
those of any other by PyYAML's composer and ours: the same values, lines and columns as PyYAML's pure Python
loader either way, and any file libyaml does not take is told by PyYAML's own parser (its messages).

Every YAML file of the repository is read both ways; hypothesis mutates them (characters inserted, removed,
replaced) and checks that whenever libyaml's events compose into a value, PyYAML's loader gives that same value.
The mutations found where the two differ (a tab or a '?' in a plain value, a lone '!' tag, a comment right after
'|', a byte-order mark inside the text): such a file is read by PyYAML alone (``yamlsrc.fast_path``).
``RULEPRESS_YAML_FUZZ=20000`` tries more mutations.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.errors import SourceError
from rulepress.load import yamlsrc

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for folder in ("rules_src", "examples", "tests", "rulepress/load/schemas")
               for p in (ROOT / folder).rglob("*.yaml"))


def shape(value: Any) -> Any:
    """A value with every line and column it carries, comparable with ==."""
    if isinstance(value, dict):
        return ("map", type(value).__name__, getattr(value, "line", None), getattr(value, "column", None),
                [(shape(k), shape(v), getattr(value, "lines", {}).get(k), getattr(value, "columns", {}).get(k))
                 for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", type(value).__name__, getattr(value, "line", None), getattr(value, "column", None),
                getattr(value, "lines", None), getattr(value, "columns", None), [shape(v) for v in value])
    return (type(value).__name__, repr(value))


def both(text: str) -> tuple[Any, Any]:
    """What each loader makes of ``text`` (the fast one only where parse_yaml uses it): a shape, or an error."""
    found = [] if yamlsrc.fast_path(text) else [("error", "not tried")]
    for loader in (yamlsrc.fast_loader(text), yamlsrc._Loader)[len(found):]:
        try:
            found.append(shape(yaml.load(text, Loader=loader)))  # noqa: S506 - SafeConstructor
        except (yaml.YAMLError, RecursionError, yamlsrc._PartWays) as exc:  # parse_yaml asks PyYAML alone then
            found.append(("error", type(exc).__name__))
    return found[0], found[1]


def built(text: str) -> Any:
    """The shape of what :func:`yamlsrc._built` makes of ``text``, or None where it hands the file to the composer."""
    try:
        return shape(yamlsrc._built(text))
    except yamlsrc._PartWays:
        return None


def test_there_are_files_to_read() -> None:
    assert len(FILES) > 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_file_reads_the_same_both_ways(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    fast, slow = both(text)
    assert fast == slow or fast[0] == "error"  # libyaml refusing is told by PyYAML, which then decides
    if yamlsrc.fast_path(text):
        assert built(text) in (None, slow)


TEXTS = [p.read_text(encoding="utf-8") for p in FILES if p.stat().st_size < 4000][:40]


@settings(max_examples=int(os.environ.get("RULEPRESS_YAML_FUZZ", "150")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(TEXTS) - 1),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3),
                                st.sampled_from([*":-[]{},#&*!|>'\"%@` \t\n?.0aé\\\r~<=^$+\u2028\x85\ufeff\u00a0",
                                                 "  ", "- ", ": ", "? ", "--- ", "...\n", "!!str ", "!x ", "0x1f",
                                                 "1e3", "yes", "<<: "])),
                      min_size=1, max_size=4))
def test_a_mutated_file_libyaml_reads_is_read_the_same_by_pyyaml(which: int, edits: list[tuple[int, int, str]]) -> None:
    text = TEXTS[which]
    for place, removed, inserted in edits:
        spot = place % (len(text) + 1)
        text = text[:spot] + inserted + text[spot + removed:]
    fast, slow = both(text)
    if fast[0] != "error":
        assert fast == slow
    if yamlsrc.fast_path(text) and (made := built(text)) is not None:
        assert made == slow


def test_the_sources_take_the_fast_path_and_the_differences_do_not() -> None:
    sources = [p for p in FILES if "examples" in p.parts or "rules_src" in p.parts]
    fast = [p for p in sources if yamlsrc.fast_path(p.read_text(encoding="utf-8"))]
    assert len(fast) >= 0.9 * len(sources)
    for text in ("a: b\tc\n", "a: [!, b]\n", "a: |# note\n  x\n", "a\ufeff: b\n", "a: \x07\n"):
        assert not yamlsrc.fast_path(text), text
    # A '?' in a plain value inside brackets is told apart while composing libyaml's events, so a question in prose
    # keeps the fast path; inside brackets, PyYAML reads the file (and refuses it) instead.
    for text in ("a: [b?c]\n", "a: {b: c?}\n", "a: [x, {b: [c?]}]\n"):
        with pytest.raises(yamlsrc._PartWays):
            yaml.load(text, Loader=yamlsrc.fast_loader(text))  # noqa: S506 - SafeConstructor
    for text, value in (("a: why?\n", {"a": "why?"}), ("a: ['b?', \"c?\"]\n", {"a": ["b?", "c?"]}),
                        ("a: [b, c]\nd: e?\n", {"a": ["b", "c"], "d": "e?"})):
        assert yaml.load(text, Loader=yamlsrc.fast_loader(text)) == value, text  # noqa: S506 - SafeConstructor
    for text in ("a: b\tc\n", "a: [b?c]\n", "a: [!, b]\n", "a: |# note\n  x\n"):  # PyYAML refuses them all
        with pytest.raises(SourceError, match="malformed YAML"):
            yamlsrc.parse_yaml(text, "x.yaml")


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "x:\n  y: " + "[" * 60 + "]" * 60, "a: &x [*x]\n",
                                  "b: 1\na: *nope\n", "a: 2024-13-45\n", "k: {[1]: 2}\n", "- &a [1]\n- &a [2]\n"])
def test_a_problem_of_the_composer_or_constructor_is_told_alike_on_either_path(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Composing and constructing are the same Python code on both paths: their problems (the limits, a duplicate
    key, an unreadable value) are told from the fast path at once, with the words and place of the slow one."""
    with pytest.raises(SourceError) as fast:
        yamlsrc.parse_yaml(text, "x.yaml")
    monkeypatch.setattr(yamlsrc, "fast_path", lambda text: False)
    with pytest.raises(SourceError) as slow:
        yamlsrc.parse_yaml(text, "x.yaml")
    assert str(fast.value) == str(slow.value)


def test_a_malformed_file_is_told_by_pyyaml_at_its_line() -> None:
    with pytest.raises(SourceError) as caught:
        yamlsrc.parse_yaml("a: 1\nb: [1, 2\nc: 3\n", "x.yaml")
    assert str(caught.value) == "x.yaml:3:2: malformed YAML: expected ',' or ']', but got ':'"  # PyYAML's words
    with pytest.raises(SourceError, match="unacceptable character #x0007"):
        yamlsrc.parse_yaml("a: b\x07\n", "x.yaml")


def test_the_limits_hold_on_the_fast_path_and_without_aliases() -> None:
    with pytest.raises(SourceError, match="nesting deeper than 50 levels"):
        yamlsrc.parse_yaml("[" * 60 + "]" * 60, "x.yaml")
    many = "\n".join(f"- {n}" for n in range(yamlsrc.MAX_NODES + 1))  # no alias, yet too many values
    with pytest.raises(SourceError, match="more than 100000 values"):
        yamlsrc.parse_yaml(many, "x.yaml")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{k}: &{k} [{', '.join([f'*{j}'] * 10)}]\n" for j, k in zip("abcd", "bcde", strict=True))
    with pytest.raises(SourceError, match="alias bomb"):
        yamlsrc.parse_yaml(bomb, "x.yaml")
    assert yamlsrc.parse_yaml("a: &a [1, 2]\nb: *a\n", "x.yaml") == {"a": [1, 2], "b": [1, 2]}


def test_plain_sources_are_built_from_the_events_and_the_rest_by_the_composer() -> None:
    """Most sources are built straight from libyaml's events (where the speed is); anything the builder does not
    make is handed to the composer, which gives the value or says what is wrong, as before."""
    sources = [p.read_text(encoding="utf-8") for p in FILES if "examples" in p.parts or "rules_src" in p.parts]
    assert sum(built(text) is not None for text in sources) >= 0.9 * len(sources)
    handed_over = {
        "a: &x [1]\nb: *x\n": {"a": [1], "b": [1]}, "a: [b?c]\n": None, "a: 1\na: 2\n": None,
        "? [1]\n: x\n": None, "a: 1\n---\nb: 2\n": None, "a: 2024-13-45\n": None, "a: [" * 50 + "]" * 50: None,
        "<<: {x: 1}\n": None, "a: =\n": None}  # no merge keys in sources: refused, as before
    for text, value in handed_over.items():
        assert built(text) is None, text
        if value is not None:
            assert yamlsrc.parse_yaml(text, "x.yaml") == value, text
        else:
            with pytest.raises(SourceError):
                yamlsrc.parse_yaml(text, "x.yaml")
    for text, value in (("", None), ("a:\n", {"a": None}), ("- 1\n- 1.5\n- true\n- ~\n- 2024-01-02\n- '7'\n- x\n",
                        [1, 1.5, True, None, __import__("datetime").date(2024, 1, 2), "7", "x"]),
                        ("a: {b: [c, d?]}\n", None), ("k: why?\n", {"k": "why?"})):
        if value is None and text.startswith("a: {"):
            assert built(text) is None  # a '?' in a plain value inside brackets: PyYAML decides (and refuses)
            continue
        assert yamlsrc._built(text) == value, text
        assert built(text) == shape(yaml.load(text, Loader=yamlsrc._Loader)), text  # noqa: S506 - SafeLoader


def test_plain_words_and_counts_are_read_as_the_resolver_and_constructor_read_them() -> None:
    """The builder reads a plain value starting with a letter from WORDS, and a plain count with int(), without
    asking the resolver: the tags a letter can start are only bool and null, whose words (read from the
    resolver's own patterns) are those of WORDS, with the constructor's values; and a count reads as PyYAML
    reads it, an octal '017', a '1_000' or a sexagesimal '1:30' included."""
    resolvers = yaml.resolver.Resolver.yaml_implicit_resolvers
    letters = {tag for first, tags in resolvers.items() if first and first.isalpha() for tag, _ in tags}
    assert letters == {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
    words = {word for tags in resolvers.values() for tag, pattern in tags if tag in letters
             for word in re.findall(r"[A-Za-z]+", pattern.pattern)}
    assert words == set(yamlsrc.WORDS)
    for word, value in yamlsrc.WORDS.items():
        assert yaml.load(f"- {word}\n", Loader=yamlsrc._Loader) == [value]  # noqa: S506 - SafeLoader
        assert yamlsrc._built(f"- {word}\n") == [value]
    texts = "- nullx\n- Falsey\n- offset\n- tile\n- T05\n- 0\n- 7\n- 017\n- 1_000\n- 1:30\n- 12\n- ０\n- 1e3\n"
    assert yamlsrc._built(texts) == yaml.load(texts, Loader=yamlsrc._Loader)  # noqa: S506 - SafeLoader
    assert yamlsrc._built("- 017\n- 1:30\n- 12\n") == [15, 90, 12]

"""Rule text is content: its templates run in a sandbox that never executes code, reads files or runs unbounded.

Each attack is a SourceError naming the file, the template's own line and what was refused, and nothing runs.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.errors import SourceError
from rulepress.load import sandbox
from rulepress.load.book import load_book
from rulepress.load.rules import render_chapter, render_template
from rulepress.verify.gate import verify

FILE = "rules_src/mini/chapters/play.md"
DATA = {"pile": {"start": 12, "values": [3, 4]}, "xs": [1, 2]}


def _refused(text: str, first_line: int = 1, context: dict | None = None) -> SourceError:
    with pytest.raises(SourceError) as caught:
        render_template(text, DATA if context is None else context, FILE, first_line)
    assert caught.value.file == FILE
    return caught.value


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_cycler_popen_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"Take stones.\n\n{{{{ cycler.__init__.__globals__.os.popen('touch {marker}').read() }}}}\n"
    error = _refused(text, first_line=5)
    assert error.line == 7
    assert error.message == (f"unknown template variable in {{{{ cycler.__init__.__globals__.os.popen('touch "
                             f"{marker}').read() }}}}: 'cycler' is undefined")
    assert not marker.exists()


def test_self_globals_refused() -> None:
    error = _refused("one\n{{ self.__init__.__globals__['os'] }}")
    assert error.line == 2
    assert error.message == ("template refused: access to attribute '__init__' of 'TemplateReference' object is "
                             "unsafe.")


def test_class_mro_refused() -> None:
    error = _refused("{{ ''.__class__.__mro__[1].__subclasses__() }}", first_line=3)
    assert error.line == 3
    assert error.message == "template refused: access to attribute '__class__' of 'str' object is unsafe."


@pytest.mark.parametrize("name", ["cycler", "joiner", "namespace", "lipsum", "dict"])
def test_no_default_globals(name: str) -> None:
    error = _refused(f"{{{{ {name}() }}}}")
    assert error.message == f"unknown template variable in {{{{ {name}() }}}}: '{name}' is undefined"


def test_huge_range_refused_fast() -> None:
    started = time.perf_counter()
    error = _refused("a\nb\n{% for i in range(10**10) %}{{ i }}{% endfor %}")
    assert time.perf_counter() - started < 0.5
    assert error.line == 3
    assert error.message == ("template refused: range(10000000000,) has more than 10000 numbers; rule text loops "
                             "over at most 10000")


def test_range_past_sys_maxsize_refused() -> None:
    error = _refused("{{ range(10**30) | length }}")
    assert error.message.startswith("template refused: range(1000000000000000000000000000000,) has more than")


def test_string_repetition_refused() -> None:
    error = _refused("x\n{{ 'x' * 10**9 }}")
    assert error.line == 2
    assert error.message == ("template refused: a repeated value would be 1000000000 characters long; rule text "
                             "values stay under 1048576")


def test_concatenation_doubling_refused() -> None:
    error = _refused("{% set s = 'x' * 1000000 %}\n{% set s = s ~ s %}{{ s }}")
    assert error.line == 2
    assert error.message == ("template refused: a '~' join would be 2000000 characters long; rule text values "
                             "stay under 1048576")


def test_huge_power_refused() -> None:
    error = _refused("{{ 10 ** 100000 }}")
    assert error.message == "template refused: 10 ** 100000 is too large a number for rule text"


@pytest.mark.parametrize(("text", "message"), [
    ("{{ '%0999999999d' % 1 }}", "template refused: '%' formatting is not allowed in rule text; join text with '~'"),
    ("{{ '{:>999999999}'.format(1) }}",
     "template refused: access to attribute 'format' of 'str' object is unsafe."),
    ("{{ 'x'.center(10**9) }}",
     "template refused: the number 1000000000 is too large for a call in rule text (at most 1048576)"),
    ("{{ (1).to_bytes(1000, 'big') }}", "template refused: access to attribute 'to_bytes' of 'int' object is unsafe."),
    ("{{ ('x' * 1000).replace('x', 'y' * 10000) }}",
     "template refused: a replace() would be 10000000 characters long; rule text values stay under 1048576"),
    ("{{ range(100) | join('y' * 1000000) }}",
     "template refused: a join would be 2000003 characters long; rule text values stay under 1048576"),
    ("{% set big = 'x' * 1000000 %}{{ ([big] * 10000) | map('upper') | list | length }}",
     "template refused: the template builds more than 16777216 characters of values"),
    ("{% set big = 'x' * 1000000 %}{{ [big] * 10000 }}",
     "template refused: a value written as text would be 2020006 characters long; rule text values stay under "
     "1048576"),
    ("{% set big = 'x' * 1000000 %}{{ ([big] * 10000) | string }}",
     "template refused: a value written as text would be 2020006 characters long; rule text values stay under "
     "1048576"),
    ("{{ range(10000) | map('center', 1000000) | list }}",
     "template refused: the template builds more than 16777216 characters of values"),
    ("{{ xs.append(3) }}", "template refused: access to attribute 'append' of 'list' object is unsafe."),
    ("{{ 1 | format }}", "template error: No filter named 'format'."),
])
def test_growth_and_mutation_refused(text: str, message: str) -> None:
    assert _refused(text).message == message


def test_output_size_refused() -> None:
    error = _refused("intro\n{% for i in range(5000) %}\n{{ 'x' * 1000 }}{% endfor %}")
    assert error.line == 3
    assert error.message == "template refused: the template writes more than 1048576 characters"


@pytest.mark.parametrize("block", [("{% filter upper %}", "{% endfilter %}"), ("{% set s %}", "{% endset %}")])
def test_captured_output_counts_too(block: tuple[str, str]) -> None:
    opening, closing = block
    error = _refused(f"{opening}\n{{% for i in range(2000) %}}\n{{{{ 'x' * 1000000 }}}}{{% endfor %}}{closing}")
    assert error.line == 3
    assert error.message == "template refused: the template writes more than 1048576 characters"


def test_runaway_recursive_loop() -> None:
    error = _refused("{% for x in xs recursive %}{{ loop(xs) }}{% endfor %}")
    assert error.line == 1
    assert error.message.startswith("template error: RecursionError: maximum recursion depth exceeded")


def test_loop_steps_capped() -> None:
    started = time.perf_counter()
    error = _refused("{% for i in range(10000) %}\n{% for j in range(10000) %}{% endfor %}{% endfor %}")
    assert time.perf_counter() - started < 2
    assert error.line == 2
    assert error.message == "template refused: the template takes more than 200000 loop steps, calls and operations"


def test_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "MAX_SECONDS", 0.0)
    error = _refused("{% for i in range(3) %}{{ i }}{% endfor %}", first_line=4)
    assert error.line == 4
    assert error.message == "template refused: the template takes longer than 0 s to render"


def test_the_time_limit_is_the_template_s_own_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine busy with other work refuses no template: the wall clock may run on (here 100 s at every look),
    the template's thread has spent almost no time (the mutation tests' traced run, starved beside other work,
    was refused a glossary entry)."""
    clock = iter(range(0, 10**9, 100))
    monkeypatch.setattr(sandbox.time, "monotonic", lambda: float(next(clock)))
    monkeypatch.setattr(sandbox.time, "perf_counter", lambda: float(next(clock)))
    assert render_template("{% for i in range(3) %}{{ i }}{% endfor %}", DATA, FILE, 1) == "012"


@pytest.mark.parametrize(("tag", "why"), [
    ("{% include '/etc/passwd' %}", "'{% include %}' is not allowed in rule text: a template cannot read other files"),
    ("{% import 'x.md' as x %}", "'{% import %}' is not allowed in rule text: a template cannot read other files"),
    ("{% from 'x.md' import y %}",
     "'{% from … import %}' is not allowed in rule text: a template cannot read other files"),
    ("{% extends '/etc/passwd' %}", "'{% extends %}' is not allowed in rule text: a template cannot read other files"),
    ("{% macro f() %}{{ f() }}{% endmacro %}",
     "'{% macro %}' is not allowed in rule text: rule text has no macros; loop over the component data instead"),
])
def test_file_reading_statements_refused(tag: str, why: str) -> None:
    error = _refused(f"Intro.\n\n{tag}\n", first_line=10)
    assert error.line == 12
    assert error.message == f"template error: {why}"


def test_unclosed_for_reported_at_its_own_line() -> None:
    text = "# Play {#mini.play}\n\n{% for x in xs %}\n* {{ x }}\n" + "".join(f"line {{{{ {n} }}}}\n" for n in range(25))
    error = _refused(text, first_line=1)
    assert error.line == 3
    assert error.message == "template error: '{% for %}' is never closed with '{% endfor %}'"


def test_unclosed_if_inside_closed_for() -> None:
    text = "{% for x in xs %}\n{% if x %}\n{{ x }}\n{% endfor %}\n" + "{{ 1 }}\n" * 10
    error = _refused(text)
    assert error.line == 2  # Jinja itself blames the {% endfor %} on line 4
    assert error.message == "template error: '{% if %}' is never closed with '{% endif %}'"


@pytest.mark.parametrize(("text", "line", "kind"), [
    ("a\n\n{{ 1 / 0 }}", 3, "ZeroDivisionError: division by zero"),
    ("a\n{{ xs[0] + 'x' }}", 2, "TypeError: unsupported operand type(s) for +: 'int' and 'str'"),
    ("{{ 'abc'.index('z') }}", 1, "ValueError: substring not found"),
])
def test_runtime_errors_name_their_line(text: str, line: int, kind: str) -> None:
    error = _refused(text, first_line=20)
    assert error.line == 19 + line
    assert error.message == f"template error: {kind}"


def test_missing_index_is_an_unknown_variable() -> None:
    error = _refused("\n{{ xs[5] }}")
    assert error.line == 2
    assert error.message == "unknown template variable in {{ xs[5] }}: list object has no element 5"


def test_keys_before_attributes_still() -> None:
    assert render_template("{{ pile.values | join(',') }} of {{ pile.start }}", DATA, FILE) == "3,4 of 12"


def test_chapter_lines_survive_loops() -> None:
    text = ("# Play {#mini.play}\n{% for x in range(4) %}\n* {{ x }}\n{% endfor %}\n"
            "## Take {#mini.play.take}\nsee [[mini.play]]\n")
    rendered, lines = render_chapter(text, DATA, FILE)
    assert rendered.splitlines()[lines.index(5)] == "## Take {#mini.play.take}"
    assert lines[rendered.splitlines().index("see [[mini.play]]")] == 6


def test_chapter_heading_error_after_a_loop_names_the_source_line(mini: Path) -> None:
    chapter = mini / "rules_src/mini/chapters/play.md"
    _edit(chapter, "## Taking stones {#mini.play.take}",
          "{% for n in range(30) %}\n* {{ n }}\n{% endfor %}\n## Taking stones {#mini.play.take}")
    _edit(chapter, "## Winning {#mini.play.win}", "## Winning")
    with pytest.raises(SourceError) as caught:
        load_book(mini, "mini")
    assert (caught.value.file, caught.value.line) == (FILE, 10)
    assert "heading 'Winning' has no rule ID" in caught.value.message


def test_chapter_attack_is_a_load_error(mini: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _edit(mini / "rules_src/mini/chapters/play.md", "{{ pile.start }}",
          f"{{{{ cycler.__init__.__globals__.os.popen('touch {marker}').read() }}}}")
    with pytest.raises(SourceError) as caught:
        load_book(mini, "mini")
    assert (caught.value.file, caught.value.line) == (FILE, 5)
    assert caught.value.message.endswith(": 'cycler' is undefined")
    assert not marker.exists()


def test_glossary_definition_attack(mini: Path) -> None:
    glossary = mini / "rules_src/mini/glossary.yaml"
    text = glossary.read_text()
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if "definition:" in row)
    _edit(glossary, "definition: The stones still to be taken.", "definition: \"{{ ''.__class__ }}\"")
    with pytest.raises(SourceError) as caught:
        load_book(mini, "mini")
    assert (caught.value.file, caught.value.line) == ("rules_src/mini/glossary.yaml", line)
    assert caught.value.message == "template refused: access to attribute '__class__' of 'str' object is unsafe."


def test_example_prose_attack_names_the_text_line(mini: Path) -> None:
    example = mini / "examples/mini/mini-last-stone.yaml"
    _edit(example, "text: |\n  Ann", "text: |\n  First line.\n  {{ self.__init__ }}\n  Ann")
    line = example.read_text().splitlines().index("  {{ self.__init__ }}") + 1
    [result] = verify(mini).results
    assert result.status == "error"
    assert (f"text (line {line}): template refused: access to attribute '__init__' of 'TemplateReference' object "
            "is unsafe.") in result.message


TOKENS = ["{{", "}}", "{%", "%}", "{##", "##}", "for", "endfor", "if", "endif", "else", " in ", "range(", ")",
          "(", "[", "]", "xs", "pile", ".", "__class__", "__init__", "'", '"', "~", "*", "**", "+", "%", "|",
          "join", "length", "10", "0", "\n", " ", "x", "set", "=", "<", ">", "-", "self", "raw", "endraw",
          "include", "macro", "loop", "#", ",", ":", "upper", "e", "<script>", "](", "javascript:"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join) | st.text(max_size=60))
def test_random_template_text_only_raises_source_errors(text: str) -> None:
    try:
        result = render_template(text, DATA, FILE, 1)
    except SourceError as error:
        assert error.file == FILE
        assert error.line is None or 1 <= error.line <= text.count("\n") + 1
    else:
        assert isinstance(result, str)


def test_allowed_filters_still_work() -> None:
    text = ("{{ xs | join(', ') }}|{{ xs | map('string') | join }}|{{ 'a b' | replace('a', 'c') }}|"
            "{{ 'x' | center(5) }}|{{ pile | dictsort | first }}|{{ 'ab' | indent(2, true) }}|"
            "{{ xs | batch(1) | list }}|{{ [{'a': 1}] | map(attribute='a') | join }}|{{ 'a' ~ 1 ~ xs }}")
    assert render_template(text, DATA, FILE) == "1, 2|12|c b|  x  |('start', 12)|" \
        "  ab|[[1], [2]]|1|a1[1, 2]"


def test_a_text_is_checked_and_compiled_once_cache_or_no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check and the code are a function of the text alone: each distinct text compiles once in a thread's
    sandbox even with ``RULEPRESS_CACHE=0`` (the prose of an example recurs at each of its steps), while a render
    still binds fresh values, and a refused text is refused every time."""
    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    env = sandbox.content_environment()
    compiles: list[str] = []
    real = env.compile

    def counted(source: object, *args: object, **kwargs: object) -> object:
        compiles.append("compile")
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(env, "compile", counted)
    text = "Pile of {{ pile.start }} and {{ xs | length }} marks, once-test."
    assert render_template(text, DATA, FILE) == "Pile of 12 and 2 marks, once-test."
    assert render_template(text, {**DATA, "pile": {"start": 7}}, FILE) == "Pile of 7 and 2 marks, once-test."
    assert compiles == ["compile"]
    render_template(text + " Another text.", DATA, FILE)
    assert compiles == ["compile", "compile"]
    refused = "once-test {% include 'x.md' %}"
    for _ in range(2):
        assert "cannot read other files" in _refused(refused).message

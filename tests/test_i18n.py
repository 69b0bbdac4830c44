"""Engine narration from message catalogs (rulepress.i18n): lookup, fallbacks, the catalog check and the French
narration of Last Lantern."""

from __future__ import annotations

import importlib.util
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress import i18n
from rulepress.i18n import Translator, catalog_path, catalog_problems, extract, language
from rulepress.load.book import load_book
from rulepress.project import default_root
from rulepress.render.player_text import check_player_text
from rulepress.verify.engines import load_engine
from rulepress.verify.gate import Report
from tests.conftest import checks_of, make_project

ROOT = default_root()
ENGINES = sorted(p.parent.name for p in (ROOT / "engine").glob("*/narrate.py"))
LL = load_engine("last_lantern")
LL_COMPONENTS = yaml.safe_load((ROOT / "rules_src/last-lantern/components.yaml").read_text())
FR_PO = catalog_path(ROOT / "engine" / "last_lantern", "fr")

HEADER = ('msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
          '"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n')


def _catalog(folder: Path, body: str, lang: str = "fr", header: str = HEADER) -> Path:
    path = catalog_path(folder, lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + body, encoding="utf-8")
    return path


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rulepress_tools_catalogs", ROOT / "tools" / "catalogs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the language and the lookup ----------------------------------------------------------------------------------

def test_language_is_scoped_and_restored_after_an_error() -> None:
    assert i18n.current_language() == "en"
    with pytest.raises(KeyError), language("fr"):
        assert i18n.current_language() == "fr"
        with language(None):
            assert i18n.current_language() == "en"
        assert i18n.current_language() == "fr"
        raise KeyError("x")
    assert i18n.current_language() == "en"
    assert i18n.in_languages(["en", "fr"], i18n.current_language) == {"en": "en", "fr": "fr"}


def test_book_languages_source_first_without_repeats() -> None:
    assert i18n.book_languages({}) == ["en"]
    assert i18n.book_languages({"translations": ["fr", "de", "fr"]}) == ["en", "fr", "de"]
    assert i18n.book_languages({"language": "fr", "translations": ["en"]}) == ["fr", "en"]
    assert i18n.book_languages({"language": 3, "translations": "fr"}) == ["en"]  # the schema reports these
    assert i18n.book_languages({"translations": ["../../etc", "", "pt_BR"]}) == ["en", "pt_BR"]


def test_lookup_plurals_contexts_and_fallbacks(tmp_path: Path) -> None:
    path = _catalog(tmp_path, '''
msgid "{player} takes {tile}"
msgstr "{tile} : {player} la prend"

msgid "{count} black Firefly"
msgid_plural "{count} black Fireflies"
msgstr[0] "{count} Luciole noire"
msgstr[1] "{count} Lucioles noires"

msgctxt "phase"
msgid "orange"
msgstr "Luciole orange"

#, fuzzy
msgid "goal"
msgstr "but"

msgid "none"
msgstr ""

msgid "{player} passes"
msgstr "{player.__class__} passe"
''')
    tr = Translator(tmp_path)
    with language("fr"):
        assert tr.gettext("{player} takes {tile}").format(player="Milo", tile="T03") == "T03 : Milo la prend"
        # French counts 0 as singular: the catalog's Plural-Forms, evaluated by gettext.
        assert [tr.ngettext("{count} black Firefly", "{count} black Fireflies", n).format(count=n)
                for n in (0, 1, 2)] == ["0 Luciole noire", "1 Luciole noire", "2 Lucioles noires"]
        assert tr.pgettext("phase", "orange") == "Luciole orange"
        assert tr.gettext("orange") == "orange"  # the same word without the context is another message
        assert tr.gettext("goal") == "goal"  # fuzzy: English until a translator checks it
        assert tr.gettext("none") == "none"  # empty
        assert tr.gettext("{player} passes") == "{player} passes"  # a field the engine does not fill: refused
        assert tr.gettext("not in the catalog") == "not in the catalog"
    with language("de"):  # no catalog at all
        assert tr.ngettext("{count} black Firefly", "{count} black Fireflies", 0) == "{count} black Fireflies"
    assert tr.gettext("{player} takes {tile}") == "{player} takes {tile}"  # the source language: the message ID
    # A saved catalog is read again (rulepress serve), without restarting.
    path.write_text(HEADER + 'msgid "goal"\nmsgstr "arrivée"\n\n', encoding="utf-8")
    with language("fr"):
        assert tr.gettext("goal") == "arrivée"


@pytest.mark.parametrize("content", [b"msgid \"x\"\nmsgstr \"y\nbroken", b"\xff\xfe not utf-8", b"x" * 600_000])
def test_an_unreadable_catalog_narrates_in_english(tmp_path: Path, content: bytes) -> None:
    path = catalog_path(tmp_path, "fr")
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with language("fr"):
        assert Translator(tmp_path).gettext("goal") == "goal"


def test_catalog_outside_the_engine_folder_is_not_read(tmp_path: Path) -> None:
    engine, elsewhere = tmp_path / "engine", tmp_path / "elsewhere"
    _catalog(elsewhere, 'msgid "goal"\nmsgstr "arrivée"\n')
    (engine / "locale").mkdir(parents=True)
    (engine / "locale" / "fr").symlink_to(elsewhere / "locale" / "fr")
    with language("fr"):
        assert Translator(engine).gettext("goal") == "goal"
    problems = catalog_problems(_engine_with(tmp_path / "engine", 'print(_("goal"))\n'), ["fr"], tmp_path)
    assert len(problems) == 1 and "outside the project root" in problems[0], problems


# -- the check ----------------------------------------------------------------------------------------------------

def _engine_with(folder: Path, code: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "narrate.py").write_text(code, encoding="utf-8")
    return folder


CODE = '''
_("{player} lays {tile} on {spaces}.")
ngettext("{count} black Firefly", "{count} black Fireflies", n)
pgettext("phase", "journey")
NP_("phase", "draw")
'''
GOOD = '''
msgid "{player} lays {tile} on {spaces}."
msgstr "{player} pose {tile} sur {spaces}."

msgid "{count} black Firefly"
msgid_plural "{count} black Fireflies"
msgstr[0] "{count} Luciole noire"
msgstr[1] "{count} Lucioles noires"

msgctxt "phase"
msgid "journey"
msgstr "Voyage"

msgctxt "phase"
msgid "draw"
msgstr "pioche"
'''
LAYS = '"{player} pose {tile} sur {spaces}."'


@pytest.mark.parametrize(("change", "expected", "at"), [
    (lambda po: po.replace(LAYS, '"{player} pose sur {spaces}."'), "drops {tile}", "msgid \"{player} lays"),
    (lambda po: po.replace(LAYS, '"{player} pose {tile} sur {spaces} {x}."'), "adds {x}, which the engine",
     "msgid \"{player} lays"),
    (lambda po: po.replace(LAYS, '"{player} pose {tile sur {spaces}."'), "not a valid format string",
     "msgid \"{player} lays"),
    (lambda po: po.replace('msgid "{player} lays', '#, fuzzy\nmsgid "{player} lays'), "fuzzy",
     "msgid \"{player} lays"),
    (lambda po: po.replace(LAYS, '""'), "has no translation", "msgid \"{player} lays"),
    (lambda po: po.replace('msgstr[1] "{count} Lucioles noires"\n', ""), "no translation for plural form 2 (of 2)",
     "msgid \"{count} black"),
    (lambda po: po.replace('msgctxt "phase"\nmsgid "journey"\nmsgstr "Voyage"\n', ""), 'no translation of '
     '"journey" (context phase) (engine/narrate.py:4)', None),
    (lambda po: po + '\nmsgid "an old sentence"\nmsgstr "une vieille phrase"\n', "no longer said by the engine",
     'msgid "an old sentence"'),
    (lambda po: po + '\n#~ msgid "older"\n#~ msgstr "plus vieux"\n', "obsolete entry", '#~ msgid "older"'),
    (lambda po: po.replace('msgid "{count} black Firefly"', 'msgid "{count} black Firefly"\nmsgid "again"'),
     "not a valid .po file", None),
], ids=["drops", "adds", "braces", "fuzzy", "empty", "plural-forms", "missing", "obsolete", "obsolete-#~",
        "malformed"])
def test_catalog_problems_name_the_file_and_line(tmp_path: Path, change: Callable[[str], str], expected: str,
                                                 at: str | None) -> None:
    folder = _engine_with(tmp_path / "engine", CODE)
    _catalog(folder, GOOD)
    assert catalog_problems(folder, ["en", "fr"], tmp_path) == []
    text = change(HEADER + GOOD)
    catalog_path(folder, "fr").write_text(text, encoding="utf-8")
    problems = catalog_problems(folder, ["en", "fr"], tmp_path)
    assert len(problems) == 1, problems
    where = "engine/locale/fr/LC_MESSAGES/narrate.po"
    assert problems[0].startswith(where) and expected in problems[0], problems
    if at is not None:
        line = text.splitlines().index(next(x for x in text.splitlines() if x.startswith(at))) + 1
        assert problems[0].startswith(f"{where}:{line}: "), (problems, line)


@pytest.mark.parametrize(("header", "expected"), [
    (HEADER.replace("plural=(n > 1)", "plural=(n > 1"), "the header cannot be used"),
    (HEADER.replace("nplurals=2", "nplurals=two"), "the header cannot be used"),
    (HEADER.replace("Language: fr", "Language: xx_NOPE_1"), "the header cannot be used"),
])
def test_a_catalog_whose_header_gettext_refuses(tmp_path: Path, header: str, expected: str) -> None:
    folder = _engine_with(tmp_path / "engine", CODE)
    _catalog(folder, GOOD, header=header)
    problems = catalog_problems(folder, ["fr"], tmp_path)
    assert len(problems) == 1 and expected in problems[0], problems
    with language("fr"):
        assert Translator(folder).pgettext("phase", "journey") == "journey"


def test_a_catalog_that_is_not_utf8_is_named_by_line(tmp_path: Path) -> None:
    folder = _engine_with(tmp_path / "engine", CODE)
    path = _catalog(folder, GOOD)
    path.write_bytes(path.read_bytes().replace(b"Voyage", b"Voyag\xe9"))
    problems = catalog_problems(folder, ["fr"], tmp_path)
    assert len(problems) == 1 and problems[0].startswith("engine/locale/fr/LC_MESSAGES/narrate.po:18")
    assert "byte 0xe9 is not valid UTF-8" in problems[0], problems


def test_catalog_problems_missing_catalog_and_wrong_language(tmp_path: Path) -> None:
    folder = _engine_with(tmp_path / "engine", CODE)
    assert catalog_problems(folder, ["en", "fr"], tmp_path) == [
        "engine/locale/fr/LC_MESSAGES/narrate.po: no French catalog for the engine's narration, which the book "
        "declares; start it from engine/locale/narrate.pot (nox -s catalogs)"]
    _catalog(folder, GOOD, header=HEADER.replace("Language: fr", "Language: de"))
    assert catalog_problems(folder, ["fr"], tmp_path) == [
        "engine/locale/fr/LC_MESSAGES/narrate.po: its header says Language: de, expected fr"]
    assert catalog_problems(folder, ["en"], tmp_path) == []  # nothing to translate into the source language


def test_every_engine_catalog_is_complete_and_every_template_current() -> None:
    for engine in ENGINES:
        folder = ROOT / "engine" / engine
        languages = sorted(p.name for p in (folder / "locale").iterdir() if p.is_dir())
        assert catalog_problems(folder, languages, ROOT) == [], engine
        assert extract(folder), f"{engine} says nothing through its catalogs"
    assert _tool().main(["--check"]) == 0, "run nox -s catalogs"


def test_french_catalog_header_and_terminology() -> None:
    text = FR_PO.read_text(encoding="utf-8")
    assert '"Language: fr\\n"' in text and '"Plural-Forms: nplurals=2; plural=(n > 1);\\n"' in text
    with language("fr"):  # the terminology table of docs/TRANSLATIONS.md
        narrate = LL.narration
        assert [narrate.familiar(k, False) for k in ("rabbit", "snail", "owl", "wolf")] == [
            "Lapin", "Escargot", "Hibou", "Loup"]
        assert narrate.tile_words("T03") == "la tuile Arbre T03"
        assert narrate.tile_words("A08") == "la tuile Pouvoir A08"
        assert narrate.spaces_words(["e10", "e11", "f12"]) == "le couloir e, rangs 10 et 11; le couloir f, rang 12"
        assert narrate.spaces_words(["e10", "e11", "e12"]) == "le couloir e, rangs 10 à 12"
        assert narrate.spaces_words(["D3", "C4"]) == "le Lac gelé en C4 et D3"
    # English keeps its words: "steps 10 to 11" (a context lets French say "10 et 11" where English does not).
    assert LL.narration.spaces_words(["e10", "e11", "f12"]) == "lane e, steps 10 to 11; lane f, step 12"


def test_the_catalogs_tool_starts_and_updates_a_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool()
    project = tmp_path / "p"
    folder = _engine_with(project / "engine" / "game", CODE)
    (folder / "__init__.py").write_text("")
    monkeypatch.setattr(tool, "ROOT", project)
    assert tool.main(["--init", "fr"]) == 0
    assert tool.main(["--check"]) == 0
    po = catalog_path(folder, "fr")
    assert 'msgid "{player} lays {tile} on {spaces}."\nmsgstr ""' in po.read_text()
    lays = 'msgid "{player} lays {tile} on {spaces}."\nmsgstr ""'
    po.write_text(po.read_text().replace(lays, lays[:-2] + '"{player} pose {tile} sur {spaces}."'))
    (folder / "narrate.py").write_text(CODE.replace("{spaces}.", "{spaces} at once."))  # the engine changes
    assert tool.main(["--check"]) == 1
    assert tool.main([]) == 0
    updated = po.read_text()
    assert "#, fuzzy" in updated and "at once." in updated and "on {spaces}.\"" not in updated.split("#~")[0]
    assert any("fuzzy" in p for p in catalog_problems(folder, ["fr"], project))


def test_the_gate_checks_and_replays_every_declared_language(tmp_path: Path) -> None:
    from rulepress.verify.gate import verify

    project = make_project(tmp_path / "project")
    book = project / "rules_src" / "mini" / "book.yaml"
    book.write_text(book.read_text().replace("rule_prefix: mini\n", "rule_prefix: mini\ntranslations: [fr]\n"))
    engine = project / "engine" / "mini"
    (engine / "__init__.py").rename(engine / "game.py")
    (engine / "__init__.py").write_text("import dataclasses\n\nfrom . import narrate\n"
                                        "from .game import ENGINE as GAME\n\n"
                                        "ENGINE = dataclasses.replace(GAME, narration=narrate)\n")
    (engine / "narrate.py").write_text('''from rulepress.i18n import translator

_ = translator(__name__).gettext


def narrate_action(game, state, action):
    player, stones = action if isinstance(action, tuple) else (state.players[state.turn], action)
    return _("{player} takes {stones} stones.").format(player=player, stones=stones)


def narrate_state(game, snapshot):
    return _("{count} stones are left.").format(count=snapshot["pile"])
''')
    shown = "engine/mini/locale/fr/LC_MESSAGES/narrate.po"
    assert any(p.startswith(f"{shown}: no French catalog") for p in verify(project, ["mini"]).problems)
    _catalog(engine, 'msgid "{player} takes {stones} stones."\nmsgstr "{player} prend {stone} pierres."\n\n'
                     'msgid "{count} stones are left."\nmsgstr "Il reste {count} pierres."\n')
    problems = [p for p in verify(project, ["mini"]).problems if p.startswith(shown)]
    assert problems == [f"{shown}:7: \"{{player}} takes {{stones}} stones.\" translation '{{player}} prend "
                        "{stone} pierres.' drops {stones}; adds {stone}, which the engine does not fill in (it must "
                        "use exactly {player}, {stones}); until then it is narrated in English"]
    _catalog(engine, 'msgid "{player} takes {stones} stones."\nmsgstr "{player} prend {stones} pierres."\n\n'
                     'msgid "{count} stones are left."\nmsgstr "Il reste {count} pierres."\n')
    report = verify(project, ["mini"])
    assert not [p for p in report.problems if "narrate.po" in p]
    line = next(t for t in report.results[0].transcript if t.narrations)
    assert line.narration == line.narrations["en"] and re.fullmatch(r"\w+ takes \d+ stones\.", line.narration)
    assert line.narrations["fr"] == line.narration.replace("takes", "prend").replace("stones", "pierres")
    shutil.rmtree(project)


# -- Last Lantern in French ---------------------------------------------------------------------------------------

# English words the French narration must never print (names of players and tiles are not translated).
ENGLISH = re.compile(r"\b(?:the|and|takes?|lays?|tiles?|lanes?|steps?|Round|Firefl(?:y|ies)|Rabbits?|Snails?|Owls?|"
                     r"Wol(?:f|ves)|holds?|crossed|goal|Bag|Supply|uses|Nobody|Astray|Frozen|Lake|Journeying|"
                     r"players?|win|lose|black|yellow|blue|purple|empty|none|paying|abandoned|location|track)\b")


def _french_problems(lines: list[str], book: Any) -> list[str]:
    found = [f"English in {line!r}: {m.group(0)}" for line in lines for m in ENGLISH.finditer(line)]
    found += [f"unfilled field in {line!r}" for line in lines if "{" in line or "}" in line]
    return found + check_player_text("\n".join(lines), book, "French narration")


def _svg_words(svg: str) -> list[str]:
    return re.findall(r"<(?:text|desc)[^>]*>([^<]+)</", svg)


@pytest.fixture(scope="module")
def ll_book() -> Any:
    return load_book(ROOT, "last-lantern")


def test_french_narration_of_every_example(ll_book: Any, bundled: Report) -> None:
    [check] = checks_of(bundled, "last-lantern").books  # the gate's replays, drawn: what the French book shows
    assert i18n.book_languages(check.book.data)[:2] == ["en", "fr"]
    assert [result.example.id for result in check.results] == [example.id for example in check.examples]
    said, drawn, kinds = [], [], set()
    for result in check.results:
        assert result.ok, result.message
        for line in result.transcript:
            if line.narrations:
                assert line.narrations["en"] == line.narration
                said.append(line.narrations["fr"])
                kinds.add(line.text.split(" ")[1] if " " in line.text else line.text)
        for checkpoint in result.checkpoints.values():
            if checkpoint.svg is not None:
                assert checkpoint.svgs["en"] == checkpoint.svg
                drawn += _svg_words(checkpoint.svgs["fr"])
    assert len(said) > 100 and len(drawn) > 100
    assert _french_problems(said, ll_book) == []
    assert [m.group(0) for w in drawn for m in ENGLISH.finditer(w)] == []


def test_english_narration_names_the_abilities_as_the_engine_does() -> None:
    """The narration writes each ability's name inside whole sentences: they must stay the engine's names."""
    import sys

    names = sys.modules[LL.module_name + ".abilities"].ABILITY_NAMES
    action = sys.modules[LL.module_name + ".actions"].Action
    game = LL.make_game(LL_COMPONENTS, {})
    state = game.new_state(["Milo", "Howard"], 3)
    for do, name in names.items():
        for tile, third in (("", -1), ("A08", 1)):
            said = LL.narration.narrate_action(game, state, action(do, player=0, tile=tile, other=1, third=third,
                                                                 where="wolf", payers=(0, 1)))
            assert f"Milo uses {name}" in said and said.endswith(", paying with Familiars from Milo and Howard."), said


POLICIES = sorted(LL.policies)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), config=st.sampled_from(sorted(LL.bench_configs)),
       players=st.integers(2, 4), policy=st.sampled_from([*POLICIES, "random"]))
def test_narration_never_fails_in_either_language(ll_book: Any, seed: int, config: str, players: int,
                                                  policy: str) -> None:
    game = LL.make_game(LL_COMPONENTS, LL.bench_configs[config])
    state = game.new_state(["Milo", "Howard", "Coco", "Ivy"][:players], seed)
    rng = random.Random(seed)
    choose = LL.policies.get(policy) or (lambda g, s, r: r.choice(list(g.legal_actions(s))))
    french: list[str] = []
    for _ in range(250):
        if game.is_terminal(state):
            break
        action = choose(game, state, rng)
        for lang in ("en", "fr"):
            with language(lang):
                said = LL.narration.narrate_action(game, state, action)
                assert said and "{" not in said, said
                if lang == "fr":
                    french.append(said)
        game.apply(state, action)
    with language("fr"):
        french.append(LL.narration.narrate_state(game, game.snapshot(state)))
        french += _svg_words(game.render_svg(state))
    assert _french_problems(french, ll_book) == []

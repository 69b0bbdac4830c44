"""Markdown for a book's parts, shared by the site (mkdocs) and the print edition (WeasyPrint).

Only links differ between the two: a :class:`Linker` says where a rule, an example or a diagram lives.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rulepress.audience import DESIGNER, PLAYERS, SITE, for_audience, player_rules
from rulepress.load.book import Book, Question
from rulepress.load.examples import Example
from rulepress.load.rules import CROSS_REF, Chapter, Rule
from rulepress.render.strings import Strings, strings
from rulepress.verify.replay import Checkpoint, ExampleResult, TranscriptLine
from rulepress.verify.trace import ALL_PROSE, Trace


@dataclass
class Linker:
    rule: Callable[[str], str]
    example: Callable[[str], str]
    diagram: Callable[[str, str], str]
    glossary: Callable[[], str]


def words(book: Book) -> Strings:
    """The fixed words ("rule", "Steps:", "Players"...) in the book's language."""
    return strings(getattr(book, "language", "en"))


def diagram_name(example_id: str, checkpoint: str) -> str:
    return f"{example_id}--{re.sub(r'[^a-z0-9-]+', '-', checkpoint.lower())}.svg"


def rule_heading(rule: Rule) -> str:
    return f"{'#' * rule.level} {rule.number} {rule.title} {{#{rule.id} data-rule='{rule.id}'}}"


def resolve_refs(text: str, book: Book, link: Linker) -> str:
    def one(match: re.Match[str]) -> str:
        rule = book.rules[match.group(1)]
        # The web reads "rule 4.4 (Plant)"; print hides .ref-title and adds ", p. 7" after a.rule-ref (CSS).
        label = words(book)("rule_ref", number=rule.number)
        return (f'[{label}<span class="ref-title"> ({html.escape(rule.title)})</span>]'
                f"({link.rule(rule.id)}){{.rule-ref}}")

    return CROSS_REF.sub(one, text)


# A shape drawn as rows of squares ("### / .#.") in a code span: printed as a small picture instead.
_SHAPE = re.compile(r"`([#.]+(?: / [#.]+)*)`")


def shape_pictures(text: str, t: Strings | None = None) -> str:
    """Code spans holding a shape as rows (``#`` a square, ``.`` none) become a picture of squares."""

    def one(match: re.Match[str]) -> str:
        rows = match.group(1).split(" / ")
        squares = sum(row.count("#") for row in rows)
        # One line of squares per row: inline blocks lay out alike in browsers and in WeasyPrint.
        lines = "".join('<span class="row">' + "".join(f'<span class="{"sq" if ch == "#" else "gap"}"></span>'
                                                         for ch in row) + "</span>" for row in rows)
        label = (t or strings("en"))("shape_label", count=squares)
        return f'<span class="shape" role="img" aria-label="{html.escape(label)}">{lines}</span>'


    return _SHAPE.sub(one, text)


def designer_refs(text: str, book: Book, players: bool = False) -> str:
    """The wording outside the designer edition for mentions of designer questions: "(designer question ln.q7)"
    reads "(a designer question)" on the site, and a bare list of question IDs is dropped; in a player's book
    (``players``) every parenthesis naming a question goes, whatever else it says: the workshop is the designer's
    (rulepress/audience.py).  A question named in running text still reads "a designer question", which
    the preflight refuses in a player's book: mark the passage ``[…]{.designer}``.  The designer edition keeps
    the IDs."""
    qid = re.escape(book.prefix) + r"\.q[0-9]+"
    text = re.sub(rf"\s*\((?:{qid})(?:,\s+{qid})*\)", "", text)
    if players:
        text = re.sub(rf"[ \t]*\((?:[^()]|\([^()]*\))*?\b{qid}\b(?:[^()]|\([^()]*\))*\)", "", text)
    t = words(book)
    # "designer question\nln.q8": a line may break anywhere in the source's paragraph.  Each language names a
    # question its own ways ("la question au concepteur ll.q19"): the phrase goes with the ID, not only the ID.
    phrases = sorted({*(p.strip() for p in t("designer_question_phrases").split(";") if p.strip()), "question"},
                     key=len, reverse=True)
    named = "|".join(r"\s+".join(re.escape(word) for word in phrase.split()) for phrase in phrases)

    def one(match: re.Match[str]) -> str:
        capital = match.group(0)[:1].isupper()
        return t("A_designer_question") if capital else t("a_designer_question")

    return re.sub(rf"(?i:\b(?:{named}))\s+{qid}|\b{qid}", one, text)


def term_slug(term: str) -> str:
    # Accents dropped rather than the letters ("Lueurs étranges" -> term-lueurs-etranges): translated terms
    # keep distinct, readable anchors.
    bare = "".join(c for c in unicodedata.normalize("NFKD", term.lower()) if not unicodedata.combining(c))
    return "term-" + re.sub(r"[^a-z0-9]+", "-", bare).strip("-")


# Text that must not gain links: existing links, code, HTML tags, headings and table rows.
_PROTECTED = re.compile(r"(\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?|`[^`]*`|<[^>]+>|^#.*$|^\|.*$)", re.MULTILINE)


def link_terms(text: str, book: Book, link: Linker, skip: str | None = None) -> str:
    """Link the first use of each glossary term in ``text`` (one section) to its glossary entry.

    A term is never linked inside a longer name: another term (linked or not), or the book's title
    ("Lantern" in "Lantern Moths"). Headings, tables, code and existing links are left alone.
    """
    names = [(name, term.term) for term in book.glossary for name in term.autolink if term.rule != skip]
    if not names:
        return text
    # Names that are matched but never linked: the book's title and every term's own names.
    shields = [book.title, *(term.term for term in book.glossary), *(a for t in book.glossary for a in t.aliases)]
    canonical = {n.lower(): t for n, t in names}
    # Longer names first, so that the regex consumes "Lantern Moths" before it could see "Lantern".
    phrases = sorted({*canonical, *(s.lower() for s in shields)}, key=lambda n: (-len(n), n))
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in phrases) + r")\b", re.IGNORECASE)
    done: set[str] = set()

    def one(match: re.Match[str]) -> str:
        term = canonical.get(match.group(1).lower())
        if term is None or term in done:
            return match.group(0)
        done.add(term)
        return f"[{match.group(1)}]({link.glossary()}#{term_slug(term)}){{.term}}"

    pieces = _PROTECTED.split(text)
    return "".join(piece if index % 2 else pattern.sub(one, piece) for index, piece in enumerate(pieces))


# The endings an index word is found with besides itself ("Draw": draws, drawn, drawing; "Flip": flipped), by
# language: a designer lists a word once, as the rules name it.
WORD_ENDINGS = {"en": ("s", "es", "ed", "d", "ing", "n"), "fr": ("s", "x", "e", "es", "er", "ez", "ent", "é", "ée",
                                                                  "és", "ées")}


def word_slug(word: str) -> str:
    """An index word's anchor name: ``word-`` and its letters ("start player": word-start-player)."""
    return "word-" + term_slug(word).removeprefix("term-")


def mark_index_words(text: str, book: Book, words: list[str]) -> str:
    """Mark the first use of each index word (book.yaml ``index``) in ``text`` (one section) for the index to find
    its page: ``<span class="index-word" data-word="...">``.  Never inside a link (a glossary term's), a heading, a
    table, code, or a longer name (a glossary term, the book's title)."""
    if not words:
        return text
    lang = words_of(book)
    endings = "|".join(re.escape(e) for e in WORD_ENDINGS.get(lang, WORD_ENDINGS["en"]))
    shields = [book.title, *(term.term for term in book.glossary), *(a for t in book.glossary for a in t.aliases)]
    forms = []
    for word in words:
        *head, last = word.split()
        doubled = f"|{re.escape(last[-1])}(?:ed|ing)" if lang == "en" and re.search(r"[^aeiou][aeiou][bdgmnprt]$",
                                                                                     last) else ""
        stem = r"\s+".join([*(re.escape(w) for w in head), re.escape(last)])
        forms.append((word, rf"{stem}(?:{endings}{doubled})?"))
    shielded = "|".join(re.escape(n) for n in sorted(shields, key=len, reverse=True))
    pattern = re.compile(rf"\b(?:(?P<shield>{shielded})|" + "|".join(f"(?P<w{i}>{form})" for i, (_, form)
                                                                      in enumerate(forms)) + r")\b", re.IGNORECASE)
    done: set[int] = set()

    def one(match: re.Match[str]) -> str:
        if match.group("shield"):
            return match.group(0)
        index = next(i for i in range(len(forms)) if match.group(f"w{i}"))
        if index in done:
            return match.group(0)
        done.add(index)
        return f'<span class="index-word" data-word="{word_slug(forms[index][0])}">{match.group(0)}</span>'

    pieces = _PROTECTED.split(text)
    return "".join(piece if n % 2 else pattern.sub(one, piece) for n, piece in enumerate(pieces))


def words_of(book: Book) -> str:
    return str(getattr(book, "language", "en") or "en").split("-")[0]


def chapter_markdown(chapter: Chapter, book: Book, link: Linker,
                     examples_by_rule: dict[str, list[ExampleResult]] | None = None, designer: bool = False,
                     trace: Trace | None = None, after: dict[str, str] | None = None,
                     audience: str | None = None, index_words: list[str] | None = None,
                     figures: dict[str, str] | None = None) -> str:
    """A chapter's rules; ``after`` maps a rule ID to what follows that rule's own text (the PDFs put the examples
    of a section there, see :func:`example_sections`); ``figures`` what comes first there (the components section
    and the setup diagram, render/book_figures.py); ``trace`` gives the designer edition the engine decisions
    inside each rule.  ``audience``: who reads it (``rulepress.audience``): a player's book leaves out the
    designer's rules and passages; by default the designer edition's (``designer``) or the site's.
    ``index_words``: the words whose first use in each rule the PDFs' index finds (:func:`mark_index_words`)."""
    audience = audience or (DESIGNER if designer else SITE)
    parts = []
    t = words(book)
    for rule in chapter.rules:
        if audience == PLAYERS and rule.designer:
            if after and rule.id in after:  # a player's example placed after a designer's rule: still printed
                parts.append(after[rule.id])
            continue
        parts.append(rule_heading(rule))
        if designer:
            parts.append(translation_mark(book, f"rule:{rule.id}"))
        text = for_audience(rule.body, audience)
        body = shape_pictures(resolve_refs(text if designer else designer_refs(text, book, audience == PLAYERS),
                                           book, link), t)
        parts.append(mark_index_words(link_terms(body, book, link, skip=rule.id), book, index_words or [])
                     .strip("\n"))
        if designer:
            parts.append(provenance_note(rule.id, book))
            parts.extend(decision_notes(trace.rules[rule.id].decisions if trace and rule.id in trace.rules else [],
                                        book))
        if figures and rule.id in figures:
            parts.append(figures[rule.id])
        shown = (examples_by_rule or {}).get(rule.id, [])
        if shown:
            refs = ", ".join(f"[{r.example.title}]({link.example(r.example.id)})" for r in shown)
            parts.append(f'<p class="rule-examples" markdown="span">{t("rule_examples")} {refs}</p>')
        if after and rule.id in after:
            parts.append(after[rule.id])
        parts.append("")
    return "\n\n".join(p for p in parts if p is not None) + "\n"


def translation_mark(book: Book, key: str) -> str | None:
    """The designer edition's mark on a translated item whose words are stale or missing (None otherwise)."""
    status = getattr(book, "status", {}).get(key)
    if status not in ("stale", "missing"):
        return None
    return f'<p class="translation-mark {status}">{html.escape(words(book)(f"translation_{status}"))}</p>'


def decision_notes(inside: list[dict[str, Any]], book: Book) -> list[str]:
    """The designer edition's note on each engine decision inside a rule: what the text leaves open that the
    engine decides, in the engine's words, and the designer question that asks it (rulepress.verify.decisions)."""
    t = words(book)
    return [f'<p class="provenance decision">'
            f'{html.escape(t("provenance_decision", decides=d["decides"], question=str(d["question"])))}</p>'
            for d in inside]


def provenance_note(rule_id: str, book: Book) -> str | None:
    """Where the rule comes from, for the designer edition: rules the source text does not state are marked."""
    origin = book.provenance.get(rule_id)
    if origin is None:
        return None
    questions = ", ".join(origin.questions)
    t = words(book)
    if origin.added:
        return f'<p class="provenance added">{html.escape(t("provenance_added", questions=questions))}</p>'
    asked = t("provenance_decided", questions=questions) if questions else ""
    return f'<p class="provenance">{html.escape(t("provenance_source", source=origin.source or ""))}{asked}</p>'


def examples_by_rule(results: list[ExampleResult]) -> dict[str, list[ExampleResult]]:
    index: dict[str, list[ExampleResult]] = {}
    for result in results:
        for rule_id in result.example.rules:
            index.setdefault(rule_id, []).append(result)
    return index


def sections(book: Book) -> dict[str, str]:
    """Each rule's section: the rule itself for a chapter's or a level-2 rule, its level-2 rule for a sub-rule."""
    found: dict[str, str] = {}
    for chapter in book.chapters:
        current = chapter.id
        for rule in chapter.rules:
            if rule.level <= 2:
                current = rule.id
            found[rule.id] = current
    return found


def example_sections(book: Book, results: list[ExampleResult],
                     audience: str = DESIGNER) -> dict[str, list[ExampleResult]]:
    """Where each example goes when examples stand beside their rules: after the section of the first rule it
    names (a level-2 rule and its sub-rules; a chapter's whole text for a chapter's own rule), or of a later rule
    it names from the same chapter, so that it never comes before a rule it uses (a rule of a later chapter is a
    cross-reference, printed with its page).  Keyed by the last rule of that section, the examples in their order;
    a player's book (``audience``) places only the rules it prints."""
    section_end: dict[str, str] = {}  # rule ID -> the last rule of its section
    order: dict[str, int] = {}
    for chapter in book.chapters:
        rules = chapter.rules
        for index, rule in enumerate(rules):
            order[rule.id] = len(order)
            if rule.level == 1:
                section_end[rule.id] = rules[-1].id
                continue
            root = index
            while rules[root].level > 2 and root > 0:
                root -= 1  # a sub-rule's section is its level-2 rule's
            stop = next((n for n in range(root + 1, len(rules)) if rules[n].level <= 2), len(rules))
            section_end[rule.id] = rules[stop - 1].id
    placed: dict[str, list[ExampleResult]] = {}
    for result in results:
        named = player_rules(result.example, book) if audience == PLAYERS else result.example.rules
        named = named or result.example.rules
        chapter = book.rules[named[0]].chapter
        latest = max((r for r in named if book.rules[r].chapter == chapter), key=lambda r: order[section_end[r]])
        placed.setdefault(section_end[latest], []).append(result)
    return placed


def example_markdown(result: ExampleResult, book: Book, link: Linker, heading: str = "##",
                     designer: bool = False, verified: bool = True, audience: str | None = None) -> str:
    """One worked example. The player edition (``designer=False``, also the website) tells the steps in the
    engine's narration; the designer edition adds the source note and the engine's own notation and rule IDs.
    ``verified=False`` leaves out the "verified" mark (the player's PDFs: that is the site's and the designer's);
    ``audience`` (by default the designer edition's or the site's): a player's book leaves out the designer's
    passages of its text and the designer's rules from its rules line (``rulepress.audience``)."""
    audience = audience or (DESIGNER if designer else SITE)
    example = result.example
    t = words(book)
    named = player_rules(example, book) if audience == PLAYERS else example.rules
    rules = ", ".join(f"[{book.rules[r].number} {book.rules[r].title}]({link.rule(r)})" for r in named)
    lines = [f"{heading} {escape_md(example.title)} {{#{example.id} .example}}", ""]
    mark = translation_mark(book, f"example:{example.id}") if designer else None
    if mark:
        lines += [mark, ""]
    if result.ok and (verified or designer):
        source = _source_note(example) if designer else ""
        lines.append(f'<p class="verified" title="{html.escape(t("verified_title"))}">'
                     f"{html.escape(t('verified'))}{source}</p>")
    if example.source == "external":  # an outside source is credited in every edition, not only the designer's
        url = example.raw["source"].get("url")
        credit = html.escape(example.source_ref) + (f" (<span class=\"url\">{html.escape(url)}</span>)" if url else "")
        lines.append(f'<p class="credit">{html.escape(t("source"))} {credit}</p>')
    lines += ["", f"*{escape_md(t('rules_label'))}* {rules}", ""]
    if result.text:
        text = for_audience(result.text.strip(), audience)
        text = text if designer else designer_refs(text, book, audience == PLAYERS)
        lines += [resolve_refs(text, book, link), ""]
    lines += _diagrams(result, book, link)
    if result.transcript:
        lines += ['<div class="transcript" markdown="block">', "", escape_md(t("steps")), ""]
        lines += [_step_line(entry, book, link, designer) for entry in result.transcript]
        lines += ["", "</div>", ""]
    return "\n".join(lines) + "\n"


def _source_note(example: Example) -> str:
    if example.source == "seed":
        return f" · from the rulebook ({html.escape(example.source_ref)})"
    if example.source == "recorded":
        reviewed = "reviewed" if example.raw.get("reviewed") else "not yet reviewed"
        return f" · recorded from a played game ({reviewed})"
    if example.source == "external":
        return " · carried over from an outside source"
    return " · written for this book"


def diagram_caption(checkpoint: Checkpoint, lang: str) -> str:
    """A diagram's caption as printed: its moment, then the example's caption for it, or else what the step it
    shows did ("After step 3: Ann plants the rose moth on b2"); the caption alone for a diagram the replay gave
    no moment."""
    said = checkpoint.caption or checkpoint.said.get(lang) or next(iter(checkpoint.said.values()), "")
    if not checkpoint.moment:
        return said
    return f"{checkpoint.moment}: {said}" if said else checkpoint.moment


def _diagrams(result: ExampleResult, book: Book, link: Linker) -> list[str]:
    """Each diagram once, its caption once, below it, saying the moment it shows; the text alternative is the
    engine's narration."""
    lines: list[str] = []
    lang = getattr(book, "language", "en")
    for name, checkpoint in result.checkpoints.items():
        if checkpoint.svg is None:
            continue
        caption = diagram_caption(checkpoint, lang)
        alt = escape_md(state_narration(result, book, checkpoint.shown) or caption or words(book)("diagram"))
        # Focusable: on a phone the site scrolls a diagram sideways rather than shrink its labels (theme CSS).
        lines += ['<figure class="diagram" markdown="span" tabindex="0">',
                  f"![{html.escape(alt)}]({link.diagram(result.example.id, name)})"]
        if caption:
            moment = checkpoint.moment
            body = html.escape(caption)
            if moment and caption.startswith(moment):
                body = f'<span class="moment">{html.escape(moment)}</span>{html.escape(caption[len(moment):])}'
            lines.append(f"<figcaption>{body}</figcaption>")
        lines += ["</figure>", ""]
    return lines


# "(rule lm.excluded.solo)": engines name the refusing rule in their messages; players see the rule number.
_RULE_NOTE = re.compile(r"\s*\(rule [a-z][a-z0-9.-]*\)")


def _step_line(entry: TranscriptLine, book: Book, link: Linker, designer: bool) -> str:
    rule = book.rules.get(entry.rejected_by or "")
    t = words(book)
    if designer or not entry.narration:
        text = entry.text if designer else _RULE_NOTE.sub("", entry.text)
        if not designer and entry.step == 0 and text.startswith("set up: "):  # a refused setup
            text = t("setting_up") + " " + text.removeprefix("set up: ").rstrip(".") + "."
    else:
        text = entry.narration
    # One plain sequence in every edition, as the diagrams' numbered callouts count the steps; the designer's
    # edition adds the step's index in the example's file.
    number = "1. "
    where = f" <span class=\"step-index\">(step {entry.step})</span>" if designer else ""
    if entry.rejected_by:
        if rule is None:
            why = entry.rejected_by if designer else t("refused")
        else:
            why = (f"[{t('rule_ref', number=rule.number)}]({link.rule(rule.id)}){{.ref}}"
                   + (f" `{rule.id}`" if designer else ""))
        # A refused move reads as a move tried and refused, never as deleted text (the diagram strikes its arrow).
        return (f'{number}<span class="refused">{escape_md(text)}</span> — '
                f'<span class="not-allowed">{t("not_allowed")}</span> ({why}){where}')
    return f"{number}{escape_md(text)}{where}"


def state_narration(result: ExampleResult, book: Book, snapshot: dict[str, Any], lang: str | None = None) -> str:
    """The engine's plain words for a checkpoint's position ("" when the engine has no narrator), in ``lang``
    (default: the book's language)."""
    from rulepress.i18n import language
    from rulepress.verify.engines import load_engine
    from rulepress.verify.replay import make_game

    engine = load_engine(book.engine_package, book.root)
    narrator = engine.narration
    if narrator is None:
        return ""
    with language(lang or getattr(book, "language", None)):  # the engine's words from its catalog (rulepress.i18n)
        return narrator.narrate_state(make_game(engine, book, result.example.options), snapshot)


def escape_md(text: str) -> str:
    """Plain text (a title, a question) shown as itself inside Markdown."""
    return re.sub(r"([*_`\[\]<>])", r"\\\1", text)


def glossary_markdown(book: Book, link: Linker) -> str:
    # Markdown links (not raw <a href>) so that mkdocs turns "rules/x.md" into the page it builds.
    from rulepress.render.typography import sort_key

    lines = ['<dl class="glossary" markdown="1">']
    t = words(book)
    for term in sorted(book.glossary, key=lambda entry: sort_key(entry.term, t.lang)):
        rule = book.rules[term.rule]
        slug = term_slug(term.term)
        ref = f"[{t('rule_ref', number=rule.number)} ({escape_md(rule.title)})]({link.rule(rule.id)}){{.term-rule}}"
        lines.append(f'<dt id="{slug}">{html.escape(term.term)}</dt>')
        lines.append(f'<dd markdown="span">{escape_md(html.escape(term.definition))} ({ref})</dd>')
    lines.append("</dl>")
    return "\n".join(lines) + "\n"


def book_facts(book: Book) -> list[tuple[str, str]]:
    data = book.data
    t = words(book)
    players = data["players"]
    facts = [(t("players"), f"{players['min']}–{players['max']}" if isinstance(players, dict)
              and players.get("min") != players.get("max") else str(
                  players.get("min") if isinstance(players, dict) else players))]
    for key in ("ages", "play_time", "edition"):
        if data.get(key):
            facts.append((t(key), str(data[key])))
    return facts


def questions_markdown(book: Book, link: Linker, impact: dict[str, Any] | None) -> str:
    lines = []
    for question in sorted(book.questions, key=lambda q: q.order):
        lines += _question_block(question, book, link, (impact or {}).get(question.id))
    return "\n".join(lines) + "\n"


def _question_block(question: Question, book: Book, link: Linker, impact: dict[str, Any] | None) -> list[str]:
    t = words(book)
    rules = ", ".join(f"[{book.rules[r].number} {book.rules[r].title}]({link.rule(r)})" for r in question.rules)
    kind = t(f"question_source_{question.source}")
    mark = translation_mark(book, f"question:{question.id}")
    lines = [f"### {question.id}: {escape_md(question.question)} {{#{question.id}}}", "", *([mark, ""] if mark else []),
             t("question_facts", status=t(f"question_status_{question.status}"), kind=kind, rules=rules)
             + (t("question_option", option=f"`{question.option}`") if question.option else ""), "",
             t("question_columns"), "|---|---|---|"]
    for key, meaning in question.answers.items():
        mark = t("assumed_now") if key == question.assumed else ""
        lines.append(f"| `{key}` | {meaning} | {mark} |")
    lines.append("")
    if question.note:
        lines += [question.note, ""]
    if impact:
        lines += impact_markdown(impact, t)
    return lines


def impact_markdown(impact: dict[str, Any], t: Any) -> list[str]:
    from rulepress.analyze.impact import metric_words  # render reads analyze's figures (impact), as before

    """Per answer: the examples that change on this build, and what simulated play found in each setting where
    the question matters (from the saved analysis, with its evidence)."""
    if not impact.get("simulated"):
        simulated = t("impact_not_simulated")
    elif impact.get("current"):
        simulated = t("impact_current", policy=impact.get("policy", ""))
    else:
        simulated = t("impact_stale", policy=impact.get("policy", ""),
                      files=", ".join(f"`{f}`" for f in impact.get("changed", [])))
    lines = [t("impact_heading", simulated=simulated), ""]
    for answer in impact.get("alternatives", []):
        changed = answer["examples_changed"]
        lines.append(f"- `{answer['answer']}`: " + (
            t("impact_no_example") if not changed else
            t("impact_examples", examples="; ".join(f"{c['id']} ({t('impact_how_' + c.get('kind', 'outcome'))})"
                                                    for c in changed))))
        for setting in answer.get("settings", []):
            moves = "; ".join(f"{metric_words(m['metric'], t)} {_figure(m['before'])} → {_figure(m['after'])} "
                              f"({_figure(m['ci95'][0], True)} … {_figure(m['ci95'][1], True)})"
                              for m in setting.get("moves", [])[:3])
            where = t("analysis_text_game") if setting.get("text") else setting["setting"]
            lines.append("    - " + t("impact_setting", setting=where, games=setting["games"],
                                        changed=setting["changed"])
                         + (t("impact_moves", moves=moves) if moves else t("impact_quiet")))
    lines.append("")
    return lines


def _figure(value: float, signed: bool = False) -> str:
    """A share as points (0.123 -> 12.3), a count or mean with two decimals."""
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def changelog_markdown(book: Book, link: Linker) -> str:
    lines = []
    editions: dict[str, list[Any]] = {}
    for entry in book.changelog:
        editions.setdefault(entry.edition, []).append(entry)
    t = words(book)
    if book.status:  # a translation: the change log has no translated text, the source's is printed
        lines += [f'<p class="translation-mark missing">{html.escape(t("translation_missing"))}</p>', ""]
    for edition, entries in editions.items():
        lines += [f"### {t('edition_line', edition=escape_md(edition))}", ""]
        for number, entry in enumerate(entries, start=1):
            rules = ", ".join(f"[{book.rules[r].number}]({link.rule(r)})" for r in entry.rules)
            lines.append(f"{number}. **{escape_md(entry.title)}** ({rules}). {entry.why}")
        lines.append("")
    return "\n".join(lines) + "\n"


def coverage_markdown(book: Book, trace: Trace, link: Linker) -> str:
    t = words(book)
    rows = [t("coverage_columns"), "|---|---|---|---|"]
    for rule in trace.rules.values():
        reason = t("coverage_all_prose") if rule.prose_only == ALL_PROSE else rule.prose_only
        engine = t("coverage_prose_only", reason=reason) if rule.prose_only is not None else (
            t("coverage_places", count=len(rule.engine)) if rule.engine else t("coverage_sub_rules"))
        if rule.decisions:
            engine += t("coverage_decides", decisions=", ".join(f"{d['id']} ({d['question']})"
                                                                 for d in rule.decisions))
        examples = ", ".join(f"[{e}]({link.example(e)})" for e in rule.examples) or "—"
        exercised = t("coverage_yes") if rule.exercised_by else f"**{t('coverage_no')}**"
        rows.append(f"| [{rule.number} {rule.title}]({link.rule(rule.id)}) `{rule.id}` | {engine} | {examples} | "
                    f"{exercised} |")
    missing = trace.unexercised()
    head = [t("coverage_summary", exercised=len(trace.rules) - len(missing), total=len(trace.rules)), ""]
    if missing:
        head += [t("coverage_missing"), ""]
        head += [f"- [{r.number} {r.title}]({link.rule(r.id)}) `{r.id}`" for r in missing]
        head.append("")
    return "\n".join(head + rows) + "\n"

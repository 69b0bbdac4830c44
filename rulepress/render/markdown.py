"""Markdown for a book's parts, shared by the site (mkdocs) and the print edition (WeasyPrint).

Only links differ between the two: a :class:`Linker` says where a rule, an example or a diagram lives.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rulepress.load.book import Book, Question
from rulepress.load.rules import CROSS_REF, Chapter, Rule
from rulepress.verify.replay import ExampleResult
from rulepress.verify.trace import Trace


@dataclass
class Linker:
    rule: Callable[[str], str]
    example: Callable[[str], str]
    diagram: Callable[[str, str], str]
    glossary: Callable[[], str]


def diagram_name(example_id: str, checkpoint: str) -> str:
    return f"{example_id}--{re.sub(r'[^a-z0-9-]+', '-', checkpoint.lower())}.svg"


def rule_heading(rule: Rule) -> str:
    return f"{'#' * rule.level} {rule.number} {rule.title} {{#{rule.id} data-rule='{rule.id}'}}"


def resolve_refs(text: str, book: Book, link: Linker) -> str:
    def one(match: re.Match[str]) -> str:
        rule = book.rules[match.group(1)]
        return f"[rule {rule.number} ({rule.title})]({link.rule(rule.id)}){{.rule-ref}}"

    return CROSS_REF.sub(one, text)


def term_slug(term: str) -> str:
    return "term-" + re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


# Text that must not gain links: existing links, code, HTML tags, headings and table rows.
_PROTECTED = re.compile(r"(\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?|`[^`]*`|<[^>]+>|^#.*$|^\|.*$)", re.MULTILINE)


def link_terms(text: str, book: Book, link: Linker, skip: str | None = None) -> str:
    """Link the first use of each glossary term in ``text`` to its glossary entry."""
    names = sorted(((name, term.term) for term in book.glossary for name in term.autolink
                    if term.rule != skip), key=lambda pair: -len(pair[0]))
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n, _ in names) + r")\b", re.IGNORECASE)
    canonical = {n.lower(): t for n, t in names}
    done: set[str] = set()

    def one(match: re.Match[str]) -> str:
        term = canonical[match.group(1).lower()]
        if term in done:
            return match.group(0)
        done.add(term)
        return f"[{match.group(1)}]({link.glossary()}#{term_slug(term)}){{.term}}"

    pieces = _PROTECTED.split(text)
    return "".join(piece if index % 2 else pattern.sub(one, piece) for index, piece in enumerate(pieces))


def chapter_markdown(chapter: Chapter, book: Book, link: Linker,
                     examples_by_rule: dict[str, list[ExampleResult]] | None = None) -> str:
    parts = []
    for rule in chapter.rules:
        parts.append(rule_heading(rule))
        parts.append(link_terms(resolve_refs(rule.body, book, link), book, link, skip=rule.id).strip("\n"))
        shown = (examples_by_rule or {}).get(rule.id, [])
        if shown:
            refs = ", ".join(f"[{r.example.title}]({link.example(r.example.id)})" for r in shown)
            parts.append(f'<p class="rule-examples" markdown="span">Examples: {refs}</p>')
        parts.append("")
    return "\n\n".join(p for p in parts if p is not None) + "\n"


def examples_by_rule(results: list[ExampleResult]) -> dict[str, list[ExampleResult]]:
    index: dict[str, list[ExampleResult]] = {}
    for result in results:
        for rule_id in result.example.rules:
            index.setdefault(rule_id, []).append(result)
    return index


def example_markdown(result: ExampleResult, book: Book, link: Linker, heading: str = "##") -> str:
    example = result.example
    rules = ", ".join(f"[{book.rules[r].number} {book.rules[r].title}]({link.rule(r)})" for r in example.rules)
    source = f"from the rulebook ({example.source_ref})" if example.source == "seed" else "written for this book"
    lines = [f"{heading} {example.title} {{#{example.id} .example}}", ""]
    if result.ok:
        lines.append(f'<p class="verified" title="Replayed against the engine on every build">'
                     f'✔ Verified: replayed against the rules engine · {source}</p>')
    lines += ["", f"*Rules:* {rules}", ""]
    if result.text:
        lines += [resolve_refs(result.text.strip(), book, link), ""]
    for name, checkpoint in result.checkpoints.items():
        if checkpoint.svg is None:
            continue
        caption = html.escape(checkpoint.caption or name)
        lines += ['<figure class="diagram" markdown="span">',
                  f"![{caption}]({link.diagram(example.id, name)})",
                  f"<figcaption>{caption}</figcaption>", "</figure>", ""]
    if result.transcript:
        lines += ['<div class="transcript" markdown="block">', "", "Steps:", ""]
        for entry in result.transcript:
            if entry.rejected_by:
                rule = book.rules.get(entry.rejected_by)
                why = f"[rule {rule.number}]({link.rule(rule.id)})" if rule else entry.rejected_by
                lines.append(f"{entry.step}. <del>{_md(entry.text)}</del> — not allowed ({why})")
            else:
                lines.append(f"{entry.step}. {_md(entry.text)}")
        lines += ["", "</div>", ""]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return re.sub(r"([*_`\[\]<>])", r"\\\1", text)


def glossary_markdown(book: Book, link: Linker) -> str:
    lines = ["<dl class=\"glossary\">"]
    for term in book.glossary:
        rule = book.rules[term.rule]
        slug = term_slug(term.term)
        ref = f'<a class="term-rule" href="{link.rule(rule.id)}">rule {rule.number}</a>'
        lines.append(f'<dt id="{slug}">{html.escape(term.term)}</dt>')
        lines.append(f"<dd>{html.escape(term.definition)} ({ref})</dd>")
    lines.append("</dl>")
    return "\n".join(lines) + "\n"


def book_facts(book: Book) -> list[tuple[str, str]]:
    data = book.data
    players = data["players"]
    facts = [("Players", f"{players['min']}–{players['max']}" if isinstance(players, dict)
              and players.get("min") != players.get("max") else str(
                  players.get("min") if isinstance(players, dict) else players))]
    for key, label in (("ages", "Ages"), ("play_time", "Play time"), ("edition", "Edition")):
        if data.get(key):
            facts.append((label, str(data[key])))
    return facts


def questions_markdown(book: Book, link: Linker, impact: dict[str, Any] | None) -> str:
    lines = []
    for question in sorted(book.questions, key=lambda q: q.order):
        lines += _question_block(question, book, link, (impact or {}).get(question.id))
    return "\n".join(lines) + "\n"


def _question_block(question: Question, book: Book, link: Linker, impact: dict[str, Any] | None) -> list[str]:
    rules = ", ".join(f"[{book.rules[r].number} {book.rules[r].title}]({link.rule(r)})" for r in question.rules)
    kind = {"seed": "asked in the seed", "reconstructed": "reconstructed component",
            "engine": "decided by the engine"}[question.source]
    lines = [f"### {question.id}: {question.question} {{#{question.id}}}", "",
             f"*Status:* **{question.status}** · *{kind}* · *Rules:* {rules}"
             + (f" · *Engine option:* `{question.option}`" if question.option else ""), "",
             "| answer | meaning | |", "|---|---|---|"]
    for key, meaning in question.answers.items():
        mark = "assumed now" if key == question.assumed else ""
        lines.append(f"| `{key}` | {meaning} | {mark} |")
    lines.append("")
    if question.note:
        lines += [question.note, ""]
    if impact:
        lines += impact_markdown(impact)
    return lines


def impact_markdown(impact: dict[str, Any]) -> list[str]:
    from rulepress.analyze.impact import measurable_moves

    games = impact.get("games", 0)
    simulated = (f"{games} games per answer ({impact.get('policy', 'random')} play), from the last "
                 "`rulepress questions --impact` run"
                 if games else "no current simulation: run `rulepress questions --impact`")
    lines = [f"**Impact** (examples replayed under each answer on this build; {simulated}):", ""]
    for answer in impact.get("alternatives", []):
        changed = answer["examples_changed"]
        lines.append(f"- `{answer['answer']}`: " + (
            "no example changes" if not changed else
            "examples that change: " + "; ".join(f"{c['id']} ({c['how']})" for c in changed)))
        if games:
            moves = measurable_moves(impact.get("baseline", {}), answer.get("metrics", {}))
            lines.append("    - simulated play: " + ("; ".join(moves) if moves else "nothing moves beyond noise"))
    lines.append("")
    return lines


def changelog_markdown(book: Book, link: Linker) -> str:
    lines = []
    editions: dict[str, list[Any]] = {}
    for entry in book.changelog:
        editions.setdefault(entry.edition, []).append(entry)
    for edition, entries in editions.items():
        lines += [f"### Edition {edition}", ""]
        for number, entry in enumerate(entries, start=1):
            rules = ", ".join(f"[{book.rules[r].number}]({link.rule(r)})" for r in entry.rules)
            lines.append(f"{number}. **{entry.title}** ({rules}). {entry.why}")
        lines.append("")
    return "\n".join(lines) + "\n"


def coverage_markdown(book: Book, trace: Trace, link: Linker) -> str:
    rows = ["| rule | engine | examples | exercised by replay |", "|---|---|---|---|"]
    for rule in trace.rules.values():
        engine = "prose only: " + rule.prose_only if rule.prose_only is not None else (
            f"{len(rule.engine)} place(s)" if rule.engine else "through its sub-rules")
        examples = ", ".join(f"[{e}]({link.example(e)})" for e in rule.examples) or "—"
        exercised = "yes" if rule.exercised_by else "**no**"
        rows.append(f"| [{rule.number} {rule.title}]({link.rule(rule.id)}) `{rule.id}` | {engine} | {examples} | "
                    f"{exercised} |")
    missing = trace.unexercised()
    head = [f"{len(trace.rules) - len(missing)} of {len(trace.rules)} rules are exercised by replaying the "
            "examples (or are prose only).", ""]
    if missing:
        head += ["Rules no example exercises:", ""]
        head += [f"- [{r.number} {r.title}]({link.rule(r.id)}) `{r.id}`" for r in missing]
        head.append("")
    return "\n".join(head + rows) + "\n"

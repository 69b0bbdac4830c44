"""The site's step-through of a worked example, and the files the in-browser referee reads.

Each example page gets a block the page's script (theme/assets/stepper.js) turns into a step-through: every frame
the replay kept (rulepress/verify/frames.py), its text alternative, the narration of the step that led to it, a
refusal's rule, and the captions of the checkpoints reached there.  The frames are a hidden list whose words are
escaped HTML text, so the player-text check reads them as it reads the rest of the page (render/player_text.py); what
is not text (links, the referee's settings) is in attributes, escaped, JSON where it is structured.  The script puts
all of it on the page as text only (``textContent``), never as markup.

The diagrams themselves travel in the block, packed (:func:`pack_frames`): one step changes little of a position, so
every piece of SVG (a tag and the text after it) is kept once and each frame is the runs of pieces it is made of,
gzipped and in base64 (``data-frames``), which the script unpacks into each frame's SVG, byte for byte the one the
engine drew.  The page needs no other file to step through, from a server or from the file system.  Each frame's
full SVG is still read by the player-text check (as ``<book>/frames/…svg``, :func:`is_frame`), never published.

Where the book lets readers try moves (``try_moves``, rulepress/render/in_browser.py), the block also says where the
referee's files are: the bundle, its settings, this example's positions and Pyodide (the root site's, which every
language's site shares).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import posixpath
import re
from html import escape
from typing import Any

from rulepress.load.book import Book
from rulepress.proof import Proof
from rulepress.protocol import EngineSpec
from rulepress.render import in_browser
from rulepress.render import markdown as render
from rulepress.render.palette import GRID_LEVELS
from rulepress.render.strings import Strings
from rulepress.verify.replay import ExampleResult, TranscriptLine

WORDS = ("stepper_previous", "stepper_next", "stepper_position", "stepper_start", "stepper_keys", "try_move",
         "try_loading", "try_served", "try_unavailable", "try_failed", "try_moves", "try_none", "try_more", "try_seat",
         "try_write", "try_submit", "try_undo", "try_close", "try_refused", "try_played", "stepper_link", "try_turn",
         "try_take_seat", "try_auto", "try_line", "try_redo", "try_link",
         "try_picked", "try_board")
REFEREE_WORDS = ("referee_dealt", "referee_took_seat", "referee_not_yours", "referee_help", "referee_no_auto",
                 "referee_unread")
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_RULE_NOTE = re.compile(r"\s*\(rule [a-z][a-z0-9.-]*\)")  # as the player edition drops it (render/markdown.py)


def embedded_json(data: Any) -> str:
    """``data`` as JSON that is safe inside ``<script type="application/json">`` (and inside an HTML comment)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _UNSAFE[m.group(0)], text)


def frame_name(example_id: str, svg: str) -> str:
    return f"{example_id}--{hashlib.sha256(svg.encode()).hexdigest()[:16]}.svg"


def is_frame(path: str) -> bool:
    """Whether a generated file is a frame's SVG, read by the player-text check but published only packed."""
    parts = path.split("/")
    return len(parts) == 3 and parts[1] == "frames" and parts[2].endswith(".svg")


_PIECE = re.compile(r"(?=<)")  # a piece starts at each tag: the tag, then the text up to the next one


def pack_frames(svgs: list[str]) -> dict[str, list[Any]]:
    """Frames that share what they have in common: each distinct piece once (``pieces``, in the order first met), and
    each frame as runs into that table (``frames``: start, length, start, length...).  The first frame is one run;
    a later one is mostly runs of pieces an earlier frame already has, and the few pieces its step changed."""
    table: dict[str, int] = {}
    frames: list[list[int]] = []
    for svg in svgs:
        runs: list[int] = []
        for piece in _PIECE.split(svg):
            if not piece:
                continue
            index = table.setdefault(piece, len(table))
            if runs and runs[-2] + runs[-1] == index:
                runs[-1] += 1
            else:
                runs += [index, 1]
        frames.append(runs)
    return {"pieces": list(table), "frames": frames}


def unpack_frame(pack: dict[str, list[Any]], index: int) -> str:
    """Frame ``index`` of a pack, as stepper.js rebuilds it."""
    pieces, runs = pack["pieces"], pack["frames"][index]
    return "".join("".join(pieces[start:start + length]) for start, length in zip(runs[::2], runs[1::2], strict=True))


def encode_pack(pack: dict[str, list[Any]]) -> str:
    """A pack as the page carries it: JSON, gzipped (no date in its header: the same frames, the same page), base64."""
    data = json.dumps(pack, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode("ascii")


def decode_pack(text: str) -> dict[str, list[Any]]:
    pack: dict[str, list[Any]] = json.loads(gzip.decompress(base64.b64decode(text)))
    return pack


def referee_folder(book_id: str) -> str:
    return f"{book_id}/referee"


def example_block(result: ExampleResult, book: Book, t: Strings, page: str, lang: str | None,
                  tries: bool, screen: Proof) -> tuple[str, dict[str, str]]:
    """The example page's step-through block (raw HTML in the Markdown, its frames packed in it), and the files that
    go with it by path in the site: the example's positions for the referee, and each frame's SVG in screen colours
    for the player-text check (:func:`is_frame`: not published).  Nothing for an example with no position to step
    through (its setup is refused): an empty step-through would show an image of nothing."""
    if not result.frames:
        return "", {}
    here = posixpath.dirname(page)
    files: dict[str, str] = {}
    opens: list[int | None] = [None] * len(result.frames)
    referee: dict[str, str] | None = None
    if tries and any(frame.position is not None for frame in result.frames):
        positions = in_browser.positions(result)
        opens = positions.pop("opens")
        target = f"{referee_folder(book.id)}/{result.example.id}.json"
        files[target] = json.dumps(positions, sort_keys=True, default=list)
        root = "../" * page.count("/") + ("../" if lang is not None else "")
        referee = {"bundle": posixpath.relpath(f"{referee_folder(book.id)}/bundle.zip", here),
                   "config": posixpath.relpath(f"{referee_folder(book.id)}/config.json", here),
                   "positions": posixpath.relpath(f"{target}.gz", here), "pyodide": f"{root}{in_browser.PYODIDE}/"}
    items = []
    drawn: dict[str, int] = {}  # each distinct frame's SVG -> its number in the pack (a position shown twice: once)
    for index, frame in enumerate(result.frames):
        svg = screen.svg(_in(frame.svgs, t.lang))
        files[f"{book.id}/frames/{frame_name(result.example.id, svg)}"] = svg  # for the player-text check only
        number = drawn.setdefault(svg, len(drawn))
        line = result.transcript[index - 1] if index else None
        said = _said(frame.narrations, line, t) if line is not None else t("stepper_start")
        parts = [f'<span class="rp-said">{escape(said)}</span>']
        if frame.rejected_by is not None:
            parts.append(f'<span class="rp-refused">{escape(_refused(frame.rejected_by, book, t))}</span>')
        captions = [caption for name in frame.checkpoints if (caption := result.checkpoints[name].caption)]
        # The text alternative: the engine's words for the position, else a caption, as the page's diagrams have.
        alt = _in(frame.alts, t.lang) or " ".join(captions) or t("diagram")
        parts.append(f'<span class="rp-alt">{escape(alt)}</span>')
        moment = _in(frame.moments, t.lang) if frame.moments else ""
        if moment:  # what the frame shows ("After step 3"): its diagram's title says the same
            parts.append(f'<span class="rp-moment">{escape(moment)}</span>')
        parts += [f'<span class="rp-note">{escape(caption)}</span>' for caption in captions]
        attributes = _attributes({"data-frame": str(number),
                                  "data-rule": _rule_link(frame.rejected_by, book, here),
                                  "data-opens": "" if opens[index] is None else str(opens[index]),
                                  "data-player": frame.player or "", "data-seat": frame.seat or ""})
        items.append(f"<li{attributes}>{' '.join(parts)}</li>")
    settings = {"data-words": embedded_json({key: t.table[key] for key in WORDS}),
                "data-frames": encode_pack(pack_frames(list(drawn)))}
    if referee is not None:
        settings["data-referee"] = embedded_json(referee)
    # Out of the search index: the frames repeat the example's words, step after step.
    block = "\n".join([f"## {render.escape_md(t('stepper_title'))} {{#rp-stepper data-search-exclude}}", "",
                       f'<div class="rp-stepper" data-rp-stepper data-search-exclude{_attributes(settings)}>',
                       '<ol class="rp-frames" hidden>', *items, "</ol>", "</div>", ""])
    return block, files


def _attributes(values: dict[str, str]) -> str:
    return "".join(f' {name}="{escape(value, quote=True)}"' for name, value in values.items() if value)


def referee_config(results: list[ExampleResult], book: Book, engine: EngineSpec, t: Strings, page_dir: str,
                   screen: Proof) -> str:
    """The referee's settings for a book in one language (``config.json``): its engine and components, the rules a
    refusal may cite (number, title, link from an example page), the screen colours of the book's inks
    (through its ``screen`` proof), and the site's words the referee says (a seat taken, a part dealt again)."""
    svgs = [svg for result in results for frame in result.frames for svg in frame.svgs.values()]
    rules = {rule_id: {"number": rule.number, "title": rule.title, "link": _rule_link(rule_id, book, page_dir)}
             for rule_id, rule in book.rules.items()}
    config = {"lang": t.lang, "engine": book.engine_package, "namespace": engine.module_name.rpartition(".")[0],
              "components": book.components, "rules": rules,
              "colours": in_browser.screen_colour_map(svgs, engine, screen),
              "colour_grid": screen.grid(GRID_LEVELS), "words": {key: t.table[key] for key in REFEREE_WORDS}}
    return json.dumps(config, sort_keys=True, ensure_ascii=False, default=list)


def _in(values: dict[str, str], lang: str) -> str:
    """A value in ``lang``, else in the book's source language (the first)."""
    return values.get(lang) or next(iter(values.values()), "")


def _said(narrations: dict[str, str], line: TranscriptLine, t: Strings) -> str:
    """What the step did in the player's words, as the page's list of steps says it (render/markdown.py)."""
    said = _in(narrations, t.lang) if narrations else ""
    return said or line.narration or _RULE_NOTE.sub("", line.text)


def _refused(rule_id: str | None, book: Book, t: Strings) -> str:
    if rule_id is None:
        return ""
    rule = book.rules.get(rule_id)
    return t("stepper_refused", rule=t("rule_ref", number=rule.number) if rule is not None else t("refused"))


def _rule_link(rule_id: str | None, book: Book, here: str) -> str:
    rule = book.rules.get(rule_id or "")
    if rule is None:
        return ""
    return posixpath.relpath(f"{book.id}/rules/{rule.chapter}.html", here) + f"#{rule.id}"

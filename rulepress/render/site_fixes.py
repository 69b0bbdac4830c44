"""Finishing touches on the built site that mkdocs cannot be asked for: search results name their book, and
the 404 page works wherever the site is served from (a domain's root, a sub-path, or file://)."""

from __future__ import annotations

import json
import re
from pathlib import Path


def name_books(site_dir: Path, books: dict[str, str]) -> None:
    """Append the book's title to every search entry of its pages ("Plant · Lantern Moths")."""
    index = site_dir / "search" / "search_index.json"
    if not index.is_file():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    for doc in data.get("docs", []):
        title = books.get(str(doc.get("location", "")).split("/", 1)[0])
        if title and "/" in str(doc.get("location", "")) and not str(doc.get("title", "")).endswith(title):
            doc["title"] = f"{doc.get('title', '')} · {title}"
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    index.write_text(text, encoding="utf-8")
    script = index.with_suffix(".js")
    if script.is_file():  # the offline plugin's copy for file:// (written before this hook runs)
        script.write_text(f"var __index = {text}", encoding="utf-8")


_ROOT_LINK = re.compile(r'\b(href|src)="/(?!/)')


def relative_404(site_dir: Path, top_level: list[str]) -> None:
    """mkdocs writes 404.html with links from the domain root ("/assets/..."), which break under a sub-path.

    The links become relative to the site root, and a ``<base>`` set before anything loads points them at
    the site root wherever the page is served: the part of the address before the first top-level folder
    of the site (a missing ``/sub/lantern/x.html`` gives ``/sub/``), else the address's own folder.
    """
    page = site_dir / "404.html"
    if not page.is_file():
        return
    text = _ROOT_LINK.sub(r'\1="', page.read_text(encoding="utf-8"))
    text = text.replace('"base": "/"', '"base": "."').replace('": "/assets/', '": "assets/')
    script = ("<script>(function(){var top=" + json.dumps(top_level) + ";"
              "var p=location.pathname.split('/');p.pop();"
              "for(var i=1;i<p.length;i++){if(top.indexOf(p[i])>=0){p=p.slice(0,i);break}}"
              "document.write('<base href=\"'+p.join('/').replace(/\"/g,'%22')+'/\">')})()</script>")
    text = text.replace("<head>", "<head>\n" + script, 1)
    page.write_text(text, encoding="utf-8")

"""Markdown, site pages (mkdocs hooks) and print HTML/PDF (WeasyPrint) from a verified book."""

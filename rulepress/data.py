"""What ships inside the package (fonts, colour profile, strings, site theme, guides), found with importlib.resources.

Each is needed as a path on disk: WeasyPrint reads fonts and the profile by file URL, mkdocs and Jinja load the
theme's templates from folders.  So rulepress runs installed as files (as pip installs a wheel), not from a zip.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def package_path(*parts: str) -> Path:
    """The file or folder ``rulepress/<parts...>`` of the installed package, as a path on disk."""
    found = resources.files("rulepress").joinpath(*parts)
    if not isinstance(found, Path):  # pragma: no cover - a zip import, which nothing here supports
        raise RuntimeError(f"rulepress's {'/'.join(parts)} is not on disk ({found}); install rulepress with pip")
    return found

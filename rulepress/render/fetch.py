"""What WeasyPrint may load while printing a book: the project's own files and the shipped fonts, nothing else.

A print edition must not depend on the network (it would differ from build to build, or hang) nor on
files outside the project (``file:///etc/passwd`` in a chapter must not end up in a book).  Anything
else stops the rendering with ``RefusedURL``, which names the URL; the build turns it into a refusal.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from weasyprint.urls import FatalURLFetchingError, URLFetcher, URLFetcherResponse

PACKAGE = Path(__file__).resolve().parent.parent
SHIPPED = (PACKAGE / "fonts", PACKAGE / "render" / "templates")


class RefusedURL(FatalURLFetchingError):
    """A resource outside what a build may read; stops WeasyPrint at once (it re-raises Fatal* errors)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"print edition refers to {url[:200]}: {reason}")
        self.url, self.reason = url, reason

    def __reduce__(self) -> tuple[type[RefusedURL], tuple[str, str]]:
        return RefusedURL, (self.url, self.reason)  # survives the trip back from a PDF worker process


class ProjectFetcher(URLFetcher):
    """Serves ``data:`` URIs and ``file://`` URLs inside ``allowed`` (plus the shipped fonts and templates).

    ``data:`` URIs carry their content inline, so reading them touches neither network nor disk.  A file
    that is allowed but missing or unreadable is also fatal: a print edition without its diagram is wrong.
    """

    def __init__(self, *allowed: Path) -> None:
        super().__init__(allowed_protocols=("file", "data"), allow_redirects=False, fail_on_errors=True)
        self.allowed = tuple(folder.resolve() for folder in (*allowed, *SHIPPED))

    def fetch(self, url: str, headers: dict[str, str] | None = None) -> URLFetcherResponse:
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme != "file":
            raise RefusedURL(url, f"only the project's own files may be used, not {scheme or 'relative'} URLs")
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise RefusedURL(url, f"file URL on another host ({parts.netloc})")
        path = Path(unquote(parts.path)).resolve()
        if not any(path.is_relative_to(folder) for folder in self.allowed):
            raise RefusedURL(url, "outside the project, its build and rulepress's fonts")
        if path.exists() and not path.is_file():  # a FIFO would block the read, a device never end it
            raise RefusedURL(url, "not a regular file")
        try:
            return super().fetch(path.as_uri(), headers)  # urllib's FileHandler: a local read, with a MIME type
        except OSError as exc:  # urllib.error.URLError is an OSError too
            raise RefusedURL(url, f"cannot be read ({getattr(exc, 'reason', None) or exc})") from exc

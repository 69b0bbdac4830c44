"""`rulepress serve` serves its author only: its own Host, well-formed paths, no symlink, a complete site always.

The first tests drive rulepress/serve/files.py directly; the last ones a real PreviewServer on the small project,
over HTTP, while the session rebuilds (about 5 s together).
"""

from __future__ import annotations

import http.client
import logging
import os
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulepress.serve import files
from rulepress.serve.session import Session

from .conftest import make_project


def test_only_the_server_s_own_address_is_its_host() -> None:
    assert files.own_host("127.0.0.1:8000", 8000) and files.own_host("LOCALHOST:8000", 8000)
    for host in ("evil.example:8000", "127.0.0.1:8001", "127.0.0.1", "localhost", "127.0.0.1:8000.evil.example",
                 "", None):
        assert not files.own_host(host, 8000), host


@pytest.mark.parametrize("raw", ["/\x00/index.html", "/a\nb", "/../etc/passwd", "/mini/../index.html", "/./x",
                                 "/a\\b", "/\xff\xfe", "relative", "/\x1b[2J"])
def test_a_malformed_path_is_refused(raw: str) -> None:
    assert files.request_path(raw) is None


def test_a_well_formed_path_is_kept_and_decoded() -> None:
    assert files.request_path("/mini/rules/mini.play.html") == "/mini/rules/mini.play.html"
    assert files.request_path("/fr/r\xc3\xa8gles.html") == "/fr/règles.html"  # WSGI gives UTF-8 bytes as Latin-1


def test_no_symlink_is_ever_followed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "css").mkdir(parents=True)
    (site / "index.html").write_text("home")
    (site / "css" / "a.css").write_text("a")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (site / "leak.txt").symlink_to(outside)
    (site / "inside.html").symlink_to(site / "index.html")  # even one that stays inside
    (site / "linked").symlink_to(site / "css")
    os.mkfifo(site / "pipe")
    assert files.open_file(site, "/leak.txt").status == "404 Not Found"
    assert files.open_file(site, "/inside.html").status == "404 Not Found"
    assert files.open_file(site, "/linked/a.css").status == "404 Not Found"
    assert files.open_file(site, "/pipe").status == "404 Not Found"  # and at once: a FIFO is not waited on
    found = files.open_file(site, "/css/a.css")
    assert found.status == "200 OK" and found.fd is not None and os.read(found.fd, 10) == b"a"
    os.close(found.fd)
    home = files.open_file(site, "/")
    assert home.fd is not None and os.read(home.fd, 10) == b"home"
    os.close(home.fd)
    assert files.open_file(site, "/css") == files.Answer("302 Found", location="/css/")


# -- a real server --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Session, int, Path, Any]]:
    from rulepress.serve.server import PreviewServer

    saved = {name: os.environ.pop(name, None) for name in ("RULEPRESS_CACHE", "RULEPRESS_JOBS")}
    base = tmp_path_factory.mktemp("served")
    root = make_project(base / "project")
    session = Session(root, base / "serve", say=lambda line: None)
    session.start()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = PreviewServer(session, "127.0.0.1", port)
    server.server_bind()
    server.server_activate()
    server.serve_thread.start()  # as mkdocs' serve() starts it; shutdown() stops it
    try:
        yield session, port, root, server
    finally:
        server.shutdown()
        server.serve_thread.join(timeout=10)
        for name, value in saved.items():
            if value is not None:
                os.environ[name] = value


def _get(port: int, path: str, host: str | None = None, method: str = "GET") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_the_server_refuses_a_foreign_host_and_a_malformed_path_without_a_traceback(
        served: tuple[Session, int, Path, Any], caplog: pytest.LogCaptureFixture) -> None:
    session, port, _, _ = served
    status, page = _get(port, "/mini/rules/mini.play.html")
    assert status == 200 and b"On your turn take" in page and b"livereload(" in page
    assert _get(port, "/mini/rules/mini.play.html", host=f"localhost:{port}")[0] == 200
    status, body = _get(port, "/mini/rules/mini.play.html", host=f"rebind.example:{port}")  # DNS rebinding
    assert status == 403 and b"On your turn" not in body
    assert _get(port, "/livereload/1/1", host="rebind.example")[0] == 403
    with caplog.at_level(logging.DEBUG):
        assert _get(port, "/%00/index.html")[0] == 400
        assert _get(port, "/%2e%2e/%2e%2e/etc/passwd")[0] == 400
        assert _get(port, "/%ff")[0] == 400
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.exc_info]
    assert _get(port, "/mini/rules/mini.play.html", method="POST") == (405, b"GET or HEAD only\n")
    (session.site / "leak.txt").symlink_to("/etc/passwd")
    status, body = _get(port, "/leak.txt")
    assert status == 404 and b"root:" not in body


@pytest.mark.parametrize("path", ["/%2fmini", "//mini", "/%2f%2fmini", "///mini", "/%2F/mini", "/mini/%2f",
                                  "/%2fmini%2frules", "//mini//rules"])
def test_the_server_never_redirects_to_another_host(served: tuple[Session, int, Path, Any], path: str) -> None:
    """A folder asked for without its final slash is redirected to the same folder on this server: ``/%2fmini``
    (``//mini`` once decoded) used to be sent to ``//mini/``, which a browser reads as the host ``mini``."""
    _, port, _, _ = served
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", f"127.0.0.1:{port}")
        connection.endheaders()
        response = connection.getresponse()
        response.read()
        location = response.getheader("Location")
    finally:
        connection.close()
    if location is not None:
        assert response.status == 302
        assert location.startswith("/") and not location.startswith(("//", "/\\")), location
        assert urllib.parse.urlsplit(urllib.parse.urljoin(f"http://127.0.0.1:{port}{path}", location)).netloc == \
            f"127.0.0.1:{port}"
    else:
        assert response.status in (200, 400, 404)


def test_a_head_request_gets_the_headers_of_a_get_and_no_body(served: tuple[Session, int, Path, Any]) -> None:
    _, port, _, _ = served

    def raw(method: str, path: str) -> tuple[bytes, bytes]:  # what the server wrote, headers and after them
        with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
            connection.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
                               .encode())
            written = b""
            while chunk := connection.recv(65536):
                written += chunk
        head, _, body = written.partition(b"\r\n\r\n")
        return head, body

    for path, status in (("/mini/rules/mini.play.html", b"200"), ("/missing.html", b"404"), ("/%00", b"400")):
        head, body = raw("HEAD", path)
        got_head, got_body = raw("GET", path)
        length = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
        assert head.split(b" ")[1] == status and body == b"" and got_body
        assert length == [b"Content-Length: " + str(len(got_body)).encode()]


def test_a_rebuild_never_takes_a_file_of_the_site_away(served: tuple[Session, int, Path, Any]) -> None:
    """The page, its stylesheet and script, and the search index answer 200 at every moment of three rebuilds
    (before the swap a request gets the last complete site, after it the new one)."""
    session, port, root, server = served
    css = next(p for p in (session.site / "assets/stylesheets").glob("main.*.min.css"))
    script = next(p for p in (session.site / "assets/javascripts").glob("bundle.*.min.js"))
    wanted = ["/mini/rules/mini.play.html", "/assets/rulepress.css", "/search/search_index.json",
              "/" + str(css.relative_to(session.site)), "/" + str(script.relative_to(session.site))]
    failures: list[tuple[str, int]] = []
    asked = 0
    done = threading.Event()

    def fetch() -> None:
        nonlocal asked
        while not done.is_set():
            for path in wanted:
                status, _ = _get(port, path)
                asked += 1
                if status != 200:
                    failures.append((path, status))

    fetcher = threading.Thread(target=fetch, daemon=True)
    fetcher.start()
    chapter = root / "rules_src/mini/chapters/play.md"
    original = chapter.read_text(encoding="utf-8")
    try:
        for word in ("first", "second", "third"):
            chapter.write_text(original.replace("On your turn take", f"On your {word} turn take"), encoding="utf-8")
            before = session.site
            server._wanted_epoch = before_epoch = server._visible_epoch + 1  # as mkdocs' build loop does it
            server.rebuild()
            with server._epoch_cond:
                server._visible_epoch = server._wanted_epoch
                server._epoch_cond.notify_all()
            assert server._visible_epoch == before_epoch and session.site != before
            assert f"your {word} turn" in (session.site / wanted[0][1:]).read_text(encoding="utf-8")
            time.sleep(0.2)
    finally:
        done.set()
        fetcher.join(timeout=30)
    assert asked > 20 and failures == []

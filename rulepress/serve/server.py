"""The preview server: mkdocs' own live-reload server, serving the session's last good site with a banner for
every problem on the page it concerns, and watching the project's sources with inotify (watchdog)."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import Any

import watchdog.events
import watchdog.observers
from mkdocs.livereload import LiveReloadServer

from rulepress.serve import banner, files, watcher
from rulepress.serve.session import Session

# What a save is; not "opened", "closed_no_write" nor "attrib" (reading a file, as the build does, is no change).
_WRITES = {watchdog.events.EVENT_TYPE_CREATED, watchdog.events.EVENT_TYPE_MODIFIED, watchdog.events.EVENT_TYPE_DELETED,
           watchdog.events.EVENT_TYPE_MOVED, watchdog.events.EVENT_TYPE_CLOSED}


def _scratch(path: str) -> bool:
    name = os.path.basename(path)
    return "__pycache__" in path or name.startswith((".", "#")) or name.endswith("~")


def is_save(event: watchdog.events.FileSystemEvent) -> bool:
    """A file written, added, removed or renamed; not bytecode nor an editor's scratch file (but a scratch file
    renamed over a source, as editors save, is a save of that source)."""
    paths = [str(event.src_path)] + ([str(event.dest_path)] if event.event_type == "moved" else [])
    return not event.is_directory and event.event_type in _WRITES and not all(_scratch(p) for p in paths)


class PreviewServer(LiveReloadServer):
    def __init__(self, session: Session, host: str, port: int) -> None:
        super().__init__(builder=self.rebuild, host=host, port=port, root=str(session.site))
        self.session = session
        self.observer = watchdog.observers.Observer()  # inotify: a save is seen at once, not at the next poll
        self.build_delay = 0.05
        self._request = threading.local()

    def watch(self, path: str, func: None = None, *, recursive: bool = True) -> None:
        path = os.path.abspath(path)
        server = self

        class Handler(watchdog.events.FileSystemEventHandler):
            def on_any_event(self, event: watchdog.events.FileSystemEvent) -> None:
                if not is_save(event):
                    return
                with server._rebuild_cond:
                    server._want_rebuild = True
                    server._rebuild_cond.notify_all()

        self._watched_paths[path] = 1
        self._watch_refs[path] = self.observer.schedule(Handler(), path, recursive=recursive)

    def rebuild(self) -> None:
        if not self.session.update():
            # One save can come as several events: the ones after the first find nothing new, and a reload
            # for nothing would interrupt the author (and a page being read).
            self._wanted_epoch = self._visible_epoch
        self.root = str(self.session.site)

    def _serve_request(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes] | None:
        """Its author's requests only (rulepress/serve/files.py): its own Host, well-formed paths, no symlink
        followed, and always the last complete site, also while a rebuild runs (mkdocs' own handler waits for the
        rebuild and then reads the folder it looked up before, which the rebuild has replaced)."""
        method = environ.get("REQUEST_METHOD", "GET")
        if not files.own_host(environ.get("HTTP_HOST"), self.server_address[1]):
            return self._answer(files.refused_host(self.server_address[1]), start_response, method)
        path = files.request_path(environ.get("PATH_INFO", ""))
        if path is None:
            return self._answer(files.bad_request(), start_response, method)
        if method not in ("GET", "HEAD"):
            return self._answer(files.Answer("405 Method Not Allowed", b"GET or HEAD only\n"), start_response,
                                method)
        if path.startswith("/livereload/"):  # the browsers' wait for the next build (mkdocs' own)
            return super()._serve_request(environ, start_response)
        with self.session.lock:
            site = self.session.site  # the folder of the last complete build, kept until the one after next
        page = path.lstrip("/")
        page = page + "index.html" if page == "" or page.endswith("/") else page
        self._request.page = page  # the banner's page (see _inject_js_into_html)
        answer = files.open_file(site, path)
        if answer.fd is None:
            return self._answer(answer, start_response, method)
        with os.fdopen(answer.fd, "rb") as handle:
            content = handle.read()
        if page.endswith(".html"):
            content = self._inject_js_into_html(content, self._visible_epoch)
        start_response(answer.status, [("Content-Type", self._guess_type(page)),
                                       ("Content-Length", str(len(content)))])
        return [] if method == "HEAD" else [content]  # HEAD: the headers a GET would send, no body (RFC 9110)

    @staticmethod
    def _answer(answer: files.Answer, start_response: Any, method: str = "GET") -> list[bytes]:
        headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(answer.body)))]
        if answer.location is not None:
            headers.append(("Location", answer.location))
        start_response(answer.status, headers)
        return [] if method == "HEAD" else [answer.body]

    def _inject_js_into_html(self, content: bytes, epoch: int) -> bytes:
        page = getattr(self._request, "page", "index.html")
        marked = banner.inject(content, banner.banner_html(page, self.session.placed()))
        return super()._inject_js_into_html(marked, epoch)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the server as Ctrl-C does: PDF jobs ended, scratch folders removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, only whether the process exists is checked
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def sweep_stale(cache: Path) -> list[Path]:
    """Remove the ``serve-<pid>`` folders of sessions that were killed outright (SIGKILL skips their cleanup);
    a folder whose process is still running is another live session's.  Returns what was removed."""
    removed = []
    for folder in sorted(cache.glob("serve-*")):
        pid = folder.name.removeprefix("serve-")
        if folder.is_dir() and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def run_serve(root: Path, port: int, books: list[str] | None, pdfs: bool = True, host: str = "127.0.0.1") -> int:
    """Build, serve and watch until interrupted (Ctrl-C); ``pdfs``: each verified book's PDFs follow."""
    sys.dont_write_bytecode = True  # re-imported engines must not write bytecode into the watched folders
    signal.signal(signal.SIGTERM, _stop)
    # The command line lets SIGPIPE end it (for `| head`); a server writes to browsers that went away all the time.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    swept = sweep_stale(root / ".rulepress-cache")
    if swept:
        print(f"removed {len(swept)} folder(s) left by killed serve sessions", flush=True)
    folder = root / ".rulepress-cache" / f"serve-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    session = Session(root, folder, books, say=lambda line: print(line, flush=True), pdfs=pdfs)
    try:
        session.start()
        server = PreviewServer(session, host, port)
        for top in dict.fromkeys([*watcher.WATCHED, *watcher.site_tops(root)]):
            if (root / top).is_dir():
                server.watch(str(root / top))
        server.watch(str(root), recursive=False)  # mkdocs.yml (a new site folder it names is seen at the next save)
        print(f"serving {server.url} (Ctrl-C stops)", flush=True)
        try:
            server.serve()
        except KeyboardInterrupt:
            print("rulepress serve: stopped", flush=True)
        finally:
            server.shutdown()
    finally:
        session.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return 0

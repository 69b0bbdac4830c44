"""The ``rulepress serve`` subcommand (added to the command line by ``rulepress.cli.parser``)."""

from __future__ import annotations

import argparse
import errno
import socket
import sys

from rulepress.errors import SourceError, bounded
from rulepress.project import project_root

HOST = "127.0.0.1"  # the preview is for the author's own browser, never the network


def port_free(port: int, host: str = HOST) -> bool:
    """Whether the server can bind ``port`` (asked first: the first build takes a while, a clash should not)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def cmd_serve(args: argparse.Namespace) -> int:
    from rulepress.load.book import book_ids  # here, not above: every command imports this module
    from rulepress.serve.server import run_serve

    root = project_root(args.root)  # as every command finds it: --root, $RULEPRESS_ROOT, then from here up
    try:
        ids = book_ids(root)
    except SourceError as exc:
        print(f"rulepress serve: {exc}", file=sys.stderr)
        return 1
    unknown = [book for book in args.book or [] if book not in ids]
    if unknown:
        print(bounded(f"rulepress serve: rules_src/{unknown[0]}: no such book (books: {', '.join(ids)})"),
              file=sys.stderr)
        return 1
    if not port_free(args.port):
        print(f"rulepress serve: port {args.port} on {HOST} is in use or not allowed; choose another with --port",
              file=sys.stderr)
        return 1
    return run_serve(root, args.port, args.book, pdfs=not args.no_pdf, host=HOST)


def add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = sub.add_parser("serve", help="preview the site on 127.0.0.1: every save is verified, rebuilt and "
                                         "reloaded in the browser; problems show on the page they concern")
    serve.add_argument("--port", type=int, default=8000, help="the port on 127.0.0.1 (default: 8000)")
    serve.add_argument("--book", action="append", help="only this book (repeatable)")
    serve.add_argument("--no-pdf", action="store_true", help="leave out the PDFs each verified book otherwise "
                                                             "gets in the background")
    serve.set_defaults(run=cmd_serve)

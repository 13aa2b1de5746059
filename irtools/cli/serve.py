"""`irtools serve` (the Dash dashboard) and `irtools report` (a static HTML page): glue only."""

from __future__ import annotations

import argparse
import ctypes
import os
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from irtools.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    arrow_uses_malloc,
    max_bytes,
    port_number,
    positive_int,
    source_of,
)
from irtools.cli.noc_args import add_noc_arguments
from irtools.cli.trace_args import add_trace_argument, trace_for
from irtools.config import add_settings, run_options
from irtools.rules.registry import UsageError

if TYPE_CHECKING:
    from irtools.analysis.noc import NocModel


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `serve` and `report` commands to the parser."""
    srv = sub.add_parser(
        "serve",
        help="browse IR files in a web dashboard (timelines, L2/WL0 maps, findings)",
        description=(
            "Serve a dashboard for the IR files under a directory (or for one file, within its "
            "directory). Only files under that directory can be opened. Binds 127.0.0.1 unless told otherwise; "
            "on any other address every request needs an access token, printed in the URL at start."
        ),
    )
    srv.add_argument(
        "path", nargs="?", default=".", metavar="PATH_OR_DIR", help="directory to serve (default: .)"
    )
    srv.add_argument(
        "--open",
        metavar="FILE",
        help="file to show first, relative to the served directory (default: the first)",
    )
    srv.add_argument(
        "--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1, this machine only)"
    )
    srv.add_argument("--port", type=port_number, default=8050, help="port, 1-65535 (default 8050)")
    srv.add_argument(
        "--max-upload-mb", type=positive_int, default=200, metavar="MB", help="largest upload (default 200)"
    )
    srv.add_argument(
        "--max-upload-store-mb",
        type=positive_int,
        metavar="MB",
        help="uploads kept in memory in all, least recently used dropped first "
        "(default: a sixteenth of this machine's memory, at least --max-upload-mb)",
    )
    srv.add_argument(
        "--token",
        metavar="TOKEN",
        help="access token asked for off loopback (default: $IRTOOLS_TOKEN, else a new random one; "
        "'' turns it off). On 127.0.0.1 none is asked unless given",
    )
    srv.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="on loopback, also answer requests that name this server NAME (repeatable; '*': any name). "
        "By default only localhost, 127.0.0.1 and ::1 are answered, which stops DNS rebinding",
    )

    rep = sub.add_parser(
        "report",
        help="write a self-contained HTML report (figures and findings, no server needed)",
        description="One HTML file with the timeline, the L2/WL0 maps of each core and the findings.",
    )
    add_noc_arguments(srv)
    add_trace_argument(srv, discovered=True)
    add_settings(srv, "serve")
    rep.add_argument(
        "path",
        metavar="PATH",
        help="an IR file (- for standard input, or a pipe); or a directory, or a table from `irtools summarize`: "
        "the sweep page as HTML",
    )
    rep.add_argument("-o", "--output", required=True, metavar="FILE", help="HTML file to write (atomically)")
    rep.add_argument(
        "--max-cores",
        type=positive_int,
        default=16,
        metavar="N",
        help="occupancy maps for the first N cores (default 16)",
    )
    add_noc_arguments(rep)
    add_trace_argument(rep, discovered=True)
    add_settings(rep, "report")


def fewer_malloc_arenas(environ: Mapping[str, str] = os.environ) -> bool:
    """Ask glibc's malloc for one arena, unless MALLOC_ARENA_MAX says otherwise; whether it took.

    The server answers each request in a thread of its own, and glibc gives threads that allocate at once
    arenas of their own (up to 8 per core), whose freed memory goes back to the system late if ever, and
    is never reused by another arena's threads: on a 67 MB 64-core file the server's peak was 61-211 MB
    lower with two arenas than with glibc's default in six paired runs of the dashboard benchmark, and
    with one arena 30-45 MB lower again (the 16 MB file's session after it: 55-65 MB) in three more, its
    times alike (the interpreter runs one thread at a time: the arena's lock is seldom contended).
    Call it before any thread starts.
    """
    if "MALLOC_ARENA_MAX" in environ or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    return bool(mallopt(_M_ARENA_MAX, 1))


_M_ARENA_MAX = -8
"""mallopt's parameter number of M_ARENA_MAX (glibc's malloc.h)."""


def run_serve(args: argparse.Namespace) -> int:
    """`irtools serve`: check the arguments, then serve the dashboard until stopped; the exit code."""
    fewer_malloc_arenas()
    arrow_uses_malloc()
    path = Path(args.path)
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    if args.trace is not None and not Path(args.trace).is_file():
        raise UsageError(f"--trace: {args.trace} is not a file")
    store_mb = args.max_upload_store_mb
    if store_mb is not None and store_mb < args.max_upload_mb:
        raise UsageError(
            f"--max-upload-store-mb {store_mb} is less than --max-upload-mb {args.max_upload_mb}"
        )
    from dashboards.access import (
        QuietTokenHandler,
        choose_token,
        is_loopback,
        require_local_host,
        require_token,
    )
    from dashboards.app import create_app

    app = create_app(
        path,
        args.max_upload_mb * 10**6,
        open_file=args.open,
        trace=args.trace,
        max_upload_store_bytes=store_mb * 10**6 if store_mb else None,
        options=run_options(args),
    )
    token = choose_token(args.host, args.token, dict(os.environ))
    if token:
        require_token(app.server, token, cookie_name=f"irtools-{args.port}")
    if is_loopback(args.host):  # a browser's page from any site could otherwise read it by DNS rebinding
        require_local_host(app.server, [args.host, *args.allow_host])
    if args.open:
        from dashboards.data import AccessError

        try:
            app.store.resolve(args.open)
        except AccessError as exc:
            raise UsageError(f"--open: {exc}") from None
    from werkzeug.serving import make_server

    # Try the address before saying "serving": werkzeug reports a port in use on several lines and
    # exits by itself; a host that does not resolve or is not this machine's is one error line here.
    problem = _cannot_listen(args.host, args.port)
    if problem:
        print(f"irtools serve: error: cannot listen on {args.host}:{args.port}: {problem}", file=sys.stderr)
        return EXIT_FINDINGS
    app.enable_dev_tools(debug=False)
    server = make_server(args.host, args.port, app.server, threaded=True, request_handler=QuietTokenHandler)
    for warning in _warnings(args.host, token):
        print(f"irtools serve: warning: {warning}", file=sys.stderr)
    urls = [_url(host, args.port, token) for host in _hosts(args.host)]
    where = f" {urls[0]}" if len(urls) == 1 else ":" + "".join(f"\n    {url}" for url in urls)
    print(
        f"irtools: serving {len(app.store.files())} IR files under {app.store.root} at{where}",
        file=sys.stderr,
    )
    print(
        f"irtools: uploads up to {args.max_upload_mb} MB each (--max-upload-mb), "
        f"{app.store.uploads.max_bytes / 1e6:,.0f} MB kept in all (--max-upload-store-mb)",
        file=sys.stderr,
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return EXIT_OK


def _warnings(host: str, token: str | None) -> list[str]:
    from dashboards.access import SHORT_TOKEN, is_loopback

    if is_loopback(host):
        return []
    if not token:
        alone = "anyone who can reach it can read the IR files and upload"
        return [f"listening on {host} without a token (--token ''): {alone}"]
    if len(token) < SHORT_TOKEN:
        return [f"the token is {len(token)} characters long: one of {SHORT_TOKEN} or more is harder to guess"]
    return []


def _hosts(host: str) -> list[str]:
    """Where a browser reaches a server bound to `host`: by this machine's name when bound to all addresses."""
    if host in ("0.0.0.0", "::", ""):
        return [socket.gethostname(), "127.0.0.1"]
    return [host]


def _url(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={quote(token, safe='')}" if token else "")


def _cannot_listen(host: str, port: int) -> str | None:
    """Why a server could not listen on host:port, or None when a socket binds there."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as werkzeug's server does
            probe.bind(address)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def run_report(args: argparse.Namespace) -> int:
    """`irtools report`: write one IR's HTML report, or a sweep's page for a folder or sweep table; the
    exit code."""
    from dashboards.report import write_report

    if Path(args.path).is_dir() or Path(args.path).suffix.lower() in (".csv", ".parquet", ".pq"):
        from dashboards.sweep_report import write_sweep_report

        print(f"wrote {args.output}: {write_sweep_report(args.path, args.output, max_bytes(args))}")
        return EXIT_OK

    summary = write_report(
        source_of(args.path, max_bytes(args)),  # a stream's bytes are reported whole
        args.output,
        max_cores=args.max_cores,
        max_bytes=max_bytes(args),
        wl0_size=args.wl0_size,
        l2_size=args.l2_size,
        trace=trace_for(args.path, args.trace),
        noc=_noc(args),
        name=args.path,
    )
    print(f"wrote {args.output}: {summary}")
    return EXIT_OK


def _noc(args: argparse.Namespace) -> NocModel | None:
    from irtools.analysis.noc import NocModel

    return NocModel(args.noc_bw, args.noc_frequency) if args.noc_bw is not None else None


COMMANDS = {"serve": run_serve, "report": run_report}

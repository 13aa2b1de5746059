"""`irtools serve` (the Dash dashboard) and `irtools report` (a static HTML page): glue only."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from irtools.cli.common import EXIT_FINDINGS, EXIT_OK, add_max_mb, max_bytes, port_number, positive_int
from irtools.cli.trace_args import add_trace_argument, trace_for
from irtools.rules.registry import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    srv = sub.add_parser(
        "serve",
        help="browse IR files in a web dashboard (timelines, L2/WL0 maps, findings)",
        description=(
            "Serve a dashboard for the IR files under a directory (or for one file, within its "
            "directory). Only files under that directory can be opened. Binds 127.0.0.1 unless told otherwise."
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

    rep = sub.add_parser(
        "report",
        help="write a self-contained HTML report (figures and findings, no server needed)",
        description="One HTML file with the timeline, the L2/WL0 maps of each core and the findings.",
    )
    srv.add_argument(
        "--wl0-size",
        type=positive_int,
        metavar="BYTES",
        help="WL0 capacity: free space in the WL0 maps, GIR402",
    )
    srv.add_argument(
        "--l2-size",
        type=positive_int,
        metavar="BYTES",
        help="L2 size for files that record none (raw, alloc): the maps' buffer end, GIR301",
    )
    add_trace_argument(srv, discovered=True)
    add_max_mb(srv)
    rep.add_argument(
        "path",
        metavar="PATH",
        help="an IR file; or a directory, or a table from `irtools summarize`: the sweep page as HTML",
    )
    rep.add_argument("-o", "--output", required=True, metavar="FILE", help="HTML file to write (atomically)")
    rep.add_argument(
        "--max-cores",
        type=positive_int,
        default=16,
        metavar="N",
        help="occupancy maps for the first N cores (default 16)",
    )
    rep.add_argument(
        "--wl0-size",
        type=positive_int,
        metavar="BYTES",
        help="WL0 capacity: free space in the WL0 maps, GIR402",
    )
    rep.add_argument(
        "--l2-size",
        type=positive_int,
        metavar="BYTES",
        help="L2 size for files that record none (raw, alloc): the maps' buffer end, GIR301",
    )
    add_trace_argument(rep, discovered=True)
    add_max_mb(rep)


def run_serve(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    if args.trace is not None and not Path(args.trace).is_file():
        raise UsageError(f"--trace: {args.trace} is not a file")
    from dashboards.app import create_app

    app = create_app(
        path,
        args.max_upload_mb * 10**6,
        max_file_bytes=max_bytes(args),
        wl0_size=args.wl0_size,
        l2_size=args.l2_size,
        open_file=args.open,
        trace=args.trace,
    )
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
    server = make_server(args.host, args.port, app.server, threaded=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"irtools serve: warning: listening on {args.host}: anyone who can reach it can read the IR files",
            file=sys.stderr,
        )
    print(
        f"irtools: serving {len(app.store.files())} IR files under {app.store.root} at http://{args.host}:{args.port}/",
        file=sys.stderr,
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return EXIT_OK


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
    from dashboards.report import write_report

    if Path(args.path).is_dir() or Path(args.path).suffix.lower() in (".csv", ".parquet", ".pq"):
        from dashboards.sweep_report import write_sweep_report

        print(f"wrote {args.output}: {write_sweep_report(args.path, args.output, max_bytes(args))}")
        return EXIT_OK

    summary = write_report(
        args.path,
        args.output,
        max_cores=args.max_cores,
        max_bytes=max_bytes(args),
        wl0_size=args.wl0_size,
        l2_size=args.l2_size,
        trace=trace_for(args.path, args.trace),
    )
    print(f"wrote {args.output}: {summary}")
    return EXIT_OK


COMMANDS = {"serve": run_serve, "report": run_report}

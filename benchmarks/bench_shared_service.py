"""The dashboard as a shared service: many clients at once, and a long run of uploads.

Run: python benchmarks/bench_shared_service.py [concurrent|soak|both] [--clients 20] [--uploads 100]

Each part starts `irtools serve` in its own process and drives it over HTTP with the requests the
page sends (tests/dashboard/dash_client.py builds them from the app's own callback list):

- concurrent: CLIENTS clients open the largest shared fixture at the same moment (header, timeline,
  one core's maps, findings summary), cold (nobody has loaded the file: serve opens another one
  first) and then warm (all again). Reports the slowest and median client, and the server's RSS.
- soak: UPLOADS distinct uploads of that fixture (its bytes with a different amount of trailing
  whitespace: a distinct hash each, the same IR), each analyzed as the page does, against a store
  bound and against no bound (as before the store had one); the server's RSS every 10 uploads.
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
ALLOC = ROOT.parent / "shared" / "fixtures" / "gemini-alloc"
LARGEST = ALLOC / "resnet_4x4_b4_ff1_ss2_rr50_alloc.json"
OTHER = "bert_2x2_b1_alloc.json"
MB = 10**6


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(*args: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "irtools", "serve", *args, "--port", str(port)],
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("irtools serve did not start")


def _rss_mb(proc: subprocess.Popen[bytes]) -> float:
    return psutil.Process(proc.pid).memory_info().rss / MB


def concurrent(clients: int) -> None:
    from tests.dashboard.dash_client import DashClient

    proc, url = _serve(str(ALLOC), "--open", OTHER)
    try:
        time.sleep(5)  # let serve finish loading the file it opens, so only ours is cold
        print(f"{clients} clients open {LARGEST.name} ({LARGEST.stat().st_size / MB:.1f} MB) at once")

        def client(_: int) -> float:
            start = time.perf_counter()
            DashClient(url, timeout=600).open_file(LARGEST.name)
            return time.perf_counter() - start

        for label, count in (("cold", clients), ("warm", clients), ("warm, one client alone", 1)):
            with ThreadPoolExecutor(count) as pool:
                times = list(pool.map(client, range(count)))
            print(
                f"  {label}: all {len(times)} answered; slowest {max(times):.1f} s, median "
                f"{statistics.median(times):.1f} s, fastest {min(times):.1f} s; server RSS {_rss_mb(proc):.0f} MB"
            )
    finally:
        proc.terminate()
        proc.wait()


def soak(uploads: int, store_mb: int | None) -> None:
    from tests.dashboard.dash_client import DashClient

    data = LARGEST.read_bytes()
    limit = ["--max-upload-store-mb", str(store_mb)] if store_mb else ["--max-upload-store-mb", "1000000"]
    proc, url = _serve(str(ALLOC), "--open", OTHER, *limit)
    bound = f"store bound {store_mb} MB" if store_mb else "no bound (as before)"
    print(f"{uploads} distinct uploads of {LARGEST.name}, each analyzed; {bound}")
    try:
        time.sleep(5)
        client = DashClient(url, timeout=600)
        print(f"  before: server RSS {_rss_mb(proc):.0f} MB")
        start = time.perf_counter()
        for i in range(uploads):
            contents = "data:application/json;base64," + base64.b64encode(data + b" " * (i + 1)).decode()
            chosen = client.call(
                "current.data", {"upload.contents": contents}, {"upload.filename": f"u{i}.json"}
            )
            key = chosen["current"]["data"]
            header = client.call("status.children", {"current.data": key, "model.value": "dependency"})
            assert f"u{i}.json" in str(header), str(header)[:300]
            if (i + 1) % 10 == 0:
                print(
                    f"  after {i + 1:3d} uploads: server RSS {_rss_mb(proc):.0f} MB "
                    f"({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", choices=("concurrent", "soak", "both"), default="both")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--uploads", type=int, default=100)
    parser.add_argument("--store-mb", type=int, default=200, help="the bound for the soak (default 200)")
    parser.add_argument("--unbounded-uploads", type=int, default=40, help="uploads of the run with no bound")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.part in ("concurrent", "both"):
        concurrent(args.clients)
    if args.part in ("soak", "both"):
        soak(args.uploads, args.store_mb)
        if args.unbounded_uploads:
            soak(args.unbounded_uploads, None)


if __name__ == "__main__":
    main()

"""Shared fixtures (an in-process CLI runner, the real fixtures folder, a minimal valid IR), the
hypothesis profiles with their seed, and the memory bound of every test on generated input."""

from __future__ import annotations

import copy
import json
import os
import secrets
import shutil
import socket
import warnings
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest
from hypothesis import HealthCheck, is_hypothesis_test, settings
from hypothesis import core as hypothesis_core

from irtools.cli.main import main
from tests.budget import BASE_EXAMPLES, examples, memory_bound

if TYPE_CHECKING:  # flask comes with the dash extra; only the dashboard's tests use it
    from flask.testing import FlaskClient

# When a property fails, hypothesis's pytest plugin imports libcst to write a patch, and libcst's
# import warns (DeprecationWarning from mypy_extensions); with filterwarnings = error that turns the
# failure report into an INTERNALERROR that hides the falsifying example. Import it once, quietly.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst is optional
        pass


# --------------------------------------------------------------------------- hypothesis profiles
#
# A property test draws its examples from a seed. `ci` fixes it (0), so every CI run tests the same
# examples and gives the same count and result; `dev` (the default) and `fuzz` draw a new one per
# run and print it in the header, so any failure reproduces with `--hypothesis-seed=<that seed>`.
# No deadline anywhere: on a shared or loaded machine a slow example is not a bug, and a deadline
# turns load into flaky failures. Which profile: `--hypothesis-profile=NAME` or HYPOTHESIS_PROFILE.
_STEADY = {"deadline": None, "print_blob": True, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=BASE_EXAMPLES, database=None, **_STEADY)  # type: ignore[arg-type]
settings.register_profile("dev", max_examples=BASE_EXAMPLES, **_STEADY)  # type: ignore[arg-type]
settings.register_profile("fuzz", max_examples=examples(20) * BASE_EXAMPLES, **_STEADY)  # type: ignore[arg-type]
FIXED_SEEDS = {"ci": 0}
"""Profiles that always draw from the same seed; the others draw a fresh one per run."""


def default_profile() -> str:
    """The profile of a run given no --hypothesis-profile: HYPOTHESIS_PROFILE, else `ci` under CI, else `dev`."""
    return os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")


_SEED = pytest.StashKey[int]()


@pytest.hookimpl(trylast=True)  # after hypothesis's plugin has loaded --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    # Loaded here, not when this file is imported: test modules import it again as `tests.conftest`
    # (for ROOT and its helpers), and a load at import switched a `ci` run to `dev` halfway through.
    # Without the option, this also replaces the "ci" profile hypothesis loads itself under CI.
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(default_profile())
    given = config.getoption("hypothesis_seed", None)
    profile = settings.get_current_profile_name()
    seed = int(given) if given is not None else FIXED_SEEDS.get(profile, secrets.randbelow(2**32))
    # The same global that --hypothesis-seed sets (hypothesis's pytest plugin does exactly this).
    hypothesis_core.global_force_seed = seed  # type: ignore[assignment]  # declared as None
    config.stash[_SEED] = seed


def _hypothesis_line(config: pytest.Config) -> str:
    current = settings()
    seed = config.stash.get(_SEED, None)
    return (
        f"hypothesis profile {settings.get_current_profile_name()!r}: seed {seed}, "
        f"max_examples {current.max_examples}, deadline {current.deadline}; "
        f"reproduce with --hypothesis-profile={settings.get_current_profile_name()} --hypothesis-seed={seed}"
    )


def pytest_report_header(config: pytest.Config) -> str:
    return _hypothesis_line(config)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    # The header is not shown under -q: a failed run repeats the seed where the reader looks.
    if exitstatus not in (0, 5):
        terminalreporter.write_line(_hypothesis_line(config))


GENERATED_INPUT = ("fuzz",)
"""Test folders whose every test runs on generated or mutated input (property tests elsewhere too)."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Tests on generated input run under a memory bound (tests/budget.py), so an input that makes
    the code allocate without limit fails that test instead of taking the run or the machine."""
    function = getattr(item, "obj", None)
    folder = Path(str(item.path)).parent.name
    if not (is_hypothesis_test(function) or folder in GENERATED_INPUT or item.get_closest_marker("bounded")):
        return (yield)
    with memory_bound():
        return (yield)


def pytest_addoption(parser: pytest.Parser) -> None:
    # addopts passes --headless, which dash.testing only registers when dash[testing] is installed;
    # declaring it here too keeps `pytest` usable without it (the browser tests then skip).
    from dash.testing import plugin

    if not plugin._installed:
        parser.addoption("--headless", action="store_true", help="run browser tests headless")


ROOT = Path(__file__).resolve().parent.parent
"""The project root (holds pyproject.toml, schemas/, irtools/)."""

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
"""The read-only folder beside the project with the real IR fixtures and the format documents."""

FIXTURES = SHARED / "fixtures"
NO_FIXTURES = "../shared/fixtures not present"


class CliResult(NamedTuple):
    """Exit code and captured output of one in-process `irtools` run; unpacks as (code, out, err)."""

    code: int
    out: str
    err: str

    def __repr__(self) -> str:
        return f"--- exit code: {self.code}\n--- stdout:\n{self.out}\n--- stderr:\n{self.err}"


RunCli = Callable[..., CliResult]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest) -> RunCli:
    """Run `irtools *argv` in-process and return (code, out, err).

    argparse errors (SystemExit) become exit codes as with the console script. Each run's exit
    code, stdout and stderr are attached to the test report, so a failing test shows all three.
    """

    def run(*argv: str | Path) -> CliResult:
        args = [str(a) for a in argv]
        capsys.readouterr()  # drop anything printed before this run
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out, err = capsys.readouterr()
        result = CliResult(code, out, err)
        request.node.add_report_section("call", f"irtools {' '.join(args)}", repr(result))
        return result

    return run


@pytest.fixture
def fixtures_dir() -> Path:
    """../shared/fixtures, or skip the test when the shared folder is absent."""
    if not FIXTURES.is_dir():
        pytest.skip(NO_FIXTURES)
    return FIXTURES


WriteIR = Callable[..., Path]


@pytest.fixture
def write_ir(tmp_path: Path) -> WriteIR:
    """Write a JSON-serializable object (as JSON) or raw bytes to tmp_path/name; returns the path."""

    def write(obj_or_bytes: Any, name: str = "ir.json") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(obj_or_bytes, bytes):
            path.write_bytes(obj_or_bytes)
        else:
            path.write_text(json.dumps(obj_or_bytes, indent=1), encoding="utf-8")
        return path

    return write


_MINIMAL_IR: dict[str, Any] = {
    "-1": {
        "in": [
            {
                "core_id": 0,
                "workload_id": 0,
                "layer_name": "conv1",
                "lower": [0, 0, 0, 0],
                "upper": [0, 15, 7, 7],
                "transfer_id": 2,
                "related_ofmap": [],
            }
        ],
        "out": [
            {
                "type": "weight",
                "transfer_id": 0,
                "size": 1152,
                "lower": [0, 0, 0, 0],
                "upper": [15, 7, 2, 2],
                "destination": [{"type": "core", "core_id": 0, "workload_id": 0, "layer_name": "conv1"}],
                "related_ifmap": [],
            },
            {
                "type": "fmap",
                "transfer_id": 1,
                "size": 800,
                "lower": [0, 0, 0, 0],
                "upper": [0, 7, 9, 9],
                "destination": [{"type": "core", "core_id": 0, "workload_id": 0, "layer_name": "conv1"}],
                "related_ifmap": [],
            },
        ],
    },
    "0": [
        {
            "workload_id": 0,
            "layer_name": "conv1",
            "layer_type": "pe",
            "time": 1000,
            "workload": [[0, 0, 0, 0], [0, 15, 7, 7]],
            "ofmap_size": 1024,
            "ifmap": [
                {
                    "align": 8,
                    "bitwidth": 8,
                    "lower": [0, 0, 0, 0],
                    "upper": [0, 7, 9, 9],
                    "size": 800,
                    "transfer_id": [1],
                }
            ],
            "ofmap": [
                {
                    "lower": [0, 0, 0, 0],
                    "upper": [0, 15, 7, 7],
                    "size": 1024,
                    "transfer_id": 2,
                    "destination": [{"type": "DRAM", "core_id": -1}],
                }
            ],
            "weight": {"lower": [0, 0, 0, 0], "upper": [15, 7, 2, 2], "size": 1152, "transfer_id": [0]},
            "buffer": [
                {
                    "tensor_id": 0,
                    "tensor_order": 0,
                    "type": "ifmap",
                    "address": 0,
                    "size": 800,
                    "align": 8,
                    "bitwidth": 8,
                    "lower": [0, 0, 0, 0],
                    "upper": [0, 7, 9, 9],
                    "layer_name": "conv1",
                    "newly_added": True,
                    "cur_wl_ifmap": True,
                    "source": [
                        {
                            "type": "DRAM",
                            "core_id": -1,
                            "transfer_id": 1,
                            "size": 800,
                            "lower": [0, 0, 0, 0],
                            "upper": [0, 7, 9, 9],
                        }
                    ],
                    "transfer_id": [1],
                },
                {
                    "tensor_id": 1,
                    "tensor_order": 1,
                    "type": "weight",
                    "address": 1024,
                    "size": 1152,
                    "align": 8,
                    "bitwidth": 8,
                    "lower": [0, 0, 0, 0],
                    "upper": [15, 7, 2, 2],
                    "layer_name": "conv1",
                    "newly_added": True,
                    "cur_wl_ifmap": False,
                    "source": [
                        {
                            "type": "DRAM",
                            "core_id": -1,
                            "transfer_id": 0,
                            "size": 1152,
                            "lower": [0, 0, 0, 0],
                            "upper": [15, 7, 2, 2],
                        }
                    ],
                    "transfer_id": [0],
                },
            ],
            "wl0_buffer": [
                {
                    "address": 0,
                    "size": 1152,
                    "align": 8,
                    "bitwidth": 8,
                    "layer_name": "conv1",
                    "source": "CORE",
                    "tensor_order": None,
                    "transfer_id": [0],
                }
            ],
            "ring_buffer_info": [[0, 1048576]],
            "tile_padding_tblr": [1, 1, 1, 1],
        }
    ],
    "buffersize": 1048576,
    "top_batch_cut": 1,
    "xlen": 1,
    "ylen": 1,
}


def minimal_ir() -> dict[str, Any]:
    """A fresh, small, valid 1-core IR: a 3x3 conv reading its ifmap and weight from DRAM, ofmap to DRAM.

    Transfers: 0 = weight (DRAM out), 1 = ifmap (DRAM out), 2 = ofmap (workload 0 -> DRAM in).
    The buffer holds the ifmap at 0x0 and the weight at 0x400; WL0 holds the weight.
    """
    return copy.deepcopy(_MINIMAL_IR)


@pytest.fixture(name="minimal_ir")
def minimal_ir_fixture() -> dict[str, Any]:
    """A fresh copy of `minimal_ir()` that a test may mutate."""
    return minimal_ir()


@pytest.fixture(autouse=True)
def _private_sweep_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """`irtools summarize` caches results in ~/.cache by default: tests (and the commands they start
    in subprocesses) use a cache of their own."""
    monkeypatch.setenv("IRTOOLS_CACHE_DIR", str(tmp_path_factory.mktemp("sweep-cache")))


# --- the dashboard behind an access token (tests/dashboard/test_access.py, tests/hardening/test_server_edges.py)

TOKEN = "s3cret-token-for-the-tests-0123456789"
"""The access token the served dashboard asks for."""
HTML = {"Accept": "text/html,application/xhtml+xml"}
"""A browser's Accept header: the token gate answers it with its HTML form, scripts with plain 403s."""
SERVED_IR = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """A folder to serve, holding one valid 2x2-mesh IR as mesh.json."""
    shutil.copy(SERVED_IR, tmp_path / "mesh.json")
    return tmp_path


@pytest.fixture
def client(served: Path) -> FlaskClient:
    """A Flask test client of the dashboard over `served`, every request needing TOKEN (as off loopback)."""
    from dashboards.access import require_token
    from dashboards.app import create_app

    app = create_app(served)
    require_token(app.server, TOKEN, cookie_name="irtools-8050")
    return app.server.test_client()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])

"""Shared fixtures of the Python SDK's tests.

``tarn_bin``: the tarn executable. ``served``: ``tarn serve`` over a fresh catalog directory on
a free loopback port with a bootstrap owner (as tests/interop/tarn_process.mjs starts it), up
once /livez answers, stopped with SIGTERM after the test. ``catalog``: a connected client, once embedded and once remote
(tests that take it run twice). The binary is $TARN_BINARY, else build/tarn of the repository.
"""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import time
import urllib.request
from typing import NamedTuple

import pytest

import tarn

OWNER_ID = "tarn_pythontestowner0000"
OWNER_SECRET = "python-test-owner-secret-0123456789"


def tarn_binary() -> str:
    path = os.environ.get("TARN_BINARY") or str(
        pathlib.Path(__file__).resolve().parents[2] / "build" / "tarn")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no tarn binary at {path}: build the tarn target or set TARN_BINARY")
    return path


@pytest.fixture
def tarn_bin() -> str:
    """The tarn executable (for running the CLI beside the SDK)."""
    return tarn_binary()


class Served(NamedTuple):
    url: str
    client_id: str
    client_secret: str
    catalog: str  # the server's catalog directory
    log: pathlib.Path  # the server's stdout and stderr

    def connect(self) -> tarn.Client:
        return tarn.connect(self.url, client_id=self.client_id, client_secret=self.client_secret)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path):
    """A running `tarn serve` of its own catalog: Served(url, client_id, client_secret,
    catalog, log)."""
    catalog = tmp_path / "served"
    log = tmp_path / "serve.log"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TARN_")}
    env.update(TARN_BOOTSTRAP_CLIENT_ID=OWNER_ID, TARN_BOOTSTRAP_CLIENT_SECRET=OWNER_SECRET)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [tarn_binary(), "serve", "--catalog", str(catalog), "--listen", f"127.0.0.1:{port}"],
            env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"tarn serve exited {proc.returncode}: {log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(f"{url}/livez", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                pytest.fail(f"tarn serve did not come up: {log.read_text()[-4000:]}")
            time.sleep(0.05)
        yield Served(url, OWNER_ID, OWNER_SECRET, str(catalog), log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(params=["embedded", "remote"])
def catalog(request, tmp_path):
    """A client of a fresh catalog: a directory under tmp_path, then `tarn serve`."""
    if request.param == "embedded":
        return tarn.connect(str(tmp_path / "cat"))
    return request.getfixturevalue("served").connect()

# SPDX-License-Identifier: MIT
"""examples/python/adc_capture.py runs as a user runs it and draws a PNG."""

import struct
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "adc_capture.py"


def run(*args):
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True,
                          text=True, timeout=120)


def test_help():
    r = run("--help")
    assert r.returncode == 0 and "--frames" in r.stdout and "counter pattern" in r.stdout


def test_usage_error():
    r = run("--frames", "1")
    assert r.returncode == 2 and "--frames" in r.stderr


def test_bad_device(tmp_path):
    r = run("nosuch:", "--out", str(tmp_path / "x.png"))
    assert r.returncode == 1 and "nosuch" in r.stderr
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("uri", ["sim:", "sim:engine=xdma"])
def test_png(tmp_path, uri):
    pytest.importorskip("matplotlib", reason="no matplotlib (python3-matplotlib)")
    out = tmp_path / "adc.png"
    r = run(uri, "--frames", "40", "--frame-size", "2048", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "40 frames of 2048 bytes from %s, every one checked" % uri in r.stdout
    png = out.read_bytes()
    # The PNG signature, then the IHDR chunk: width and height.
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR", png[:16]
    width, height = struct.unpack(">II", png[16:24])
    assert width > 100 and height > 100 and len(png) > 1000
    assert png.endswith(b"IEND\xaeB`\x82")

# SPDX-License-Identifier: MIT
"""What the Python tests check data with: the test generator's frame rule
(as tests/common/sim_util.c's sim_check_frame() and fdma stream --testgen
check it) and byte-for-byte comparisons that name the first difference."""

import struct
import zlib

import numpy as np

MAGIC = 0x304d5246      # FDMA_TESTGEN_MAGIC, "FRM0"
HDR = struct.Struct("<IIIIQQ")  # struct fdma_testgen_hdr: magic seq len crc tstamp_ns rsvd
SOF_EOF = 0x3           # FDMA_CPL_SOF | FDMA_CPL_EOF


def check_frame(frame, length):
    """A whole test generator frame of length bytes: flags SOF and EOF, the
    header (magic, length, rsvd 0), the CRC-32 of everything after the
    header, every 64-bit payload word (seq << 32 | i) and zero tail bytes.
    Returns its sequence number; raises AssertionError naming the fault."""
    assert frame.len == length, "frame in buffer %d: %d bytes, want %d" % (
        frame.index, frame.len, length)
    assert frame.flags & SOF_EOF == SOF_EOF, "frame flags %#x lack SOF|EOF" % frame.flags
    return check_frame_bytes(frame.data, length)


def check_frame_bytes(data, length):
    data = np.asarray(data, np.uint8)
    assert data.size == length, "%d bytes, want %d" % (data.size, length)
    magic, seq, hlen, crc, _tstamp, rsvd = HDR.unpack_from(data.tobytes()[:HDR.size])
    assert magic == MAGIC and hlen == length and rsvd == 0, (
        "header: magic %#x len %d rsvd %d" % (magic, hlen, rsvd))
    payload = data[HDR.size:]
    assert zlib.crc32(payload) == crc, "frame %d: crc %#010x does not match the payload" % (
        seq, crc)
    # The words too: a CRC can be right over a frame built wrongly.
    n = payload.size // 8
    words = payload[:8 * n].view("<u8")
    want = (np.uint64(seq) << np.uint64(32)) | np.arange(n, dtype=np.uint64)
    bad = np.flatnonzero(words != want)
    assert bad.size == 0, "frame %d: payload word %d is %#018x" % (seq, bad[0], words[bad[0]])
    tail = np.flatnonzero(payload[8 * n:])
    assert tail.size == 0, "frame %d: tail byte %d is not 0" % (seq, HDR.size + 8 * n + tail[0])
    return seq


def assert_same(got, want, what="data"):
    """Byte-for-byte equality of two arrays or buffers, naming the first difference."""
    got = np.frombuffer(memoryview(got).cast("B"), np.uint8)
    want = np.frombuffer(memoryview(want).cast("B"), np.uint8)
    assert got.size == want.size, "%s: %d bytes, want %d" % (what, got.size, want.size)
    diff = np.flatnonzero(got != want)
    assert diff.size == 0, "%s: %d bytes differ, the first at %d (%#04x, want %#04x)" % (
        what, diff.size, diff[0], got[diff[0]], want[diff[0]])


def pattern(n, seed):
    """n random bytes (a fixed seed: a failure can be run again)."""
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)

# SPDX-License-Identifier: MIT
"""Memory-mapped transfers, copies, registered numpy memory and the
channel controls from Python; every byte moved is compared with what was
sent, into destinations first filled with something else."""

import errno
import os

import numpy as np
import pytest

import fdma
from checks import assert_same, pattern

MIB = 1 << 20


def test_info(dev):
    i = dev.info
    assert i.backend == "sim" and i.engine in ("fdma", "xdma") and i.name
    assert i.nchan == len(i.channels) >= 2 and i.card_size >= 64 * MIB
    assert i.align >= 1 and i.align & (i.align - 1) == 0
    for dir in (fdma.H2C, fdma.C2H):
        ch = dev.find_chan(dir, fdma.KIND_MM)
        assert (i.channels[ch].dir, i.channels[ch].kind) == (dir, fdma.KIND_MM)
        assert i.channels[ch].ring_size >= 2
    c = dev.ceiling(fdma.C2H, MIB)
    assert 0 < c <= i.link.write_mbps


def test_card_round_trip(dev):
    """1 MiB out to card memory and back, then a piece at offsets in both."""
    src, dst = dev.alloc(MIB), dev.alloc(MIB)
    want = pattern(MIB, 1)
    src.array()[:] = want
    dst.array()[:] = ~want
    card = 3 * MIB + 4096
    dev.write_card(src, 0, card, MIB)
    dev.read_card(dst, 0, card, MIB)
    assert_same(dst.array(), want, "1 MiB through card memory")

    # 64 KiB from src at 4096 to card + 8 MiB, back into dst at 128 KiB:
    # those bytes move, and not one byte of dst around them.
    dst.array()[:] = 0x5a
    dev.write_card(src, 4096, 8 * MIB, 65536)
    dev.read_card(dst, 131072, 8 * MIB, 65536)
    expect = np.full(MIB, 0x5a, np.uint8)
    expect[131072:131072 + 65536] = want[4096:4096 + 65536]
    assert_same(dst.array(), expect, "64 KiB at offsets")
    src.free()
    dst.free()


def test_submit_reap(dev):
    """Eight requests each way in one batch; completions say which and how much."""
    h2c = dev.find_chan(fdma.H2C, fdma.KIND_MM)
    c2h = dev.find_chan(fdma.C2H, fdma.KIND_MM)
    piece, n = 65536, 8
    with dev.alloc(piece * n) as src, dev.alloc(piece * n) as dst:
        want = pattern(piece * n, 2)
        src.array()[:] = want
        dst.array()[:] = ~want
        before = dev.stats(h2c)
        # Piece k to card slot n-1-k: the card holds them reversed.
        reqs = [fdma.Request(src, offset=k * piece, card_addr=(n - 1 - k) * piece, len=piece,
                             user_data=100 + k) for k in range(n)]
        assert dev.submit(h2c, reqs) == n
        cpls = []
        while len(cpls) < n:
            cpls += dev.reap(h2c, max=n, timeout_us=5000000)
        assert sorted(c.user_data for c in cpls) == list(range(100, 100 + n))
        assert all((c.res, c.status, c.len) == (0, fdma.ST_OK, piece) for c in cpls), cpls
        assert dev.inflight(h2c) == 0
        after = dev.stats(h2c)
        assert after.bytes - before.bytes == piece * n
        assert after.completions - before.completions == n
        # Back in one request: the pieces come out reversed.
        assert dev.submit(c2h, [fdma.Request(dst, user_data=7)]) == 1
        (c,) = dev.reap(c2h, max=4, timeout_us=5000000)
        assert (c.user_data, c.res, c.len) == (7, 0, piece * n)
        rev = want.reshape(n, piece)[::-1].reshape(-1)
        assert_same(dst.array(), rev, "8 pieces reversed through card memory")


def test_registered_numpy(dev):
    """Caller memory registered: the device reads and writes the arrays themselves."""
    a = fdma.aligned_empty(MIB)
    b = fdma.aligned_empty(MIB).view(np.uint32)     # any dtype: the bytes are registered
    a[:] = pattern(MIB, 3)
    b[:] = 0xdeadbeef
    with dev.register(a) as ba, dev.register(b) as bb:
        assert (ba.size, bb.size) == (MIB, MIB)
        assert np.shares_memory(ba.array(), a) and np.shares_memory(bb.array(), b)
        dev.write_card(ba, 0, 16 * MIB, MIB)
        dev.read_card(bb, 0, 16 * MIB, MIB)
    assert_same(b, a, "registered uint8 -> card -> registered uint32")
    # A bytearray works as well where the device takes its address.
    ba_mem = bytearray(4096)
    if dev.info.align == 1:
        with dev.register(ba_mem) as buf:
            dev.read_card(buf, 0, 16 * MIB, 4096)
        assert_same(ba_mem, a[:4096], "into a bytearray")


def test_buf_count(dev):
    """buf_count(): (handles, bytes) of every kind of buffer until it is freed,
    a failed free changing nothing; a Buffer dropped unfreed is given back,
    one freed with an array over it when the array goes."""
    assert dev.buf_count() == (0, 0)
    a = dev.alloc(MIB)
    odd = dev.alloc(5000)                       # its size as given, not the pages behind it
    mem = fdma.aligned_empty(8192)
    r = dev.register(mem)
    assert dev.buf_count() == (3, MIB + 5000 + 8192)
    fd = os.memfd_create("fdma-test", os.MFD_CLOEXEC)    # a dma-buf's stand-in on sim:
    try:
        os.ftruncate(fd, 16384)
        i = dev.import_dmabuf(fd, 4096, 8192)
    finally:
        os.close(fd)
    assert dev.buf_count() == (4, MIB + 5000 + 2 * 8192)
    # A stream's buffers while it is open.
    with dev.stream(dev.find_chan(fdma.C2H, fdma.KIND_STREAM), nbufs=4, buf_size=4096) as s:
        assert dev.buf_count() == (8, MIB + 5000 + 2 * 8192 + sum(b.size for b in s.buffers))
    assert dev.buf_count() == (4, MIB + 5000 + 2 * 8192)
    # A free that fails changes nothing.
    c2h = dev.find_chan(fdma.C2H, fdma.KIND_MM)
    dev.submit(c2h, [fdma.Request(a)])
    with pytest.raises(fdma.Error) as e:
        a.free()
    assert e.value.errno == errno.EBUSY
    assert dev.buf_count() == (4, MIB + 5000 + 2 * 8192)
    dev.reap(c2h, timeout_us=5000000)
    a.free()
    r.free()
    assert dev.buf_count() == (2, 5000 + 8192)
    del i                                       # dropped, not freed: given back all the same
    assert dev.buf_count() == (1, 5000)
    arr = odd.array()
    odd.free()                                  # an array over it holds the memory, and the handle
    assert dev.buf_count() == (1, 5000)
    del arr
    assert dev.buf_count() == (0, 0)


def test_register_errors(dev):
    with pytest.raises(TypeError):
        dev.register(b"read-only bytes")
    odd = fdma.aligned_empty(8192)[1:4097]
    if dev.info.align > 1:
        with pytest.raises(fdma.Error) as e:
            dev.register(odd)
        assert e.value.errno == errno.EINVAL and "multiples of %d" % dev.info.align in str(e.value)
    else:
        with dev.register(odd):
            pass


def test_copy(uri):
    if "engine=xdma" in uri:
        pytest.skip("the XDMA model has no memory-to-memory channels (XDMA has none)")
    with fdma.Device(uri + ",memcpy=1") as dev:
        ch = dev.find_chan(fdma.H2C, fdma.KIND_MEM)
        with dev.alloc(MIB) as src, dev.alloc(MIB) as dst:
            want = pattern(MIB, 4)
            src.array()[:] = want
            dst.array()[:] = ~want
            copies = [fdma.Copy(src, dst, src_offset=k * 65536, dst_offset=MIB - (k + 1) * 65536,
                                len=65536, user_data=k) for k in range(16)]
            assert dev.submit_copy(ch, copies) == 16
            got = []
            while len(got) < 16:
                got += dev.reap(ch, max=16, timeout_us=5000000)
            assert sorted(c.user_data for c in got) == list(range(16))
            assert all(c.res == 0 and c.len == 65536 for c in got)
            assert_same(dst.array(), want.reshape(16, 65536)[::-1].reshape(-1), "16 copies")
            with pytest.raises(fdma.Error) as e:
                dev.submit(ch, [fdma.Request(src, len=64)])
            assert e.value.errno == errno.EINVAL


def test_controls(dev):
    """The wait modes and coalescing take, and transfers stay right under them."""
    h2c = dev.find_chan(fdma.H2C, fdma.KIND_MM)
    c2h = dev.find_chan(fdma.C2H, fdma.KIND_MM)
    with dev.alloc(4 * 65536) as src, dev.alloc(4 * 65536) as dst:
        for k, mode in enumerate((fdma.WAIT_SPIN, fdma.WAIT_SLEEP, fdma.WAIT_ADAPTIVE)):
            dev.set_wait(h2c, mode, 50)
            dev.set_wait(c2h, mode, 50)
            dev.set_coalesce(c2h, 4)
            want = pattern(4 * 65536, 10 + k)
            src.array()[:] = want
            dst.array()[:] = ~want
            dev.write_card(src, 0, 0, src.size)
            dev.submit(c2h, [fdma.Request(dst, offset=j * 65536, card_addr=j * 65536, len=65536)
                             for j in range(4)])
            got = []
            while len(got) < 4:
                got += dev.reap(c2h, max=4, timeout_us=5000000)
            assert all(c.res == 0 for c in got)
            assert_same(dst.array(), want, "wait mode %d, coalescing 4" % mode)
    with pytest.raises(fdma.Error) as e:
        dev.set_coalesce(c2h, 70000)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(fdma.Error) as e:
        dev.set_wait(c2h, 9)
    assert e.value.errno == errno.EINVAL
    dev.reset(c2h)
    assert dev.inflight(c2h) == 0


def test_registers(dev):
    if dev.info.engine == "fdma":
        assert dev.reg_read(0, 0) == 0x46444d41     # "FDMA", the engine's ID (docs/engine.md)
        assert dev.reg_read(0, 4) == dev.info.version
    # The same register in 16- and 8-bit pieces, little-endian.
    r = dev.reg_read(0, 0)
    assert dev.reg_read(0, 0, width=16) | dev.reg_read(0, 2, width=16) << 16 == r
    assert sum(dev.reg_read(0, i, width=8) << 8 * i for i in range(4)) == r
    with pytest.raises(fdma.Error) as e:
        dev.reg_read(0, 2)
    assert e.value.errno == errno.EINVAL and "multiple of 4" in e.value.strerror
    with pytest.raises(fdma.Error) as e:
        dev.reg_read(0, 1, width=16)
    assert e.value.errno == errno.EINVAL and "multiple of 2" in e.value.strerror
    with pytest.raises(ValueError):
        dev.reg_read(0, 0, width=64)
    with pytest.raises(fdma.Error) as e:
        dev.reg_write(0, 0x20, 0)
    assert e.value.errno == errno.EPERM      # the engine's own registers: only with force

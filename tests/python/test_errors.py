# SPDX-License-Identifier: MIT
"""Bad input raises fdma.Error (an OSError) with the errno and libfdma's
message naming the problem; closed devices and freed buffers raise too,
never crash; a library that cannot be loaded is an ImportError naming it."""

import errno
import os
import subprocess
import sys

import pytest

import fdma


def raises(err, words, fn, *args, **kw):
    with pytest.raises(fdma.Error) as e:
        fn(*args, **kw)
    assert isinstance(e.value, OSError)
    assert e.value.errno == err, "errno %s, want %s: %s" % (
        errno.errorcode.get(e.value.errno), errno.errorcode[err], e.value)
    assert e.value.strerror and words in e.value.strerror and words in str(e.value), e.value
    return e.value


def test_bad_uri():
    raises(errno.EINVAL, "nosuch:", fdma.Device, "nosuch:")
    raises(errno.EINVAL, "bogus", fdma.Device, "sim:bogus=1")
    raises(errno.EINVAL, "ring", fdma.Device, "sim:ring=3")
    raises(errno.ENOENT, "/dev/nosuch-fdma", fdma.Device, "kdev:/dev/nosuch-fdma")


def test_default_device(monkeypatch):
    """No URI: FDMA_DEVICE names the device, as for the fdma command; a bare
    device node means kdev:; neither is an error saying how to name one."""
    monkeypatch.setenv("FDMA_DEVICE", "sim:engine=xdma")
    with fdma.Device() as d:
        assert d.info.engine == "xdma" and d.uri == "sim:engine=xdma"
    monkeypatch.delenv("FDMA_DEVICE")
    raises(errno.EINVAL, "FDMA_DEVICE", fdma.Device)
    raises(errno.ENOENT, "no such device node", fdma.Device, "/dev/nosuch-fdma")


def test_bad_channel(dev):
    n = dev.info.nchan
    for call in (dev.inflight, dev.stats, dev.reset, dev.chan_align):
        raises(errno.EINVAL, "no channel %d" % n, call, n)
    raises(errno.EINVAL, "no channel 99", dev.set_testgen, 99, 4096)
    raises(errno.EINVAL, "no channel -1", dev.reap, -1)
    raises(errno.EINVAL, "no channel 42", dev.submit, 42, [fdma.Request(0, len=64)])


def test_bad_sizes(dev):
    raises(errno.EINVAL, "size is zero", dev.alloc, 0)
    raises(errno.EINVAL, "over the 64 GiB limit", dev.alloc, 1 << 40)
    with dev.alloc(4096) as b:
        raises(errno.ERANGE, "beyond the end of card memory", dev.write_card, b, 0,
               dev.info.card_size, 4096)
        raises(errno.ERANGE, "beyond buffer %d's 4096 bytes" % b.handle, dev.read_card, b, 4096, 0,
               4096)
        h2c = dev.find_chan(fdma.H2C, fdma.KIND_MM)
        raises(errno.ERANGE, "length 8192 is beyond", dev.submit, h2c,
               [fdma.Request(b, offset=0, len=8192)])
        raises(errno.EBADF, "unknown buffer handle 4000", dev.submit, h2c,
               [fdma.Request(4000, len=64)])
        assert dev.inflight(h2c) == 0          # all or nothing: nothing queued
    raises(errno.EAGAIN, "nothing in flight", dev.reap, 0)
    raises(errno.ENOENT, "memory-to-memory", dev.find_chan, fdma.H2C, fdma.KIND_MEM)


def test_closed_device(uri):
    dev = fdma.Device(uri)
    b = dev.alloc(4096)
    dev.close()
    dev.close()                                 # twice: nothing
    for call, args in ((dev.alloc, (4096,)), (dev.inflight, (0,)), (dev.stats, (0,)),
                       (dev.find_chan, (fdma.H2C, fdma.KIND_MM)), (dev.reg_read, (0, 0)),
                       (dev.stream, (2,)), (dev.write_card, (b, 0, 0, 64)), (dev.buf_count, ())):
        raises(errno.EBADF, "closed", call, *args)
    raises(errno.EBADF, "freed, or its device closed", b.array)
    b.free()                                    # nothing left to free: nothing
    with fdma.Device(uri) as again:             # and it opens again
        assert again.info == dev.info


def test_freed_buffer(dev):
    b = dev.alloc(4096)
    b.free()
    b.free()
    raises(errno.EBADF, "freed", b.array)
    raises(errno.EBADF, "unknown buffer handle %d" % b.handle, dev.write_card, b, 0, 0, 64)


def test_export_needs_the_driver(dev):
    """The simulated device's buffers are this process's memory: no dma-buf."""
    with dev.alloc(4096) as b:
        raises(errno.EOPNOTSUPP, "kdev:", b.export_dmabuf)
        raises(errno.EOPNOTSUPP, "kdev:", b.export_dmabuf, readonly=True)


def test_busy_buffer(dev):
    """free() of a buffer with a transfer not yet reaped is EBUSY and frees nothing."""
    c2h = dev.find_chan(fdma.C2H, fdma.KIND_MM)
    with dev.alloc(1 << 20) as b:
        dev.submit(c2h, [fdma.Request(b)])
        raises(errno.EBUSY, "in flight", b.free)
        dev.reap(c2h, timeout_us=5000000)
        b.array()[:] = 0                        # still there after the EBUSY


def _import_with(env):
    env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", "import fdma"], env=env,
                          capture_output=True, text=True)


def test_library_not_found():
    r = _import_with({"FDMA_LIBRARY": "/nonexistent/libfdma.so.0"})
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "FDMA_LIBRARY=/nonexistent/libfdma.so.0" in r.stderr


def test_library_by_soname():
    env = {"FDMA_LIBRARY": "", "LD_LIBRARY_PATH": ""}
    if _import_with(env).returncode == 0:
        pytest.skip("libfdma.so.0 is installed where the loader finds it")
    r = _import_with(env)
    assert "ImportError" in r.stderr and "libfdma.so.0" in r.stderr and "FDMA_LIBRARY" in r.stderr
    lib = os.path.dirname(os.environ.get("FDMA_LIBRARY", ""))
    if lib:     # the loader's own path finds it
        assert _import_with({"FDMA_LIBRARY": "", "LD_LIBRARY_PATH": lib}).returncode == 0


def test_function_missing_from_library():
    """A function an older libfdma.so.0 lacks raises ENOSYS naming it, when called."""
    from fdma import _ffi
    raises(errno.ENOSYS, "fdma_nothing() is not in the libfdma loaded",
           _ffi._missing("fdma_nothing"))

# SPDX-License-Identifier: MIT
"""Streams as iterators: the test generator's frames, each checked whole
(checks.check_frame: header, CRC, every payload word, tail), in order;
held frames kept from the device; drops; timeouts; releases after close
and twice; arrays over frames outliving the stream and the device."""

import errno
import gc
import itertools
import time
import weakref

import pytest

import fdma
from checks import check_frame, check_frame_bytes


def c2h_stream(dev):
    ch = dev.find_chan(fdma.C2H, fdma.KIND_STREAM)
    assert dev.info.channels[ch].testgen
    return ch


@pytest.mark.parametrize("length", [65536, 4096, 1000, 40])
def test_frames(dev, length):
    ch = c2h_stream(dev)
    with dev.stream(ch, nbufs=8, buf_size=65536) as s:
        dev.set_testgen(ch, length, 0)
        for k, frame in enumerate(itertools.islice(s, 50)):
            with frame:
                assert check_frame(frame, length) == k
                assert not frame.overrun and 0 <= frame.index < 8
        assert s.drops == 0
        frames, errors = dev.testgen_counts(ch)
        assert frames >= 50 and errors == 0
        dev.set_testgen(ch, length, 0, enable=False)


def test_held_frames_kept(dev):
    """Frames held are the application's: the device writes into the others."""
    ch = c2h_stream(dev)
    with dev.stream(ch, nbufs=8, buf_size=8192) as s:
        dev.set_testgen(ch, 8192, 200000)      # a frame every 0.2 ms
        held = [s.get() for _ in range(4)]
        time.sleep(0.05)                        # ~250 frame periods
        assert [check_frame(f, 8192) for f in held] == [0, 1, 2, 3]
        for f in reversed(held):
            f.release()
        for k in range(4, 40):
            with s.get() as f:
                assert check_frame(f, 8192) == k


def test_all_held(dev):
    ch = c2h_stream(dev)
    with dev.stream(ch, nbufs=2, buf_size=4096, timeout=5) as s:
        dev.set_testgen(ch, 4096, 0)
        a, b = s.get(), s.get()
        with pytest.raises(fdma.Error) as e:
            s.get()
        assert e.value.errno == errno.EAGAIN and e.value.strerror
        a.release()
        with s.get() as c:
            assert check_frame(c, 4096) == 2
        b.release()


def test_timeout(dev):
    """A silent source: get() and the iterator raise ETIMEDOUT after the timeout."""
    ch = c2h_stream(dev)
    with dev.stream(ch, nbufs=4, buf_size=4096, timeout=0.05) as s:
        t = time.monotonic()
        with pytest.raises(fdma.Error) as e:
            next(iter(s))
        assert e.value.errno == errno.ETIMEDOUT
        assert time.monotonic() - t >= 0.04
        with pytest.raises(fdma.Error) as e:
            s.get(timeout=0.01)
        assert e.value.errno == errno.ETIMEDOUT


def test_drop_mode(dev):
    """Buffers all held in drop mode: the generator drops whole frames, the
    stream counts them, and the next frame has a sequence gap (and OVERRUN
    where the engine flags it)."""
    ch = c2h_stream(dev)
    dev.set_drop(ch, True)
    with dev.stream(ch, nbufs=4, buf_size=65536) as s:
        dev.set_testgen(ch, 65536, 5000000)    # every 5 ms
        held = [s.get() for _ in range(4)]
        assert [check_frame(f, 65536) for f in held] == [0, 1, 2, 3]
        time.sleep(0.2)                         # ~40 periods with nowhere to go
        assert s.drops > 0
        for f in held:
            f.release()
        last, gaps = 3, 0
        for _ in range(6):
            with s.get() as f:
                seq = check_frame(f, 65536)
                assert seq > last
                if dev.info.channels[ch].overrun_flag:
                    assert f.overrun == (seq != last + 1)
                gaps += seq - last - 1
                last = seq
        assert 0 < gaps <= s.drops


def test_release_after_close(dev):
    ch = c2h_stream(dev)
    s = dev.stream(ch, nbufs=4, buf_size=4096)
    dev.set_testgen(ch, 4096, 0)
    f = s.get()
    assert check_frame(f, 4096) == 0
    f.release()
    f.release()                                 # twice: nothing
    with f:                                     # and once more on leaving
        pass
    with pytest.raises(ValueError):
        f.data                                  # its buffer is the device's again
    g = s.get()
    data = g.data
    assert check_frame(g, 4096) == 1
    s.close()
    assert check_frame_bytes(data, 4096) == 1   # held through the close: intact
    g.release()                                 # after close: nothing, no crash
    s.close()
    with pytest.raises(fdma.Error) as e:
        s.get()
    assert e.value.errno == errno.EBADF


def test_array_outlives_device(uri):
    """An array over a frame stays readable after the stream and the device
    close; the device closes for real when the array goes."""
    dev = fdma.Device(uri)
    handle = weakref.ref(dev._h)
    ch = c2h_stream(dev)
    with dev.stream(ch, nbufs=4, buf_size=4096) as s:
        dev.set_testgen(ch, 4096, 0)
        f = s.get()                             # held: the device cannot write it
        data = f.data
        view = data[32:64].view("<u8")          # a view of a view keeps it too
    f.release()
    dev.close()
    assert check_frame_bytes(data, 4096) == 0   # the memory is still there
    assert list(view) == [i for i in range(4)]
    assert handle() is not None                 # held open by the arrays
    del f, data, view
    gc.collect()
    assert handle() is None                     # fdma_close() has run


def test_user_buffers(dev):
    """A stream over the caller's buffers: frames land in them, and they
    stay the caller's after the stream."""
    ch = c2h_stream(dev)
    bufs = [dev.alloc(8192) for _ in range(4)]
    with dev.stream(ch, bufs=bufs) as s:
        dev.set_testgen(ch, 8192, 0)
        for k in range(10):
            with s.get() as f:
                assert check_frame(f, 8192) == k
                assert f.data.ctypes.data == bufs[f.index].array().ctypes.data
    for b in bufs:
        b.array()[:] = 1                        # still ours, still mapped
        b.free()


def test_stream_errors(dev):
    ch = c2h_stream(dev)
    mm = dev.find_chan(fdma.H2C, fdma.KIND_MM)
    cases = [(dict(ch=99, nbufs=4, buf_size=4096), errno.EINVAL, "no channel 99"),
             (dict(ch=mm, nbufs=4, buf_size=4096), errno.EINVAL, "not a C2H stream"),
             (dict(ch=ch, nbufs=1, buf_size=4096), errno.EINVAL, "buffers"),
             (dict(ch=ch, nbufs=4, buf_size=0), errno.EINVAL, "buffer size"),
             (dict(ch=ch, nbufs=4, buf_size=1 << 40), errno.EINVAL, "buffer size")]
    for kw, err, words in cases:
        with pytest.raises(fdma.Error) as e:
            dev.stream(**kw)
        assert e.value.errno == err and words in e.value.strerror, (kw, e.value)
    # One stream per channel; a frame larger than the buffers is reported.
    with dev.stream(ch, nbufs=4, buf_size=4096) as s:
        with pytest.raises(fdma.Error) as e:
            dev.stream(ch, nbufs=4, buf_size=4096)
        assert e.value.errno == errno.EBUSY
        dev.set_testgen(ch, 16384, 0)
        for _ in range(3):
            with pytest.raises(fdma.Error) as e:
                s.get()
            assert e.value.errno == errno.EMSGSIZE and "does not fit" in e.value.strerror
    # Nothing leaked: the channel takes a new stream at once, and with
    # buffers large enough, whole frames from 0 (the close reset it).
    with dev.stream(ch, nbufs=4, buf_size=16384) as s:
        for k in range(8):
            with s.get() as f:
                assert check_frame(f, 16384) == k
        dev.set_testgen(ch, 16384, 0, enable=False)

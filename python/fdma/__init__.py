# SPDX-License-Identifier: MIT
"""fdma: libfdma from Python, with DMA buffers as numpy arrays (no copies).

    import fdma
    with fdma.Device("sim:") as dev:
        ch = dev.find_chan(fdma.C2H, fdma.KIND_STREAM)
        dev.set_testgen(ch, 4096, 1000000)
        with dev.stream(ch, nbufs=8, buf_size=4096) as s:
            for frame in itertools.islice(s, 100):
                with frame:
                    process(frame.data)        # numpy uint8, the DMA buffer itself

Why ctypes, not a C extension: libfdma's API is plain C (ints, fixed
structures, no callbacks), so ctypes reaches all of it with nothing to
compile. The same files work with every python3 and on every target
libfdma builds for (x86-64, arm64, armhf), need only Debian's python3 and
python3-numpy, and cannot go stale against a Python ABI. A call costs a
few microseconds more than from C; the data never passes through Python.

The library: $FDMA_LIBRARY (a path) if set, else libfdma.so.0 through the
dynamic loader. Every failing call raises fdma.Error (an OSError) with the
errno and libfdma's message. The threading rules of include/fdma.h apply
(ctypes lets go of the GIL during each call, so a thread waiting in reap()
or a stream does not stop the others). docs/python.md has the rest.
"""

import ctypes
import errno as _errno
import os
import weakref
from collections import namedtuple
from ctypes import byref

import numpy as np

from . import _ffi
from ._ffi import lib as _lib

__all__ = ["Error", "Device", "Buffer", "Stream", "Frame", "Request", "Copy", "Completion",
           "aligned_empty", "testgen_header"]

# enum fdma_dir, enum fdma_kind, enum fdma_wait_mode and the #defines of fdma.h.
H2C, C2H = 0, 1
KIND_MM, KIND_STREAM, KIND_MEM = 0, 1, 2
WAIT_SPIN, WAIT_SLEEP, WAIT_ADAPTIVE = 0, 1, 2
COAL_COUNT, COAL_TIMER, COAL_EMULATED = 0x1, 0x2, 0x4
BUF_HUGEPAGE, BUF_DMABUF = 0x1, 0x2
EXPORT_RDONLY = 0x1
REQ_IRQ, REQ_SOF, REQ_EOF = 0x1, 0x2, 0x4
CPL_SOF, CPL_EOF, CPL_OVERRUN = 0x1, 0x2, 0x4
ST_OK, ST_DESC_ERR, ST_ADDR_ERR, ST_DATA_ERR = 0, 1, 2, 3
ST_ALIGN_ERR, ST_RANGE_ERR, ST_LEN_ERR, ST_TRUNC, ST_CANCELED = 4, 5, 6, 7, 0xffff
REG_FORCE, REG_8, REG_16 = 0x1, 0x2, 0x4
MAX_CHAN = _ffi.FDMA_MAX_CHAN
TESTGEN_MAGIC = 0x304d5246
TESTGEN_HDR_SIZE = ctypes.sizeof(_ffi.TestgenHdr)


Error = _ffi.Error


ChanInfo = namedtuple("ChanInfo", "dir kind testgen overrun_flag ring_size")
LinkInfo = namedtuple("LinkInfo", "gen lanes mps mrrs paced write_mbps read_mbps")
Info = namedtuple("Info", "backend name engine version nchan align max_desc_len card_size "
                          "link channels coal user_irqs")
ChanStats = namedtuple("ChanStats", [f[0] for f in _ffi.ChanStats._fields_])
TestgenHeader = namedtuple("TestgenHeader", [f[0] for f in _ffi.TestgenHdr._fields_])
Completion = namedtuple("Completion", "user_data len res status flags")
# struct fdma_req and struct fdma_copy; buf is a Buffer or a handle, len None
# the rest of the buffer from offset.
Request = namedtuple("Request", "buf flags offset card_addr len user_data",
                     defaults=(0, 0, 0, None, 0))
Copy = namedtuple("Copy", "src_buf dst_buf src_offset dst_offset len user_data flags",
                  defaults=(0, 0, None, 0, 0))


def _plain(cls, st):
    return cls(*(getattr(st, f[0]) for f in st._fields_))


def _handle(b):
    return b.handle if isinstance(b, Buffer) else int(b)


def aligned_empty(nbytes, align=4096):
    """A numpy uint8 array of nbytes whose address is a multiple of align:
    memory that register() takes on any device."""
    raw = np.empty(nbytes + align, np.uint8)
    skip = -raw.ctypes.data % align
    return raw[skip:skip + nbytes]


def testgen_header(data):
    """The test generator's 32-byte header (struct fdma_testgen_hdr) at the
    start of data (bytes or an array), as a TestgenHeader."""
    raw = bytes(memoryview(data).cast("B")[:TESTGEN_HDR_SIZE])
    if len(raw) < TESTGEN_HDR_SIZE:
        raise ValueError("%d bytes: the test generator's header is %d"
                         % (len(raw), TESTGEN_HDR_SIZE))
    return _plain(TestgenHeader, _ffi.TestgenHdr.from_buffer_copy(raw))


# ---- lifetimes ------------------------------------------------------------
#
# Arrays over DMA memory must never outlive it: a numpy array over freed
# memory would crash the interpreter. So the memory's owners are Python
# objects: every array over a buffer holds (through its base) the buffer's
# _Mem, which holds the device's _Handle. fdma_buf_free() runs when the
# buffer is freed and no array over it is left, fdma_close() when the
# Device is closed and no buffer memory of it is left; in the usual case,
# at once.

class _Handle:
    """An open struct fdma_dev."""

    def __init__(self, ptr):
        self.ptr = ptr
        self.pinned = []        # registered memory the device may still write (see _free)
        weakref.finalize(self, _lib.fdma_close, ptr)


def _free(h, buf, keep):
    ret = _lib.fdma_buf_free(h.ptr, buf)
    if ret == -_errno.EBUSY and keep is not None:
        h.pinned.append(keep)   # transfers on it in flight: keep it until fdma_close()
    return ret


class _Mem:
    """A buffer handle and its memory; numpy arrays over it have it as their base."""

    def __init__(self, h, buf, addr, size, keep):
        self.addr = addr
        self.arrays = []        # weak references to the arrays made over it
        if addr:
            self.__array_interface__ = {"data": (addr, False), "shape": (size,),
                                        "typestr": "|u1", "version": 3}
        self.fin = weakref.finalize(self, _free, h, buf, keep)


class Buffer:
    """A DMA buffer: .handle (for requests), .size, and its memory as a numpy
    array or a memoryview, without a copy. Freed by free(), at the end of a
    with block, or when no longer referenced; its memory stays while an array
    over it does."""

    def __init__(self, dev, handle, keep=None):
        h = dev._h
        self.device = dev
        self.handle = handle
        self.size = _lib.fdma_buf_size(h.ptr, handle)
        self._mem = _Mem(h, handle, _lib.fdma_buf_addr(h.ptr, handle), self.size, keep)
        dev._bufs[handle] = self

    def _live(self):
        if self._mem is None:
            raise Error(_errno.EBADF, "buffer %d is freed, or its device closed" % self.handle)
        return self._mem

    def array(self, dtype=np.uint8, count=-1, offset=0):
        """The buffer's memory as a numpy array of dtype (as numpy.frombuffer())."""
        m = self._live()
        if not m.addr:
            raise Error(_errno.EFAULT, "buffer %d cannot be mapped by the CPU (fdma_buf_addr() is "
                        "NULL: a dma-buf without a mapping, or GPU memory)" % self.handle)
        whole = np.asarray(m)
        m.arrays = [r for r in m.arrays if r() is not None] + [weakref.ref(whole)]
        return np.frombuffer(whole, dtype, count, offset)

    def memoryview(self):
        return memoryview(self.array())

    @property
    def flags(self):
        return self.device._check(_lib.fdma_buf_flags(self.device._p(), self.handle))

    def export_dmabuf(self, readonly=False):
        """A new dma-buf over this buffer's memory, as a file descriptor the
        caller owns (close-on-exec): another device or process uses the same
        memory with no copy, and it stays valid after the buffer is freed and
        the device closed (fdma_buf_export_dmabuf(3); kdev: only)."""
        self._live()
        return self.device._check(_lib.fdma_buf_export_dmabuf(
            self.device._p(), self.handle, EXPORT_RDONLY if readonly else 0))

    def free(self):
        """Free (or unregister) it. With transfers on it in flight: Error EBUSY,
        nothing freed. Arrays over it keep its memory until they go."""
        m = self._mem
        if m is None:
            return
        if not any(r() is not None for r in m.arrays):
            self.device._check(_lib.fdma_buf_free(self.device._p(), self.handle))
            m.fin.detach()
        self._mem = None
        self.device._bufs.pop(self.handle, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __repr__(self):
        return "<fdma.Buffer %d, %d bytes%s>" % (self.handle, self.size,
                                                  "" if self._mem else ", freed")


# ---- devices ---------------------------------------------------------------

class Device:
    """An open device (fdma_open()): sim[:opt=val,...], rtl:..., kdev:/dev/fdmaN.
    Without a URI, the environment's FDMA_DEVICE names it, as for the fdma
    command; a bare /dev/fdmaN means kdev:/dev/fdmaN."""

    def __init__(self, uri=None):
        if not uri:
            uri = os.environ.get("FDMA_DEVICE")
            if not uri:
                raise Error(_errno.EINVAL, "no device: give a URI or set FDMA_DEVICE")
        if uri.startswith("/dev/"):
            uri = "kdev:" + uri
        ptr = _ffi.dev_p()
        errbuf = ctypes.create_string_buffer(512)
        ret = _lib.fdma_open(byref(ptr), uri.encode(), errbuf, len(errbuf))
        if ret < 0:
            raise Error(-ret, errbuf.value.decode(errors="replace") or os.strerror(-ret))
        self.uri = uri
        self._h = _Handle(ptr)
        self._bufs = weakref.WeakValueDictionary()
        self._streams = weakref.WeakSet()
        st = _ffi.Info()
        self._check(_lib.fdma_get_info(ptr, byref(st)))
        self.info = Info(
            st.backend.decode(), st.name.decode(), st.engine.decode(), st.version, st.nchan,
            st.align, st.max_desc_len, st.card_size, _plain(LinkInfo, st.link),
            [_plain(ChanInfo, st.chan[i]) for i in range(st.nchan)], st.coal, st.user_irqs)

    def close(self):
        """Close its streams, give up its buffers and close it (fdma_close()
        waits for the last array over its memory). Closing twice is nothing."""
        if self._h is None:
            return
        for s in list(self._streams):
            s.close()
        for b in list(self._bufs.values()):
            b._mem = None
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<fdma.Device %r%s>" % (self.uri, "" if self._h else ", closed")

    def _p(self):
        if self._h is None:
            raise Error(_errno.EBADF, "device %s is closed" % self.uri)
        return self._h.ptr

    def _check(self, ret):
        """ret, or Error with the calling thread's last message from libfdma."""
        if ret >= 0:
            return ret
        msg = _lib.fdma_errmsg(self._h.ptr) if self._h else None
        raise Error(-ret, (msg or b"").decode(errors="replace") or os.strerror(-ret))

    # -- channels --
    def find_chan(self, dir, kind):
        return self._check(_lib.fdma_find_chan(self._p(), dir, kind))

    def chan_align(self, ch):
        return self._check(_lib.fdma_chan_align(self._p(), ch))

    def ceiling(self, dir, size):
        """The link model's payload ceiling for size-byte transfers, MB/s."""
        mbps = ctypes.c_double()
        self._check(_lib.fdma_ceiling(self._p(), dir, size, byref(mbps)))
        return mbps.value

    def model_cpu(self):
        sec = ctypes.c_double()
        self._check(_lib.fdma_model_cpu(self._p(), byref(sec)))
        return sec.value

    # -- buffers --
    def alloc(self, size, hugepage=False):
        return Buffer(self, self._check(_lib.fdma_buf_alloc(self._p(), size,
                                                            BUF_HUGEPAGE if hugepage else 0)))

    def register(self, obj):
        """Register obj's memory (a writable, contiguous buffer-protocol object:
        a numpy array, a bytearray; address and size multiples of the
        alignment, see aligned_empty()). The Buffer keeps obj alive."""
        p = self._p()
        n = memoryview(obj).nbytes
        view = (ctypes.c_uint8 * n).from_buffer(obj)    # also locks a bytearray's size
        return Buffer(self, self._check(_lib.fdma_buf_register(p, ctypes.addressof(view), n)),
                      keep=(obj, view))

    def import_dmabuf(self, fd, offset, size):
        return Buffer(self, self._check(_lib.fdma_buf_import_dmabuf(self._p(), fd, offset, size)))

    def import_nvp2p(self, gpu_va, size):
        return Buffer(self, self._check(_lib.fdma_buf_import_nvp2p(self._p(), gpu_va, size)))

    def buf_count(self):
        """(count, bytes): the buffer handles the device holds now and the
        bytes they span (fdma_buf_count(3)); a count that only grows is a leak."""
        nbytes = ctypes.c_uint64()
        n = self._check(_lib.fdma_buf_count(self._p(), byref(nbytes)))
        return n, nbytes.value

    # -- transfers --
    def submit(self, ch, reqs):
        """Queue requests (Request) on channel ch, all or nothing; returns how many."""
        reqs = list(reqs)
        arr = (_ffi.Req * len(reqs))()
        for c, r in zip(arr, reqs):
            length = r.len
            if length is None:
                length = _buf_size(self, r.buf) - r.offset
            c.buf, c.flags, c.offset = _handle(r.buf), r.flags, r.offset
            c.card_addr, c.len, c.user_data = r.card_addr, length, r.user_data
        return self._check(_lib.fdma_submit(self._p(), ch, arr, len(reqs)))

    def submit_copy(self, ch, copies):
        """Queue copies (Copy) on memory-to-memory channel ch; returns how many."""
        copies = list(copies)
        arr = (_ffi.Copy * len(copies))()
        for c, r in zip(arr, copies):
            length = r.len
            if length is None:
                length = _buf_size(self, r.src_buf) - r.src_offset
            c.src_buf, c.dst_buf = _handle(r.src_buf), _handle(r.dst_buf)
            c.src_offset, c.dst_offset, c.len = r.src_offset, r.dst_offset, length
            c.user_data, c.flags = r.user_data, r.flags
        return self._check(_lib.fdma_submit_copy(self._p(), ch, arr, len(copies)))

    def reap(self, ch, max=64, timeout_us=-1, min_wait=1):
        """Up to max completions, waiting up to timeout_us (-1: while any are in
        flight) for min_wait of them; a list of Completion (maybe empty)."""
        arr = (_ffi.Cpl * max)()
        n = self._check(_lib.fdma_reap(self._p(), ch, arr, max, min_wait, timeout_us))
        return [_plain(Completion, arr[i]) for i in range(n)]

    def inflight(self, ch):
        return self._check(_lib.fdma_inflight(self._p(), ch))

    def write_card(self, buf, offset, card_addr, len):
        """Copy len bytes of buf at offset to card memory, and wait."""
        self._check(_lib.fdma_write_card(self._p(), _handle(buf), offset, card_addr, len))

    def read_card(self, buf, offset, card_addr, len):
        """Copy len bytes of card memory into buf at offset, and wait."""
        self._check(_lib.fdma_read_card(self._p(), _handle(buf), offset, card_addr, len))

    # -- channel controls --
    def chan_fd(self, ch):
        return self._check(_lib.fdma_chan_fd(self._p(), ch))

    def user_irq_fd(self, irq):
        return self._check(_lib.fdma_user_irq_fd(self._p(), irq))

    def set_wait(self, ch, mode, spin_us=0):
        self._check(_lib.fdma_chan_set_wait(self._p(), ch, mode, spin_us))

    def set_coalesce(self, ch, count, usecs=0):
        self._check(_lib.fdma_chan_set_coalesce(self._p(), ch, count, usecs))

    def set_drop(self, ch, drop):
        self._check(_lib.fdma_chan_set_drop(self._p(), ch, int(bool(drop))))

    def reset(self, ch):
        self._check(_lib.fdma_chan_reset(self._p(), ch))

    def set_testgen(self, ch, frame_len, period_ns=0, enable=True):
        self._check(_lib.fdma_chan_set_testgen(self._p(), ch, frame_len, period_ns,
                                               int(bool(enable))))

    def testgen_counts(self, ch):
        """(frames, errors) of the channel's test generator or checker."""
        frames, errors = ctypes.c_uint64(), ctypes.c_uint64()
        self._check(_lib.fdma_chan_testgen_counts(self._p(), ch, byref(frames), byref(errors)))
        return frames.value, errors.value

    def stats(self, ch):
        st = _ffi.ChanStats()
        self._check(_lib.fdma_chan_stats(self._p(), ch, byref(st)))
        return _plain(ChanStats, st)

    def reg_read(self, bar, offset, width=32, force=False):
        """The register of width bits (32, 16, 8) at offset of BAR bar."""
        v = ctypes.c_uint32()
        flags = _reg_flags(width, force)
        if flags:
            ret = _lib.fdma_reg_read_flags(self._p(), bar, offset, byref(v), flags)
        else:
            ret = _lib.fdma_reg_read(self._p(), bar, offset, byref(v))
        self._check(ret)
        return v.value

    def reg_write(self, bar, offset, value, width=32, force=False):
        self._check(_lib.fdma_reg_write(self._p(), bar, offset, value, _reg_flags(width, force)))

    # -- streams --
    def stream(self, ch, nbufs=8, buf_size=None, bufs=None, timeout=1.0):
        """Frames from C2H stream channel ch, through nbufs new buffers of
        buf_size bytes (or the given Buffers, which stay the caller's)."""
        return Stream(self, ch, nbufs, buf_size, bufs, timeout)


def _reg_flags(width, force):
    w = {32: 0, 16: REG_16, 8: REG_8}.get(width)
    if w is None:
        raise ValueError("register width %r: 32, 16 or 8" % (width,))
    return w | (REG_FORCE if force else 0)


def _buf_size(dev, b):
    return b.size if isinstance(b, Buffer) else _lib.fdma_buf_size(dev._p(), int(b))


# ---- streams -----------------------------------------------------------------

def _stream_close(h, sp):
    # h: the device stays open until the stream is closed.
    _lib.fdma_stream_close(sp)


class Stream:
    """Filled frames in order (fdma_stream_open_bufs()): get(), or iterate.
    Iterating waits up to .timeout seconds for each frame and raises Error
    (ETIMEDOUT) when none comes: a silent source is an error, not an end
    (use itertools.islice() for a count). A frame keeps its buffer from the
    device until released: hold them all and get() raises EAGAIN."""

    def __init__(self, dev, ch, nbufs, buf_size, bufs, timeout):
        p = dev._p()
        self.device, self.channel, self.timeout = dev, ch, timeout
        self._own = bufs is None
        if self._own:
            dev.inflight(ch)    # a bad channel: libfdma's own message
            ring = dev.info.channels[ch].ring_size
            maxlen = dev.info.max_desc_len
            if not 2 <= nbufs <= ring:
                raise Error(_errno.EINVAL, "stream: %d buffers (need 2..%d)" % (nbufs, ring))
            if buf_size is None or not 1 <= buf_size <= maxlen:
                raise Error(_errno.EINVAL, "stream: buffer size %s (need 1..%d, the maximum "
                            "descriptor length)" % (buf_size, maxlen))
            # Whole units of the channel's alignment (XDMA's C2H streams take
            # 64-byte multiples where its memory-mapped channels take any).
            a = max(dev.info.align, dev.chan_align(ch))
            bufs = []
            try:
                for _ in range(nbufs):
                    bufs.append(dev.alloc((buf_size + a - 1) // a * a))
            except Error:
                for b in bufs:
                    b.free()
                raise
        self.buffers = list(bufs)
        handles = (ctypes.c_int * len(bufs))(*(b.handle for b in bufs))
        sp = _ffi.stream_p()
        try:
            dev._check(_lib.fdma_stream_open_bufs(p, ch, handles, len(bufs), byref(sp)))
        except Error:
            self._free_bufs()
            raise
        self._s = sp
        self._fin = weakref.finalize(self, _stream_close, dev._h, sp)
        dev._streams.add(self)

    def _free_bufs(self):
        for b in self.buffers if self._own else ():
            try:
                b.free()
            except Error:
                b._mem = None   # not handed back by the channel: fdma_close() frees it

    def get(self, timeout=None):
        """The next frame, waiting up to timeout seconds (None: .timeout;
        negative: forever)."""
        if self._s is None:
            raise Error(_errno.EBADF, "stream on channel %d is closed" % self.channel)
        t = self.timeout if timeout is None else timeout
        f = _ffi.Frame()
        self.device._check(_lib.fdma_stream_get(self._s, byref(f),
                                                -1 if t < 0 else int(t * 1e6)))
        return Frame(self, f)

    def __iter__(self):
        return self

    def __next__(self):
        return self.get()

    @property
    def drops(self):
        """Frames the device dropped since the stream opened (until it closed)."""
        return _lib.fdma_stream_drops(self._s) if self._s is not None else self._drops

    def close(self):
        """Close it (the channel is reset); frames still held need no release."""
        if self._s is None:
            return
        self._drops = _lib.fdma_stream_drops(self._s)
        self._s = None
        self._fin()
        self._free_bufs()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Frame:
    """A filled frame: .data (numpy uint8, .len bytes of the DMA buffer itself),
    .index (the buffer), .flags (CPL_*), .overrun. Its buffer is the
    application's until release() (or the end of a with block); release()
    twice, or after the stream closed, does nothing."""

    def __init__(self, stream, f):
        self._stream, self._f = stream, f
        self.len, self.index, self.flags = f.len, f.index, f.flags
        self._data = None
        self.released = False

    @property
    def overrun(self):
        return bool(self.flags & CPL_OVERRUN)

    @property
    def data(self):
        if self.released:
            raise ValueError("frame %d was released: its buffer is the device's again"
                             % self.index)
        if self._data is None:
            self._data = self._stream.buffers[self.index].array(count=self.len)
        return self._data

    def release(self):
        if self.released:
            return
        self.released = True
        s = self._stream
        if s._s is not None:
            s.device._check(_lib.fdma_stream_release(s._s, byref(self._f)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        return "<fdma.Frame buffer %d, %d bytes, flags %#x%s>" % (
            self.index, self.len, self.flags, ", released" if self.released else "")

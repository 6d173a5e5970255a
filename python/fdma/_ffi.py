# SPDX-License-Identifier: MIT
"""libfdma's C interface as ctypes sees it: the library, its structures
(field for field as include/fdma.h lays them out) and every function's
argument and return types.

Every pointer argument and return is declared, so that ctypes never passes
or returns one as a C int (which would cut a 64-bit pointer in half)."""

import ctypes
import errno
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_size_t, c_uint, c_uint8, c_uint16, c_uint32, c_uint64,
                    c_void_p)

SONAME = "libfdma.so.0"


def _load():
    path = os.environ.get("FDMA_LIBRARY")
    if path:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            raise ImportError("fdma: cannot load FDMA_LIBRARY=%s: %s" % (path, e)) from None
    try:
        return ctypes.CDLL(SONAME)
    except OSError as e:
        raise ImportError(
            "fdma: cannot load %s through the dynamic loader (%s); install libfdma "
            "(make install, then ldconfig) or set FDMA_LIBRARY to the library's path"
            % (SONAME, e)) from None


lib = _load()

FDMA_MAX_CHAN = 16


class ChanInfo(Structure):
    _fields_ = [("dir", c_uint8), ("kind", c_uint8), ("testgen", c_uint8),
                ("overrun_flag", c_uint8), ("ring_size", c_uint32)]


class LinkInfo(Structure):
    _fields_ = [("gen", c_uint), ("lanes", c_uint), ("mps", c_uint), ("mrrs", c_uint),
                ("paced", c_int), ("write_mbps", c_double), ("read_mbps", c_double)]


class Info(Structure):
    _fields_ = [("backend", c_char * 16), ("name", c_char * 64), ("version", c_uint32),
                ("nchan", c_uint32), ("align", c_uint32), ("max_desc_len", c_uint32),
                ("card_size", c_uint64), ("link", LinkInfo),
                ("chan", ChanInfo * FDMA_MAX_CHAN), ("engine", c_char * 16),
                ("coal", c_uint32), ("user_irqs", c_uint32)]


class Req(Structure):
    _fields_ = [("buf", c_int), ("flags", c_uint32), ("offset", c_uint64),
                ("card_addr", c_uint64), ("len", c_uint64), ("user_data", c_uint64)]


class Copy(Structure):
    _fields_ = [("src_buf", c_int), ("dst_buf", c_int), ("src_offset", c_uint64),
                ("dst_offset", c_uint64), ("len", c_uint64), ("user_data", c_uint64),
                ("flags", c_uint32), ("rsvd", c_uint32)]


class Cpl(Structure):
    _fields_ = [("user_data", c_uint64), ("len", c_uint64), ("res", c_int32),
                ("status", c_uint16), ("flags", c_uint16)]


class TestgenHdr(Structure):
    _fields_ = [("magic", c_uint32), ("seq", c_uint32), ("len", c_uint32), ("crc", c_uint32),
                ("tstamp_ns", c_uint64), ("rsvd", c_uint64)]


class ChanStats(Structure):
    _fields_ = [(n, c_uint64) for n in (
        "bytes", "transfers", "completions", "descriptors", "doorbells", "interrupts",
        "wakeups", "errors", "drops", "resets", "irq_timeouts", "syscalls")]


class Frame(Structure):
    _fields_ = [("data", c_void_p), ("len", c_uint64), ("index", c_uint32),
                ("flags", c_uint32)]


# The C names of the structures above, for the layout check in the tests.
C_NAMES = {ChanInfo: "fdma_chan_info", LinkInfo: "fdma_link_info", Info: "fdma_info",
           Req: "fdma_req", Copy: "fdma_copy", Cpl: "fdma_cpl",
           TestgenHdr: "fdma_testgen_hdr", ChanStats: "fdma_chan_stats",
           Frame: "fdma_frame"}



class dev_p(c_void_p):
    """struct fdma_dev *"""


class stream_p(c_void_p):
    """struct fdma_stream *"""


# Functions not bound here, and why (the layout test checks this list).
UNBOUND = {"fdma_stream_open": "streams arm buffers that Python owns (fdma_stream_open_bufs)",
           "fdma_stream_bufs": "a stream's buffers are the Python Buffers it was opened with",
           "fdma_uring_prep": "it fills an io_uring SQE, and Python has no io_uring ring to give it"}
# Constants of fdma.h that only unbound functions take.
UNBOUND_CONSTANTS = {"URING_MAX_REQS": "fdma_uring_prep()'s limit"}

PROTOS = {
    "fdma_open": (c_int, [POINTER(dev_p), c_char_p, c_char_p, c_size_t]),
    "fdma_close": (None, [dev_p]),
    "fdma_errmsg": (c_char_p, [dev_p]),
    "fdma_get_info": (c_int, [dev_p, POINTER(Info)]),
    "fdma_find_chan": (c_int, [dev_p, c_int, c_int]),
    "fdma_chan_align": (c_int, [dev_p, c_int]),
    "fdma_buf_alloc": (c_int, [dev_p, c_size_t, c_uint]),
    "fdma_buf_register": (c_int, [dev_p, c_void_p, c_size_t]),
    "fdma_buf_import_dmabuf": (c_int, [dev_p, c_int, c_uint64, c_size_t]),
    "fdma_buf_export_dmabuf": (c_int, [dev_p, c_int, c_uint]),
    "fdma_buf_import_nvp2p": (c_int, [dev_p, c_uint64, c_size_t]),
    "fdma_buf_free": (c_int, [dev_p, c_int]),
    "fdma_buf_addr": (c_void_p, [dev_p, c_int]),
    "fdma_buf_size": (c_size_t, [dev_p, c_int]),
    "fdma_buf_flags": (c_int, [dev_p, c_int]),
    "fdma_buf_count": (c_int, [dev_p, POINTER(c_uint64)]),
    "fdma_submit": (c_int, [dev_p, c_int, POINTER(Req), c_uint]),
    "fdma_submit_copy": (c_int, [dev_p, c_int, POINTER(Copy), c_uint]),
    "fdma_reap": (c_int, [dev_p, c_int, POINTER(Cpl), c_uint, c_uint, c_int64]),
    "fdma_inflight": (c_int, [dev_p, c_int]),
    "fdma_chan_fd": (c_int, [dev_p, c_int]),
    "fdma_user_irq_fd": (c_int, [dev_p, c_uint]),
    "fdma_chan_set_wait": (c_int, [dev_p, c_int, c_int, c_uint]),
    "fdma_chan_set_coalesce": (c_int, [dev_p, c_int, c_uint, c_uint]),
    "fdma_chan_set_drop": (c_int, [dev_p, c_int, c_int]),
    "fdma_chan_reset": (c_int, [dev_p, c_int]),
    "fdma_chan_set_testgen": (c_int, [dev_p, c_int, c_uint32, c_uint32, c_int]),
    "fdma_chan_testgen_counts": (c_int, [dev_p, c_int, POINTER(c_uint64), POINTER(c_uint64)]),
    "fdma_chan_stats": (c_int, [dev_p, c_int, POINTER(ChanStats)]),
    "fdma_write_card": (c_int, [dev_p, c_int, c_uint64, c_uint64, c_uint64]),
    "fdma_read_card": (c_int, [dev_p, c_int, c_uint64, c_uint64, c_uint64]),
    "fdma_stream_open_bufs": (c_int, [dev_p, c_int, POINTER(c_int), c_uint,
                                      POINTER(stream_p)]),
    "fdma_stream_get": (c_int, [stream_p, POINTER(Frame), c_int64]),
    "fdma_stream_release": (c_int, [stream_p, POINTER(Frame)]),
    "fdma_stream_drops": (c_uint64, [stream_p]),
    "fdma_stream_close": (None, [stream_p]),
    "fdma_reg_read": (c_int, [dev_p, c_uint, c_uint64, POINTER(c_uint32)]),
    "fdma_reg_read_flags": (c_int, [dev_p, c_uint, c_uint64, POINTER(c_uint32), c_uint]),
    "fdma_reg_write": (c_int, [dev_p, c_uint, c_uint64, c_uint32, c_uint]),
    "fdma_ceiling": (c_int, [dev_p, c_int, c_uint64, POINTER(c_double)]),
    "fdma_model_cpu": (c_int, [dev_p, POINTER(c_double)]),
}



class Error(OSError):
    """A failed call: .errno (positive, as the errno module's) and .strerror,
    libfdma's message naming what was wrong."""


def _missing(name):
    def call(*args):
        raise Error(errno.ENOSYS, "%s() is not in the libfdma loaded (%s): an older library"
                    % (name, lib._name))
    return call


# A function the library lacks (an older libfdma.so.0) raises ENOSYS when called.
for _name, (_res, _args) in PROTOS.items():
    _fn = getattr(lib, _name, None)
    if _fn is None:
        setattr(lib, _name, _missing(_name))
        continue
    _fn.restype = _res
    _fn.argtypes = _args

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture frames of samples from a C2H stream channel's test generator
and plot them to a PNG: the way an ADC capture would go, with the test
generator standing in for the ADC.

The generator's payload is a counter pattern, not a signal: after its
32-byte header, 64-bit little-endian word i of frame seq is seq << 32 | i.
Read as 32-bit samples, as here, the even samples count up (i) and the odd
ones hold the frame's number (seq). The plot shows exactly that, and when
each frame was made (the device's time stamp) and arrived (the host's
clock). Every frame is checked (header, CRC, every word) before it is
plotted; a real ADC's samples would take the pattern's place.

    PYTHONPATH=python FDMA_LIBRARY=build/libfdma.so.0 \\
        python3 examples/python/adc_capture.py sim: --frames 200 --out adc.png
"""

import argparse
import os
import sys
import time
import zlib

import numpy as np

import fdma


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("uri", nargs="?", default=os.environ.get("FDMA_DEVICE") or "sim:",
                   help="the device (default $FDMA_DEVICE, else sim:)")
    p.add_argument("--frames", type=int, default=200, metavar="N",
                   help="frames to capture (default 200)")
    p.add_argument("--frame-size", type=int, default=4096, metavar="BYTES",
                   help="bytes per frame, header included (default 4096, at least 40)")
    p.add_argument("--period-us", type=int, default=1000, metavar="US",
                   help="the generator's frame period (default 1000: 1000 frames/s)")
    p.add_argument("--out", default="adc_capture.png", metavar="FILE.png",
                   help="the PNG to write (default adc_capture.png)")
    a = p.parse_args()
    if a.frames < 2 or a.frame_size < 40 or a.period_us < 0:
        p.error("need --frames >= 2, --frame-size >= 40 and --period-us >= 0")
    return a


def check(data, size):
    """The frame's header and sequence number, if it is whole and right."""
    h = fdma.testgen_header(data)
    if h.magic != fdma.TESTGEN_MAGIC or h.len != size or h.rsvd:
        raise ValueError("bad header %s" % (h,))
    payload = data[fdma.TESTGEN_HDR_SIZE:]
    if zlib.crc32(payload) != h.crc:
        raise ValueError("frame %d: CRC mismatch" % h.seq)
    n = payload.size // 8
    want = (np.uint64(h.seq) << np.uint64(32)) | np.arange(n, dtype=np.uint64)
    if not np.array_equal(payload[:8 * n].view("<u8"), want) or payload[8 * n:].any():
        raise ValueError("frame %d: payload differs from the pattern" % h.seq)
    return h


def capture(a):
    """Frames' samples (copies of a few), device time stamps and arrival times."""
    first = []
    stamps, arrivals, seqs = [], [], []
    with fdma.Device(a.uri) as dev:
        ch = dev.find_chan(fdma.C2H, fdma.KIND_STREAM)
        if not dev.info.channels[ch].testgen:
            raise SystemExit("adc_capture: channel %d of %s has no test generator" % (ch, a.uri))
        with dev.stream(ch, nbufs=16, buf_size=a.frame_size, timeout=2 + a.period_us / 1e6) as s:
            dev.set_testgen(ch, a.frame_size, a.period_us * 1000)
            for _ in range(a.frames):
                with s.get() as f:
                    t = time.monotonic_ns()
                    h = check(f.data, a.frame_size)
                    # The samples: the payload read in place as 32-bit words.
                    n = (f.len - fdma.TESTGEN_HDR_SIZE) // 4
                    samples = f.data[fdma.TESTGEN_HDR_SIZE:fdma.TESTGEN_HDR_SIZE + 4 * n]
                    samples = samples.view("<u4")
                    if len(first) < 3:
                        first.append((h.seq, samples[:64].copy()))
                    stamps.append(h.tstamp_ns)
                    arrivals.append(t)
                    seqs.append(h.seq)
            dev.set_testgen(ch, a.frame_size, 0, enable=False)
            drops = s.drops
    return first, np.array(seqs), np.array(stamps), np.array(arrivals), drops


def plot(a, first, seqs, stamps, arrivals, drops):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dev_ms = (stamps - stamps[0]) / 1e6
    host_ms = (arrivals - arrivals[0]) / 1e6
    fig, ax = plt.subplots(3, 1, figsize=(9, 10))
    for seq, smp in first:
        k = np.arange(smp.size)
        ax[0].plot(k[0::2], smp[0::2], ".-", label="frame %d, even samples (i)" % seq)
        ax[0].plot(k[1::2], smp[1::2], "x", label="frame %d, odd samples (seq)" % seq)
    ax[0].set_title("The payload as 32-bit samples: the generator's counter pattern")
    ax[0].set_xlabel("sample")
    ax[0].set_ylabel("value")
    ax[0].legend(fontsize="small", ncol=2)

    ax[1].plot(seqs, dev_ms, ".", label="made (device time stamp)")
    ax[1].plot(seqs, host_ms, ".", label="arrived (host clock)")
    ax[1].set_title("When each frame was made and arrived")
    ax[1].set_xlabel("frame")
    ax[1].set_ylabel("ms since the first")
    ax[1].legend(fontsize="small")

    ax[2].plot(seqs[1:], np.diff(dev_ms) * 1e3, ".", label="between time stamps")
    ax[2].plot(seqs[1:], np.diff(host_ms) * 1e3, ".", label="between arrivals")
    ax[2].axhline(a.period_us, color="gray", lw=0.8, label="the generator's period")
    ax[2].set_title("Frame intervals")
    ax[2].set_xlabel("frame")
    ax[2].set_ylabel("us")
    ax[2].legend(fontsize="small")
    fig.suptitle("%d frames of %d bytes from %s, %d dropped" % (len(seqs), a.frame_size, a.uri,
                                                                  drops))
    fig.tight_layout()
    fig.savefig(a.out, dpi=80)


def main():
    a = parse()
    try:
        first, seqs, stamps, arrivals, drops = capture(a)
    except (fdma.Error, ValueError) as e:
        print("adc_capture: %s" % e, file=sys.stderr)
        return 1
    gaps = int(np.sum(np.diff(seqs) - 1))
    print("%d frames of %d bytes from %s, every one checked; %d dropped (%d missing "
          "by sequence number)" % (len(seqs), a.frame_size, a.uri, drops, gaps))
    print("mean interval: %.1f us between time stamps, %.1f us between arrivals"
          % (np.diff(stamps).mean() / 1e3, np.diff(arrivals).mean() / 1e3))
    plot(a, first, seqs, stamps, arrivals, drops)
    print("wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

// SPDX-License-Identifier: MIT
/*
 * fdma_v4l2: fdma.ko's video devices (v4l2=1) driven through the V4L2
 * calls themselves, for what v4l2-ctl cannot check (run by v4l2.sh).
 *
 *   fdma_v4l2 stall CAPTURE
 *	fdma.ko loaded with v4l2_drop=1, the channel's test generator on
 *	(test_pattern=1): a reader takes frames, stops taking them for a
 *	while, and takes frames again. Every frame dequeued is checked whole
 *	(header, length, every payload word, CRC), and its V4L2 sequence
 *	number must be the generator's own number for it: the frames lost
 *	while the reader stalled show as a gap in the sequence, the frames
 *	around it arrive intact and unflagged, and the gap is exactly the
 *	frames the channel counted as dropped.
 *
 *   fdma_v4l2 vivid OUTPUT CAPTURE
 *	vivid, the kernel's virtual video driver, imports dma-bufs exported
 *	by fdma (fdma_buf_export_dmabuf(), frames the device wrote into fdma
 *	buffers) on its video output (V4L2_MEMORY_DMABUF) and loops them to
 *	its video capture, whose frames are compared with the fdma buffers'
 *	bytes.
 *
 *   fdma_v4l2 play OUTPUT FILE
 *	FILE's frames to the output device, every buffer back (DONE) before
 *	STREAMOFF, which would discard the ones still queued; for v4l2.sh
 *	to compare the checker's counts with the frames sent.
 *
 * stall and vivid print VMTEST PASS/FAIL lines (vmtest.h) and exit 0, or
 * 77 where something needed is not there; play exits 0 or 1.
 */
#include <linux/v4l2-dv-timings.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <sys/ioctl.h>

#include "fdma.h"
#include "fdma_mcommon.h"
#include "vmtest.h"

#define NBUF 4

struct vbuf {
	void *p;
	size_t len;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

/*
 * A test generator frame of len bytes, checked by the models' own checker
 * (header, length, CRC): 0, or a message in why. *seq gets its number.
 */
static int frame_check(const uint8_t *p, uint32_t len, uint32_t *seq, char *why, size_t wlen)
{
	struct fdma_tchk k = { 0 };

	memcpy(&k.hdr, p, sizeof(k.hdr));
	/* The checker expects a number: this frame's own; the caller judges it. */
	k.seq = *seq = k.hdr.seq;
	fdma_tchk_feed(&k, p, len, true, true);
	if (k.frames == 1)
		return 0;
	snprintf(why, wlen, "frame %u: magic %#x, len %u of %u, or its CRC is wrong", k.hdr.seq,
		 k.hdr.magic, k.hdr.len, len);
	return -1;
}

/* MMAP buffers on fd's queue of type t: n of them in b. 0, or -errno. */
static int mmap_bufs(int fd, uint32_t t, struct vbuf *b, unsigned int n)
{
	struct v4l2_requestbuffers rb = { .count = n, .type = t, .memory = V4L2_MEMORY_MMAP };
	unsigned int i;
	int r;

	r = xioctl(fd, VIDIOC_REQBUFS, &rb);
	if (r)
		return r;
	if (rb.count != n)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct v4l2_buffer vb = { .index = i, .type = t, .memory = V4L2_MEMORY_MMAP };

		r = xioctl(fd, VIDIOC_QUERYBUF, &vb);
		if (r)
			return r;
		b[i].len = vb.length;
		b[i].p = mmap(NULL, vb.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			      vb.m.offset);
		if (b[i].p == MAP_FAILED)
			return -errno;
	}
	return 0;
}

static int qbuf(int fd, uint32_t t, uint32_t mem, unsigned int i, int dmafd, uint32_t used)
{
	struct v4l2_buffer vb = { .index = i, .type = t, .memory = mem, .bytesused = used };

	if (mem == V4L2_MEMORY_DMABUF)
		vb.m.fd = dmafd;
	return xioctl(fd, VIDIOC_QBUF, &vb);
}

/* DQBUF, waiting up to timeout_ms. 0, -ETIMEDOUT, or -errno. */
static int dqbuf(int fd, uint32_t t, uint32_t mem, struct v4l2_buffer *vb, int timeout_ms)
{
	struct pollfd pf = { .fd = fd, .events = V4L2_TYPE_IS_OUTPUT(t) ? POLLOUT : POLLIN };
	int r = poll(&pf, 1, timeout_ms);

	if (r < 0)
		return -errno;
	if (!r)
		return -ETIMEDOUT;
	memset(vb, 0, sizeof(*vb));
	vb->type = t;
	vb->memory = mem;
	return xioctl(fd, VIDIOC_DQBUF, vb);
}

static int get_fmt(int fd, uint32_t t, struct v4l2_pix_format *pix)
{
	struct v4l2_format f = { .type = t };
	int r = xioctl(fd, VIDIOC_G_FMT, &f);

	*pix = f.fmt.pix;
	return r;
}

/* The fdma device whose channel a video device drives: "fdma0-ch2" -> "fdma0". */
static int fdma_of(const char *video, char *dev, size_t len, int *ch)
{
	char p[128], name[64], *dash;

	snprintf(p, sizeof(p), "/sys/class/video4linux/%s/name", strrchr(video, '/') + 1);
	if (vt_read_str(p, name, sizeof(name)))
		return -ENOENT;
	dash = strstr(name, "-ch");
	if (!dash)
		return -ENOENT;
	*ch = atoi(dash + 3);
	*dash = 0;
	snprintf(dev, len, "%s", name);
	return 0;
}

/*
 * The channel's drops since d was opened (FDMA_IOC_STATS through libfdma;
 * an open file does not hold the channel), or -1.
 */
static long long chan_drops(struct fdma_dev *d, int ch)
{
	struct fdma_chan_stats st;

	return d && !fdma_chan_stats(d, ch, &st) ? (long long)st.drops : -1;
}

/* ---- stall ----------------------------------------------------------------- */

static int stall(const char *video)
{
	const uint32_t t = V4L2_BUF_TYPE_VIDEO_CAPTURE, m = V4L2_MEMORY_MMAP;
	struct v4l2_pix_format pix;
	struct fdma_dev *d = NULL;
	struct vbuf b[NBUF];
	char dev[64], uri[80], why[160];
	int fd, ch, r, got = 0, gaps = 0, bad = 0;
	uint32_t next = 0, lost = 0;
	long long d0, d1;
	unsigned int i;

	if (fdma_of(video, dev, sizeof(dev), &ch)) {
		printf("VMTEST SKIP v4l2_stall: %s is not an fdma video device\n", video);
		return 77;
	}
	fd = open(video, O_RDWR | O_NONBLOCK);
	if (fd < 0 || get_fmt(fd, t, &pix)) {
		vt_fail("v4l2_stall", "open %s: %s", video, strerror(errno));
		return 0;
	}
	r = mmap_bufs(fd, t, b, NBUF);
	for (i = 0; !r && i < NBUF; i++)
		r = qbuf(fd, t, m, i, -1, 0);
	snprintf(uri, sizeof(uri), "kdev:/dev/%s", dev);
	if (fdma_open(&d, uri, why, sizeof(why)))
		vt_info("%s: %s (the drops are not compared)", uri, why);
	d0 = chan_drops(d, ch);
	if (!r)
		r = xioctl(fd, VIDIOC_STREAMON, (void *)&t);
	if (r) {
		vt_fail("v4l2_stall", "buffers and STREAMON on %s: %s", video, strerror(-r));
		return 0;
	}
	/* 20 frames, a stall of 40 frame periods with every buffer filled, 20 frames. */
	while (got < 40 && !bad) {
		struct v4l2_buffer vb;
		uint32_t seq;

		if (got == 20)
			usleep(400000);
		r = dqbuf(fd, t, m, &vb, 2000);
		if (r) {
			vt_fail("v4l2_stall", "DQBUF after %d frames: %s", got, strerror(-r));
			bad = 1;
			break;
		}
		if (vb.flags & V4L2_BUF_FLAG_ERROR) {
			vt_fail("v4l2_stall", "buffer %u (sequence %u) flagged as an error", vb.index,
				vb.sequence);
			bad = 1;
		} else if (vb.bytesused != pix.sizeimage ||
			   frame_check(b[vb.index].p, pix.sizeimage, &seq, why, sizeof(why))) {
			vt_fail("v4l2_stall", "sequence %u: %u bytes: %s", vb.sequence, vb.bytesused,
				vb.bytesused == pix.sizeimage ? why : "not a frame");
			bad = 1;
		} else if (seq != vb.sequence || vb.sequence < next) {
			vt_fail("v4l2_stall", "sequence %u holds the generator's frame %u (after %u)",
				vb.sequence, seq, next);
			bad = 1;
		} else {
			if (vb.sequence > next) {
				gaps++;
				lost += vb.sequence - next;
			}
			next = vb.sequence + 1;
			got++;
		}
		if (!bad && qbuf(fd, t, m, vb.index, -1, 0)) {
			vt_fail("v4l2_stall", "QBUF: %s", strerror(errno));
			bad = 1;
		}
	}
	xioctl(fd, VIDIOC_STREAMOFF, (void *)&t);
	d1 = chan_drops(d, ch);
	if (d)
		fdma_close(d);
	for (i = 0; i < NBUF; i++)
		munmap(b[i].p, b[i].len);
	close(fd);
	if (bad)
		return 0;
	vt_info("%d frames checked, %d gaps of %u frames in all, the channel dropped %lld", got,
		gaps, lost, d1 - d0);
	/*
	 * The stall must show (a gap), and the gaps must be the drops: the
	 * frames dropped after the last frame taken are in the count and not
	 * yet in the sequence, hence <= (at most a frame period's worth).
	 */
	if (!gaps)
		vt_fail("v4l2_stall", "no gap in the sequence after a stall of 40 frame periods");
	else if (d0 < 0 || d1 < 0 || lost > (uint64_t)(d1 - d0) || (uint64_t)(d1 - d0) > lost + 2)
		vt_fail("v4l2_stall", "%u frames missing from the sequence, the channel dropped %lld",
			lost, d1 - d0);
	else
		vt_pass("v4l2_stall");
	return 0;
}

/* ---- play ------------------------------------------------------------------ */

/*
 * The frames of file (sizeimage bytes each) to output device out, MMAP,
 * and every buffer back before STREAMOFF (which discards what is still
 * queued: v4l2-ctl --stream-out-mmap stops without waiting). Prints the
 * frames sent; exit 0, or 1 with the reason.
 */
static int play(const char *out, const char *file)
{
	const uint32_t t = V4L2_BUF_TYPE_VIDEO_OUTPUT, m = V4L2_MEMORY_MMAP;
	struct v4l2_pix_format pix;
	unsigned int i, queued = 0, done = 0, bad = 0, sent = 0;
	struct vbuf b[NBUF];
	int fd, in, r;

	fd = open(out, O_RDWR | O_NONBLOCK);
	in = open(file, O_RDONLY);
	if (fd < 0 || in < 0 || get_fmt(fd, t, &pix) || mmap_bufs(fd, t, b, NBUF)) {
		fprintf(stderr, "fdma_v4l2 play: %s, %s: %s\n", out, file, strerror(errno));
		return 1;
	}
	for (;;) {
		struct v4l2_buffer vb;

		if (queued < NBUF) {
			i = queued;
		} else {
			r = dqbuf(fd, t, m, &vb, 5000);
			if (r) {
				fprintf(stderr, "fdma_v4l2 play: DQBUF: %s\n", strerror(-r));
				return 1;
			}
			done++;
			bad += !!(vb.flags & V4L2_BUF_FLAG_ERROR);
			i = vb.index;
		}
		if (read(in, b[i].p, pix.sizeimage) != (ssize_t)pix.sizeimage)
			break;
		r = qbuf(fd, t, m, i, -1, pix.sizeimage);
		if (!r && !queued++)
			r = xioctl(fd, VIDIOC_STREAMON, (void *)&t);
		if (r) {
			fprintf(stderr, "fdma_v4l2 play: QBUF, STREAMON: %s\n", strerror(-r));
			return 1;
		}
		sent++;
	}
	/* The file is sent: every buffer back before STREAMOFF. */
	while (done < sent) {
		struct v4l2_buffer vb;

		r = dqbuf(fd, t, m, &vb, 5000);
		if (r) {
			fprintf(stderr, "fdma_v4l2 play: DQBUF, %u of %u back: %s\n", done, sent,
				strerror(-r));
			return 1;
		}
		done++;
		bad += !!(vb.flags & V4L2_BUF_FLAG_ERROR);
	}
	xioctl(fd, VIDIOC_STREAMOFF, (void *)&t);
	printf("%u frames sent, %u flagged as errors\n", sent, bad);
	return bad ? 1 : 0;
}

/* ---- vivid ----------------------------------------------------------------- */

/*
 * vivid's controls (drivers/media/test-drivers/vivid/vivid-ctrls.c): its
 * private class at 0x00f0f000. The loop from output to capture is "Loop
 * Video" on 6.1, "HDMI 000-0 Is Connected To" = "Output HDMI 000-0" since
 * 6.5; "OSD Text Mode" None keeps the text off the looped frames.
 */
#define VIVID_CID_OSD_TEXT_MODE	0x00f0f001
#define VIVID_CID_LOOP_VIDEO	0x00f0f025
#define VIVID_CID_HDMI0_TO	0x00f0f071
#define VIVID_W			640
#define VIVID_H			480

static int set_ctrl(int fd, uint32_t id, int32_t v)
{
	struct v4l2_control c = { .id = id, .value = v };

	return xioctl(fd, VIDIOC_S_CTRL, &c);
}

/* Input/output 0, 640x480 DV timings, GREY 640x480 on queue type t: 0 or -errno. */
static int vivid_setup(int fd, uint32_t t, struct v4l2_pix_format *pix)
{
	struct v4l2_dv_timings dv = V4L2_DV_BT_CEA_640X480P59_94;
	struct v4l2_format f = { .type = t };
	unsigned int zero = 0;
	int r;

	r = xioctl(fd, V4L2_TYPE_IS_OUTPUT(t) ? VIDIOC_S_OUTPUT : VIDIOC_S_INPUT, &zero);
	if (!r)
		r = xioctl(fd, VIDIOC_S_DV_TIMINGS, &dv);
	if (r)
		return r;
	/* S_INPUT, S_OUTPUT and S_DV_TIMINGS reset the format: set it after. */
	f.fmt.pix.width = VIVID_W;
	f.fmt.pix.height = VIVID_H;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_GREY;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	r = xioctl(fd, VIDIOC_S_FMT, &f);
	*pix = f.fmt.pix;
	if (!r && (pix->width != VIVID_W || pix->height != VIVID_H ||
		   pix->pixelformat != V4L2_PIX_FMT_GREY || pix->bytesperline != VIVID_W))
		r = -ERANGE;
	return r;
}

/*
 * Capture frames until one is exactly want (bytes of the fdma buffer the
 * dma-buf exports), at most tries; each capture frame is given back.
 * Returns the frames before the match, or -1.
 */
static int vivid_wait(int cfd, struct vbuf *cb, const uint8_t *want, size_t len, int tries)
{
	const uint32_t t = V4L2_BUF_TYPE_VIDEO_CAPTURE, m = V4L2_MEMORY_MMAP;
	int i;

	for (i = 0; i < tries; i++) {
		struct v4l2_buffer vb;
		int same;

		if (dqbuf(cfd, t, m, &vb, 2000))
			return -1;
		same = vb.bytesused >= len && !memcmp(cb[vb.index].p, want, len);
		if (qbuf(cfd, t, m, vb.index, -1, 0))
			return -1;
		if (same)
			return i;
	}
	return -1;
}

static int vivid(const char *out, const char *cap)
{
	const uint32_t to = V4L2_BUF_TYPE_VIDEO_OUTPUT, tc = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	const size_t len = VIVID_W * VIVID_H;
	struct v4l2_requestbuffers rb = { .count = 2, .type = to, .memory = V4L2_MEMORY_DMABUF };
	struct v4l2_pix_format po, pc;
	struct fdma_dev *d = NULL;
	struct vbuf cb[NBUF];
	int ofd, cfd, r, stage, bufs[2] = { -1, -1 }, xfd[2] = { -1, -1 }, skip[2];
	const uint8_t *fb[2];
	char why[160];
	uint32_t seq;
	unsigned int i;

	ofd = open(out, O_RDWR | O_NONBLOCK);
	cfd = open(cap, O_RDWR | O_NONBLOCK);
	if (ofd < 0 || cfd < 0) {
		vt_fail("v4l2_vivid_loop", "open %s, %s: %s", out, cap, strerror(errno));
		return 0;
	}
	/* vivid, looping its output to its capture, exactly: no text drawn. */
	r = set_ctrl(cfd, VIVID_CID_OSD_TEXT_MODE, 2);
	if (!r && set_ctrl(cfd, VIVID_CID_HDMI0_TO, 2))
		r = set_ctrl(cfd, VIVID_CID_LOOP_VIDEO, 1);
	if (r || (r = vivid_setup(ofd, to, &po)) || (r = vivid_setup(cfd, tc, &pc))) {
		vt_fail("v4l2_vivid_loop", "vivid as an HDMI loop of 640x480 GREY (loaded with "
			"input_types=3 output_types=1?): %s", strerror(-r));
		return 0;
	}

	/*
	 * Two frames in the test generator's format (numbered 0 and 1), each
	 * written by the device into an fdma buffer of its own: built in a
	 * staging buffer, sent to card memory, read back into the buffer (a
	 * kdev: stream buffer is one piece of contiguous memory, which a
	 * 300 KiB frame need not find).
	 */
	r = fdma_open(&d, getenv("FDMA_TEST_DEVICE") ? getenv("FDMA_TEST_DEVICE")
						     : "kdev:/dev/fdma0", why, sizeof(why));
	if (r) {
		vt_fail("v4l2_vivid_loop", "fdma_open: %s", why);
		return 0;
	}
	stage = fdma_buf_alloc(d, len, 0);
	for (i = 0; i < 2; i++)
		bufs[i] = fdma_buf_alloc(d, len, 0);
	r = stage < 0 ? stage : bufs[0] < 0 ? bufs[0] : bufs[1] < 0 ? bufs[1] : 0;
	for (i = 0; !r && i < 2; i++) {
		fdma_frame_fill(fdma_buf_addr(d, stage), i, (uint32_t)len, 0);
		r = fdma_write_card(d, stage, 0, (uint64_t)i << 20, len);
		if (!r)
			r = fdma_read_card(d, bufs[i], 0, (uint64_t)i << 20, len);
	}
	if (r) {
		vt_fail("v4l2_vivid_loop", "two %zu-byte frames through card memory: %s", len,
			strerror(-r));
		return 0;
	}
	for (i = 0; i < 2; i++) {
		fb[i] = fdma_buf_addr(d, bufs[i]);
		if (frame_check(fb[i], (uint32_t)len, &seq, why, sizeof(why)) || seq != i) {
			vt_fail("v4l2_vivid_loop", "fdma frame %u: %s", i, why);
			return 0;
		}
		xfd[i] = fdma_buf_export_dmabuf(d, bufs[i], 0);
		if (xfd[i] < 0) {
			vt_fail("v4l2_vivid_loop", "fdma_buf_export_dmabuf: %s", strerror(-xfd[i]));
			return 0;
		}
	}

	/*
	 * vivid's output imports the dma-bufs (V4L2_MEMORY_DMABUF); its
	 * capture copies the output buffer queued first at every frame.
	 */
	r = xioctl(ofd, VIDIOC_REQBUFS, &rb);
	if (!r)
		r = mmap_bufs(cfd, tc, cb, NBUF);
	for (i = 0; !r && i < NBUF; i++)
		r = qbuf(cfd, tc, V4L2_MEMORY_MMAP, i, -1, 0);
	if (!r)
		r = qbuf(ofd, to, V4L2_MEMORY_DMABUF, 0, xfd[0], (uint32_t)len);
	if (!r)
		r = xioctl(ofd, VIDIOC_STREAMON, (void *)&to);
	if (!r)
		r = xioctl(cfd, VIDIOC_STREAMON, (void *)&tc);
	if (r) {
		vt_fail("v4l2_vivid_loop", "vivid importing fdma's dma-buf: %s", strerror(-r));
		return 0;
	}
	/* Frame 0 on the output until capture shows it; then frame 1 after it. */
	skip[0] = vivid_wait(cfd, cb, fb[0], len, 30);
	skip[1] = -1;
	if (skip[0] >= 0 && !qbuf(ofd, to, V4L2_MEMORY_DMABUF, 1, xfd[1], (uint32_t)len)) {
		struct v4l2_buffer vb;

		/* vivid lets frame 0 go once frame 1 waits behind it. */
		if (!dqbuf(ofd, to, V4L2_MEMORY_DMABUF, &vb, 3000) && vb.index == 0)
			skip[1] = vivid_wait(cfd, cb, fb[1], len, 30);
	}
	xioctl(cfd, VIDIOC_STREAMOFF, (void *)&tc);
	xioctl(ofd, VIDIOC_STREAMOFF, (void *)&to);
	if (skip[0] < 0 || skip[1] < 0)
		vt_fail("v4l2_vivid_loop", "vivid's capture never showed fdma frame %d exactly",
			skip[0] < 0 ? 0 : 1);
	else
		vt_pass("v4l2_vivid_loop");
	vt_info("fdma frames 0 and 1 came through vivid after %d and %d other frames", skip[0],
		skip[1]);
	rb.count = 0;
	xioctl(ofd, VIDIOC_REQBUFS, &rb);
	for (i = 0; i < NBUF; i++)
		munmap(cb[i].p, cb[i].len);
	close(cfd);
	close(ofd);
	for (i = 0; i < 2; i++)
		close(xfd[i]);
	fdma_close(d);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "stall"))
		return stall(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "vivid"))
		return vivid(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "play"))
		return play(argv[2], argv[3]);
	fprintf(stderr, "usage: fdma_v4l2 stall CAPTURE | vivid OUTPUT CAPTURE | play OUTPUT FILE\n");
	return 2;
}

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
 * Prints VMTEST PASS/FAIL lines (vmtest.h); exit 0, 77 where something
 * needed is not there.
 */
#include <linux/videodev2.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <zlib.h>

#include "fdma.h"
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
 * A test generator frame of len bytes: 0, or a message in why naming
 * the first thing wrong. *seq gets the frame's number.
 */
static int frame_check(const uint8_t *p, uint32_t len, uint32_t *seq, char *why, size_t wlen)
{
	struct fdma_testgen_hdr h;
	uint32_t i, words;

	memcpy(&h, p, sizeof(h));
	*seq = h.seq;
	if (h.magic != FDMA_TESTGEN_MAGIC || h.len != len) {
		snprintf(why, wlen, "header: magic %#x len %u (a %u-byte frame)", h.magic, h.len,
			 len);
		return -1;
	}
	words = (len - (uint32_t)sizeof(h)) / 8;
	for (i = 0; i < words; i++) {
		uint64_t w;

		memcpy(&w, p + sizeof(h) + (size_t)i * 8, 8);
		if (w != ((uint64_t)h.seq << 32 | i)) {
			snprintf(why, wlen, "frame %u: word %u is %#llx", h.seq, i,
				 (unsigned long long)w);
			return -1;
		}
	}
	if ((uint32_t)crc32(0, p + sizeof(h), len - (uint32_t)sizeof(h)) != h.crc) {
		snprintf(why, wlen, "frame %u: CRC", h.seq);
		return -1;
	}
	return 0;
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

/* ---- vivid ----------------------------------------------------------------- */

static int vivid(const char *out, const char *cap)
{
	(void)out;
	(void)cap;
	printf("VMTEST SKIP v4l2_vivid_loop: not written yet\n");
	return 77;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "stall"))
		return stall(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "vivid"))
		return vivid(argv[2], argv[3]);
	fprintf(stderr, "usage: fdma_v4l2 stall CAPTURE | vivid OUTPUT CAPTURE\n");
	return 2;
}

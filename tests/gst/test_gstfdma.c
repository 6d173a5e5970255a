// SPDX-License-Identifier: MIT
/*
 * fdmasrc and fdmasink under gst-check (GstHarness), on the simulated
 * device: every frame's bytes checked by the test generator's rule, the
 * ring's zero-copy life cycle (a buffer held downstream is one the device
 * cannot fill), drops as gaps with DISCONT and a message, time stamps,
 * caps from the properties, the checker's verdict, and bad settings.
 *
 * The elements are registered from their objects linked in (the plugin's
 * own entry point), so that this program runs under the sanitizers as
 * built. FDMA_TEST_SIM adds options to the device (engine=xdma).
 * Exit: 0 passed, 1 failed, 77 skipped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <zlib.h>

#include "gstfdma.h"

static gchar *dev_uri;		/* sim: plus FDMA_TEST_SIM */

/* The test generator's frame (include/fdma.h): header, words, CRC; seq returned. */
static gboolean frame_ok(const guint8 *p, gsize len, guint32 *seq)
{
	struct fdma_testgen_hdr h;
	gsize nwords;

	if (len < sizeof(h))
		return FALSE;
	memcpy(&h, p, sizeof(h));
	if (h.magic != FDMA_TESTGEN_MAGIC || h.len != len || h.rsvd ||
	    h.crc != crc32(0, p + sizeof(h), (uInt)(len - sizeof(h))))
		return FALSE;
	nwords = (len - sizeof(h)) / 8;
	for (gsize i = 0; i < nwords; i++) {
		guint64 w;

		memcpy(&w, p + sizeof(h) + 8 * i, 8);
		if (w != ((guint64)h.seq << 32 | i))
			return FALSE;
	}
	for (gsize i = sizeof(h) + 8 * nwords; i < len; i++)
		if (p[i])
			return FALSE;
	*seq = h.seq;
	return TRUE;
}

/* Build the generator's frame seq of len bytes (what the checker expects). */
static void frame_make(guint8 *p, gsize len, guint32 seq)
{
	struct fdma_testgen_hdr h = { .magic = FDMA_TESTGEN_MAGIC, .seq = seq, .len = (guint32)len };
	gsize nwords = (len - sizeof(h)) / 8;

	memset(p, 0, len);
	for (gsize i = 0; i < nwords; i++) {
		guint64 w = (guint64)seq << 32 | i;

		memcpy(p + sizeof(h) + 8 * i, &w, 8);
	}
	h.crc = crc32(0, p + sizeof(h), (uInt)(len - sizeof(h)));
	memcpy(p, &h, sizeof(h));
}

static GstHarness *src_harness(const gchar *props)
{
	gchar *desc = g_strdup_printf("fdmasrc device=%s %s", dev_uri, props);
	GstHarness *h = gst_harness_new_parse(desc);

	g_free(desc);
	/* A live source stamps arrival on the element's clock: a real one. */
	gst_harness_use_systemclock(h);
	return h;
}

/* A property of the harness's element (the parsed line's bin holds it). */
static guint64 stat(GstHarness *h, const gchar *factory, const gchar *prop)
{
	GstElement *el = gst_harness_find_element(h, factory);
	guint64 v = 0;

	fail_unless(el != NULL);
	g_object_get(el, prop, &v, NULL);
	gst_object_unref(el);
	return v;
}

static guint32 pull_checked(GstHarness *h, gsize size, GstBuffer **keep)
{
	GstBuffer *b = gst_harness_pull(h);
	GstMapInfo map;
	guint32 seq = 0;

	fail_unless(b != NULL, "no buffer");
	fail_unless(gst_buffer_map(b, &map, GST_MAP_READ));
	fail_unless_equals_uint64(map.size, size);
	fail_unless(frame_ok(map.data, map.size, &seq), "frame bytes wrong");
	gst_buffer_unmap(b, &map);
	if (keep)
		*keep = b;
	else
		gst_buffer_unref(b);
	return seq;
}

/* Every frame whole and in order, with rising time stamps and offsets. */
GST_START_TEST(src_frames_checked)
{
	GstHarness *h = src_harness("testgen=true drop=false format=bytes frame-size=4096 buffers=4 "
				    "num-buffers=64");
	GstClockTime last = 0;
	gst_harness_play(h);
	for (guint32 i = 0; i < 64; i++) {
		GstBuffer *b;
		guint32 seq = pull_checked(h, 4096, &b);

		fail_unless_equals_int(seq, i);
		fail_unless(GST_BUFFER_PTS_IS_VALID(b));
		fail_unless(GST_BUFFER_PTS(b) >= last);
		last = GST_BUFFER_PTS(b);
		fail_unless_equals_uint64(GST_BUFFER_OFFSET(b), i);
		/* Only the first buffer starts a stream: hold mode has no gaps. */
		fail_unless_equals_int(!!GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DISCONT), i == 0);
		gst_buffer_unref(b);
	}
	fail_unless_equals_uint64(stat(h, "fdmasrc", "frames"), 64);
	gst_harness_teardown(h);
}
GST_END_TEST;

/*
 * Zero-copy: a frame passed on is the device's buffer, where the device
 * wrote it: page-aligned DMA memory, one of the ring's three. fakesink
 * drops each buffer in the streaming thread, so one is lent at a time.
 */
struct addrs {
	const guint8 *seen[8];
	guint nseen, frames, bad, unaligned;
};

static void addr_handoff(GstElement *sink, GstBuffer *b, GstPad *pad, gpointer data)
{
	struct addrs *a = data;
	GstMapInfo m;
	guint32 seq;
	guint k;

	(void)sink;
	(void)pad;
	if (!gst_buffer_map(b, &m, GST_MAP_READ))
		return;
	if (!frame_ok(m.data, m.size, &seq) || seq != a->frames)
		a->bad++;
	if ((guintptr)m.data & 4095)
		a->unaligned++;
	for (k = 0; k < a->nseen && a->seen[k] != m.data; k++)
		;
	if (k == a->nseen && k < G_N_ELEMENTS(a->seen))
		a->seen[a->nseen++] = m.data;
	a->frames++;
	gst_buffer_unmap(b, &m);
}

GST_START_TEST(src_ring_zero_copy)
{
	gchar *desc = g_strdup_printf("fdmasrc name=s device=%s testgen=true drop=false "
				      "format=bytes frame-size=2048 buffers=3 num-buffers=30 ! "
				      "fakesink name=k signal-handoffs=true sync=false", dev_uri);
	GstElement *p = gst_parse_launch(desc, NULL), *src, *sink;
	GstBus *bus = gst_element_get_bus(p);
	struct addrs a = { .nseen = 0 };
	GstMessage *msg;
	guint64 copies;

	g_free(desc);
	sink = gst_bin_get_by_name(GST_BIN(p), "k");
	src = gst_bin_get_by_name(GST_BIN(p), "s");
	g_signal_connect(sink, "handoff", G_CALLBACK(addr_handoff), &a);
	gst_element_set_state(p, GST_STATE_PLAYING);
	msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
	fail_unless(msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS);
	gst_message_unref(msg);
	g_object_get(src, "copies", &copies, NULL);
	gst_element_set_state(p, GST_STATE_NULL);
	fail_unless_equals_int(a.frames, 30);
	fail_unless_equals_int(a.bad, 0);
	fail_unless_equals_uint64(copies, 0);
	fail_unless_equals_int(a.unaligned, 0);
	fail_unless(a.nseen <= 3, "frames in %u places: copied?", a.nseen);
	gst_object_unref(src);
	gst_object_unref(sink);
	gst_object_unref(bus);
	gst_object_unref(p);
}
GST_END_TEST;

/*
 * Downstream holding buffers: never the device's last one. With three
 * buffers at most two are lent at once; the rest come as copies, every
 * byte right, and the source does not stall.
 */
GST_START_TEST(src_copies_when_held)
{
	GstHarness *h = src_harness("testgen=true drop=false format=bytes frame-size=2048 buffers=3");
	GstBuffer *held[10];

	gst_harness_play(h);
	for (guint32 i = 0; i < 10; i++)
		fail_unless_equals_int(pull_checked(h, 2048, &held[i]), i);
	fail_unless(stat(h, "fdmasrc", "copies") >= 8);
	for (guint i = 0; i < 10; i++)
		gst_buffer_unref(held[i]);
	gst_harness_teardown(h);
}
GST_END_TEST;

/* A buffer held past the element's end keeps the stream's memory alive. */
GST_START_TEST(src_buffer_outlives_element)
{
	GstHarness *h = src_harness("testgen=true drop=false format=bytes frame-size=1024 buffers=2");
	GstBuffer *b;
	GstMapInfo m;
	guint32 seq;

	gst_harness_play(h);
	pull_checked(h, 1024, &b);
	gst_harness_teardown(h);
	fail_unless(gst_buffer_map(b, &m, GST_MAP_READ));
	fail_unless(frame_ok(m.data, m.size, &seq) && seq == 0);
	gst_buffer_unmap(b, &m);
	gst_buffer_unref(b);
}
GST_END_TEST;

/*
 * Drops: a slow element downstream (identity sleeps 5 ms a frame, the
 * generator sends one every 0.5 ms) leaves the device without buffers;
 * it drops frames, and they show as gaps in seq, the drops count and
 * messages. The device's counter does not say where between two frames
 * a drop fell (one may land after a frame and be read with it), so the
 * count covers every gap, and the messages add up to the count; where
 * the engine flags the first frame after drops (FDMA_CPL_OVERRUN), that
 * frame is DISCONT.
 */
struct drop_seen {
	guint32 last_seq;
	guint frames, bad, gaps, unflagged_gaps;
};

static void drop_handoff(GstElement *sink, GstBuffer *b, GstPad *pad, gpointer data)
{
	struct drop_seen *d = data;
	GstMapInfo m;
	guint32 seq;

	(void)sink;
	(void)pad;
	if (!gst_buffer_map(b, &m, GST_MAP_READ) || !frame_ok(m.data, m.size, &seq)) {
		d->bad++;
		return;
	}
	gst_buffer_unmap(b, &m);
	if (d->frames && seq != d->last_seq + 1) {
		d->gaps += seq - d->last_seq - 1;
		if (!GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DISCONT))
			d->unflagged_gaps++;
	}
	d->last_seq = seq;
	d->frames++;
}

GST_START_TEST(src_drops_discont)
{
	gchar *desc = g_strdup_printf("fdmasrc name=s device=%s testgen=true drop=true "
				      "framerate=2000/1 format=bytes frame-size=1024 buffers=3 "
				      "num-buffers=20 ! identity sleep-time=5000 ! "
				      "fakesink name=k signal-handoffs=true sync=false", dev_uri);
	GstElement *p = gst_parse_launch(desc, NULL), *src, *sink;
	GstBus *bus = gst_element_get_bus(p);
	struct drop_seen d = { 0 };
	guint64 drops, sum = 0, flagged;
	struct fdma_dev *dev;
	struct fdma_info info;
	GstMessage *msg;

	g_free(desc);
	sink = gst_bin_get_by_name(GST_BIN(p), "k");
	src = gst_bin_get_by_name(GST_BIN(p), "s");
	g_signal_connect(sink, "handoff", G_CALLBACK(drop_handoff), &d);
	gst_element_set_state(p, GST_STATE_PLAYING);
	while ((msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GST_MESSAGE_ERROR |
						 GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT))) {
		GstMessageType t = GST_MESSAGE_TYPE(msg);
		guint64 n = 0;

		if (t == GST_MESSAGE_ELEMENT &&
		    gst_structure_get_uint64(gst_message_get_structure(msg), "dropped", &n))
			sum += n;
		gst_message_unref(msg);
		fail_unless(t != GST_MESSAGE_ERROR, "the pipeline failed");
		if (t == GST_MESSAGE_EOS)
			break;
	}
	g_object_get(src, "drops", &drops, NULL);
	gst_element_set_state(p, GST_STATE_NULL);
	fail_unless_equals_int(d.bad, 0);
	fail_unless_equals_int(d.frames, 20);
	fail_unless(d.gaps > 0, "a slow consumer and no frame lost");
	fail_unless(drops >= d.gaps, "%" G_GUINT64_FORMAT " drops counted, %u frames missing",
		    drops, d.gaps);
	fail_unless_equals_uint64(sum, drops);
	fail_unless_equals_int(fdma_open(&dev, dev_uri, NULL, 0), 0);
	fdma_get_info(dev, &info);
	flagged = info.chan[fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM)].overrun_flag;
	fdma_close(dev);
	if (flagged)
		fail_unless_equals_int(d.unflagged_gaps, 0);
	gst_object_unref(src);
	gst_object_unref(sink);
	gst_object_unref(bus);
	gst_object_unref(p);
}
GST_END_TEST;

/* Video: caps from the properties, durations from the frame rate, device time stamps. */
GST_START_TEST(src_video_caps_device_time)
{
	GstHarness *h = src_harness("testgen=true drop=false format=GRAY8 width=64 height=48 "
				    "framerate=100/1 timestamp=device buffers=4");
	GstCaps *caps;
	GstVideoInfo vi;
	GstClockTime pts0 = 0;
	guint64 dev0 = 0;

	gst_harness_play(h);
	for (guint32 i = 0; i < 5; i++) {
		GstBuffer *b = gst_harness_pull(h);
		struct fdma_testgen_hdr hdr;
		guint32 seq;
		GstMapInfo m;

		fail_unless(b != NULL);
		fail_unless(gst_buffer_map(b, &m, GST_MAP_READ));
		fail_unless(frame_ok(m.data, m.size, &seq) && seq == i);
		memcpy(&hdr, m.data, sizeof(hdr));
		gst_buffer_unmap(b, &m);
		fail_unless_equals_uint64(GST_BUFFER_DURATION(b), GST_SECOND / 100);
		if (!i) {
			pts0 = GST_BUFFER_PTS(b);
			dev0 = hdr.tstamp_ns;
		}
		/* The device's clock, counted from the first frame. */
		fail_unless_equals_uint64(GST_BUFFER_PTS(b) - pts0, hdr.tstamp_ns - dev0);
		gst_buffer_unref(b);
	}
	caps = gst_pad_get_current_caps(h->sinkpad);
	fail_unless(caps != NULL);
	fail_unless(gst_video_info_from_caps(&vi, caps));
	fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&vi), GST_VIDEO_FORMAT_GRAY8);
	fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&vi), 64);
	fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&vi), 48);
	fail_unless_equals_int(GST_VIDEO_INFO_FPS_N(&vi), 100);
	fail_unless_equals_uint64(GST_VIDEO_INFO_SIZE(&vi), 64 * 48);
	gst_caps_unref(caps);
	gst_harness_teardown(h);
}
GST_END_TEST;

/* Bad settings: the element does not start, and its error names what was wrong. */
static void expect_start_error(const gchar *desc, const gchar *needle)
{
	GstElement *p = gst_parse_launch(desc, NULL);
	GstBus *bus;
	GstMessage *msg;
	GError *err = NULL;
	gchar *dbg = NULL, *all;

	fail_unless(p != NULL, "%s", desc);
	bus = gst_element_get_bus(p);
	gst_element_set_state(p, GST_STATE_PLAYING);
	msg = gst_bus_timed_pop_filtered(bus, 5 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
	fail_unless(msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR, "no error for '%s'", desc);
	gst_message_parse_error(msg, &err, &dbg);
	all = g_strdup_printf("%s %s", err->message, dbg ? dbg : "");
	fail_unless(strstr(all, needle) != NULL, "'%s': '%s' does not say '%s'", desc, all, needle);
	g_free(all);
	g_free(dbg);
	g_error_free(err);
	gst_message_unref(msg);
	gst_element_set_state(p, GST_STATE_NULL);
	gst_object_unref(bus);
	gst_object_unref(p);
}

GST_START_TEST(bad_settings)
{
	gchar *d;

	expect_start_error("fdmasrc device=nosuch: format=bytes frame-size=64 ! fakesink",
			   "nosuch:");
	d = g_strdup_printf("fdmasrc device=%s channel=0 format=bytes frame-size=64 ! fakesink", dev_uri);
	expect_start_error(d, "not a C2H stream channel");
	g_free(d);
	d = g_strdup_printf("fdmasrc device=%s format=bytes ! fakesink", dev_uri);
	expect_start_error(d, "frame-size");
	g_free(d);
	d = g_strdup_printf("fdmasrc device=%s format=NOPE width=8 height=8 ! fakesink", dev_uri);
	expect_start_error(d, "Unknown format 'NOPE'");
	g_free(d);
	d = g_strdup_printf("fdmasrc device=%s format=GRAY8 ! fakesink", dev_uri);
	expect_start_error(d, "needs width and height");
	g_free(d);
	d = g_strdup_printf("fakesrc num-buffers=1 ! fdmasink device=%s channel=1", dev_uri);
	expect_start_error(d, "not an H2C stream channel");
	g_free(d);
	g_unsetenv("FDMA_DEVICE");
	expect_start_error("fdmasrc format=bytes frame-size=64 ! fakesink", "FDMA_DEVICE");
}
GST_END_TEST;

/* The sink: frames to the device's checker, its verdict at the end of the stream. */
static void sink_run(guint nframes, gint bad_frame, gsize len)
{
	gchar *desc = g_strdup_printf("fdmasink device=%s testgen=true buffers=3", dev_uri);
	GstHarness *h = gst_harness_new_parse(desc);
	GstBus *bus = gst_bus_new();
	guint64 checked = 0, errors = 0, frames = 0, copies;
	GstMessage *msg;

	g_free(desc);
	gst_element_set_bus(h->element, bus);
	gst_harness_set_src_caps_str(h, "application/octet-stream");
	for (guint i = 0; i < nframes; i++) {
		GstBuffer *b = gst_buffer_new_allocate(NULL, len, NULL);
		GstMapInfo m;

		gst_buffer_map(b, &m, GST_MAP_WRITE);
		frame_make(m.data, len, i);
		if ((gint)i == bad_frame)
			m.data[len / 2] ^= 0x10;
		gst_buffer_unmap(b, &m);
		fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
	}
	gst_harness_push_event(h, gst_event_new_eos());
	frames = stat(h, "fdmasink", "frames");
	checked = stat(h, "fdmasink", "checked");
	errors = stat(h, "fdmasink", "check-errors");
	copies = stat(h, "fdmasink", "copies");
	/* Buffers of the default allocator: each copied into the sink's DMA buffers. */
	fail_unless_equals_uint64(copies, nframes);
	fail_unless_equals_uint64(frames, nframes);
	fail_unless_equals_uint64(checked, bad_frame < 0 ? nframes : nframes - 1);
	fail_unless_equals_uint64(errors, bad_frame < 0 ? 0 : 1);
	msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
	fail_unless_equals_int(msg != NULL, bad_frame >= 0);
	if (msg)
		gst_message_unref(msg);
	gst_element_set_bus(h->element, NULL);
	gst_object_unref(bus);
	gst_harness_teardown(h);
}

GST_START_TEST(sink_checker_good)
{
	sink_run(40, -1, 3000);
}
GST_END_TEST;

GST_START_TEST(sink_checker_bad_frame)
{
	sink_run(10, 6, 1000);
}
GST_END_TEST;

/*
 * Zero-copy into the sink: upstream that takes the allocator the sink
 * offers writes frames into the device's DMA buffers, and they go from
 * there, none copied, every one counted good by the checker. Memory still
 * held after the sink stopped stays valid (the device stays open for it).
 */
GST_START_TEST(sink_zero_copy)
{
	gchar *desc = g_strdup_printf("fdmasink device=%s testgen=true buffers=3", dev_uri);
	GstHarness *h = gst_harness_new_parse(desc);
	GstAllocationParams params;
	GstAllocator *alloc = NULL;
	GstBuffer *late;
	GstMapInfo m;

	g_free(desc);
	GstCaps *caps = gst_caps_from_string("video/x-raw,format=GRAY8,width=64,height=48,"
					     "framerate=30/1");
	GstQuery *q = gst_query_new_allocation(caps, TRUE);

	gst_harness_set_src_caps(h, caps);
	/* What an element upstream asks before it allocates. */
	fail_unless(gst_pad_peer_query(h->srcpad, q));
	fail_unless(gst_query_get_n_allocation_params(q) > 0, "the sink offered no allocator");
	gst_query_parse_nth_allocation_param(q, 0, &alloc, &params);
	fail_unless(alloc != NULL);
	fail_unless(gst_query_get_n_allocation_pools(q) > 0, "no pool offered for video");
	gst_query_unref(q);
	fail_unless_equals_string(alloc->mem_type, GST_FDMA_MEMORY_TYPE);
	for (guint i = 0; i < 20; i++) {
		GstBuffer *b = gst_buffer_new_allocate(alloc, 64 * 48, &params);

		fail_unless(b != NULL);
		fail_unless(gst_buffer_map(b, &m, GST_MAP_WRITE));
		frame_make(m.data, m.size, i);
		gst_buffer_unmap(b, &m);
		fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
	}
	late = gst_buffer_new_allocate(alloc, 64 * 48, &params);
	gst_harness_push_event(h, gst_event_new_eos());
	fail_unless_equals_uint64(stat(h, "fdmasink", "checked"), 20);
	fail_unless_equals_uint64(stat(h, "fdmasink", "check-errors"), 0);
	fail_unless_equals_uint64(stat(h, "fdmasink", "copies"), 0);
	gst_harness_teardown(h);
	fail_unless(gst_buffer_map(late, &m, GST_MAP_WRITE));
	memset(m.data, 0x5a, m.size);
	gst_buffer_unmap(late, &m);
	gst_buffer_unref(late);
	gst_object_unref(alloc);
}
GST_END_TEST;

/* Source to sink through a queue, two devices: the checker counts every frame good. */
GST_START_TEST(src_to_sink)
{
	gchar *desc = g_strdup_printf("fdmasrc device=%s testgen=true drop=false format=bytes "
				      "frame-size=8192 num-buffers=300 ! queue ! fdmasink name=s "
				      "device=%s testgen=true sync=false", dev_uri, dev_uri);
	GstElement *p = gst_parse_launch(desc, NULL), *s;
	GstBus *bus = gst_element_get_bus(p);
	GstMessage *msg;
	guint64 checked = 0;

	g_free(desc);
	gst_element_set_state(p, GST_STATE_PLAYING);
	msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
	fail_unless(msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS);
	gst_message_unref(msg);
	s = gst_bin_get_by_name(GST_BIN(p), "s");
	g_object_get(s, "checked", &checked, NULL);
	fail_unless_equals_uint64(checked, 300);
	gst_object_unref(s);
	gst_element_set_state(p, GST_STATE_NULL);
	gst_object_unref(bus);
	gst_object_unref(p);
}
GST_END_TEST;

static Suite *fdma_suite(void)
{
	Suite *s = suite_create("fdma GStreamer elements");
	TCase *tc = tcase_create("general");

	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tcase_add_test(tc, src_frames_checked);
	tcase_add_test(tc, src_ring_zero_copy);
	tcase_add_test(tc, src_copies_when_held);
	tcase_add_test(tc, src_buffer_outlives_element);
	tcase_add_test(tc, src_drops_discont);
	tcase_add_test(tc, src_video_caps_device_time);
	tcase_add_test(tc, bad_settings);
	tcase_add_test(tc, sink_checker_good);
	tcase_add_test(tc, sink_checker_bad_frame);
	tcase_add_test(tc, sink_zero_copy);
	tcase_add_test(tc, src_to_sink);
	return s;
}

int main(int argc, char **argv)
{
	const char *opts = getenv("FDMA_TEST_SIM");
	SRunner *sr;
	int failed;

	gst_check_init(&argc, &argv);
	if (!gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "fdma",
					"fdma elements (linked in)", gst_fdma_plugin_init,
					FDMA_VERSION_STRING, "MIT/X11", "fdma", "fdma", "fdma")) {
		fprintf(stderr, "could not register the fdma elements\n");
		return 1;
	}
	dev_uri = opts && *opts ? g_strconcat("sim:", opts, NULL) : g_strdup("sim:");
	sr = srunner_create(fdma_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	g_free(dev_uri);
	return failed ? 1 : 0;
}

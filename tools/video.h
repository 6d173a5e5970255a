/* SPDX-License-Identifier: MIT */
/*
 * video.h - fdma.ko's video devices (v4l2=1, docs/v4l2.md) as the tools
 * see them from sysfs: which /dev/videoN drives a channel, and the frame
 * format the module was loaded with, so that fdma info can list them and
 * fdma doctor can weigh their rate against the link. root is "" for the
 * live system, or a recorded tree (fdma doctor --sysroot).
 */
#ifndef FDMA_TOOL_VIDEO_H
#define FDMA_TOOL_VIDEO_H

#include <stddef.h>
#include <stdint.h>

/* A video device's format (its settings in sysfs). */
struct tool_vfmt {
	char fourcc[5];		/* "YUYV" */
	unsigned width, height;
	unsigned bytesperline;	/* the setting, else the format's own */
	unsigned fps;
	uint64_t sizeimage;	/* bytes per frame */
};

/*
 * Video device video's format ("video0"), from its settings
 * (/sys/class/video4linux/videoN/format, width, height, bytesperline,
 * fps), or, from a driver before those, the module's v4l2_* parameters:
 * 0, -ENOENT when neither is there, -EINVAL when a value is not one
 * fdma.ko takes.
 */
int tool_video_format(const char *root, const char *video, struct tool_vfmt *f);
#define TOOL_VIDEO_NAME 32	/* room for a video device's name, "video0" */

/*
 * The video devices ("video0") of the fdma node's ("fdma0") channels 0 to
 * nchan - 1, in video[ch] ("" for none), from one pass over
 * /sys/class/video4linux, whose name files say "fdma0-ch2". Returns how
 * many there are.
 */
int tool_video_nodes(const char *root, const char *node, char (*video)[TOOL_VIDEO_NAME],
		     unsigned nchan);

#endif /* FDMA_TOOL_VIDEO_H */

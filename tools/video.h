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
/*
 * The video device ("video0") of channel ch of the fdma node ("fdma0"),
 * from /sys/class/video4linux/<dev>/name ("fdma0-ch2"): 0, or -ENOENT.
 */
int tool_video_node(const char *root, const char *node, unsigned ch, char *buf, size_t len);

#endif /* FDMA_TOOL_VIDEO_H */

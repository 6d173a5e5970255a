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

/* The format every video device of the module has (its v4l2_* parameters). */
struct tool_vfmt {
	char fourcc[5];		/* "YUYV" */
	unsigned width, height;
	unsigned bytesperline;	/* the parameter, else the format's own */
	unsigned fps;
	uint64_t sizeimage;	/* bytes per frame */
};

/*
 * The module's video format: 0, -ENOENT when fdma is not loaded with
 * v4l2=1, -EINVAL when a parameter is not one fdma.ko takes (an unknown
 * fourcc: the module made no device then).
 */
int tool_video_format(const char *root, struct tool_vfmt *f);
/*
 * The video device ("video0") of channel ch of the fdma node ("fdma0"),
 * from /sys/class/video4linux/<dev>/name ("fdma0-ch2"): 0, or -ENOENT.
 */
int tool_video_node(const char *root, const char *node, unsigned ch, char *buf, size_t len);

#endif /* FDMA_TOOL_VIDEO_H */

// SPDX-License-Identifier: MIT
/* fdma.ko's video devices from sysfs (video.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "video.h"

/*
 * The pixel formats fdma.ko's video devices take, as kernel/fdma_v4l2.c
 * lists them: bits per pixel of the first plane, and the whole frame as a
 * fraction of that plane (NV12 carries its chroma below the luma).
 */
static const struct {
	const char *fourcc;
	unsigned bpp, num, den;
} vfmts[] = {
	{ "YUYV", 16, 1, 1 }, { "UYVY", 16, 1, 1 }, { "NV12", 8, 3, 2 },
	{ "GREY", 8, 1, 1 },  { "Y16 ", 16, 1, 1 }, { "RGB3", 24, 1, 1 },
	{ "BGR3", 24, 1, 1 }, { "XR24", 32, 1, 1 }, { "BA81", 8, 1, 1 },
	{ "RGGB", 8, 1, 1 },
};

/* ROOT/PATH's first line, newline stripped: 0, or -errno. */
static int rd(const char *root, const char *path, char *buf, size_t len)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", root, path);
	return tool_read_line(p, buf, len);
}

/* DIR/PRENAME as a number. */
static int rd_uint(const char *root, const char *dir, const char *pre, const char *name,
		   unsigned *v)
{
	char path[320], buf[32], *end;
	unsigned long n;

	snprintf(path, sizeof(path), "%s/%s%s", dir, pre, name);
	if (rd(root, path, buf, sizeof(buf)))
		return -ENOENT;
	n = strtoul(buf, &end, 10);
	if (end == buf || *end || n > 1000000)
		return -EINVAL;
	*v = (unsigned)n;
	return 0;
}

int tool_video_format(const char *root, const char *video, struct tool_vfmt *f)
{
	char dir[128], path[192], buf[32];
	const char *pre = "";
	unsigned i, minbpl;

	memset(f, 0, sizeof(*f));
	/* The device's own settings; a driver before them: the module's parameters. */
	snprintf(dir, sizeof(dir), "/sys/class/video4linux/%s", video);
	snprintf(path, sizeof(path), "%s/format", dir);
	if (rd(root, path, buf, sizeof(buf))) {
		if (rd(root, "/sys/module/fdma/parameters/v4l2", buf, sizeof(buf)) ||
		    buf[0] != 'Y' ||
		    rd(root, "/sys/module/fdma/parameters/v4l2_format", buf, sizeof(buf)))
			return -ENOENT;
		snprintf(dir, sizeof(dir), "/sys/module/fdma/parameters");
		pre = "v4l2_";
	}
	if (strlen(buf) > 4)
		return -EINVAL;
	/* A three-letter fourcc ("Y16") ends in a space, as the kernel pads it. */
	snprintf(f->fourcc, sizeof(f->fourcc), "%-4.4s", buf);
	if (rd_uint(root, dir, pre, "width", &f->width) ||
	    rd_uint(root, dir, pre, "height", &f->height) ||
	    rd_uint(root, dir, pre, "bytesperline", &f->bytesperline) ||
	    rd_uint(root, dir, pre, "fps", &f->fps) || !f->width || !f->height || !f->fps)
		return -EINVAL;
	for (i = 0; i < sizeof(vfmts) / sizeof(vfmts[0]); i++) {
		if (strcmp(vfmts[i].fourcc, f->fourcc))
			continue;
		minbpl = (f->width * vfmts[i].bpp + 7) / 8;
		if (!f->bytesperline)
			f->bytesperline = minbpl;
		f->sizeimage = (uint64_t)f->bytesperline * f->height * vfmts[i].num / vfmts[i].den;
		return 0;
	}
	return -EINVAL;
}

int tool_video_nodes(const char *root, const char *node, char (*video)[TOOL_VIDEO_NAME],
		     unsigned nchan)
{
	char path[512], name[64];
	size_t nl = strlen(node);
	struct dirent *e;
	unsigned ch;
	int n = 0;
	DIR *d;

	for (ch = 0; ch < nchan; ch++)
		video[ch][0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/class/video4linux", root);
	d = opendir(path);
	if (!d)
		return 0;
	/* One pass over the class: each fdma device's name is "<node>-ch<N>". */
	while ((e = readdir(d))) {
		char *end;

		if (strncmp(e->d_name, "video", 5) || strlen(e->d_name) >= TOOL_VIDEO_NAME)
			continue;
		snprintf(path, sizeof(path), "/sys/class/video4linux/%s/name", e->d_name);
		if (rd(root, path, name, sizeof(name)) || strncmp(name, node, nl) ||
		    strncmp(name + nl, "-ch", 3))
			continue;
		ch = (unsigned)strtoul(name + nl + 3, &end, 10);
		if (end == name + nl + 3 || *end || ch >= nchan)
			continue;
		strcpy(video[ch], e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

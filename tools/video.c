// SPDX-License-Identifier: MIT
/* fdma.ko's video devices from sysfs (video.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, path);
	f = fopen(p, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* DIR/NAME as a number. */
static int rd_uint(const char *root, const char *dir, const char *name, unsigned *v)
{
	char path[192], buf[32], *end;
	unsigned long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
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
	snprintf(path, sizeof(path), "%swidth", pre);
	if (rd_uint(root, dir, path, &f->width))
		return -EINVAL;
	snprintf(path, sizeof(path), "%sheight", pre);
	if (rd_uint(root, dir, path, &f->height))
		return -EINVAL;
	snprintf(path, sizeof(path), "%sbytesperline", pre);
	if (rd_uint(root, dir, path, &f->bytesperline))
		return -EINVAL;
	snprintf(path, sizeof(path), "%sfps", pre);
	if (rd_uint(root, dir, path, &f->fps) || !f->width || !f->height || !f->fps)
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

int tool_video_node(const char *root, const char *node, unsigned ch, char *buf, size_t len)
{
	char path[512], want[64], name[64];
	struct dirent *e;
	int ret = -ENOENT;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/class/video4linux", root);
	d = opendir(path);
	if (!d)
		return -ENOENT;
	snprintf(want, sizeof(want), "%s-ch%u", node, ch);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "video", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/class/video4linux/%s/name", e->d_name);
		if (!rd(root, path, name, sizeof(name)) && !strcmp(name, want) &&
		    strlen(e->d_name) < len) {
			strcpy(buf, e->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

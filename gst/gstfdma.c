// SPDX-License-Identifier: MIT
/*
 * The fdma GStreamer plugin: registers fdmasrc and fdmasink, and holds what
 * they share (opening a device and finding its stream channel).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>


#include "gstfdma.h"

gboolean gst_fdma_open_chan(GstElement *el, const gchar *uri, enum fdma_dir dir, gint ch,
			    struct fdma_dev **devp, gint *chp, struct fdma_info *info)
{
	const char *what = dir == FDMA_C2H ? "C2H" : "H2C";
	char err[256] = "";
	int ret;

	if (!uri || !*uri)
		uri = g_getenv("FDMA_DEVICE");
	if (!uri || !*uri) {
		GST_ELEMENT_ERROR(el, RESOURCE, NOT_FOUND, ("No fdma device given."),
				  ("set the element's 'device' property or FDMA_DEVICE "
				   "(e.g. device=/dev/fdma0 or device=sim:)"));
		return FALSE;
	}
	/* A bare node is the kernel driver's, as the fdma command takes it. */
	gchar *full = g_str_has_prefix(uri, "/dev/") ? g_strconcat("kdev:", uri, NULL) : g_strdup(uri);

	ret = fdma_open(devp, full, err, sizeof(err));
	if (ret < 0) {
		GST_ELEMENT_ERROR(el, RESOURCE, OPEN_READ_WRITE,
				  ("Could not open fdma device '%s'.", full),
				  ("%s (%s)", err, g_strerror(-ret)));
		g_free(full);
		return FALSE;
	}
	ret = fdma_get_info(*devp, info);
	if (!ret && ch < 0) {
		ret = fdma_find_chan(*devp, dir, FDMA_KIND_STREAM);
		if (ret < 0) {
			GST_ELEMENT_ERROR(el, RESOURCE, NOT_FOUND,
					  ("fdma device '%s' has no %s stream channel.", full, what),
					  ("%s", fdma_errmsg(*devp)));
			goto fail;
		}
		ch = ret;
		ret = 0;
	}
	if (ret < 0) {
		GST_ELEMENT_ERROR(el, RESOURCE, OPEN_READ_WRITE, ("fdma device '%s'.", full),
				  ("%s", fdma_errmsg(*devp)));
		goto fail;
	}
	if ((guint)ch >= info->nchan || info->chan[ch].kind != FDMA_KIND_STREAM ||
	    info->chan[ch].dir != dir) {
		GST_ELEMENT_ERROR(el, RESOURCE, SETTINGS,
				  ("Channel %d of fdma device '%s' is not %s %s stream channel.",
				   ch, full, dir == FDMA_C2H ? "a" : "an", what),
				  ("the device has %u channels; 'fdma info %s' lists them",
				   info->nchan, full));
		goto fail;
	}
	*chp = ch;
	g_free(full);
	return TRUE;
fail:
	fdma_close(*devp);
	*devp = NULL;
	g_free(full);
	return FALSE;
}

gboolean gst_fdma_plugin_init(GstPlugin *plugin)
{
	gboolean ok = GST_ELEMENT_REGISTER(fdmasrc, plugin);

	return GST_ELEMENT_REGISTER(fdmasink, plugin) && ok;
}

#ifndef PACKAGE
#define PACKAGE "fdma"
#endif
#ifndef GST_FDMA_VERSION
#define GST_FDMA_VERSION FDMA_VERSION_STRING
#endif

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, fdma,
		  "Zero-copy frames to and from an FPGA's DMA engine (libfdma)",
		  gst_fdma_plugin_init, GST_FDMA_VERSION, "MIT/X11", "fdma", "fdma")

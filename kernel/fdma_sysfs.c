// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: attributes of /sys/class/fdma/fdmaN.
 *
 *   irq_mode, irq_vectors            what was granted (msix, msi or intx)
 *   link_speed, link_width           negotiated (LnkSta), with the maximum
 *   link_max_speed, link_max_width   (LnkCap) beside them: a down-trained
 *                                    link shows as a difference
 *   mps, mrrs                        Max Payload Size, Max Read Request Size
 *   version, channels, card_size, align, max_desc_len, ring_size,
 *   cq_entries
 *   dma_align                        alignment of buffer offsets, lengths
 *                                    and registered memory
 *   pinned_pages, buffers, allocated_bytes
 *                                    user pages pinned by registrations,
 *                                    buffers alive, bytes of allocated
 *                                    buffers: 0 when every file is closed
 *                                    (leak checks)
 *   chN/                             per channel: dir, kind, irq_vector,
 *                                    interrupts, completions, bytes, errors,
 *                                    resets, canceled, lost_irqs, timeouts,
 *                                    wd_reaps, transfers, descriptors,
 *                                    doorbells, syscalls,
 *                                    status; coal_count and coal_usecs
 *                                    (read-write)
 *
 * The groups are built per device because the number of channels is the
 * engine's. remove() deletes them before anything they read goes away.
 */
#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "fdma_drv.h"

/* ---- device ------------------------------------------------------------ */

static ssize_t irq_mode_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  fdma_irq_mode_name(to_fdma_dev(dev)->irq_mode));
}
static DEVICE_ATTR_RO(irq_mode);

static ssize_t irq_vectors_show(struct device *dev,
				struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fdma_dev(dev)->nvec);
}
static DEVICE_ATTR_RO(irq_vectors);

static const char *fdma_speed_str(u32 code)
{
	static const char * const speeds[] = {
		"unknown", "2.5 GT/s", "5.0 GT/s", "8.0 GT/s",
		"16.0 GT/s", "32.0 GT/s", "64.0 GT/s",
	};

	return code < ARRAY_SIZE(speeds) ? speeds[code] : "unknown";
}

/* Link status or capability; "n/a" for a conventional PCI function or none. */
static ssize_t fdma_link_show(struct device *dev, char *buf, bool cap,
			      bool width)
{
	struct pci_dev *pdev = to_fdma_dev(dev)->pdev;
	u32 speed, lanes;

	if (!pdev || !pci_is_pcie(pdev))
		return sysfs_emit(buf, "n/a\n");
	if (cap) {
		u32 lnkcap;

		pcie_capability_read_dword(pdev, PCI_EXP_LNKCAP, &lnkcap);
		speed = lnkcap & PCI_EXP_LNKCAP_SLS;
		lanes = FIELD_GET(PCI_EXP_LNKCAP_MLW, lnkcap);
	} else {
		u16 lnksta;

		pcie_capability_read_word(pdev, PCI_EXP_LNKSTA, &lnksta);
		speed = lnksta & PCI_EXP_LNKSTA_CLS;
		lanes = FIELD_GET(PCI_EXP_LNKSTA_NLW, lnksta);
	}
	if (width)
		return sysfs_emit(buf, "%u\n", lanes);
	return sysfs_emit(buf, "%s\n", fdma_speed_str(speed));
}

static ssize_t link_speed_show(struct device *dev, struct device_attribute *a,
			       char *buf)
{
	return fdma_link_show(dev, buf, false, false);
}
static DEVICE_ATTR_RO(link_speed);

static ssize_t link_width_show(struct device *dev, struct device_attribute *a,
			       char *buf)
{
	return fdma_link_show(dev, buf, false, true);
}
static DEVICE_ATTR_RO(link_width);

static ssize_t link_max_speed_show(struct device *dev,
				   struct device_attribute *a, char *buf)
{
	return fdma_link_show(dev, buf, true, false);
}
static DEVICE_ATTR_RO(link_max_speed);

static ssize_t link_max_width_show(struct device *dev,
				   struct device_attribute *a, char *buf)
{
	return fdma_link_show(dev, buf, true, true);
}
static DEVICE_ATTR_RO(link_max_width);

static ssize_t mps_show(struct device *dev, struct device_attribute *a,
			char *buf)
{
	struct pci_dev *pdev = to_fdma_dev(dev)->pdev;

	if (!pdev || !pci_is_pcie(pdev))
		return sysfs_emit(buf, "n/a\n");
	return sysfs_emit(buf, "%d\n", pcie_get_mps(pdev));
}
static DEVICE_ATTR_RO(mps);

static ssize_t mrrs_show(struct device *dev, struct device_attribute *a,
			 char *buf)
{
	struct pci_dev *pdev = to_fdma_dev(dev)->pdev;

	if (!pdev || !pci_is_pcie(pdev))
		return sysfs_emit(buf, "n/a\n");
	return sysfs_emit(buf, "%d\n", pcie_get_readrq(pdev));
}
static DEVICE_ATTR_RO(mrrs);

/* What drives the rings: "engine" (an FDMA function), "dmaengine". */
static ssize_t backend_show(struct device *dev, struct device_attribute *a,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_fdma_dev(dev)->chan[0].ops->backend);
}
static DEVICE_ATTR_RO(backend);

static ssize_t version_show(struct device *dev, struct device_attribute *a,
			    char *buf)
{
	u32 v = to_fdma_dev(dev)->caps.version;

	return sysfs_emit(buf, "%u.%u\n", v >> 16, v & 0xffff);
}
static DEVICE_ATTR_RO(version);

static ssize_t channels_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fdma_dev(dev)->caps.nchan);
}
static DEVICE_ATTR_RO(channels);

static ssize_t card_size_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_fdma_dev(dev)->card_size);
}
static DEVICE_ATTR_RO(card_size);

static ssize_t align_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fdma_dev(dev)->caps.align);
}
static DEVICE_ATTR_RO(align);

static ssize_t max_desc_len_show(struct device *dev,
				 struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fdma_dev(dev)->caps.max_desc_len);
}
static DEVICE_ATTR_RO(max_desc_len);

static ssize_t ring_size_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fdma_dev(dev)->ring_size);
}
static DEVICE_ATTR_RO(ring_size);

static ssize_t cq_entries_show(struct device *dev, struct device_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", fdma_param_cq_entries);
}
static DEVICE_ATTR_RO(cq_entries);

static ssize_t pinned_pages_show(struct device *dev,
				 struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_fdma_dev(dev)->pinned_pages));
}
static DEVICE_ATTR_RO(pinned_pages);

static ssize_t buffers_show(struct device *dev, struct device_attribute *a,
			    char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_fdma_dev(dev)->nbufs));
}
static DEVICE_ATTR_RO(buffers);

static ssize_t allocated_bytes_show(struct device *dev,
				    struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_fdma_dev(dev)->alloc_bytes));
}
static DEVICE_ATTR_RO(allocated_bytes);

static ssize_t dma_align_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fdma_dev(dev)->dma_align);
}
static DEVICE_ATTR_RO(dma_align);

static struct attribute *fdma_dev_attrs[] = {
	&dev_attr_irq_mode.attr,
	&dev_attr_irq_vectors.attr,
	&dev_attr_link_speed.attr,
	&dev_attr_link_width.attr,
	&dev_attr_link_max_speed.attr,
	&dev_attr_link_max_width.attr,
	&dev_attr_mps.attr,
	&dev_attr_mrrs.attr,
	&dev_attr_version.attr,
	&dev_attr_backend.attr,
	&dev_attr_channels.attr,
	&dev_attr_card_size.attr,
	&dev_attr_align.attr,
	&dev_attr_max_desc_len.attr,
	&dev_attr_ring_size.attr,
	&dev_attr_cq_entries.attr,
	&dev_attr_pinned_pages.attr,
	&dev_attr_buffers.attr,
	&dev_attr_allocated_bytes.attr,
	&dev_attr_dma_align.attr,
	NULL
};

static const struct attribute_group fdma_dev_group = {
	.attrs = fdma_dev_attrs,
};

/* ---- channels ----------------------------------------------------------- */

struct fdma_ch_attr {
	struct device_attribute da;
	u32 ch;
};

static struct fdma_chan *to_chan(struct device *dev,
				 struct device_attribute *a)
{
	struct fdma_ch_attr *ca = container_of(a, struct fdma_ch_attr, da);

	return &to_fdma_dev(dev)->chan[ca->ch];
}

static ssize_t ch_dir_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", to_chan(dev, a)->caps &
			  FDMA_CH_CAP_C2H ? "c2h" : "h2c");
}

static ssize_t ch_kind_show(struct device *dev, struct device_attribute *a,
			    char *buf)
{
	u32 caps = to_chan(dev, a)->caps;

	return sysfs_emit(buf, "%s%s\n",
			  caps & FDMA_CH_CAP_MEM2MEM ? "mem" :
			  caps & FDMA_CH_CAP_STREAM ? "stream" : "mm",
			  caps & FDMA_CH_CAP_TESTGEN ? " testgen" : "");
}

/* What carries the channel (an engine's, a dmaengine channel). */
static ssize_t ch_source_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	struct fdma_chan *c = to_chan(dev, a);
	int n = c->ops->describe(c, buf, PAGE_SIZE - 1);

	buf[n++] = '\n';
	return n;
}

static ssize_t ch_irq_vector_show(struct device *dev,
				  struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_chan(dev, a)->vec);
}

#define FDMA_CH_STAT(name)						\
static ssize_t ch_##name##_show(struct device *dev,			\
				struct device_attribute *a, char *buf)	\
{									\
	return sysfs_emit(buf, "%lld\n",				\
			  atomic64_read(&to_chan(dev, a)->st.name));	\
}

FDMA_CH_STAT(completions)
FDMA_CH_STAT(bytes)
FDMA_CH_STAT(errors)
FDMA_CH_STAT(resets)
FDMA_CH_STAT(canceled)
FDMA_CH_STAT(lost_irqs)
FDMA_CH_STAT(timeouts)
FDMA_CH_STAT(wd_reaps)
FDMA_CH_STAT(transfers)
FDMA_CH_STAT(descriptors)
FDMA_CH_STAT(doorbells)
FDMA_CH_STAT(syscalls)

static ssize_t ch_interrupts_show(struct device *dev,
				  struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_chan(dev, a)->st.irqs));
}

/* The engine's own status word, from the write-back block. */
static ssize_t ch_status_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	struct fdma_chan *c = to_chan(dev, a);

	return sysfs_emit(buf, "0x%08x%s\n", c->ops->status(c),
			  c->broken ? " broken" : "");
}

static ssize_t ch_coal_count_show(struct device *dev,
				  struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_chan(dev, a)->coal_count));
}

/* Set one of the pair, keeping the other. */
static ssize_t coal_store(struct fdma_chan *c, const char *buf, size_t len,
			  bool usecs)
{
	u32 v;
	int ret;

	ret = kstrtou32(buf, 0, &v);
	if (ret)
		return ret;
	ret = usecs ? fdma_chan_set_coalesce(c, READ_ONCE(c->coal_count), v) :
		      fdma_chan_set_coalesce(c, v, READ_ONCE(c->coal_usecs));
	return ret ? ret : len;
}

static ssize_t ch_coal_count_store(struct device *dev,
				   struct device_attribute *a,
				   const char *buf, size_t len)
{
	return coal_store(to_chan(dev, a), buf, len, false);
}

static ssize_t ch_coal_usecs_show(struct device *dev,
				  struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_chan(dev, a)->coal_usecs));
}

static ssize_t ch_coal_usecs_store(struct device *dev,
				   struct device_attribute *a,
				   const char *buf, size_t len)
{
	return coal_store(to_chan(dev, a), buf, len, true);
}

struct fdma_ch_attr_tmpl {
	const char *name;
	umode_t mode;
	ssize_t (*show)(struct device *dev, struct device_attribute *a,
			char *buf);
	ssize_t (*store)(struct device *dev, struct device_attribute *a,
			 const char *buf, size_t len);
};

static const struct fdma_ch_attr_tmpl fdma_ch_tmpl[] = {
	{ "dir", 0444, ch_dir_show, NULL },
	{ "kind", 0444, ch_kind_show, NULL },
	{ "source", 0444, ch_source_show, NULL },
	{ "irq_vector", 0444, ch_irq_vector_show, NULL },
	{ "interrupts", 0444, ch_interrupts_show, NULL },
	{ "completions", 0444, ch_completions_show, NULL },
	{ "bytes", 0444, ch_bytes_show, NULL },
	{ "errors", 0444, ch_errors_show, NULL },
	{ "resets", 0444, ch_resets_show, NULL },
	{ "canceled", 0444, ch_canceled_show, NULL },
	{ "lost_irqs", 0444, ch_lost_irqs_show, NULL },
	{ "timeouts", 0444, ch_timeouts_show, NULL },
	{ "wd_reaps", 0444, ch_wd_reaps_show, NULL },
	{ "transfers", 0444, ch_transfers_show, NULL },
	{ "descriptors", 0444, ch_descriptors_show, NULL },
	{ "doorbells", 0444, ch_doorbells_show, NULL },
	{ "syscalls", 0444, ch_syscalls_show, NULL },
	{ "status", 0444, ch_status_show, NULL },
	{ "coal_count", 0644, ch_coal_count_show, ch_coal_count_store },
	{ "coal_usecs", 0644, ch_coal_usecs_show, ch_coal_usecs_store },
};

#define FDMA_CH_NATTR ARRAY_SIZE(fdma_ch_tmpl)

struct fdma_sysfs {
	struct fdma_ch_attr attr[FDMA_MAX_CHANNELS][FDMA_CH_NATTR];
	struct attribute *ptr[FDMA_MAX_CHANNELS][FDMA_CH_NATTR + 1];
	struct attribute_group group[FDMA_MAX_CHANNELS];
	char name[FDMA_MAX_CHANNELS][16];	/* "chN": room for any u32 */
	const struct attribute_group *groups[FDMA_MAX_CHANNELS + 2];
};

/* Build the groups; they are created with the device (cdev_device_add). */
int fdma_sysfs_init(struct fdma_device *fdev)
{
	struct fdma_sysfs *s;
	u32 ch, i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->groups[0] = &fdma_dev_group;
	for (ch = 0; ch < fdev->caps.nchan; ch++) {
		for (i = 0; i < FDMA_CH_NATTR; i++) {
			struct fdma_ch_attr *ca = &s->attr[ch][i];

			sysfs_attr_init(&ca->da.attr);
			ca->da.attr.name = fdma_ch_tmpl[i].name;
			ca->da.attr.mode = fdma_ch_tmpl[i].mode;
			ca->da.show = fdma_ch_tmpl[i].show;
			ca->da.store = fdma_ch_tmpl[i].store;
			ca->ch = ch;
			s->ptr[ch][i] = &ca->da.attr;
		}
		snprintf(s->name[ch], sizeof(s->name[ch]), "ch%u", ch);
		s->group[ch].name = s->name[ch];
		s->group[ch].attrs = s->ptr[ch];
		s->groups[ch + 1] = &s->group[ch];
	}
	fdev->sysfs = s;
	fdev->dev.groups = s->groups;
	return 0;
}

void fdma_sysfs_free(struct fdma_device *fdev)
{
	kfree(fdev->sysfs);
	fdev->sysfs = NULL;
}

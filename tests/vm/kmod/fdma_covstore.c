// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_covstore.ko: where the coverage of fdma.ko and fdma_dmac.ko adds up
 * across their loads. A test fixture of the VM harness, not part of fdma
 * (docs/vm-harness.md, "Coverage").
 *
 * A module built with FDMA_COV=y (kernel/Kbuild, kernel/fdma_cov.c) calls
 * its own __sanitizer_cov_trace_pc() at every coverage point, which sets
 * one bit in fdma_covstore_maps[id] (fdma.ko id 0, fdma_dmac.ko id 1): a
 * bit per byte of the module's core text (and one per byte of its init
 * text), at the point's return address less the text's start. Such a
 * module links against the maps, so this module is loaded first and stays
 * while the other comes and goes; its bits add up over every load.
 *
 * /sys/kernel/debug/fdma_cov/
 *   points  the points reached so far, all modules: one number, cheap to
 *           read (the coverage-guided fuzzer preads it after each program)
 *   hits    per module "module NAME points N outside M", then one line per
 *           point reached: "core OFFSET" or "init OFFSET" (hex); outside
 *           counts hits beyond the maps (text_kib and init_kib too small)
 *   reset   writing 1 forgets every point (meant while the modules idle)
 *
 * Builds against any kernel (it needs no KCOV): tests/vm/run.sh builds
 * every test module for every row.
 */
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/vmalloc.h>

static unsigned int text_kib = 4096;
module_param(text_kib, uint, 0444);
MODULE_PARM_DESC(text_kib, "bytes of a module's core text the map covers, KiB (default 4096)");
static unsigned int init_kib = 256;
module_param(init_kib, uint, 0444);
MODULE_PARM_DESC(init_kib, "bytes of a module's init text the map covers, KiB (default 256)");

/* As kernel/fdma_cov.h has it. */
struct fdma_cov_map {
	unsigned long *bits[2];		/* the core text's, the init text's */
	unsigned long len[2];		/* bytes of text each map covers */
	unsigned long points;		/* bits set */
	unsigned long outside;		/* points beyond the maps */
};

#define COV_MODS	2

static const char * const cov_names[COV_MODS] = { "fdma", "fdma_dmac" };
static const char * const cov_texts[2] = { "core", "init" };

struct fdma_cov_map fdma_covstore_maps[COV_MODS];
EXPORT_SYMBOL_GPL(fdma_covstore_maps);

static struct dentry *cov_dir;

/* Its own read, not a debugfs attribute's: those cannot pread(), and the fuzzer does. */
static ssize_t cov_points_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	unsigned long n = 0;
	char tmp[24];
	int i;

	for (i = 0; i < COV_MODS; i++)
		n += READ_ONCE(fdma_covstore_maps[i].points);
	i = scnprintf(tmp, sizeof(tmp), "%lu\n", n);
	return simple_read_from_buffer(buf, len, ppos, tmp, i);
}

static const struct file_operations cov_points_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = cov_points_read,
	.llseek = default_llseek,
};

static int cov_reset_set(void *data, u64 val)
{
	int i, t;

	if (val != 1)
		return -EINVAL;
	for (i = 0; i < COV_MODS; i++) {
		struct fdma_cov_map *m = &fdma_covstore_maps[i];

		for (t = 0; t < 2; t++)
			bitmap_zero(m->bits[t], m->len[t]);
		WRITE_ONCE(m->points, 0);
		WRITE_ONCE(m->outside, 0);
	}
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cov_reset_fops, NULL, cov_reset_set, "%llu\n");

static int cov_hits_show(struct seq_file *s, void *unused)
{
	unsigned long b;
	int i, t;

	for (i = 0; i < COV_MODS; i++) {
		struct fdma_cov_map *m = &fdma_covstore_maps[i];

		seq_printf(s, "module %s points %lu outside %lu\n", cov_names[i],
			   READ_ONCE(m->points), READ_ONCE(m->outside));
		for (t = 0; t < 2; t++)
			for_each_set_bit(b, m->bits[t], m->len[t])
				seq_printf(s, "%s %lx\n", cov_texts[t], b);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cov_hits);

static void cov_free(void)
{
	int i;

	for (i = 0; i < COV_MODS; i++) {
		vfree(fdma_covstore_maps[i].bits[0]);
		vfree(fdma_covstore_maps[i].bits[1]);
	}
}

static int __init cov_init(void)
{
	unsigned long len[2] = { (unsigned long)text_kib * 1024, (unsigned long)init_kib * 1024 };
	int i, t;

	if (!text_kib || !init_kib || text_kib > (1U << 20) || init_kib > (1U << 20))
		return -EINVAL;
	for (i = 0; i < COV_MODS; i++) {
		for (t = 0; t < 2; t++) {
			fdma_covstore_maps[i].bits[t] = vzalloc(BITS_TO_LONGS(len[t]) *
								sizeof(unsigned long));
			if (!fdma_covstore_maps[i].bits[t]) {
				cov_free();
				return -ENOMEM;
			}
			fdma_covstore_maps[i].len[t] = len[t];
		}
	}
	cov_dir = debugfs_create_dir("fdma_cov", NULL);
	debugfs_create_file("points", 0444, cov_dir, NULL, &cov_points_fops);
	debugfs_create_file_unsafe("reset", 0200, cov_dir, NULL, &cov_reset_fops);
	debugfs_create_file("hits", 0444, cov_dir, NULL, &cov_hits_fops);
	return 0;
}

static void __exit cov_exit(void)
{
	debugfs_remove_recursive(cov_dir);
	cov_free();
}

module_init(cov_init);
module_exit(cov_exit);
MODULE_DESCRIPTION("fdma VM harness: the coverage of fdma.ko and fdma_dmac.ko across their loads");
MODULE_LICENSE("Dual MIT/GPL");

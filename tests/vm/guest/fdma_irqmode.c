// SPDX-License-Identifier: MIT
/*
 * fdma_irqmode MODE [auto]: the driver was loaded with ivshmem=1 and
 * irq_mode=MODE (msix, msi or intx; "auto" as a second argument: loaded
 * without irq_mode, MODE is what it must have chosen).
 *
 * If the FDMA function (QEMU's ivshmem here) can interrupt that way (an
 * MSI-X or MSI capability, or an INTx pin, read from its configuration
 * space), the device must be bound with sysfs irq_mode = MODE, and
 * transfers in both directions must raise interrupts on their channels'
 * vectors, counted in sysfs and /proc/interrupts. If it cannot, the driver
 * must refuse the device cleanly, saying why in the kernel log, rather than
 * fall back to another mode.
 */
#include "vmtest.h"

#define LEN	(64 << 10)

#define PCI_CAP_ID_MSI	0x05
#define PCI_CAP_ID_MSIX	0x11

static int has_cap(const char *pci, int id)
{
	int pos, guard = 48;

	if (vt_pci_cfg8(pci, 0x06) < 0 || !(vt_pci_cfg8(pci, 0x06) & 0x10))
		return 0;
	pos = vt_pci_cfg8(pci, 0x34) & ~3;
	while (pos >= 0x40 && guard--) {
		if (vt_pci_cfg8(pci, pos) == id)
			return 1;
		pos = vt_pci_cfg8(pci, pos + 1) & ~3;
	}
	return 0;
}

/* Interrupts of the lines named prefix* in /proc/interrupts, all CPUs. */
static long long proc_irqs(const char *prefix)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[512];
	long long sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, ' ');
		char *p = strchr(line, ':');

		if (!name || !p || strncmp(name + 1, prefix, strlen(prefix)))
			continue;
		for (p++; ; ) {
			char *end;
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	fclose(f);
	return sum;
}

int main(int argc, char **argv)
{
	char name[64], pci[256], dev[64], mode[32], msg[128], irqname[80];
	const char *want;
	int supported, fd, pin;
	long long i0, i1, p0, p1, c0;
	uint8_t *a, *b;

	if (argc < 2) {
		fprintf(stderr, "usage: fdma_irqmode msix|msi|intx [auto]\n");
		return 2;
	}
	want = argv[1];
	snprintf(name, sizeof(name), "irq_%s%s", want, argc > 2 ? "_auto" : "_forced");
	if (vt_pci_find(0x1af4, 0x1110, pci, sizeof(pci))) {
		vt_fail(name, "no ivshmem device (1af4:1110)");
		return 1;
	}
	pin = vt_pci_cfg8(pci, 0x3d);
	if (!strcmp(want, "msix"))
		supported = has_cap(pci, PCI_CAP_ID_MSIX);
	else if (!strcmp(want, "msi"))
		supported = has_cap(pci, PCI_CAP_ID_MSI);
	else
		supported = pin > 0;
	vt_info("ivshmem %s: MSI-X %s, MSI %s, INTx pin %d", strrchr(pci, '/') + 1,
		has_cap(pci, PCI_CAP_ID_MSIX) ? "yes" : "no",
		has_cap(pci, PCI_CAP_ID_MSI) ? "yes" : "no", pin);

	if (!supported) {
		strcat(name, "_refused");
		snprintf(msg, sizeof(msg), "irq_mode=%s: this device cannot interrupt that way", want);
		if (!vt_find_dev("fdma", dev, sizeof(dev)))
			vt_fail(name, "%s was bound although ivshmem cannot do %s", dev, want);
		else if (vt_dmesg_has(msg) != 1)
			vt_fail(name, "the kernel log does not say \"%s\"", msg);
		else {
			vt_info("refused as expected: \"%s\"", msg);
			vt_pass(name);
		}
		return vt_failed;
	}

	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(name, "no fdma device bound");
		return 1;
	}
	if (vt_attr_str(dev, "irq_mode", mode, sizeof(mode)) || strcmp(mode, want)) {
		vt_fail(name, "sysfs irq_mode is '%s', expected '%s'", mode, want);
		return 1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	/* One chunk each, whatever the bounce buffer's size (256 KiB under swiotlb). */
	a = malloc(LEN);
	b = malloc(LEN);
	if (fd < 0 || !a || !b) {
		vt_fail(name, "open /dev/%s: %s", dev, strerror(errno));
		return 1;
	}
	snprintf(irqname, sizeof(irqname), "%s-", dev);
	i0 = vt_attr_ll(dev, "ch0/interrupts");
	i1 = vt_attr_ll(dev, "ch1/interrupts");
	c0 = vt_attr_ll(dev, "ch0/completions");
	p0 = proc_irqs(irqname);
	for (int k = 0; k < 16; k++) {
		vt_fill(a, LEN, 900 + k);
		if (pwrite(fd, a, LEN, (uint64_t)k << 20) != LEN ||
		    pread(fd, b, LEN, (uint64_t)k << 20) != LEN || memcmp(a, b, LEN)) {
			vt_fail(name, "transfer %d failed: %s", k, strerror(errno));
			return 1;
		}
	}
	i0 = vt_attr_ll(dev, "ch0/interrupts") - i0;
	i1 = vt_attr_ll(dev, "ch1/interrupts") - i1;
	c0 = vt_attr_ll(dev, "ch0/completions") - c0;
	p1 = proc_irqs(irqname) - p0;
	vt_info("%s, %lld vectors: 16 writes and 16 reads raised %lld + %lld channel interrupts, %lld in /proc/interrupts",
		mode, vt_attr_ll(dev, "irq_vectors"), i0, i1, p1);
	if (i0 <= 0 || i1 <= 0)
		vt_fail(name, "no interrupts counted (ch0 %lld, ch1 %lld)", i0, i1);
	else if (p1 <= 0)
		vt_fail(name, "no %s* interrupts in /proc/interrupts", irqname);
	else if (c0 != 16)
		vt_fail(name, "ch0 counted %lld completions for 16 writes", c0);
	else
		vt_pass(name);
	close(fd);
	return vt_failed;
}

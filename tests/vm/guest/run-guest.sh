#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/run-guest.sh: the kernel driver's tests inside the VM
# (tests/vm/run.sh builds them into /tests and /init runs this script with
# busybox sh). Every check prints "VMTEST PASS <name>" or
# "VMTEST FAIL <name>: <why>".
#
# /fdma.ko is loaded with ivshmem=1 (the FDMA engine is QEMU's ivshmem-
# doorbell with fdma-modeld behind it) and edu=1 (QEMU's edu device), in
# each interrupt mode in turn. If the model was started with a fault
# (fdmavm_opts contains fault=KIND@N), only one recovery test runs: the
# fault counts descriptors from the model's start, so nothing may run
# before it. A stuck channel is recovered through the ioctl interface
# (FDMA_IOC_CHAN_RESET, fdma_ioc_stuck); the other faults through the
# read/write path (fdma_recover).
T=/tests
KO=/fdma.ko

# pass, fail, t NAME CMD...: vmlib.sh.
. "$T/vmlib.sh"

# load NAME PARAMS...: insmod, failing NAME if it does not load.
load() {
	name=$1
	shift
	if insmod $KO "$@" 2>/tmp/rg.err; then
		return 0
	fi
	fail "$name" "insmod $KO $*: $(cat /tmp/rg.err)"
	return 1
}

unload() {
	if rmmod fdma 2>/tmp/rg.err; then
		pass "rmmod_$1"
	else
		fail "rmmod_$1" "$(cat /tmp/rg.err)"
	fi
}

[ -e $KO ] || { fail fdma_ko "$KO is missing"; exit 0; }
# fdma.ko is built over the stand-in of NVIDIA's P2P API (tests/vm/run.sh)
# and links against its calls, as it would against NVIDIA's module: it
# loads first, and stays.
if [ -e /fdma_nvp2p_standin.ko ] && ! insmod /fdma_nvp2p_standin.ko 2>/tmp/rg.err; then
	fail nvp2p_standin "insmod /fdma_nvp2p_standin.ko: $(cat /tmp/rg.err)"
fi

# fuzz: the coverage-guided fuzzer of the ioctl interface (fdma_fuzz.c)
# on the loaded fdma.ko, fdmavm_fuzz_secs seconds (default 60) from seed
# fdmavm_fuzz_seed (default 1), with fdma_testexp.ko's dma-buf to import
# and move.
fuzz() {
	tx=0
	if [ -e /fdma_testexp.ko ] && ! grep -q '^fdma_testexp ' /proc/modules &&
	   insmod /fdma_testexp.ko 2>/dev/null; then
		tx=1
	fi
	t ioc_fuzz_cov $T/fdma_fuzz "${fdmavm_fuzz_secs:-60}" "${fdmavm_fuzz_seed:-1}"
	[ $tx = 0 ] || rmmod fdma_testexp || fail ioc_fuzz_cov "rmmod fdma_testexp"
}
# fdmavm_only=fuzz: the fuzzer alone (for longer runs by hand:
# docs/vm-harness.md, "Coverage").
if [ "${fdmavm_only:-}" = fuzz ]; then
	load fuzz ivshmem=1 ring_size=256 && fuzz
	unload fuzz
	exit 0
fi
# fdmavm_only=ioc_invalid, ioc_fuzz or ioc_xfer: that program alone
# (fdma_ioc_invalid.c, fdma_ioc_fuzz.c, fdma_ioc_xfer.c), fdma.ko loaded as
# the default block below loads it for them.
case ${fdmavm_only:-} in
ioc_invalid | ioc_fuzz | ioc_xfer)
	load "$fdmavm_only" ivshmem=1 ring_size=256 &&
		t "$fdmavm_only" "$T/fdma_$fdmavm_only"
	unload "$fdmavm_only"
	exit 0
	;;
esac
# fdmavm_only=dmac (on the kernel command line, for a developer's quick
# run): only fdma_dmac.ko's tests, over fdma.ko's provider.
if [ "${fdmavm_only:-}" = dmac ]; then
	load dmaengine ivshmem=1 dmaengine=1 && sh $T/dmac.sh
	unload dmaengine
	exit 0
fi
# fdmavm_only=dmac_study: the runs of docs/studies/dmaengine.md.
if [ "${fdmavm_only:-}" = dmac_study ]; then
	load dmaengine ivshmem=1 dmaengine=1 && sh $T/dmac-study.sh
	unload dmaengine
	exit 0
fi
# fdmavm_only=faults (the debug kernel: run.sh --debug-kernel): allocation
# failures injected into fdma.ko, operation by operation (faults.sh loads
# and unloads the modules itself).
if [ "${fdmavm_only:-}" = faults ]; then
	sh $T/faults.sh
	exit 0
fi
# fdmavm_only=dmabuf: only the imports (dma-buf, NVIDIA's P2P API) and
# fdma_dmac.ko over a provider that misbehaves, with an import in flight.
if [ "${fdmavm_only:-}" = dmabuf ]; then
	if load dmabuf ivshmem=1; then
		if insmod /fdma_testexp.ko 2>/tmp/tx.err; then
			t dmabuf $T/fdma_dmabuf
			t dmac_broken $T/fdma_dmac_broken
			rmmod fdma_testexp || fail dmabuf "rmmod fdma_testexp"
		else
			fail dmabuf "insmod /fdma_testexp.ko: $(cat /tmp/tx.err)"
		fi
		t nvp2p $T/fdma_nvp2p
		unload dmabuf
	fi
	exit 0
fi
# fdmavm_only=net (with fdma-modeld --opts loop=1,streams=2): the network
# interfaces over the joined stream pairs, with real traffic (net.sh,
# which ends by removing fdma.ko with traffic flowing). fdmavm_ring=N
# loads it with ring_size=N.
# fdmavm_only=net_drop: net.sh's net_drop alone (a row booted with a tiny
# bounce pool).
if [ "${fdmavm_only:-}" = net ] || [ "${fdmavm_only:-}" = net_drop ]; then
	load net ivshmem=1 net=1 ${fdmavm_ring:+ring_size=$fdmavm_ring} && sh $T/net.sh
	exit 0
fi
# The video devices (v4l2=1, v4l2.sh): a small GREY format at 100 frames
# per second from the C2H stream channel's test generator, to the H2C
# stream channel's checker. First held back when no buffer is queued
# (nothing lost, so every frame is checked), then dropped (a reader that
# stalls). fdmavm_only=v4l2: only these.
v4l2_tests() {
	if insmod $KO ivshmem=1 v4l2=1 v4l2_format=GREY v4l2_width=64 v4l2_height=48 \
		v4l2_fps=100 v4l2_drop=0 2>/tmp/rg.err; then
		sh $T/v4l2.sh 0
		unload v4l2
		if load v4l2_drop ivshmem=1 v4l2=1 v4l2_format=GREY v4l2_width=64 \
			v4l2_height=48 v4l2_fps=100 v4l2_drop=1; then
			sh $T/v4l2.sh 1
			unload v4l2_drop
		fi
		# On fdma_dmac.ko's channels, over fdma.ko's provider: frames of
		# two pages (v4l2-dmac.sh).
		if load v4l2_dmac ivshmem=1 dmaengine=1 v4l2=1 v4l2_format=GREY v4l2_width=128 \
			v4l2_height=64 v4l2_fps=100; then
			sh $T/v4l2-dmac.sh
			unload v4l2_dmac
		fi
		# The same, the group from the device tree (arm64 rows, run.sh),
		# in the format it gives, not this one.
		if [ -e /proc/device-tree/fdma-video ] &&
		   load v4l2_dmac_dt ivshmem=1 dmaengine=1 v4l2=1 v4l2_format=GREY v4l2_width=64 \
			v4l2_height=48 v4l2_fps=100; then
			sh $T/v4l2-dmac.sh dt
			unload v4l2_dmac_dt
		fi
	elif grep -q 'not supported' /tmp/rg.err; then
		echo "VMTEST SKIP v4l2: this fdma.ko has no video devices (a kernel without V4L2 and vb2's dma-sg)"
	else
		fail v4l2_load "insmod $KO v4l2=1: $(cat /tmp/rg.err)"
	fi
}
if [ "${fdmavm_only:-}" = v4l2 ]; then
	v4l2_tests
	exit 0
fi
# QEMU's edu device: its DMA mask is a QEMU property the driver cannot see.
EDU="edu=1 edu_dma_bits=${fdmavm_edu_dma_bits:-28}"
rmmod fdma 2>/dev/null

fault=$(echo "$fdmavm_opts" | tr ',' '\n' | sed -n 's/^fault=//p' | head -1)
if [ -n "$fault" ]; then
	# A stuck channel is reset by the test before the watchdog's timeout.
	tmo=1000
	[ "${fault%@*}" = stuck ] && tmo=20000
	if load recover ivshmem=1 timeout_ms=$tmo; then
		if [ "${fault%@*}" = stuck ]; then
			t ioc_recover_stuck $T/fdma_ioc_stuck "${fault#*@}"
		else
			t recover $T/fdma_recover "${fault%@*}" "${fault#*@}"
		fi
		unload recover
	fi
	exit 0
fi

# Module parameters are checked before anything binds.
bad=""
for p in irq_mode=bogus ring_size=3 ring_size=0 timeout_ms=5 cq_entries=100 \
	cq_entries=32 max_bufs_per_file=0 max_bufs_per_file=65536 watchdog_ms=5 \
	watchdog_ms=10001 edu_dma_bits=27 edu_dma_bits=65; do
	if insmod $KO ivshmem=1 $p 2>/dev/null; then
		bad="$bad $p"
		rmmod fdma
	fi
done
if [ -z "$bad" ]; then pass bad_params; else fail bad_params "accepted:$bad"; fi

# ivshmem is a generic device: without ivshmem=1 it stays unbound.
if load ivshmem_param; then
	if ls /sys/class/fdma/ 2>/dev/null | grep -q '^fdma[0-9]'; then
		fail ivshmem_param "the driver bound ivshmem without ivshmem=1"
	else
		pass ivshmem_param
	fi
	rmmod fdma
fi

t load_unload $T/fdma_loadloop 20 ivshmem=1
# The smallest ring: its write-back block, descriptors and records aligned.
t load_ring2 $T/fdma_loadloop 2 "ivshmem=1 ring_size=2" load_ring2
# A channel that never acknowledges its reset and keeps writing, then rmmod.
t noack $T/fdma_noack "ivshmem=1 ring_size=64"

# The default: MSI-X for the engine, MSI for edu. A ring smaller than a
# batch (FDMA_IOC_MAX_BATCH, 1024), so that ioc_invalid can overfill it in
# one call.
if load auto ivshmem=1 $EDU ring_size=256; then
	t irq_msix_auto $T/fdma_irqmode msix auto
	t h2c_c2h_patterns $T/fdma_rw
	t bad_inputs $T/fdma_badio
	t coalescing $T/fdma_coal
	t ioc_xfer $T/fdma_ioc_xfer
	t uring $T/fdma_uring
	t ioc_copy $T/fdma_ioc_copy
	t ioc_poll $T/fdma_ioc_poll
	t ioc_owner $T/fdma_ioc_owner
	t ioc_invalid $T/fdma_ioc_invalid
	t ioc_fuzz $T/fdma_ioc_fuzz
	# The fuzzer in a coverage row (run.sh --coverage), or when given a time.
	if [ "${fdmavm_cov:-0}" = 1 ] || [ -n "${fdmavm_fuzz_secs:-}" ]; then
		fuzz
	fi
	t ioc_bufcap $T/fdma_ioc_bufcap
	t ioc_memlock $T/fdma_ioc_memlock
	t ioc_uapi $T/fdma_ioc_uapi
	t ioc_reg $T/fdma_ioc_reg
	t ioc_unmap $T/fdma_ioc_unmap
	t watchdog $T/fdma_watchdog
	t rw_signal $T/fdma_rw_signal
	t teardown $T/fdma_openrm
	t unbind_fault $T/fdma_unbind_fault
	t revoke $T/fdma_revoke
	# dma-buf import against an exporter that hides pages and moves.
	if [ ! -e /fdma_testexp.ko ]; then
		fail dmabuf "no /fdma_testexp.ko"
	elif insmod /fdma_testexp.ko 2>/tmp/tx.err; then
		t dmabuf $T/fdma_dmabuf
		rmmod fdma_testexp
	else
		fail dmabuf "insmod /fdma_testexp.ko: $(cat /tmp/tx.err)"
	fi
	# GPU memory through NVIDIA's P2P API, against its stand-in.
	t nvp2p $T/fdma_nvp2p
	t edu_auto $T/fdma_edu auto
	t edu_unbind $T/fdma_edu_unbind
	unload auto
fi

# A full ring of 4 MiB requests on the model paced at its link's speed:
# seconds of work, a timeout of 2 s, and no timeout.
if load deep ivshmem=1 ring_size=1024 timeout_ms=2000; then
	t deep_queue $T/fdma_deep_queue
	unload deep
fi

# fdma.ko as a dmaengine provider (dmaengine=1): Linux's dmatest on the
# memory-to-memory channels, completions by callback then polled
# (dma_sync_wait); while dmatest holds the channels the character device
# cannot copy on them (EBUSY); once it is gone it can again.
if [ ! -e /dmatest.ko ]; then
	echo "VMTEST SKIP dmatest: no /dmatest.ko (run.sh builds it from Debian's linux-source package)"
elif load dmaengine ivshmem=1 dmaengine=1; then
	# Stream channels as DMA_SLAVE: an in-kernel client receives the test
	# generator's frames and sends frames to the checker, every byte checked.
	if [ ! -e /fdma_slavetest.ko ]; then
		fail dmae_slave "no /fdma_slavetest.ko"
	elif ! $T/fdma_tg c2h on 4096 >/tmp/tg.out 2>&1 || ! $T/fdma_tg h2c on 4096 >>/tmp/tg.out 2>&1; then
		fail dmae_slave "cannot enable the test generator and checker: $(tail -1 /tmp/tg.out)"
	elif ! insmod /fdma_slavetest.ko frames=32 frame_len=4096 2>/tmp/st.err; then
		dmesg | grep fdma_slavetest | sed 's/^/    /'
		fail dmae_slave "insmod /fdma_slavetest.ko: $(cat /tmp/st.err)"
	else
		rmmod fdma_slavetest
		dmesg | grep fdma_slavetest | sed 's/^/    /'
		got=$($T/fdma_tg h2c query)
		if [ "$got" = "frames 32 errors 0" ]; then
			pass dmae_slave
		else
			fail dmae_slave "the checker counted '$got' of 32 frames sent through dmaengine"
		fi
	fi
	$T/fdma_tg c2h off >/dev/null 2>&1
	$T/fdma_tg h2c off >/dev/null 2>&1
	t dmatest_irq sh $T/dmatest.sh dmatest_irq
	dev=$(ls /sys/class/fdma/ | grep '^fdma[0-9]' | head -1)
	if /e2e/fdma bench kdev:/dev/$dev --dir copy --sizes 4K --seconds 0.2 >/tmp/dt.out 2>&1; then
		fail dmae_owned "the character device copied on a channel dmatest holds"
	elif grep -q 'busy' /tmp/dt.out; then
		pass dmae_owned
	else
		fail dmae_owned "refused, but not as busy: $(tail -1 /tmp/dt.out)"
	fi
	rmmod dmatest
	if /e2e/fdma bench kdev:/dev/$dev --dir copy --sizes 4K --seconds 0.2 >/tmp/dt.out 2>&1; then
		pass dmae_released
	else
		fail dmae_released "after rmmod dmatest: $(tail -1 /tmp/dt.out)"
	fi
	t dmatest_polled sh $T/dmatest.sh dmatest_polled polled
	rmmod dmatest
	# Unbound while dmatest copies: it ends cleanly, the device binds again.
	# Not on the debug kernel: the DMA API's debug rightly reports the
	# mappings dmatest still holds for the device at the unbind (a client's,
	# which no provider can take back), and the row fails on any report.
	if [ "${fdmavm_debug:-0}" = 1 ]; then
		echo "VMTEST SKIP dmae_unbind: on the debug kernel (dmatest's own mappings at the unbind are reported)"
	else
		export dmatest_iters=100000
		t dmae_unbind sh $T/dmatest.sh dmae_unbind unbind
		unset dmatest_iters
	fi
	dev=$(ls /sys/class/fdma/ | grep '^fdma[0-9]' | head -1)
	if /e2e/fdma bench kdev:/dev/$dev --dir copy --sizes 4K --seconds 0.2 >/tmp/dt.out 2>&1; then
		pass dmae_rebound
	else
		fail dmae_rebound "copies after the unbind and bind: $(tail -1 /tmp/dt.out)"
	fi
	# fdma_dmac.ko: user-space DMA over those dmaengine channels.
	sh $T/dmac.sh
	unload dmaengine
fi

# libfdma's kdev: backend: the end-to-end tests of tests/sim/, fdma bench and
# fdma stream. Buffers the driver cannot allocate in one piece (over 4 MiB
# here: no CMA) are registered 4 KiB pages, one descriptor each: a ring of
# 2048 lets the tests' 4 MiB requests (plus guard pages) through. A few huge
# pages let FDMA_BUF_HUGEPAGE take its huge-page path.
echo 16 > /proc/sys/vm/nr_hugepages 2>/dev/null
if load e2e ivshmem=1 ring_size=2048; then
	sh $T/e2e.sh /e2e
	# Again built with AddressSanitizer + UBSan (where run.sh could build them).
	[ -d /e2e-asan ] && sh $T/e2e.sh /e2e-asan asan
	unload e2e
fi
echo 0 > /proc/sys/vm/nr_hugepages 2>/dev/null
v4l2_tests

# Forced modes: each works if the device can do it, or is refused cleanly.
for m in msix msi intx; do
	if load "forced_$m" ivshmem=1 $EDU irq_mode=$m; then
		t "irq_${m}_forced" $T/fdma_irqmode $m
		[ $m = msix ] || t "edu_$m" $T/fdma_edu $m
		unload "forced_$m"
	fi
done
exit 0

# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Step of tests/vm/versal/init.sh (sourced): Linux's dmatest on all 8 ZDMA
# channels, one thread each, 200 copies of up to 64 KiB: first waiting for
# completion interrupts, then with polled=1 (dma_sync_wait(): the
# completion found by polling the cookie while the driver's interrupt and
# tasklet still run). Passes when each channel's summary says 200 tests, 0
# failures.

# dmatest_run NAME PARAMS...: one dmatest pass, judged.
dmatest_run() {
	name=$1
	shift
	irq0=$(zdma_irqs)
	kmark "dmatest $name"
	if ! insmod /modules/dmatest.ko timeout=5000 iterations=200 threads_per_chan=1 \
		max_channels=8 test_buf_size=65536 "$@"; then
		fail "$name" "insmod dmatest.ko $* failed"
		return
	fi
	polled=$(cat /sys/module/dmatest/parameters/polled)
	echo 1 >/sys/module/dmatest/parameters/run
	# wait blocks while a thread runs, but not for one that has not run
	# yet (is_threaded_test_run() in dmatest.c): read it until the 8
	# threads printed their summaries (10 s more at most once none runs).
	n=0
	while cat /sys/module/dmatest/parameters/wait >/dev/null &&
		[ "$(klog_since "dmatest $name" | grep -c 'dmatest: .*summary')" -lt 8 ] &&
		[ $n -lt 100 ]; do
		n=$((n + 1))
		sleep 0.1
	done
	log=$(klog_since "dmatest $name" | grep 'dmatest: ')
	rmmod dmatest
	say "$(echo "$log" | grep -E 'summary|polled|DMA_COMPLETION')" \
		"polled: $polled, ZDMA interrupts: $(($(zdma_irqs) - irq0))"
	why=""
	case " $* " in
	*" polled=1 "*) [ "$polled" = Y ] || why="$why; dmatest's polled parameter reads '$polled'" ;;
	esac
	for c in 0 1 2 3 4 5 6 7; do
		s=$(echo "$log" | grep "dma${c}chan0-copy0: summary")
		case $s in
		"") why="$why; dma${c}chan0: no summary" ;;
		*": summary 200 tests, 0 failures "*) ;;
		*) why="$why; dma${c}chan0: ${s#*summary }" ;;
		esac
	done
	# dmatest turns polling off, and says so, for a provider that
	# completes out of order; then this would not be the polled test.
	echo "$log" | grep -q 'polled disabled' && why="$why; dmatest disabled polling for this provider"
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "${why#; }"; fi
}

dmatest_run dmatest_irq
dmatest_run dmatest_polled polled=1

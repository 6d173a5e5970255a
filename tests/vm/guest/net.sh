#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/net.sh: fdma.ko's network interfaces (net=1) with real
# traffic. The model joins its two stream pairs as a cable joins two ports
# (fdma-modeld --opts loop=1,streams=2): interface A's frames arrive at B
# and B's at A. B moves into a network namespace, so traffic between the
# two link-local addresses crosses the "cable" instead of the loopback.
# Traffic: busybox ping, pktgen (bursts of 1 and 32, linear and in page
# fragments), iperf3 (TCP both ways). Asserted: every packet sent is
# received (no drops anywhere, softnet's included), BQL has nothing in
# flight afterwards, doorbells per packet below 1 with bursts, interrupts
# per packet below 1 with coalescing, no NETDEV WATCHDOG; and coalescing,
# MTU, up/down with traffic flowing. Speed under TCG means nothing: the
# figures printed are counts and ratios.
T=/tests
# pass, fail: vmlib.sh.
. "$T/vmlib.sh"
# The engine (the proxy's rows name it): XDMA has no interrupt timer and
# cannot drop, so the checks of those expect refusals there.
ENGINE=${fdmavm_engine:-fdma}

A=""
B=""
for i in $(seq 50); do
	for d in /sys/class/net/fdma*n0; do
		[ -e "$d" ] && A=${d##*/}
	done
	[ -n "$A" ] && [ -e "/sys/class/net/${A%n0}n1" ] && break
	A=""
	sleep 0.1
done
if [ -z "$A" ]; then
	fail net_ifaces "no fdmaNn0 and fdmaNn1 after insmod net=1: $(ls /sys/class/net | tr '\n' ' ')"
	exit 0
fi
B=${A%n0}n1
MACB=$(cat /sys/class/net/$B/address)
if [ "$(ethtool -i $A | sed -n 's/^driver: //p')" = fdma ]; then
	pass net_ifaces
else
	fail net_ifaces "ethtool -i $A: $(ethtool -i $A 2>&1 | head -1)"
fi
# The character device leaves the interface's channels alone (EBUSY).
chans=$(dmesg | sed -n "s/.*$A: channels \([0-9]*\) (transmit) and \([0-9]*\) (receive).*/\1 \2/p" | tail -1)
if [ -z "$chans" ]; then
	fail net_owned "no 'channels T (transmit) and R (receive)' line for $A in the kernel log"
elif [ "${fdmavm_only:-}" = net ]; then
	# shellcheck disable=SC2086  # two numbers
	t net_owned $T/fdma_net_owned "${A%n0}" $chans
fi

# B in a namespace of its own, held by a sleeping process.
unshare -n sleep 100000 &
NS=$!
sleep 0.2
inns() { nsenter -t "$NS" -n "$@"; }
# flood N: a ping flood from B's side, N pings, in the background; FLOOD is
# its PID (nsenter execs ping: the function's own subshell would be
# another process, and killing it would leave the flood running).
flood() {
	nsenter -t "$NS" -n ping -A -q -c "$1" 169.254.10.1 >/dev/null 2>&1 &
	FLOOD=$!
}
if ! ip link set "$B" netns "$NS"; then
	fail net_netns "ip link set $B netns $NS failed"
	kill "$NS"
	exit 0
fi
# No IPv6: its own traffic (DAD, router solicitations) would blur the counts.
for w in "" inns; do
	$w sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
		"net.ipv6.conf.$A.disable_ipv6=1" "net.ipv6.conf.$B.disable_ipv6=1" 2>/dev/null
done
ip addr add 169.254.10.1/16 dev "$A"
ip link set "$A" up
inns ip link set lo up
inns ip addr add 169.254.10.2/16 dev "$B"
inns ip link set "$B" up
sleep 0.5

# pnd WHERE IFACE FIELD: a field of /proc/net/dev (1 rx bytes, 2 rx
# packets, 3 rx errs, 4 rx drop, 9 tx bytes, 10 tx packets, 11 tx errs,
# 12 tx drop), in WHERE (a: here, b: B's namespace).
pnd() {
	if [ "$1" = b ]; then inns cat /proc/net/dev; else cat /proc/net/dev; fi |
		sed -n "s/^ *$2: *//p" | awk "{ print \$$3 }"
}
# es WHERE IFACE NAME: an ethtool -S counter.
es() {
	if [ "$1" = b ]; then inns ethtool -S "$2"; else ethtool -S "$2"; fi |
		sed -n "s/^ *$3: //p"
}
# snap: the counters a check compares, before and after.
snap() {
	a_tx=$(pnd a "$A" 10); a_rx=$(pnd a "$A" 2); b_tx=$(pnd b "$B" 10); b_rx=$(pnd b "$B" 2)
	a_db=$(es a "$A" tx_doorbells); a_ti=$(es a "$A" tx_irqs); b_ri=$(es b "$B" rx_irqs)
	b_nb=$(es b "$B" rx_no_buffer)
}
# settle: snap once nothing moves any more (up to 5 s): the receiving NAPI
# may still be at work, an ARP reply on its way.
settle() {
	snap
	for i in $(seq 50); do
		sleep 0.1
		l="$a_tx $a_rx $b_tx $b_rx"
		snap
		[ "$l" = "$a_tx $a_rx $b_tx $b_rx" ] && return
	done
}
# no_drops NAME: no error or drop counted on either side, softnet's included.
no_drops() {
	d="$(pnd a "$A" 3) $(pnd a "$A" 4) $(pnd a "$A" 11) $(pnd a "$A" 12)"
	d="$d $(pnd b "$B" 3) $(pnd b "$B" 4) $(pnd b "$B" 11) $(pnd b "$B" 12)"
	d="$d $(es a "$A" rx_no_buffer) $(es b "$B" rx_no_buffer)"
	# softnet_stat's second column, in hex: packets dropped for a full backlog.
	sn=$(awk '$2 != "00000000" { n++ } END { print n + 0 }' /proc/net/softnet_stat)
	case " $d " in
	*" "[1-9]*) fail "$1" "errors or drops: $d (rx errs, rx drop, tx errs, tx drop of A, of B; engine drops A, B)" ;;
	*) [ "$sn" = 0 ] && return 0
	   fail "$1" "softnet dropped packets on $sn CPUs: $(cut -d' ' -f2 /proc/net/softnet_stat | tr '\n' ' ')" ;;
	esac
	return 1
}

# pg_setup COUNT BURST FRAGS [DELAY_NS [UDP_PORT]]: pktgen's next run, COUNT
# UDP packets of PKT_SIZE bytes (default 60) from A to B's MAC (no
# neighbour needed), in bursts (xmit_more) and page fragments as given,
# DELAY_NS apart.
pg_setup() {
	P=/proc/net/pktgen
	echo "rem_device_all" >$P/kpktgend_0
	echo "add_device $A" >$P/kpktgend_0
	{
		echo "count $1"; echo "pkt_size ${PKT_SIZE:-60}"; echo "burst $2"; echo "frags $3"
		echo "delay ${4:-0}"; echo "dst 169.254.10.2"; echo "dst_mac $MACB"
		[ -n "${5:-}" ] && echo "udp_dst_min $5" && echo "udp_dst_max $5"
	} | while read -r l; do echo "$l" >$P/"$A"; done
}

# net_drop (fdmavm_only=net_drop, booted with a bounce pool too small for
# the traffic: swiotlb=N,force): packets whose mapping fails are dropped
# and counted, and the packets of the same burst before them still go
# (their doorbell is not skipped): BQL ends with nothing in flight, every
# packet pktgen handed over was sent or counted as dropped, and B got
# every one sent. A registration on the character device takes all but
# net_drop_free (default 32) of the pool's free 2 KiB slabs; packets of
# 3500 bytes take 2 each.
if [ "${fdmavm_only:-}" = net_drop ]; then
	modprobe pktgen 2>/tmp/pg.err || { fail net_drop "modprobe pktgen: $(cat /tmp/pg.err)"; kill "$NS"; exit 0; }
	ip link set "$A" mtu 3600
	inns ip link set "$B" mtu 3600
	SW=/sys/kernel/debug/swiotlb
	free=$(($(cat $SW/io_tlb_nslabs) - $(cat $SW/io_tlb_used) - ${net_drop_free:-32}))
	HOLD=""
	if [ $free -gt 0 ]; then
		$T/fdma_bufhold "${A%n0}" $((free * 2)) &
		HOLD=$!
		sleep 1
	fi
	echo "    bounce pool: $(cat $SW/io_tlb_used) of $(cat $SW/io_tlb_nslabs) slabs used, a registration holding $((free * 2)) KiB of them"
	settle
	t0_tx=$a_tx t0_rx=$b_rx t0_te=$(pnd a "$A" 11)
	PKT_SIZE=3500 pg_setup 6400 32 0
	echo start >/proc/net/pktgen/pgctrl
	sent=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' /proc/net/pktgen/"$A" | head -1)
	settle
	tx=$((a_tx - t0_tx)); rx=$((b_rx - t0_rx)); te=$(($(pnd a "$A" 11) - t0_te))
	bql=$(cat /sys/class/net/"$A"/queues/tx-0/byte_queue_limits/inflight)
	echo "    pktgen handed over $sent; A sent $tx and dropped $te (no mapping); B received $rx; BQL in flight $bql"
	if [ "$bql" != 0 ]; then
		fail net_drop "BQL has $bql bytes in flight once the traffic ended: packets posted and never sent"
	elif [ $((tx + te)) -lt "${sent:-0}" ]; then
		fail net_drop "$sent handed over, $tx sent and $te dropped: some neither sent nor counted"
	elif [ "$rx" != "$tx" ]; then
		fail net_drop "A sent $tx, B received $rx"
	elif [ "$te" = 0 ] || [ "$tx" = 0 ]; then
		fail net_drop "the bounce pool must run out for some packets and not all ($tx sent, $te dropped): see net_drop_free"
	else
		pass net_drop
	fi
	kill "$NS" $HOLD
	exit 0
fi

# ---- ping ------------------------------------------------------------------------
if ping -c 20 -W 2 169.254.10.2 >/tmp/ping.out 2>&1 &&
   grep -q '20 packets received' /tmp/ping.out; then
	pass net_ping
else
	fail net_ping "$(tail -2 /tmp/ping.out | tr '\n' ' ')"
fi
if ping -c 5 -s 1400 -W 2 169.254.10.2 >/tmp/ping.out 2>&1 &&
   grep -q '5 packets received' /tmp/ping.out; then
	pass net_ping_1400
else
	fail net_ping_1400 "$(tail -2 /tmp/ping.out | tr '\n' ' ')"
fi

# ---- pktgen ------------------------------------------------------------------------
# pg NAME BURST FRAGS COUNT [drop]: COUNT packets (pg_setup) from A to B;
# every one must arrive, or, with drop (B without flow control), be
# counted as dropped for want of a buffer.
pg() {
	name=$1
	pg_setup "$4" "$2" "$3"
	settle
	t0_tx=$a_tx t0_rx=$b_rx t0_db=$a_db t0_ti=$a_ti t0_ri=$b_ri t0_nb=$b_nb
	echo start >$P/pgctrl
	sed -n 's/^Result: //p' $P/"$A" | head -1
	sent=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' $P/"$A" | head -1)
	settle
	tx=$((a_tx - t0_tx)); rx=$((b_rx - t0_rx))
	db=$((a_db - t0_db)); ti=$((a_ti - t0_ti)); ri=$((b_ri - t0_ri)); nb=$((b_nb - t0_nb))
	echo "    $name: sent $sent, A tx $tx, B rx $rx, B dropped $nb; doorbells $db, A tx irqs $ti, B rx irqs $ri"
	if [ "${5:-}" = drop ]; then
		[ "$sent" -ge "$4" ] && [ "$tx" -ge "$sent" ] && [ $((rx + nb)) = "$tx" ] && return 0
		fail "$name" "pktgen sent $sent (count $4), A counted $tx sent, B $rx received and $nb dropped"
		return 1
	fi
	# pktgen may finish its last burst past the count, and an ARP exchange
	# adds a packet or two: every one sent must arrive.
	if [ "$sent" -lt "$4" ] || [ "$tx" -lt "$sent" ] || [ "$rx" != "$tx" ]; then
		fail "$name" "pktgen sent $sent (count $4), A counted $tx sent, B $rx received"
		return 1
	fi
	no_drops "$name" || return 1
	return 0
}

modprobe pktgen 2>/tmp/pg.err || fail net_pktgen "modprobe pktgen: $(cat /tmp/pg.err)"
if [ -e /proc/net/pktgen/pgctrl ]; then
	if pg net_pktgen_burst1 1 0 3000; then
		# One packet per call: a doorbell each (xmit_more is never set).
		[ "$db" -ge "$tx" ] && pass net_pktgen_burst1 ||
			fail net_pktgen_burst1 "$db doorbells for $tx packets without bursts"
	fi
	if pg net_pktgen_burst32 32 0 6400; then
		# Bursts: fewer doorbells than packets; coalescing: fewer interrupts.
		# (Fewer than 1 per packet, not a fixed ratio: where BQL or a slow
		# wire stops the queue, each stop rings too: 0.10 to 0.42 seen on
		# the 100 Mbit/s wire.)
		if [ "$db" -ge "$tx" ]; then
			fail net_pktgen_burst32 "$db doorbells for $tx packets in bursts of 32"
		elif [ "$ti" -ge "$tx" ] || [ "$ri" -ge "$rx" ]; then
			fail net_pktgen_burst32 "interrupts: $ti on A's transmit, $ri on B's receive, for $tx packets"
		else
			pass net_pktgen_burst32
		fi
	fi
	# Scatter-gather: each packet a head and two page fragments.
	pg net_pktgen_frags 32 2 3200 && pass net_pktgen_frags
	# The simplest driver, for comparison: a doorbell and an interrupt per packet.
	ethtool --set-priv-flags "$A" per-packet on
	inns ethtool --set-priv-flags "$B" per-packet on
	if pg net_pktgen_per_packet 32 0 3200; then
		if [ "$db" -lt "$tx" ]; then
			fail net_pktgen_per_packet "$db doorbells for $tx packets in per-packet mode"
		else
			pass net_pktgen_per_packet
		fi
	fi
	ethtool --set-priv-flags "$A" per-packet off
	inns ethtool --set-priv-flags "$B" per-packet off
	# Without flow control on B, what B has no page for is dropped by the
	# engine, and counted: sent = received + dropped, nothing unaccounted.
	if [ "$ENGINE" = xdma ]; then
		# XDMA holds a frame back; nothing in front of it drops.
		inns ethtool -A "$B" tx off 2>/dev/null && fail net_pktgen_nopause "tx pause off accepted on XDMA" ||
			pass net_pktgen_nopause_refused
	elif inns ethtool -A "$B" tx off && inns ethtool -a "$B" | grep -q '^TX:[[:space:]]*off'; then
		pg net_pktgen_nopause 32 0 6400 drop && pass net_pktgen_nopause
	else
		fail net_pktgen_nopause "ethtool -A $B tx off: $(inns ethtool -a "$B" 2>&1 | tr '\n' ' ')"
	fi
	inns ethtool -A "$B" tx on
	sleep 0.5
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_0
fi

# ---- iperf3 ------------------------------------------------------------------------
if command -v iperf3 >/dev/null; then
	settle
	t0_atx=$a_tx t0_arx=$a_rx t0_btx=$b_tx t0_brx=$b_rx
	# One server per test (-1), in B's namespace; TCP from A, then to A (-R).
	if inns iperf3 -s -1 -D && sleep 1 && iperf3 -c 169.254.10.2 -t 3 >/tmp/iperf.out 2>&1 &&
	   inns iperf3 -s -1 -D && sleep 1 && iperf3 -c 169.254.10.2 -t 3 -R >>/tmp/iperf.out 2>&1; then
		sed -n 's/^\[ *[0-9]*\] *\(0.00-.*receiver\)$/    iperf3: \1/p' /tmp/iperf.out
		settle
		if [ $((a_tx - t0_atx)) != $((b_rx - t0_brx)) ] || [ $((b_tx - t0_btx)) != $((a_rx - t0_arx)) ]; then
			fail net_iperf3 "A sent $((a_tx - t0_atx)), B received $((b_rx - t0_brx)); B sent $((b_tx - t0_btx)), A received $((a_rx - t0_arx))"
		elif no_drops net_iperf3; then
			pass net_iperf3
		fi
	else
		fail net_iperf3 "$(tail -3 /tmp/iperf.out | tr '\n' ' ')"
	fi
else
	echo "VMTEST SKIP net_iperf3: no iperf3 in this guest"
fi

# ---- BQL, coalescing, MTU, up and down ---------------------------------------------
bql=$(cat /sys/class/net/"$A"/queues/tx-0/byte_queue_limits/inflight)
bqlb=$(inns cat /sys/class/net/"$B"/queues/tx-0/byte_queue_limits/inflight 2>/dev/null || echo 0)
[ "$bql" = 0 ] && [ "$bqlb" = 0 ] && pass net_bql_idle ||
	fail net_bql_idle "BQL inflight after the traffic: $A $bql, $B $bqlb"

if [ "$ENGINE" = xdma ]; then
	# No interrupt timer: a count would strand a burst's tail; refused, 1 and 0 kept.
	if ! ethtool -C "$A" rx-frames 8 rx-usecs 40 2>/dev/null &&
	   ethtool -C "$A" rx-frames 1 tx-frames 1 rx-usecs 0 tx-usecs 0 2>/dev/null &&
	   ethtool -c "$A" | grep -q '^rx-frames: *1' && ethtool -c "$A" | grep -q '^rx-usecs: *0'; then
		pass net_coalesce
	else
		fail net_coalesce "XDMA: rx-frames 8 refused, 1 kept: $(ethtool -c "$A" 2>&1 | tr '\n' ' ')"
	fi
elif ethtool -C "$A" rx-frames 8 rx-usecs 40 tx-frames 16 tx-usecs 80 &&
   ethtool -c "$A" | grep -q '^rx-usecs: *40' && ethtool -c "$A" | grep -q '^tx-frames: *16'; then
	pass net_coalesce
else
	fail net_coalesce "ethtool -C/-c: $(ethtool -c "$A" 2>&1 | tr '\n' ' ')"
fi
ethtool -C "$A" rx-frames 100000 2>/dev/null && fail net_coalesce_bad "rx-frames 100000 accepted" ||
	pass net_coalesce_bad

max=$(dmesg | sed -n "s/.*$A: channels.*MTU up to \([0-9]*\).*/\1/p" | head -1)
if ip link set "$A" mtu 3000 && inns ip link set "$B" mtu 3000 &&
   ping -c 3 -s 2900 -W 2 169.254.10.2 >/tmp/ping.out 2>&1 && grep -q '3 packets received' /tmp/ping.out &&
   ! ip link set "$A" mtu 9000 2>/dev/null; then
	pass net_mtu
else
	fail net_mtu "MTU 3000 and a 2900-byte ping, 9000 refused (max ${max:-?}): $(tail -1 /tmp/ping.out)"
fi
ip link set "$A" mtu 1500
inns ip link set "$B" mtu 1500

# Down and up with traffic flowing (a ping flood from B's side).
flood 100000
sleep 1
ip link set "$A" down
sleep 0.5
ip link set "$A" up
sleep 1
kill "$FLOOD" 2>/dev/null
wait "$FLOOD" 2>/dev/null
# Traffic resumes: 10 pings, every one answered. (-w is ping's deadline
# for all of them: it must leave time to send the 10th, one a second.)
ping -c 10 -w 15 169.254.10.2 >/tmp/ping.out 2>&1
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' /tmp/ping.out)
got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' /tmp/ping.out)
echo "    after down and up: ${got:-0} of ${sent:-0} pings answered"
if [ "${sent:-0}" = 10 ] && [ "${got:-0}" = 10 ]; then
	pass net_updown
else
	fail net_updown "${got:-0} of ${sent:-0} pings answered after down and up with traffic"
	sed 's/^/    /' /tmp/ping.out
	# Where the packets went: both sides' counters, the neighbours.
	ethtool -S "$A" | tr -s ' \n' ' '; echo
	inns ethtool -S "$B" | tr -s ' \n' ' '; echo
	ip neigh show; inns ip neigh show
fi

# Down and up, net_cycles times (default 100), with frames arriving all
# the while (pktgen from A to B's MAC, a frame every 20 us; B, its IPv6
# off, sends nothing): after each up B receives again. An interrupt that
# came before NAPI was on would have masked receive for good.
if [ -e /proc/net/pktgen/pgctrl ]; then
	pg_setup 1000000000 1 0 20000
	echo start >/proc/net/pktgen/pgctrl &
	PG=$!
	n=0
	bad=""
	while [ $n -lt "${net_cycles:-100}" ]; do
		inns ip link set "$B" down
		inns ip link set "$B" up
		r0=$(pnd b "$B" 2)
		for i in $(seq 60); do
			sleep 0.05
			[ "$(pnd b "$B" 2)" != "$r0" ] && break
		done
		if [ "$(pnd b "$B" 2)" = "$r0" ]; then
			bad="after up number $((n + 1)), $B received nothing for 3 s ($(inns ethtool -S "$B" | tr -s ' \n' ' '))"
			break
		fi
		n=$((n + 1))
	done
	echo stop >/proc/net/pktgen/pgctrl
	wait "$PG" 2>/dev/null
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_0
	if [ -n "$bad" ]; then
		fail net_updown_rx "$bad"
	else
		echo "    $n times down and up with frames arriving: $B received again after each"
		pass net_updown_rx
	fi
	sleep 0.5
fi

# Receive with no page to be had (the debug kernel's fail_page_alloc, for
# allocations of fdma.ko's code only): a socket that never reads holds
# every page B receives, so B's refills find none and its ring runs dry.
# Once pages can be had again, B receives again, though no completion
# will ever come to an empty ring (a timer tries the refill again).
FPA=/sys/kernel/debug/fail_page_alloc
range=""
if [ -w $FPA/probability ]; then
	# fdma.ko's text: from its first function to the symbol after its last.
	# The third number: text symbols of other code inside that span (a
	# module loaded later into a hole of fdma.ko's), which the filter
	# would take for fdma.ko's.
	range=$(awk '$2 ~ /^[tT]$/ { print $1, $4 }' /proc/kallsyms | sort | awk '
		{ a[NR] = $1; m[NR] = $2 }
		$2 == "[fdma]" { if (!lo) lo = NR; hi = NR }
		END {
			if (!lo) exit
			for (i = lo; i <= hi; i++) if (m[i] != "[fdma]") f++
			print a[lo], (hi < NR ? a[hi + 1] : a[hi]), f + 0
		}')
	read -r lo hi foreign <<EOF
$range
EOF
	# The DMA API's debug allocates as it records a mapping of ours: not
	# a failure of the driver's to test (it would turn the debug off).
	rej=$(awk '$2 ~ /^[tT]$/ { print $1, $3 }' /proc/kallsyms | sort | awk '
		{ a[NR] = $1 }
		$2 ~ /^debug_dma_/ { if (!lo) lo = NR; hi = NR }
		END { if (lo) print a[lo], a[hi + 1] }')
fi
if [ ! -w $FPA/probability ] || [ ! -e /proc/net/pktgen/pgctrl ] || [ ! -x $T/fdma_udphold ] ||
   [ "$ENGINE" != fdma ]; then
	:	# not the debug kernel (whose rows run the FDMA engine)
elif [ -z "$range" ]; then
	# Without fdma.ko's range every page allocation of the guest would fail.
	fail net_rx_nopage "no text of fdma.ko in /proc/kallsyms: fail_page_alloc not armed"
elif [ "$foreign" != 0 ]; then
	fail net_rx_nopage "fdma.ko's text 0x$lo..0x$hi holds $foreign text symbols of other code: fail_page_alloc not armed"
elif ! inns ethtool -A "$B" tx off; then
	fail net_rx_nopage "ethtool -A $B tx off: $(inns ethtool -a "$B" 2>&1 | tr '\n' ' ')"
else
	# B without flow control: what it has no page for is dropped, as a
	# NIC's receive without descriptors does. With it, A's transmit
	# would be held for as long as B has no page: past 5 s its watchdog
	# restarts A, whose own allocations (fdma.ko's too) then fail.
	inns $T/fdma_udphold 9 120 >/tmp/hold.out 2>&1 &
	HOLD=$!
	sleep 0.5
	# Armed (probability last) only once every filter took.
	if ! { echo 0 >$FPA/min-order && echo N >$FPA/ignore-gfp-wait &&
	       echo N >$FPA/ignore-gfp-highmem && echo 0 >$FPA/verbose &&
	       echo 32 >$FPA/stacktrace-depth && echo "0x$lo" >$FPA/require-start &&
	       echo "0x$hi" >$FPA/require-end && echo -1 >$FPA/times &&
	       echo 1 >$FPA/interval &&
	       { [ -z "$rej" ] || { echo "0x${rej% *}" >$FPA/reject-start &&
				    echo "0x${rej#* }" >$FPA/reject-end; }; }; }; then
		fail net_rx_nopage "cannot set fail_page_alloc's filters (fdma.ko's text 0x$lo..0x$hi)"
	else
		echo 100 >$FPA/probability
	fi
	settle
	r0=$b_rx
	pg_setup 4000 32 0 0 9
	echo start >/proc/net/pktgen/pgctrl
	settle
	r1=$b_rx
	echo 0 >$FPA/probability
	kill "$HOLD" 2>/dev/null
	wait "$HOLD" 2>/dev/null
	sleep 0.5
	settle
	r2=$b_rx
	# One a millisecond: B keeps up, and drops nothing once it has pages.
	pg_setup 200 1 0 1000000 9
	echo start >/proc/net/pktgen/pgctrl
	settle
	r3=$b_rx
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_0
	inns ethtool -A "$B" tx on
	sleep 0.5
	echo "    no pages: B received $((r1 - r0)) of 4000 frames (the held socket's); pages back: $((r3 - r2)) of 200"
	if [ $((r1 - r0)) -ge 4000 ]; then
		fail net_rx_nopage "B received all 4000 frames: its refills never ran out of pages ($(cat /tmp/hold.out))"
	elif [ $((r3 - r2)) -lt 200 ]; then
		fail net_rx_nopage "once pages could be had again B received $((r3 - r2)) of 200 frames: its ring stayed dry"
	else
		pass net_rx_nopage
	fi
fi

if dmesg | grep -q 'NETDEV WATCHDOG'; then
	fail net_watchdog "$(dmesg | grep -m1 'NETDEV WATCHDOG')"
else
	pass net_watchdog
fi

# A restart that fails: B's transmit channel stops acknowledging resets
# (the model's noack fault, armed at its next descriptor), then a setting
# that restarts the interface (tx pause off). The interface stays up with
# its rings down; setting it down must still return at once: NAPI, left
# off by the failed open, is not disabled a second time with RTNL held.
MODEL=/sys/kernel/debug/fdma/${A%n0}/model
if [ "$ENGINE" = fdma ] && [ -w "$MODEL" ]; then
	txch=$(dmesg | sed -n "s/.*$B: channels \([0-9]*\) (transmit).*/\1/p" | tail -1)
	echo "fault noack ${txch:-1} 1" >"$MODEL"
	inns ping -c 1 -W 1 169.254.10.1 >/dev/null 2>&1
	inns ethtool -A "$B" tx off 2>/tmp/eth.err
	inns ip link set "$B" down &
	DOWN=$!
	for i in $(seq 100); do
		kill -0 $DOWN 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $DOWN 2>/dev/null; then
		fail net_restart_failed "ip link set $B down still runs after 10 s: its stop hangs, RTNL held (nothing after this can run)"
		dmesg | tail -20 | sed 's/^/    /'
		exit 0
	fi
	wait $DOWN
	rc=$?
	if [ $rc != 0 ]; then
		fail net_restart_failed "ip link set $B down after a failed restart: status $rc"
	elif ! dmesg | grep -q "$B: cannot restart"; then
		fail net_restart_failed "the restart did not fail: the fault did not stop the channel's resets ($(cat /tmp/eth.err))"
	else
		pass net_restart_failed
	fi
fi

# rmmod with traffic flowing, then the flood and B's namespace ended, and
# the kernel log looked at for what the teardown may have left.
flood 1000000
sleep 1
if rmmod fdma 2>/tmp/rm.err; then
	pass rmmod_net
else
	fail rmmod_net "$(cat /tmp/rm.err)"
fi
kill "$FLOOD" "$NS" 2>/dev/null
if dmesg | grep -q 'NETDEV WATCHDOG\|BUG:\|WARNING:'; then
	fail net_dmesg "$(dmesg | grep -m1 'NETDEV WATCHDOG\|BUG:\|WARNING:')"
else
	pass net_dmesg
fi

# irq_mode=poll with the interfaces up and idle: receive rings keep their
# pages posted, which is no work; NAPI must not run every poll period for
# ever (NET_RX softirqs counted over 2 s; a few come from the stack itself).
if [ "$ENGINE" = fdma ] && insmod /fdma.ko ivshmem=1 net=1 irq_mode=poll 2>/tmp/rg.err; then
	for i in $(seq 50); do
		[ -e "/sys/class/net/$A" ] && [ -e "/sys/class/net/$B" ] && break
		sleep 0.1
	done
	ip link set "$A" up
	ip link set "$B" up
	sleep 1
	rx() { awk '$1 == "NET_RX:" { n = 0; for (i = 2; i <= NF; i++) n += $i; print n }' /proc/softirqs; }
	n0=$(rx)
	sleep 2
	n1=$(rx)
	echo "    irq_mode=poll, idle: $((n1 - n0)) NET_RX softirqs in 2 s"
	if [ $((n1 - n0)) -gt 100 ]; then
		fail net_poll_idle "$((n1 - n0)) NET_RX softirqs in 2 s with both interfaces idle: NAPI runs every poll period"
	else
		pass net_poll_idle
	fi
	rmmod fdma || fail net_poll_idle "rmmod fdma: failed"
elif [ "$ENGINE" = fdma ]; then
	fail net_poll_idle "insmod /fdma.ko ivshmem=1 net=1 irq_mode=poll: $(cat /tmp/rg.err)"
fi

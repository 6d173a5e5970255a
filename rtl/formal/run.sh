#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bounded proofs of the channel's properties (the `ifdef FORMAL block of
# rtl/fdma_chan.v) for an H2C memory-mapped, a C2H memory-mapped, a C2H
# stream and an H2C byte stream channel: from reset, for DEPTH clocks or
# the depth each check needs, with every input free (the host's register
# writes, completions, card memory, the stream source); the engine around
# its channels; and the byte packer, the MSI-X block and the 7-series shim
# alone. Then the test of the proofs: each property is broken on purpose
# in a copy of the RTL (the mutations below) and the check must find the
# counterexample; a mutation it does not catch fails the run.
#
# usage: rtl/formal/run.sh [OUTDIR]   (default build/formal); DEPTH=N (16);
#        ONLY=PATTERN runs the checks whose names hold PATTERN;
#        SMT=1 checks the channel with yosys-smtbmc and z3 instead, slower
#        but with a VCD trace of a counterexample beside its log;
#        DEEP=1 and ENGINE_ALL=1 add the checks run by hand (below)
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-build/formal}
DEPTH=${DEPTH:-16}
mkdir -p "$OUT"
fail=0

# prove NAME C2H STREAM SRCDIR [CLOCKS]: 0 when every assertion holds for
# CLOCKS (DEPTH) clocks from reset; 1 with a counterexample in $OUT/NAME.log (and .vcd);
# 2 when the proof did not run.
#
# The channel, bit-blasted (techmap, abc -g AND), goes to ABC's bmc3 as an
# and-inverter graph (prove_aig below), faster than yosys-smtbmc with z3
# on the same logic, most of all at the first depths (a C2H channel's 16
# clocks: 18 s against 79 s; its 32 clocks: 285 s against 345 s), which
# pays for the depths below in CI. With SMT=1 it goes to z3 bit-blasted the
# same way: Debian's z3 4.8.12 spends minutes per word-level definition of
# the flattened channel (nested 64-bit selects and shifts) before the
# first step.
#
# C2H "pack" is the byte packer alone (fdma_pack.v under pack_top.v), whose
# properties are proved for all time: k-induction (-i) on top of the
# bounded check of its first K clocks (PACK_K, 3).
#
# The engine around its channels ("engine_rx", "engine_tx", "engine_sp",
# "engine_cover": rtl/formal/engine_props.vh) goes another way: as an
# and-inverter graph (write_aiger) to ABC's bmc3, in yosys-abc, which
# Debian's yosys ships. z3 took 9 minutes for its fourth step of the
# whole engine; bmc3 checks each part to its depth in seconds. Each part is
# its own model, so the solver sees only the logic its properties reach.
# "engine_cover" turns the cover statements into assertions that must all
# fail (bmc3 -a).
# chan_model PART SRCDIR STREAM: the channel's sources and top for a check
# (PART: C2H 0 or 1, "data" or "record"), in m_read and m_top
chan_model() {
	m_c2h=$1 m_def=""
	# "data": the H2C memory-mapped channel with the data-placement
	# property and the link rules it needs (FV_DATA in fdma_chan.v);
	# "record": the same, and an OK record only after all its data
	[ "$1" = data ] && m_def="-DFV_DATA" && m_c2h=0
	[ "$1" = record ] && m_def="-DFV_DATA -DFV_RECORD" && m_c2h=0
	m_read="$m_def -I$2 -Irtl $2/fdma_chan.v $2/fdma_pack.v rtl/fdma_fifo.v rtl/formal/chan_top.v"
	m_top="chparam -set C2H $m_c2h -set STREAM $3 chan_top
		prep -top chan_top"
}

prove_aig() {
	a_name=$1 a_part=$2 a_src=$3 a_depth=$4
	case $a_part in
	engine_*)
		a_def="-DFV_ENG_RX"
		case $a_part in
		engine_tx) a_def="-DFV_ENG_TX" ;;
		engine_sp) a_def="-DFV_ENG_SPACE" ;;
		engine_leak) a_def="-DFV_ENG_LEAK" ;;
		engine_cover) a_def="-DFV_COVER" ;;
		esac
		a_read="-DFV_ENGINE $a_def -I$a_src -Irtl -Irtl/formal $a_src/fdma_engine.v rtl/fdma_fifo.v rtl/fdma_skid.v rtl/formal/engine_stubs.v rtl/formal/engine_top.v"
		a_top="prep -top engine_top" ;;
	*)
		chan_model "$a_part" "$a_src" "$5"
		a_read=$m_read a_top=$m_top ;;
	esac
	yosys -l "$OUT/$a_name.yosys.log" -p "
		read_verilog -formal $a_read
		$a_top
		flatten
		memory_map
		opt -full
		async2sync
		chformal -cover -remove
		dffunmap
		techmap
		opt -fast -noff
		abc -g AND -fast
		opt_clean
		write_aiger -I -B -zinit $OUT/$a_name.aig" >/dev/null 2>&1 || return 2
	a_all=""
	[ "$a_part" = engine_cover ] && a_all="-a"
	yosys-abc -c "read_aiger $OUT/$a_name.aig; fold; strash; bmc3 $a_all -F $a_depth -v" \
		>"$OUT/$a_name.log" 2>&1 || return 2
	if [ "$a_part" = engine_cover ]; then
		grep -Eq 'solved ([0-9]+) out of \1 outputs' "$OUT/$a_name.log" && return 0
		echo "Status: FAILED (a cover statement not reached in $a_depth clocks)" >>"$OUT/$a_name.log"
		return 1
	fi
	grep -q 'was asserted in frame' "$OUT/$a_name.log" && return 1
	grep -q "No output asserted in $a_depth frames" "$OUT/$a_name.log" && return 0
	return 2
}

prove() {
	p_name=$1 p_c2h=$2 p_stream=$3 p_src=$4 p_depth=${5:-$DEPTH}
	case $p_c2h in
	engine_*)
		prove_aig "$p_name" "$p_c2h" "$p_src" "$p_depth"
		return ;;
	0 | 1 | data | record)
		if [ "${SMT:-0}" != 1 ]; then
			prove_aig "$p_name" "$p_c2h" "$p_src" "$p_depth" "$p_stream"
			return
		fi ;;
	esac
	if [ "$p_c2h" = pack ]; then
		p_read="-DFDMA_PACK_ALONE $p_src/fdma_pack.v rtl/formal/pack_top.v"
		p_top="prep -top pack_top"
	elif [ "$p_c2h" = msix ]; then
		p_read="$p_src/fdma_msix.v rtl/formal/msix_top.v"
		p_top="prep -top msix_top"
	elif [ "$p_c2h" = shim ]; then
		p_read="rtl/fdma_skid.v $p_src/fdma_pcie_7x.v rtl/formal/shim_top.v"
		p_top="prep -top shim_top"
	else
		chan_model "$p_c2h" "$p_src" "$p_stream"
		p_read=$m_read p_top=$m_top
	fi
	yosys -l "$OUT/$p_name.yosys.log" -p "
		read_verilog -formal -I$p_src -Irtl $p_read
		$p_top
		flatten
		memory_map
		opt -full
		async2sync
		techmap
		opt -fast
		abc -g AND
		opt_clean
		dffunmap
		write_smt2 $OUT/$p_name.smt2" >/dev/null 2>&1 || return 2
	if [ "$p_c2h" = pack ] || [ "$p_c2h" = msix ]; then
		p_k=${PACK_K:-3}
		[ "$p_c2h" = msix ] && p_k=${MSIX_K:-4}
		yosys-smtbmc -s z3 --presat -t "$p_k" --dump-vcd "$OUT/$p_name.vcd" \
			"$OUT/$p_name.smt2" >"$OUT/$p_name.log" 2>&1
		grep -q 'Status: PASSED' "$OUT/$p_name.log" || p_depth=0
		[ "$p_depth" = 0 ] || yosys-smtbmc -s z3 -i -t "$p_k" \
			--dump-vcd "$OUT/$p_name.vcd" "$OUT/$p_name.smt2" >>"$OUT/$p_name.log" 2>&1
		[ "$p_depth" = 0 ] || covers "$p_name" 12
	else
		yosys-smtbmc -s z3 --presat -t "$p_depth" --dump-vcd "$OUT/$p_name.vcd" \
			"$OUT/$p_name.smt2" >"$OUT/$p_name.log" 2>&1
		grep -q 'Status: PASSED' "$OUT/$p_name.log" && covers "$p_name" "$p_depth"
	fi
	grep -q 'Status: FAILED' "$OUT/$p_name.log" && return 1
	grep -q 'Status: PASSED' "$OUT/$p_name.log" && return 0
	return 2
}

# covers NAME CLOCKS: a model with cover statements must reach each of them
# within CLOCKS (else its log gets a failed status); one without, nothing.
covers() {
	grep -q 'yosys-smt2-cover' "$OUT/$1.smt2" || return 0
	yosys-smtbmc -s z3 -c -t "$2" "$OUT/$1.smt2" >"$OUT/$1.cover.log" 2>&1 ||
		echo "Status: FAILED (a cover statement not reached: $1.cover.log)" >>"$OUT/$1.log"
}

# spawn NAME COMMAND...: each check runs in the background, JOBS (2) at a
# time, and leaves its result line in $OUT/NAME.result; they are printed in
# order at the end. A check starts as soon as one ends (wait -n), so the
# long ones, started first, overlap with all the short ones.
JOBS=${JOBS:-2}
running=0
order=""
spawn() {
	s_name=$1
	shift
	case $s_name in *"${ONLY:-}"*) ;; *) return 0 ;; esac
	order="$order $s_name"
	"$@" >"$OUT/$s_name.result" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
}

# 1. the proofs
proof() {
	t0=$(date +%s)
	if prove "$1" "$2" "$3" rtl "${4:-$DEPTH}"; then
		c=""
		[ -f "$OUT/$1.cover.log" ] && c=", its cover statements reached"
		if [ "$2" = engine_cover ]; then
			echo "PASS: $1: every cover statement reached within ${4:-$DEPTH} clocks ($(($(date +%s) - t0)) s)"
		elif [ "$2" = pack ] || [ "$2" = msix ]; then
			echo "PASS: $1: every property holds for all time (k-induction$c, $(($(date +%s) - t0)) s)"
		else
			echo "PASS: $1: every property holds for ${4:-$DEPTH} clocks from reset$c ($(($(date +%s) - t0)) s)"
		fi
	else
		echo "FAIL: $1: a property fails or the check did not run: $OUT/$1.log"
	fi
}

# 2. the proofs' own test: each mutation must be caught
# name | kind (c2h stream) | sed expression on fdma_chan.v | what it breaks
mutate_one() {
	name=$1 c2h=$2 stream=$3 expr=$4 what=$5 clocks=${6:-$DEPTH}
	d="$OUT/mut-$name"
	f=fdma_chan.v
	[ "$c2h" = pack ] && f=fdma_pack.v
	[ "$c2h" = msix ] && f=fdma_msix.v
	[ "$c2h" = shim ] && f=fdma_pcie_7x.v
	case $c2h in engine_*) f=fdma_engine.v ;; esac
	mkdir -p "$d"
	cp rtl/*.vh rtl/fdma_chan.v rtl/fdma_pack.v rtl/fdma_msix.v rtl/fdma_pcie_7x.v rtl/fdma_engine.v "$d/"
	sed "$expr" "rtl/$f" >"$d/$f"
	if cmp -s "rtl/$f" "$d/$f"; then
		echo "FAIL: mutation $name changed nothing (the RTL moved: update run.sh)"
	elif prove "mut-$name" "$c2h" "$stream" "$d" "$clocks"; then
		echo "FAIL: mutation $name ($what) was not caught"
	elif [ $? -eq 1 ]; then
		echo "PASS: mutation $name ($what) caught"
	else
		echo "FAIL: mutation $name: the proof did not run (see $OUT/mut-$name.*log)"
	fi
}
mutate() {
	spawn "mut-$1" mutate_one "$@"
}
# The longest checks first, so the short ones overlap them. The C2H
# memory-mapped channel to 28 clocks, where its first MSI (18) and its
# first data write (22) are reached. Its first record saying OK comes at
# 31 (the ring set up, the descriptor fetched, card memory read, the data
# written), which the record-after-data property needs: 32 clocks take
# 285 s here, so that depth runs on request (DEEP=1); the C2H stream
# channel below reaches its first OK record at 17 and checks the property
# in CI.
c2h_depth=${C2H_DEPTH:-28}
[ "${DEEP:-0}" = 1 ] && c2h_depth=32
spawn c2h_mm proof c2h_mm 1 0 "$c2h_depth"
# The stream channel to 24 clocks, with its own mutation: at 22 clocks a
# source's stray tkeep on a frame's middle word misaligned the rest of the
# frame (a write not a multiple of 8 bytes), which 16 clocks do not reach.
spawn c2h_stream proof c2h_stream 1 1 "${STREAM_DEPTH:-24}"
mutate stream_keep_midframe 1 1 's/(STREAM \&\& src_last ? {28.d0, kbytes}/(STREAM ? {28'"'"'d0, kbytes}/' \
	"a stray tkeep before a frame's end counts" "${STREAM_DEPTH:-24}"
# The engine around its channels (engine_props.vh), in three parts and
# the covers, each to the depth its deepest mutation below needs.
spawn engine_tx proof engine_tx engine_tx 0 "${ENG_TX_DEPTH:-10}"
spawn engine_rx proof engine_rx engine_rx 0 "${ENG_RX_DEPTH:-10}"
spawn engine_sp proof engine_sp engine_sp 0 "${ENG_SP_DEPTH:-10}"
spawn engine_leak proof engine_leak engine_leak 0 "${ENG_LEAK_DEPTH:-6}"
spawn engine_cover proof engine_cover engine_cover 0 8
mutate eng_read_blocks_rx engine_rx 0 's/assign rx_ready = !w2_pend \&\& !(rx_sop \&\& is_np \&\& npq_full);/assign rx_ready = !w2_pend \&\& rc_st == RC_IDLE;/' \
	"a register read waiting to be answered holds back completions and writes" "${ENG_RX_DEPTH:-10}"
mutate eng_wrong_channel engine_rx 0 's/wire \[3:0\]  w_chn = w_off\[10:7\] - 4.d2;/wire [3:0]  w_chn = w_off[10:7] - 4'"'"'d1;/' \
	"a register write reaches the channel next to its own" "${ENG_RX_DEPTH:-10}"
mutate eng_partial_write engine_rx 0 's/wire        wp_we = w2_pend ? w2_ok : wbeat \&\& be0 == 4.hf \&\& !b_ep;/wire        wp_we = w2_pend ? w2_ok : wbeat \&\& !b_ep;/' \
	"a DW with bytes disabled is written whole" "${ENG_RX_DEPTH:-10}"
mutate eng_lower_addr engine_rx 0 's/rc_tag, {rc_off\[6:2\], rc_la});/rc_tag, {rc_off[6:2], 2'"'"'b00});/' \
	"a completion's lower address ignores the first byte enabled" "${ENG_RX_DEPTH:-10}"
mutate eng_np_data_dropped engine_rx 0 's/wire        is_np = !(is_mem \&\& is_wr) \&\& /wire        is_np = !is_wr \&\& /' \
	"a non-posted request with data (I/O or configuration write, AtomicOp) is never answered" "${ENG_RX_DEPTH:-10}"
mutate eng_foreign_cpl engine_rx 0 's/wire        is_ours = is_cpl \&\& rx_hdr\[95:80\] == cfg_id \&\& rx_hdr\[79:77\] == 3.d0;/wire        is_ours = is_cpl;/' \
	"a completion for another requester or tag reaches a channel" "${ENG_RX_DEPTH:-10}"
mutate eng_tlp_interleave engine_tx 0 's/wire \[2:0\] cur = locked ? grant : pick;/wire [2:0] cur = pick;/' \
	"TLPs of two sources interleave" "${ENG_TX_DEPTH:-10}"
mutate eng_read_passes_read engine_tx 0 's/if (tx_eop \&\& !(locked ? aside : rd_wait))/if (tx_eop)/' \
	"a read waiting for space loses its turn to the TLPs that go meanwhile" "${ENG_TX_DEPTH:-10}"
mutate eng_space_unchecked engine_sp 0 's/rd_wait = pick_ok \&\& s_rd\[pick\] \&\& !s_fits\[pick\];/rd_wait = 1'"'"'b0;/' \
	"reads go whether their completions fit or not" "${ENG_SP_DEPTH:-10}"
mutate eng_space_kept engine_leak 0 's/rel_c_h <= c_rel ? res_h\[cr_tag\] : 6.d0;/rel_c_h <= 6'"'"'d0;/' \
	"a completed read's headers are never given back" "${ENG_LEAK_DEPTH:-6}"
mutate eng_fixed_priority engine_tx 0 's/if (tx_eop \&\& !(locked ? aside : rd_wait))/if (1'"'"'b0)/' \
	"fixed priority: the last source waits for ever" "${ENG_TX_DEPTH:-10}"
# Five more of the engine's on request (ENGINE_ALL=1, about 35 s), to keep
# CI's formal stage near its time: each breaks a property that one of the
# mutations above breaks too.
if [ "${ENGINE_ALL:-0}" = 1 ]; then
	mutate eng_poisoned_write engine_rx 0 's/wire        wp_we = w2_pend ? w2_ok : wbeat \&\& be0 == 4.hf \&\& !b_ep;/wire        wp_we = w2_pend ? w2_ok : wbeat \&\& be0 == 4'"'"'hf;/' \
		"a poisoned write is applied" "${ENG_RX_DEPTH:-10}"
	mutate eng_dw1_offset engine_rx 0 's/w2_off <= b_base + b_idx1;/w2_off <= b_base + b_idx;/' \
		"a beat's second DW is written at the first one's offset" "${ENG_RX_DEPTH:-10}"
	mutate eng_read_dw1 engine_rx 0 's/wire \[12:0\] r_off = {rc_st == RC_DW1 ? rc_off + 11.d1 : rc_off, 2.b00};/wire [12:0] r_off = {rc_off, 2'"'"'b00};/' \
		"a two-DW read returns its first register twice" "${ENG_RX_DEPTH:-10}"
	mutate eng_cpl_route_unlatched engine_rx 0 's/wire \[1:0\]  cur_ch  = rx_sop ? rx_hdr\[76:75\] : rx_ch_in;/wire [1:0]  cur_ch  = rx_hdr[76:75];/' \
		"a completion's later beats go where their header bits point" "${ENG_RX_DEPTH:-10}"
	mutate eng_space_no_offset engine_sp 0 's/nh = ({7.d0, na} + nb + 13.d63) >> 6;/nh = (nb + 13'"'"'d63) >> 6;/' \
		"a read's completion headers counted without its start's offset in a 64-byte block" "${ENG_SP_DEPTH:-10}"
fi
# An H2C record saying OK only after all its data is in card memory: its
# first OK record comes at 24 clocks, so the check runs 25, with the data
# proof's link: 1105 s here, so on request (DEEP=1), with a
# mutation that sends the record while card memory still has writes on
# the way.
if [ "${DEEP:-0}" = 1 ]; then
	spawn h2c_record proof h2c_record record 0 "${REC_DEPTH:-25}"
	mutate record_before_data record 0 's/end else if (dr_left == 0 \&\& reads_out \&\& !card_wbusy) begin/end else if (dr_left == 0 \&\& reads_out) begin/' \
		"an H2C record leaves while card memory still has its writes on the way" "${REC_DEPTH:-25}"
fi
# Where completion data lands, on a link that keeps PCIe's rules: its
# counterexample for a completion written at its slot's start (h_off = 0)
# comes at 16 clocks.
spawn h2c_data proof h2c_data data 0 "${DATA_DEPTH:-18}"
mutate cpl_at_slot_start data 0 's/wire \[9:0\]        h_off = h_slen - h_bytes\[9:0\];/wire [9:0]        h_off = 10'"'"'d0;/' \
	"every completion's data is written at the start of its slot" "${DATA_DEPTH:-18}"
spawn pack proof pack pack 0
# The 7-series shim: the core's stream rules, every DW where PG054 puts it,
# no UR on the stream, the error port's rules, MSI after the TLPs before it
spawn shim proof shim shim 0 "${SHIM_DEPTH:-10}"
mutate shim_ur_sent shim 0 's/wire \[2:0\] t_first = e_ur ? T_UR : T_H01;/wire [2:0] t_first = T_H01;/' \
	"a UR completion goes on the stream (the requester gets two)" "${SHIM_DEPTH:-10}"
mutate shim_no_swap shim 0 's/o_valid = tb_v; o_data = bswap2(tb);/o_valid = tb_v; o_data = tb;/' \
	"payload DWs keep the engine's byte order" "${SHIM_DEPTH:-10}"
mutate shim_msi_early shim 0 's/if (irq_on ? cfg_interrupt_rdy : msi_req \&\& tx_idle)/if (irq_on ? cfg_interrupt_rdy : msi_req)/' \
	"an MSI is asked for before the write-back it announces is with the core" "${SHIM_DEPTH:-10}"
mutate shim_err_starved shim 0 's/e_rr <= e_kind + 2.d1;/e_rr <= 2'"'"'d0;/' \
	"fixed priority: a storm of one error kind holds another back" "${SHIM_DEPTH:-10}"
# MSI-X, for all time: none while masked, whole, one per request, none lost
spawn msix proof msix msix 0
mutate msix_no_recall msix 0 's/wire       recall = sending \&\& (t_mask\[sv\] || !deliver);/wire       recall = 1'"'"'b0;/' \
	"a message chosen still goes after its vector is masked"
mutate msix_recall_lost msix 0 's/^\t\t\t\tpend\[sv\] <= 1.b1;/\t\t\t\t;/' \
	"a recalled message is not pending again"
mutate msix_twice msix 0 's/^\t\t\t\tpend\[pv\] <= 1.b0;/\t\t\t\t;/' \
	"a vector stays pending after its message is chosen (sent twice)"
mutate msix_live_entry msix 0 's/assign tx_hdr   = tlp_mem(1.b1, m_addr,/assign tx_hdr   = tlp_mem(1'"'"'b1, {t_hi[pv], t_lo[pv]},/' \
	"the message's address is read from the table as it goes, not as chosen"
mutate pack_sof_keeps pack 0 's/wire \[2:0\]   a_n = in_sof ? 3.d0 : acc_n;/wire [2:0]   a_n = acc_n;/' \
	"a new frame takes the bytes an unended one left"
mutate pack_last_early pack 0 's/out_last <= in_eof \&\& tot <= 4.d8;/out_last <= in_eof;/' \
	"a frame's word is marked last while bytes are still owed"
mutate pack_cut_open pack 0 's/wire         cut = shown \&\& !fl \&\& (clear || (in_valid \&\& in_sof));/wire         cut = 1'"'"'b0;/' \
	"a frame cut short is left open (no last word) when the next one starts"
mutate pack_lanes_outside pack 0 's/wire \[W-1:0\] w_bytes = w_sh \& ~({W{1.b1}} << (in_n \* LW));/wire [W-1:0] w_bytes = w_sh;/' \
	"bytes past a descriptor's end are packed"
# The H2C channel's reads issued ahead into the prefetched descriptor are
# first reached at 17 clocks, so its check runs 18 (and so do the two
# mutations of those reads).
spawn h2c_mm proof h2c_mm 0 0 "${DEEP_H2C:-18}"
# The H2C stream channel carries the packer's wide shifts (45 s here).
spawn h2c_stream proof h2c_stream 0 1
mutate ahead_reads_current 0 0 's/n_rd_from = BYTES ? {dn0\[63:3\], 3.b000} : dn0;/n_rd_from = BYTES ? {dn0[63:3], 3'"'"'b000} : dw0;/' \
	"reads issued ahead take the current descriptor's address" "${DEEP_H2C:-18}"
mutate ahead_unchecked 0 0 's/^\(\t*       \)n_fault == 16.d0;/\11'"'"'b1;/' \
	"reads go ahead for a descriptor that will fail its checks" "${DEEP_H2C:-18}"
# The order a descriptor's writes leave in: data, record, write-back, MSI
mutate order_record_early 1 0 's/end else if (f_done \&\& p_cnt == 0 \&\& !p_sending \&\& !f_take) begin/end else if (f_done \&\& !p_sending \&\& !f_take) begin/' \
	"a C2H record leaves while its last data TLP is still staged" "${C2H_DEPTH:-28}"
mutate order_stream_record_early 1 1 's/end else if (f_done \&\& p_cnt == 0 \&\& !p_sending \&\& !f_take) begin/end else if (f_done \&\& !p_sending \&\& !f_take) begin/' \
	"a stream buffer's record leaves while its last data TLP is still staged" "${STREAM_DEPTH:-24}"
mutate order_data_addr 1 0 's/p_addr\[f_slot\] <= f_addr - {{(60 - STGW_LOG2){1.b0}}, f_words, 3.b000};/p_addr[f_slot] <= f_addr;/' \
	"a C2H data TLP goes to where the one after it belongs" "${C2H_DEPTH:-28}"
mutate order_wb_before_record 1 0 '/^\t\t\tS_REC: begin/,/^\t\t\tS_WB: begin/ s/if (sb) begin/if (1'"'"'b1) begin/' \
	"the write-back goes after the record's first beat, the second still owed"
mutate order_msi_before_wb 1 0 '/^\t\t\tS_IRQWB: begin/,/^\t\t\tS_MSI: begin/ s/^\(\t*\)if (!sb)$/\1if (!sb) irq_req <= 1'"'"'b1; if (!sb)/' \
	"the MSI is asked for with the write-back's first beat, the second still owed" 20
mutate fetch_past_doorbell 0 0 's/cidx != r_pidx \&\& en;/en;/' \
	"fetches with nothing posted"
mutate prefetch_past_doorbell 1 0 's/!pf_valid \&\& next_idx != r_pidx \&\& /!pf_valid \&\& /' \
	"fetches the next descriptor with nothing more posted"
mutate prefetch_wrong_slot 0 0 's/tx_hdr = pf_want ? tlp_mem(1.b0, next_addr,/tx_hdr = pf_want ? tlp_mem(1'"'"'b0, desc_addr,/' \
	"the H2C prefetch reads the current descriptor's slot again"
mutate read_crosses_4k 0 0 's/rd_n = rl < to_4k ? rl : to_4k;/rd_n = rl;/' \
	"read requests ignore the 4 KiB boundary"
mutate read_above_mrrs 0 0 's/rl = rd_left < {19.d0, rd_max} ? rd_left\[12:0\] : rd_max;/rl = rd_left[12:0];/' \
	"read requests ignore MRRS"
mutate write_above_mps 1 0 's/f_r1 = f_rem < {19.d0, wr_max} ? f_rem\[12:0\] : wr_max;/f_r1 = f_rem[12:0];/' \
	"writes ignore MPS"
mutate tag_reuse 0 0 's/rd_left != 0 \&\& !s_busy\[iss\] \&\& !s_quar\[iss\] \&\& en/rd_left != 0 \&\& !s_quar[iss] \&\& en/' \
	"a tag is reused while outstanding"
mutate fetch_while_disabled 0 0 's/\t\t\ttx_valid = !abort \&\& en \&\& !s_quar\[DSLOT\];/\t\t\ttx_valid = !abort \&\& !s_quar[DSLOT];/' \
	"a descriptor fetch starts after ENABLE cleared"
mutate reset_keeps_count 0 0 's/cidx <= 0; err_idx <= 0;/err_idx <= 0;/' \
	"a channel reset keeps the completion count"
mutate stream_write_crosses_4k 1 1 's/f_n = f_r1 < f_to4k ? f_r1 : f_to4k;/f_n = f_r1;/' \
	"stream writes ignore the 4 KiB boundary"

wait
for name in $order; do
	r=$(cat "$OUT/$name.result" 2>/dev/null)
	[ -n "$r" ] || r="FAIL: $name printed no result"
	echo "$r"
	case $r in PASS:*) ;; *) fail=$((fail + 1)) ;; esac
done
echo "formal: $fail failed"
[ "$fail" -eq 0 ]

// SPDX-License-Identifier: MIT
// Properties of the engine around its channels (rtl/formal/run.sh,
// "engine_*"): included at the end of fdma_engine when FV_ENGINE is
// defined, with the channels and the MSI-X block replaced by free
// stand-ins (engine_stubs.v), so what is proved is the engine's own logic
// whatever they do. Each part is its own model, chosen by a define:
// FV_ENG_RX (1-4, and the first request answered in time), FV_ENG_TX (5),
// FV_ENG_SPACE and FV_ENG_LEAK (6), FV_COVER (the cover statements, as
// assertions that must fail). From reset, every input free but for the
// rules assumed below:
//  1. PCIe ordering: a posted request or a completion is never held back
//     behind a non-posted one (only for the clock in which the second DW
//     of a write beat is applied).
//  2. Register writes: a DW written at BAR0 offset O reaches the block
//     that owns O (a channel's registers, the MSI-X table) as O's
//     register, with its value, by the clock after its beat, if all its
//     bytes are enabled and the TLP is not poisoned; nothing else is ever
//     written there. One offset is followed, any offset (anyconst).
//  3. Register reads: a non-posted request gets one completion, with the
//     request's tag, requester, traffic class and attributes; for a read
//     of one or two DWs the status SC, the byte count and lower address
//     PCIe computes from the byte enables, and the value of the register
//     at each DW's offset; for anything else UR (CplLk to a locked read).
//     One request is followed, any requester and tag (anyconst).
//  4. Completions reach the channel their tag names, every beat, and only
//     this function's (its requester ID, a tag the engine uses); any other
//     is reported unexpected.
//  5. TX: whole TLPs, each beat the chosen source's; a source that is not
//     a read waits at most NSRC-1 TLPs, not counting those that go while a
//     read waits for completion space; a read waiting passes to at most
//     one read of each other channel.
//  6. Completion space: a read goes only when the space PCIe lets its
//     completions take fits in what the engine counts free; each tag
//     holds that space while its read is out, nothing after; the count is
//     back to zero two clocks after the last read ends (no leak, no
//     double release). (Not that the count is the sum of the tags' at
//     every clock: see FV_ENG_SPACE.)
// What the stand-ins are assumed to do is what a channel promises its
// engine (whole TLPs; memory requests; a read in one beat, of at most
// 512 bytes, with a tag of its own not in use); the channel's proofs in
// fdma_chan.v show those promises (tag_reuse, read_above_mrrs).

	reg fv_past = 1'b0;
	always @(posedge clk) fv_past <= 1'b1;
	always @(*) assume(rst == !fv_past);
	wire fv_on = fv_past && !rst;

	// ---- the link (the core's side of the edge) -------------------------------
	// A TLP's first beat carries sop and its header; it has as many beats
	// as its payload needs (the core drops malformed TLPs).
	// a header's length in DWs (0 is 1024) and the low DW of its address
	function [10:0] fv_dws;
		input [127:0] h;
		fv_dws = h[9:0] == 10'd0 ? 11'd1024 : {1'b0, h[9:0]};
	endfunction
	function [31:0] fv_addr;
		input [127:0] h;
		fv_addr = h[29] ? h[127:96] : h[95:64];
	endfunction
	reg         fv_rx_in = 1'b0;
	reg  [9:0]  fv_rx_beat, fv_rx_last;
	reg  [127:0] fv_rx_h;
	// the TLP whose beat is on rx now
	wire [127:0] fv_h = rx_sop ? rx_hdr : fv_rx_h;
	wire [10:0] fv_len = fv_dws(fv_h);
	wire [10:0] fv_lm1 = fv_len - 11'd1;
	wire [9:0]  fv_last_now = fv_h[30] ? fv_lm1[10:1] : 10'd0;    // (at sop)
	always @(*)
		if (fv_on && rx_valid) begin
			assume(rx_sop == !fv_rx_in);
			assume(rx_eop == (rx_sop ? fv_last_now == 10'd0 : fv_rx_beat == fv_rx_last));
		end
	always @(posedge clk)
		if (rst)
			fv_rx_in <= 1'b0;
		else if (rx_fire) begin
			if (rx_sop) begin
				fv_rx_h <= rx_hdr; fv_rx_last <= fv_last_now; fv_rx_beat <= 10'd1;
			end else
				fv_rx_beat <= fv_rx_beat + 10'd1;
			fv_rx_in <= !rx_eop;
		end
	// ... classified as PCIe does
	wire [4:0]  fv_ty = fv_h[28:24];
	wire [31:0] fv_alo = fv_addr(fv_h);
	wire        fv_mwr = fv_h[30] && fv_ty == 5'b00000;
	wire        fv_posted = fv_mwr || fv_ty[4:3] == 2'b10;
	wire        fv_anycpl = fv_ty[4:1] == 4'b0101;
	wire        fv_np = !fv_posted && !fv_anycpl;
	wire [9:0]  fv_b = rx_sop ? 10'd0 : fv_rx_beat;

	// ---- 1. posted requests and completions pass non-posted ones -----------
	reg         fv_w2 = 1'b0;          // last clock took a write beat with two DWs
	wire [10:0] fv_dw1 = {fv_b, 1'b1};
	always @(posedge clk)
		fv_w2 <= !rst && rx_fire && fv_mwr && fv_dw1 < fv_len;
`ifdef FV_ENG_RX
	always @(*)
		if (fv_on && rx_valid && !fv_np)
			assert(rx_ready || fv_w2);
`endif

	// ---- 2. register writes ------------------------------------------------------
	(* anyconst *) wire [12:2] fv_off;
	wire [10:0] fv_i = fv_off - fv_alo[12:2];       // its DW's index in this TLP
	wire        fv_w_hit = rx_fire && fv_mwr && fv_i < fv_len && fv_i[10:1] == fv_b;
	wire [3:0]  fv_be = fv_i == 11'd0 ? fv_h[35:32] : fv_i == fv_len - 11'd1 ? fv_h[39:36] : 4'hf;
	wire [31:0] fv_w_val = fv_i[0] ? rx_data[63:32] : rx_data[31:0];
	// offsets with a block behind them: the channels' windows, the MSI-X table and PBA
	wire        fv_mapped = (fv_off >= 11'h040 && fv_off < 11'h0c0) || fv_off >= 11'h400;
	wire        fv_e_now = fv_w_hit && fv_be == 4'hf && !fv_h[14] && fv_mapped;
	// a write at fv_off's register, as the blocks see their ports
	wire [3:0]  fv_pc = {g_ch[3].we_c && fv_off == 11'h0a0 + {6'd0, w_off[6:2]},
			     g_ch[2].we_c && fv_off == 11'h080 + {6'd0, w_off[6:2]},
			     g_ch[1].we_c && fv_off == 11'h060 + {6'd0, w_off[6:2]},
			     g_ch[0].we_c && fv_off == 11'h040 + {6'd0, w_off[6:2]}};
	wire        fv_pm = msix_we && w_off[12:2] == fv_off;
	wire        fv_p = fv_pc != 4'd0 || fv_pm;
	reg         fv_q = 1'b0;           // taken last clock, not yet at its port
	reg  [31:0] fv_q_val;
	always @(posedge clk) begin
		fv_q <= !rst && fv_e_now && !fv_p;
		fv_q_val <= fv_w_val;
	end
`ifdef FV_ENG_RX
	always @(*)
		if (fv_on) begin
			if (fv_p) begin
				assert(fv_q || fv_e_now);
				assert(wp_val == (fv_q ? fv_q_val : fv_w_val));
			end
			assert(!(fv_q && fv_e_now));
			if (fv_q)
				assert(fv_p);
		end
`endif

	// ---- 3. register reads ---------------------------------------------------------
	(* anyconst *) wire [23:0] fv_key;  // {requester ID, tag} of the request followed
	reg         fv_r_out = 1'b0;
	reg  [127:0] fv_r_h;
	wire        fv_key_in = rx_sop && fv_np && rx_hdr[63:40] == fv_key;
	// a requester does not reuse a tag still waiting for its completion
	always @(*)
		if (fv_on && rx_valid && fv_key_in)
			assume(!fv_r_out);
	wire        fv_c = tx_valid && tx_ready && tx_sop && tx_hdr[28:25] == 4'b0101 &&
			  tx_hdr[95:72] == fv_key;
	always @(posedge clk)
		if (rst)
			fv_r_out <= 1'b0;
		else if (rx_fire && fv_key_in) begin
			fv_r_out <= 1'b1; fv_r_h <= rx_hdr;
		end else if (fv_c)
			fv_r_out <= 1'b0;
	// the request followed, as the completion must answer it
	wire [4:0]  fv_rty = fv_r_h[28:24];
	wire [10:0] fv_rlen = fv_dws(fv_r_h);
	wire        fv_rur = !(fv_rty == 5'b00000 && !fv_r_h[30] && fv_rlen <= 11'd2);
	wire        fv_rlk = fv_rty == 5'b00001;
	wire [31:0] fv_ralo = fv_addr(fv_r_h);
	wire [12:2] fv_ro = fv_ralo[12:2];
	wire [3:0]  fv_rfbe = fv_r_h[35:32], fv_rlbe = fv_r_h[39:36];
	wire        fv_two = fv_rlen == 11'd2;
	wire [7:0]  fv_rm = fv_two ? {fv_rlbe, fv_rfbe} : {4'd0, fv_rfbe == 4'd0 ? 4'b0001 : fv_rfbe};
	wire        fv_wellf = fv_two ? fv_rfbe != 4'd0 && fv_rlbe != 4'd0 : fv_rlbe == 4'd0;
	reg  [2:0]  fv_first, fv_lastb;
	integer     fv_k;
	always @(*) begin
		fv_first = 3'd0; fv_lastb = 3'd0;
		for (fv_k = 7; fv_k >= 0; fv_k = fv_k - 1)
			if (fv_rm[fv_k])
				fv_first = fv_k[2:0];
		for (fv_k = 0; fv_k < 8; fv_k = fv_k + 1)
			if (fv_rm[fv_k])
				fv_lastb = fv_k[2:0];
	end
	wire [11:0] fv_bc = {9'd0, fv_lastb} - {9'd0, fv_first} + 12'd1;
	// {checked, value} of the register at offset o: the stand-ins' values
	// name the block and the register; the global registers the
	// host writes (CTRL, STATUS, RESET_REQ/ACK) are not checked
	function [32:0] fv_reg;
		input [12:2] o;
		input [31:0] mdl;
		reg   [10:0] d;
		begin
			d = o - 11'h040;
			if (o >= 11'h400)
				fv_reg = {1'b1, 8'ha5, 13'd0, o};
			else if (o >= 11'h0c0)
				fv_reg = {1'b1, 32'd0};
			else if (o >= 11'h040)
				fv_reg = {1'b1, 4'hc, d[6:5], 21'd0, d[4:0]};
			else
				case (o[7:2])
				6'h00: fv_reg = {1'b1, `FDMA_ID_MAGIC};
				6'h01: fv_reg = {1'b1, `FDMA_VERSION};
				6'h02: fv_reg = {1'b1, CAPS};
				6'h03: fv_reg = {1'b1, mdl};
				6'h04: fv_reg = {1'b1, CARD_BYTES[31:0]};
				6'h05: fv_reg = {1'b1, CARD_BYTES[63:32]};
				6'h06: fv_reg = {1'b1, 32'd1 << RING_MAX_LOG2};
				6'h08, 6'h09, 6'h0a, 6'h0b: fv_reg = {1'b0, 32'd0};
				default: fv_reg = {1'b1, 32'd0};
				endcase
		end
	endfunction
	wire [32:0] fv_d0 = fv_reg(fv_ro, max_desc_len);
	wire [32:0] fv_d1 = fv_reg(fv_ro + 11'd1, max_desc_len);
`ifdef FV_ENG_RX
	// Answered in time: in this part TX is the register reads' alone and
	// never held (below), so the first non-posted request after reset,
	// with none ahead of it in the queue, is answered within 4 clocks of
	// being taken. (A request the engine forgot would never be answered,
	// which no property above sees.)
	reg        fv_np_seen = 1'b0, fv_r_first = 1'b0;
	reg  [2:0] fv_r_age;
	always @(posedge clk)
		if (rst) begin
			fv_np_seen <= 1'b0; fv_r_first <= 1'b0; fv_r_age <= 3'd0;
		end else begin
			if (rx_fire && rx_sop && fv_np)
				fv_np_seen <= 1'b1;
			if (rx_fire && fv_key_in)
				fv_r_first <= !fv_np_seen;
			fv_r_age <= fv_r_out ? fv_r_age + {2'd0, fv_r_age != 3'd7} : 3'd0;
		end
	always @(*)
		if (fv_on) begin
			assume(tx_ready && src_valid[NCH - 1:0] == 0 && !src_valid[NCH + 1]);
			if (fv_r_out && fv_r_first)
				assert(fv_r_age <= 3'd4);
		end
	always @(*)
		if (fv_on && fv_c) begin
			assert(fv_r_out);
			assert(tx_eop);
			assert(tx_hdr[31:24] == {1'b0, !fv_rur, 1'b0, fv_rlk ? 5'b01011 : 5'b01010});
			assert(tx_hdr[22:20] == fv_r_h[22:20] && tx_hdr[18] == fv_r_h[18] &&
			       tx_hdr[13:12] == fv_r_h[13:12] && !tx_hdr[14]);
			assert(tx_hdr[9:0] == (fv_rur ? 10'd0 : fv_r_h[9:0]));
			assert(tx_hdr[63:48] == cfg_id);
			assert(tx_hdr[47:45] == (fv_rur ? `CPL_UR : `CPL_SC));
			if (!fv_rur && fv_wellf)
				assert(tx_hdr[43:32] == fv_bc && tx_hdr[70:64] == {fv_ro[6:2], fv_first[1:0]});
			if (!fv_rur && fv_d0[32])
				assert(tx_data[31:0] == fv_d0[31:0]);
			if (!fv_rur && fv_two && fv_d1[32])
				assert(tx_data[63:32] == fv_d1[31:0]);
		end
`endif

	// ---- 4. completions to their channel ----------------------------------------
	wire        fv_ours = fv_ty == 5'b01010 && fv_h[95:80] == cfg_id && fv_h[79:77] == 3'd0;
`ifdef FV_ENG_RX
	always @(*)
		if (fv_on) begin
			assert(ch_cpl == (rx_fire && fv_ours ? 4'b0001 << fv_h[76:75] : 4'd0));
			if (rx_fire && rx_sop && fv_anycpl && !fv_ours)
				assert(err_cpl_unexpect);
		end
`endif

	// ---- what the channels and the MSI-X block promise ------------------------------
	// a source's TLP: sop on its first beat only; memory requests; the
	// MSI-X writer sends one-beat writes; a channel's read is one beat of
	// 1 to 128 DWs with its own tag, not one in use
	reg  [NSRC-1:0] fv_s_in = 0;
	reg  [31:0]     fv_out = 0;         // tags with a read outstanding
	integer         fv_u;
	always @(posedge clk)
		for (fv_u = 0; fv_u < NSRC; fv_u = fv_u + 1)
			if (rst)
				fv_s_in[fv_u] <= 1'b0;
			else if (src_fire[fv_u])
				fv_s_in[fv_u] <= !src_eop[fv_u];
	function fv_is_rd;
		input [127:0] h;
		fv_is_rd = !h[30] && h[28:24] == 5'b00000;
	endfunction
	always @(*)
		if (fv_on)
			for (fv_u = 0; fv_u < NCH; fv_u = fv_u + 1) begin
				if (src_valid[fv_u]) begin
					assume(src_sop[fv_u] == !fv_s_in[fv_u]);
					if (src_sop[fv_u]) begin
						assume(src_hdr[fv_u][28:24] == 5'b00000);
						if (fv_is_rd(src_hdr[fv_u]))
							assume(src_eop[fv_u] && src_hdr[fv_u][47:43] == {3'd0, fv_u[1:0]} &&
							       src_hdr[fv_u][9:0] != 10'd0 && src_hdr[fv_u][9:0] <= 10'd128 &&
							       (fv_addr(src_hdr[fv_u]) & 32'd3) == 32'd0 &&
							       !fv_out[src_hdr[fv_u][44:40]]);
					end
				end
				assume((rd_gone[8 * fv_u +: 8] & ~fv_out[8 * fv_u +: 8]) == 8'd0);
			end
	always @(*)
		if (fv_on && src_valid[NCH + 1])
			assume(src_hdr[NCH + 1][30] && src_hdr[NCH + 1][28:24] == 5'b00000);

	// ---- 5. the TX arbiter --------------------------------------------------------
	reg         fv_t_in = 1'b0;
	reg  [2:0]  fv_t_src;
	wire        fv_t_fire = tx_valid && tx_ready;
	always @(posedge clk)
		if (rst)
			fv_t_in <= 1'b0;
		else if (fv_t_fire) begin
			fv_t_in <= !tx_eop; fv_t_src <= cur;
		end
	// what a read needs, computed as PCIe counts it: the 64-byte blocks
	// (read completion boundaries) and 16-byte credits its bytes touch
	function [11:0] fv_need;            // {headers, data credits}
		input [127:0] h;
		reg   [31:0] a;
		reg   [11:0] f;
		reg   [12:0] l;
		begin
			a = fv_addr(h);
			f = a[11:0];
			l = {1'b0, f} + {1'b0, h[9:0], 2'b00} - 13'd1;
			fv_need[11:6] = l[12:6] - {1'b0, f[11:6]} + 6'd1;
			fv_need[5:0]  = l[12:4] - {1'b0, f[11:4]} + 6'd1;
		end
	endfunction
	// a source with a read whose completions do not fit now
	reg  [NSRC-1:0] fv_rd_v, fv_rd_full;
	reg  [11:0]     fv_nd;
	always @(*)
		for (fv_u = 0; fv_u < NSRC; fv_u = fv_u + 1) begin
			fv_rd_v[fv_u] = src_valid[fv_u] && src_sop[fv_u] && fv_is_rd(src_hdr[fv_u]);
			fv_nd = fv_need(src_hdr[fv_u]);
			fv_rd_full[fv_u] = fv_rd_v[fv_u] &&
				({4'd0, fv_nd[11:6]} > CPLH_CREDITS - used_h ||
				 {4'd0, fv_nd[5:0]} > CPLD_CREDITS - used_d);
		end
	// per source: TLPs of others begun while it waits
	reg  [2:0] fv_wt [0:NSRC-1];
	reg  [2:0] fv_rw [0:NSRC-1];
	wire       fv_start = fv_t_fire && !fv_t_in;
	always @(posedge clk)
		for (fv_u = 0; fv_u < NSRC; fv_u = fv_u + 1) begin
			if (rst || !src_valid[fv_u] || !src_sop[fv_u] || fv_rd_v[fv_u] || src_fire[fv_u])
				fv_wt[fv_u] <= 3'd0;
			else if (fv_start && fv_rd_full == 0)
				fv_wt[fv_u] <= fv_wt[fv_u] + 3'd1;
			if (rst || !fv_rd_v[fv_u] || src_fire[fv_u])
				fv_rw[fv_u] <= 3'd0;
			else if (fv_start && fv_is_rd(tx_hdr))
				fv_rw[fv_u] <= fv_rw[fv_u] + 3'd1;
		end
`ifdef FV_ENG_TX
	always @(*)
		if (fv_on) begin
			assert((src_fire == 0) == !fv_t_fire);
			assert((src_fire & (src_fire - 1'b1)) == 0);
			if (fv_t_fire) begin
				assert(src_valid[cur] && src_fire[cur]);
				assert(tx_sop == src_sop[cur] && tx_eop == src_eop[cur] &&
				       tx_hdr == src_hdr[cur] && tx_data == src_data[cur]);
				assert(tx_sop == !fv_t_in);
				if (fv_t_in)
					assert(cur == fv_t_src);
			end
			for (fv_u = 0; fv_u < NSRC; fv_u = fv_u + 1) begin
				assert(fv_wt[fv_u] < NSRC);
				assert(fv_rw[fv_u] < NCH);
			end
		end
`endif

	// ---- 6. completion space --------------------------------------------------------
	reg  [5:0]  fv_rh [0:31];
	reg  [5:0]  fv_rd [0:31];
	wire [4:0]  fv_ct = fv_h[76:72];
	wire        fv_clast = !fv_h[30] || fv_h[47:45] != 3'd0 || fv_h[43:32] == {fv_len[9:0], 2'b00};
	// the read a completion ends (its last data taken from the core), or none
	wire        fv_cend = rx_fire && rx_eop && fv_ours && fv_clast;
	wire [11:0] fv_sent = fv_need(tx_hdr);
	wire        fv_rdgo = fv_start && fv_is_rd(tx_hdr);
	integer     fv_t;
	always @(posedge clk)
		if (rst)
			fv_out <= 0;
		else begin
			for (fv_t = 0; fv_t < 32; fv_t = fv_t + 1)
				if (rd_gone[fv_t] || (fv_cend && fv_ct == fv_t[4:0]))
					fv_out[fv_t] <= 1'b0;
			if (fv_rdgo) begin
				fv_out[tx_hdr[44:40]] <= 1'b1;
				fv_rh[tx_hdr[44:40]] <= fv_sent[11:6];
				fv_rd[tx_hdr[44:40]] <= fv_sent[5:0];
			end
		end
`ifdef FV_ENG_LEAK
	// Once every read has ended, two clocks later the count is zero
	// again: nothing kept, nothing given back twice. Only to a few clocks
	// (run.sh): a sum that rises and falls is arithmetic the solver takes
	// longer over at every step.
	wire fv_rel_now = (fv_cend && fv_out[fv_ct]) || (rd_gone & fv_out) != 0;
	reg  fv_rel_1 = 1'b0, fv_rel_2 = 1'b0;
	always @(posedge clk) begin
		fv_rel_1 <= fv_rel_now; fv_rel_2 <= fv_rel_1;
	end
	always @(*)
		if (fv_on && fv_out == 0 && !fv_rel_1 && !fv_rel_2)
			assert(used_h == 10'd0 && used_d == 10'd0);
`endif
`ifdef FV_ENG_SPACE
	// A read goes only when the space PCIe lets its completions take
	// fits in what the engine counts free, and what the engine holds for
	// each tag is that space while the read is out, nothing after. (That
	// the count equals the sum of what the tags hold is arithmetic over
	// 32 terms, at which the solver spends minutes a step; the RTL suite's
	// completion buffer model (rtl/sim/harness.cpp) fails any run that
	// overfills the buffer.)
	always @(*)
		if (fv_on) begin
			if (fv_rdgo)
				assert({4'd0, fv_sent[11:6]} <= CPLH_CREDITS - used_h &&
				       {4'd0, fv_sent[5:0]} <= CPLD_CREDITS - used_d);
			for (fv_t = 0; fv_t < 32; fv_t = fv_t + 1)
				assert(res_h[fv_t] == (fv_out[fv_t] ? fv_rh[fv_t] : 6'd0) &&
				       res_d[fv_t] == (fv_out[fv_t] ? fv_rd[fv_t] : 6'd0));
		end
`endif

	// ---- the proofs reach what they are about ---------------------------------------
	// Built with FV_COVER (and none of the parts), each of these is an
	// assertion that must fail: the bounded check has to reach it.
`ifdef FV_COVER
	always @(*)
		if (fv_on) begin
			assert(!(fv_c && !fv_rur && fv_two && fv_d1[32]));   // a two-DW read answered
			assert(!(fv_c && fv_rur && fv_rlk));                 // a UR to a locked read
			assert(!(fv_p && fv_pc != 0 && fv_q));               // a write's second DW at a channel
			assert(!(fv_p && fv_pm));                            // the MSI-X table written
			assert(!(fv_start && fv_rd_full != 0));              // a TLP goes while a read waits
			assert(!(fv_rdgo && used_h != 10'd0));               // a read goes beside another
		end
`endif

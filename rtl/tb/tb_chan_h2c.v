// SPDX-License-Identifier: MIT
// A 4-state bench (Icarus) for one H2C channel of rtl/fdma_chan.v alone,
// memory-mapped and byte stream, where its reads run ahead into the next
// descriptor (docs/rtl.md, "How a channel works"). Each run posts 16
// descriptors at once; the bench's link answers reads after a random
// delay, in random order across requests, a request's completions split
// at random 64-byte boundaries. Runs differ by seed and by what goes
// wrong: some reads fail (Unsupported Request, poisoned data, or never
// answered, so the completion timeout fires), or RUN is cleared and set
// again at random; tx_ready, m_ready and card_wbusy drop at random in
// every run. Checked:
// - every descriptor before the first one with a failed read completes
//   OK, in order, its bytes in card memory or on the stream (whole
//   frames, byte by byte); that one fails and the channel halts there;
//   with nothing failed, all 16 complete;
// - every word drained belongs to the descriptor running (a read issued
//   ahead never drains into the current one);
// - a channel idle and not running holds no read slot, and no run hangs;
// - byte stream: every frame the sink sees ends with m_last (a frame cut
//   by the halt is closed with m_abort), and none begins inside another.
// Event-driven and 4-state, unlike Verilator: a continuous assignment
// that read the slot arrays through a function went stale here (the
// channel hung in S_DRAIN after a failed read issued ahead).
`timescale 1ns / 1ps
`include "fdma_defs.vh"

module tb_chan_h2c;
	wire done_mm, done_st;
	wire [31:0] fails_mm, fails_st, runs_mm, runs_st;

	h2c_bench #(.STREAM(0)) mm (.done(done_mm), .fails(fails_mm), .runs(runs_mm));
	h2c_bench #(.STREAM(1)) st (.done(done_st), .fails(fails_st), .runs(runs_st));

	initial begin
		wait (done_mm && done_st);
		if (fails_mm == 0)
			$display("PASS: H2C memory-mapped channel: %0d runs, every record and byte as expected", runs_mm);
		else
			$display("FAIL: H2C memory-mapped channel: %0d failures in %0d runs", fails_mm, runs_mm);
		if (fails_st == 0)
			$display("PASS: H2C byte stream channel: %0d runs, every record and byte as expected, every frame closed (%0d cut by a halt, closed with m_abort)",
				 runs_st, st.aborts);
		else
			$display("FAIL: H2C byte stream channel: %0d failures in %0d runs", fails_st, runs_st);
		$finish;
	end
endmodule

module h2c_bench #(
	parameter STREAM = 0,
	parameter SEEDS = 12
) (
	output reg        done,
	output reg [31:0] fails,
	output reg [31:0] runs
);
	localparam N = 16;                        // descriptors per run
	localparam [63:0] RING = 64'h1000_0000, CPLR = 64'h2000_0000, WB = 64'h3000_0000;
	localparam [63:0] SRC = 64'h4000_0000;

	reg clk = 0, rst = 1;
	always #1 clk = ~clk;
	// the engine's completion timeout quarter: 750 clocks (a read fails
	// after 3000 to 3750 clocks unanswered)
	reg to_tick = 0;
	integer to_div = 0;
	always @(posedge clk) begin
		to_tick <= to_div == 749;
		to_div <= to_div == 749 ? 0 : to_div + 1;
	end
	reg reg_we = 0;
	reg [6:2] reg_wa = 0;
	reg [31:0] reg_wd = 0;
	wire tx_valid, tx_sop, tx_eop;
	wire [127:0] tx_hdr;
	wire [63:0] tx_data;
	reg tx_ready = 1;
	reg cpl_valid = 0, cpl_sop = 0, cpl_eop = 0;
	reg [127:0] cpl_hdr = 0;
	reg [63:0] cpl_data = 0;
	wire irq_req;
	wire card_we, m_valid, m_sof, m_last, m_abort;
	wire [20:0] card_wa;
	wire [63:0] card_wd, m_data;
	wire [7:0] m_keep;
	reg card_wbusy = 0, m_ready = 1;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_chan #(.CH(0), .C2H(0), .STREAM(STREAM), .TESTGEN(0), .NSLOT(7), .MAX_RD_LOG2(9)) dut (
		.clk(clk), .rst(rst), .en(1'b1), .eng_rst(1'b0), .eng_rst_done(),
		.us_tick(1'b0), .to_tick(to_tick), .now_ns(64'd0), .req_id(16'h0100), .mps_code(3'd1), .mrrs_code(3'd2),
		.max_desc_len(32'h0010_0000),
		.reg_we(reg_we), .reg_wa(reg_wa), .reg_wd(reg_wd), .reg_ra(5'd0), .reg_rd(),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.cpl_valid(cpl_valid), .cpl_sop(cpl_sop), .cpl_eop(cpl_eop), .cpl_hdr(cpl_hdr),
		.cpl_data(cpl_data), .irq_req(irq_req), .irq_vec(), .irq_ack(irq_req),
		.card_we(card_we), .card_wa(card_wa), .card_wd(card_wd), .card_wready(1'b1),
		.card_wbusy(card_wbusy), .card_re(), .card_ra(), .card_rready(1'b1),
		.card_rvalid(1'b0), .card_rd(64'd0),
		.m_valid(m_valid), .m_ready(m_ready), .m_data(m_data), .m_keep(m_keep),
		.m_sof(m_sof), .m_last(m_last), .m_abort(m_abort),
		.s_valid(1'b0), .s_ready(), .s_data(64'd0), .s_keep(8'd0), .s_last(1'b0),
		.busy(), .quiet());
	/* verilator lint_on PINCONNECTEMPTY */

	// host memory: the data word at word address w, and its bytes
	function [63:0] hw;
		input [63:0] w;
		hw = {w[31:0] ^ 32'h5a5a_0000, w[31:0] + 32'h1111};
	endfunction
	function [7:0] hb;
		input [63:0] a;
		reg [63:0] x;
		begin
			x = hw(a >> 3);
			hb = x >> (8 * a[2:0]);
		end
	endfunction

	reg [63:0] ring [0:4*N-1];
	reg [63:0] recs [0:2*N-1];
	reg [63:0] cmem [0:65535];
	integer cyc = 0, errors = 0, seed = 1, frate = 0, delay = 40;
	always @(posedge clk)
		cyc <= cyc + 1;

	// ---- read requests, as the channel sends them -------------------------
	reg [63:0] q_addr [0:255];
	reg [12:0] q_len [0:255], q_sent [0:255];
	reg [7:0]  q_tag [0:255];
	reg [2:0]  q_fault [0:255];    // 0 answered, 1 UR, 2 poisoned, 3 never answered
	reg        q_done [0:255];
	integer    q_t [0:255];
	integer    qh = 0, qt = 0;
	reg        faulted [0:N-1];    // a read of descriptor i failed
	integer    slot_desc [0:7];    // the descriptor each read slot was issued for
	integer    rd_desc, ahead_desc = -1;
	reg        first_ahead;
	reg [63:0] w_addr;

	always @(posedge clk) if (!rst && tx_valid && tx_ready && tx_sop && !tx_hdr[30]) begin
		q_addr[qt[7:0]] = tx_hdr[29] ? {tx_hdr[95:64], tx_hdr[127:98], 2'b00}
					     : {32'd0, tx_hdr[95:66], 2'b00};
		q_len[qt[7:0]] = tx_hdr[9:0] == 0 ? 13'd4096 : {1'b0, tx_hdr[9:0], 2'b00};
		q_tag[qt[7:0]] = tx_hdr[47:40];
		q_t[qt[7:0]] = cyc;
		q_fault[qt[7:0]] = 0;
		q_sent[qt[7:0]] = 0;
		q_done[qt[7:0]] = 0;
		if (tx_hdr[42:40] != 3'd7) begin
			// a data read: the current descriptor's, or the next one's (ahead)
			rd_desc = dut.ahead ? dut.cidx + 1 : dut.cidx;
			slot_desc[tx_hdr[42:40]] = rd_desc;
			// a descriptor's first read issued ahead fails more often: its
			// error must wait for the current descriptor to complete
			first_ahead = dut.ahead && rd_desc != ahead_desc;
			if (first_ahead)
				ahead_desc = rd_desc;
			if (frate != 0 && rd_desc < N && (({$random(seed)} % frate) == 0 ||
							  (first_ahead && ({$random(seed)} % 4) == 0))) begin
				q_fault[qt[7:0]] = 1 + {$random(seed)} % 3;
				faulted[rd_desc] = 1;
			end
		end
		qt = qt + 1;
	end
	// completion records (two beats each)
	always @(posedge clk) if (!rst && tx_valid && tx_ready && tx_hdr[30]) begin
		if (tx_sop)
			w_addr = tx_hdr[29] ? {tx_hdr[95:64], tx_hdr[127:98], 2'b00} : {32'd0, tx_hdr[95:66], 2'b00};
		else
			w_addr = w_addr + 8;
		if (w_addr >= CPLR && w_addr < CPLR + 16 * N)
			recs[(w_addr - CPLR) >> 3] = tx_data;
	end
	always @(posedge clk)
		if (card_we)
			cmem[card_wa[15:0]] <= card_wd;
	// every word drained is of the descriptor running
	always @(posedge clk) if (!rst && dut.dr_fire && slot_desc[dut.hd] != dut.cidx) begin
		$display("FAIL: %0d: slot %0d of descriptor %0d drained into descriptor %0d",
			 cyc, dut.hd, slot_desc[dut.hd], dut.cidx);
		errors = errors + 1;
	end
	always @(posedge clk) if (!rst && dut.st == 0 && !dut.running && (dut.s_busy != 0 || dut.ahead)) begin
		$display("FAIL: %0d: idle, not running, with slots %b (ahead %b)", cyc, dut.s_busy, dut.ahead);
		errors = errors + 1;
	end

	// the stream, byte by byte, and its frames as a sink that frames on
	// tlast sees them
	reg [7:0] sbytes [0:65535];
	integer ns = 0, kk, aborts = 0;
	reg sink_open = 0;
	always @(posedge clk) if (rst) begin
		sink_open = 0;
	end else if (m_valid && m_ready) begin
		for (kk = 0; kk < 8; kk = kk + 1)
			if (!m_last || m_keep[kk]) begin
				sbytes[ns[15:0]] = m_data >> (8 * kk);
				ns = ns + 1;
			end
		if (m_sof && sink_open) begin
			$display("FAIL: %0d: a frame began inside one the sink had open (no m_last)", cyc);
			errors = errors + 1;
		end
		if (m_abort && !m_last) begin
			$display("FAIL: %0d: m_abort without m_last", cyc);
			errors = errors + 1;
		end
		aborts = aborts + m_abort;
		sink_open = !m_last;
	end

	// ---- the link: completions in random order, split at 64-byte boundaries
	integer cur = -1, beat = 0, nb = 0, pick, tries, off;
	reg [63:0] ca;
	reg [12:0] chunk, rem;
	reg [2:0]  cf;
	always @(posedge clk) begin
		cpl_valid <= 0; cpl_sop <= 0; cpl_eop <= 0;
		if (rst) begin
			cur = -1;
		end else begin
			if (cur < 0 && qh != qt && ($random(seed) & 1)) begin
				pick = -1;
				for (tries = 0; tries < 8 && pick < 0; tries = tries + 1) begin
					off = qh + ({$random(seed)} % (qt - qh));
					if (!q_done[off[7:0]] && cyc >= q_t[off[7:0]] + delay)
						pick = off;
				end
				if (pick >= 0) begin
					cur = pick; beat = 0;
					ca = q_addr[cur[7:0]] + q_sent[cur[7:0]];
					rem = q_len[cur[7:0]] - q_sent[cur[7:0]];
					cf = q_fault[cur[7:0]];
					chunk = rem;
					if (q_tag[cur[7:0]][2:0] != 7 && rem > 64 && ($random(seed) & 1)) begin
						chunk = 64 - ca[5:0];
						chunk = chunk + 64 * ({$random(seed)} % ((rem - chunk) / 64 + 1));
						if (chunk > rem)
							chunk = rem;
					end
					if (cf == 1) begin
						chunk = rem; nb = 1;
					end else begin
						nb = chunk / 8;
					end
					if (cf == 3) begin
						q_done[cur[7:0]] = 1; cur = -1;
					end
				end
			end
			if (cur >= 0) begin
				cpl_valid <= 1; cpl_sop <= beat == 0; cpl_eop <= beat == nb - 1;
				cpl_hdr <= 0;
				cpl_hdr[9:0] <= chunk[11:2];
				cpl_hdr[30] <= cf != 1;                       // with data
				cpl_hdr[43:32] <= rem[11:0];                  // byte count left
				cpl_hdr[47:45] <= cf == 1 ? 3'b001 : 3'b000;  // UR
				cpl_hdr[14] <= cf == 2 && chunk == rem;       // poisoned
				cpl_hdr[79:72] <= q_tag[cur[7:0]];
				if (ca >= RING && ca < RING + 32 * N)
					cpl_data <= ring[((ca - RING) >> 3) + beat];
				else
					cpl_data <= hw((ca >> 3) + beat);
				beat = beat + 1;
				if (beat == nb) begin
					q_sent[cur[7:0]] = q_sent[cur[7:0]] + chunk;
					if (cf == 1 || q_sent[cur[7:0]] == q_len[cur[7:0]])
						q_done[cur[7:0]] = 1;
					cur = -1;
				end
			end
			while (qh != qt && q_done[qh[7:0]])
				qh = qh + 1;
		end
	end

	// the sink, the card's write responses and the TLP port slow down at random
	integer hold_wr = 0;
	always @(posedge clk) begin
		tx_ready <= ($random(seed) % 5) != 0;
		if (dut.st == 4 && dut.dr_left == 0 && hold_wr == 0)
			hold_wr = {$random(seed)} % 300;
		if (hold_wr > 0)
			hold_wr = hold_wr - 1;
		card_wbusy <= hold_wr > 1;
		m_ready <= ($random(seed) & 3) != 0;
	end

	task wr;
		input [6:0] a;
		input [31:0] v;
		begin
			@(negedge clk); reg_we = 1; reg_wa = a[6:2]; reg_wd = v;
			@(negedge clk); reg_we = 0;
		end
	endtask

	// ---- one run --------------------------------------------------------------
	integer i, j, t, p, bad, firsterr, fstart, fr_left, runtog, s, m;
	reg fr_first;
	reg [31:0] l, st16;
	reg [63:0] a, d;
	task run;
		input integer run_seed, run_frate, run_runtog;
		begin
			seed = run_seed; frate = run_frate; runtog = run_runtog;
			errors = 0;
			rst = 1;
			repeat (4) @(posedge clk);
			qh = 0; qt = 0; ns = 0; cur = -1; ahead_desc = -1;
			delay = 10 + {$random(seed)} % 100;
			for (i = 0; i < 2 * N; i = i + 1)
				recs[i] = 64'hx;
			for (i = 0; i < N; i = i + 1)
				faulted[i] = 0;
			fr_left = 0; fr_first = 1;
			for (i = 0; i < N; i = i + 1) begin
				if (STREAM == 0) begin
					l = 64 * (1 + {$random(seed)} % 96);
					ring[i * 4] = SRC + i * 64'h100000 + 64 * ({$random(seed)} % 200);
					ring[i * 4 + 1] = i * 64'h2000;
					ring[i * 4 + 2] = {32'd0, l};
					for (j = 0; j < l / 8; j = j + 1)
						cmem[(i * 64'h2000 >> 3) + j] = 64'hx;
				end else begin
					// frames of 1 to 3 pieces, any address and length
					l = 1 + {$random(seed)} % 3000;
					if (fr_left == 0)
						fr_left = 1 + {$random(seed)} % 3;
					if (i == N - 1)
						fr_left = 1;
					ring[i * 4] = SRC + i * 64'h100000 + {$random(seed)} % 9000;
					ring[i * 4 + 1] = 0;
					ring[i * 4 + 2] = {(fr_first ? 32'h2 : 32'h0) | (fr_left == 1 ? 32'h4 : 32'h0), l};
					fr_first = fr_left == 1;
					fr_left = fr_left - 1;
				end
				ring[i * 4 + 3] = 64'hC00C_0000 + i;
			end
			@(negedge clk); rst = 0;
			wr(`C_RING_LO, RING[31:0]); wr(`C_RING_HI, 0); wr(`C_RING_SIZE, N);
			wr(`C_CPL_LO, CPLR[31:0]); wr(`C_CPL_HI, 0);
			wr(`C_WB_LO, WB[31:0]); wr(`C_WB_HI, 0);
			wr(`C_CTRL, 1);
			wr(`C_PIDX, N);
			if (runtog)
				for (t = 0; t < 40; t = t + 1) begin
					repeat ({$random(seed)} % 400) @(posedge clk);
					wr(`C_CTRL, 0);
					repeat ({$random(seed)} % 200) @(posedge clk);
					wr(`C_CTRL, 1);
				end
			t = 0;
			while (t < 2000000 && !(dut.st == 0 && dut.quiet)) begin
				@(posedge clk); t = t + 1;
			end
			repeat (20) @(posedge clk);

			firsterr = -1;
			for (i = 0; i < N; i = i + 1)
				if (firsterr < 0 && faulted[i])
					firsterr = i;
			if (firsterr >= 0 ? !dut.halted || dut.cidx != firsterr + 1 : dut.cidx != N) begin
				$display("FAIL: %0d of %0d completed, halted %b, first failed read's descriptor %0d",
					 dut.cidx, N, dut.halted, firsterr);
				errors = errors + 1;
			end
			for (i = 0; i < dut.cidx && i < N; i = i + 1) begin
				st16 = recs[i * 2 + 1] >> 32;
				if (recs[i * 2] !== 64'hC00C_0000 + i) begin
					$display("FAIL: record %0d: cookie %h", i, recs[i * 2]);
					errors = errors + 1;
				end else if ((st16[15:0] != `CPL_OK) != (i == firsterr)) begin
					$display("FAIL: descriptor %0d: status %0d, first failed read's descriptor %0d",
						 i, st16[15:0], firsterr);
					errors = errors + 1;
				end else if (STREAM == 0 && i != firsterr) begin
					a = ring[i * 4]; d = ring[i * 4 + 1]; l = ring[i * 4 + 2];
					bad = 0;
					for (j = 0; j < l / 8; j = j + 1)
						if (cmem[(d >> 3) + j] !== hw((a >> 3) + j))
							bad = bad + 1;
					if (bad != 0) begin
						$display("FAIL: descriptor %0d: %0d of %0d card words wrong", i, bad, l / 8);
						errors = errors + 1;
					end
				end
			end
			if (STREAM != 0 && sink_open) begin
				$display("FAIL: the sink's last frame was left open (halted %b)", dut.halted);
				errors = errors + 1;
			end
			if (STREAM != 0) begin
				// whole frames before the failed one (a halt drops the rest of its frame)
				fstart = firsterr < 0 ? N : firsterr;
				while (fstart > 0 && fstart < N && !ring[(fstart - 1) * 4 + 2][34])
					fstart = fstart - 1;
				p = 0; bad = 0;
				for (i = 0; i < fstart; i = i + 1) begin
					a = ring[i * 4]; l = ring[i * 4 + 2];
					for (j = 0; j < l; j = j + 1) begin
						if (sbytes[p[15:0]] !== hb(a + j))
							bad = bad + 1;
						p = p + 1;
					end
				end
				if (bad != 0 || ns < p || (firsterr < 0 && ns != p)) begin
					$display("FAIL: stream: %0d bytes out, %0d expected, %0d wrong", ns, p, bad);
					errors = errors + 1;
				end
			end
			if (errors != 0)
				$display("FAIL: STREAM=%0d seed %0d, failed reads 1 in %0d, RUN toggled %0d: %0d errors",
					 STREAM, run_seed, run_frate, run_runtog, errors);
			fails = fails + errors;
			runs = runs + 1;
		end
	endtask

	initial begin
		done = 0; fails = 0; runs = 0;
		for (s = 1; s <= SEEDS; s = s + 1)
			for (m = 0; m < 4; m = m + 1)
				run(s * 7919 + STREAM, m == 1 ? 12 : m == 2 ? 30 : 0, m == 3);
		done = 1;
	end
endmodule

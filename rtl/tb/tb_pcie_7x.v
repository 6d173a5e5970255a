// SPDX-License-Identifier: MIT
// A 4-state bench (Icarus) for the 7-series shim (fdma_pcie_7x.v): TLPs
// of every shape the engine sends or takes (3DW and 4DW memory requests
// with 1..40 payload DWs and without, completions with and without data)
// go from the engine's side out through the shim's transmit half, across
// the core's AXI4-Stream, back in through its receive half. Both ends and
// the stream in the middle stall at random. Checked on the way:
//  - on the stream, PG054's layout: header DW0 first, two DWs a beat, each
//    payload DW with its first byte in bits 31:24, tkeep 8'h0f only on a
//    last beat of one DW, tlast where the header's length says;
//  - at the far end, every header DW and payload DW where the engine's
//    edge puts them, sop and eop on the right beats, and no X anywhere;
//  - a completion with UR status never on the stream: reported through
//    cfg_err_ur (CplLk: with cfg_err_locked) with its fields in
//    cfg_err_tlp_cpl_header, in order, only while cfg_err_cpl_rdy is up;
//  - the engine's error pulses each reported (cfg_err_*), none made up,
//    one report a clock, cfg_err_posted only with a poisoned write's.
`timescale 1ns / 1ps
module tb_pcie_7x;
	localparam N = 600;
	reg clk = 1'b0, rst = 1'b1;
	always #4 clk = !clk;

	// the TLPs: header, payload DWs, has payload
	reg [127:0] hdr [0:N-1];
	reg [10:0]  len [0:N-1];
	reg         dat [0:N-1];
	reg         ur  [0:N-1];                // a UR completion: reported, not sent
	integer     i, kind, n, errors, seed;
	function [31:0] pay;                    // payload DW k of TLP t, in memory order
		input integer t, k;
		pay = {t[15:0], k[15:0]} ^ 32'h5a3c0f1e;
	endfunction
	function [31:0] bswap;
		input [31:0] d;
		bswap = {d[7:0], d[15:8], d[23:16], d[31:24]};
	endfunction
	initial begin
		seed = 7;
		for (i = 0; i < N; i = i + 1) begin
			kind = {$random(seed)} % 7;
			n = 1 + {$random(seed)} % 40;
			if (i < 7) kind = i;            // every shape early, lengths 1 and 2 too
			if (i < 12) n = 1 + i % 2;
			// fmt (has data, 4DW) and type; the rest of the header is noise
			case (kind)
			0: hdr[i][31:24] = 8'h40;       // MWr, 3DW
			1: hdr[i][31:24] = 8'h60;       // MWr, 4DW
			2: hdr[i][31:24] = 8'h00;       // MRd, 3DW
			3: hdr[i][31:24] = 8'h20;       // MRd, 4DW
			4: hdr[i][31:24] = 8'h4a;       // CplD
			5: hdr[i][31:24] = 8'h0a;       // Cpl
			default: hdr[i][31:24] = 8'h0a | {$random(seed)} % 2;  // Cpl or CplLk, UR
			endcase
			hdr[i][23:10] = $random(seed);
			hdr[i][9:0] = n;
			hdr[i][63:32] = $random(seed);
			// status: UR only for kind 6
			if (kind == 6)
				hdr[i][47:45] = 3'b001;
			else if (hdr[i][47:45] == 3'b001)
				hdr[i][47:45] = 3'b100;
			hdr[i][95:64] = $random(seed);
			hdr[i][127:96] = kind == 1 || kind == 3 ? $random(seed) : 32'd0;
			dat[i] = kind == 0 || kind == 1 || kind == 4;
			ur[i] = kind == 6;
			len[i] = n;
		end
	end

	// ---- the engine's transmit side: a source that holds what it offers ----
	reg          tx_valid;
	wire         tx_ready;
	integer      s_i, s_b;
	wire [10:0]  s_beats = dat[s_i] ? (len[s_i] + 11'd1) / 2 : 11'd1;
	wire         tx_sop = s_b == 0;
	wire         tx_eop = s_b == s_beats - 1;
	wire [63:0]  tx_data = dat[s_i] ? {pay(s_i, 2 * s_b + 1), pay(s_i, 2 * s_b)} : 64'd0;
	wire [127:0] tx_hdr = hdr[s_i];
	always @(posedge clk) begin
		if (rst) begin
			s_i <= 0; s_b <= 0; tx_valid <= 1'b0;
		end else begin
			if (tx_valid && tx_ready) begin
				if (tx_eop) begin
					s_i <= s_i + 1; s_b <= 0;
				end else begin
					s_b <= s_b + 1;
				end
			end
			if (!tx_valid || tx_ready)
				tx_valid <= ({$random(seed)} % 4 != 0) &&
					    (s_i + (tx_valid && tx_ready && tx_eop) < N);
		end
	end

	// ---- the core's stream, looped back, stalling at random --------------------
	wire        s_tvalid, s_tlast, m_tready;
	wire [63:0] s_tdata;
	wire [7:0]  s_tkeep;
	reg         gate;
	always @(posedge clk) gate <= {$random(seed)} % 3 != 0;
	wire        link_fire = s_tvalid && m_tready && gate;

	// ---- the engine's receive side ---------------------------------------------
	wire         rx_valid, rx_sop, rx_eop;
	wire [127:0] rx_hdr;
	wire [63:0]  rx_data;
	reg          rx_ready;
	always @(posedge clk) rx_ready <= {$random(seed)} % 4 != 0;

	/* the interrupt and configuration ports are not under test here */
	wire [15:0] id;
	wire [2:0]  mps, mrrs, mm;
	wire        bm, xen, xmask, men, tx_idle, msi_ack, c_np_ok, c_np_req, gnt, cint, cass;
	wire [3:0]  tuser;
	wire [7:0]  di;
	wire        eur, eto, eunx, eep, epost, elk;
	wire [47:0] ehdr;
	fdma_pcie_7x #(.REPORT_POISONED(1)) dut (
		.clk(clk), .rst(rst),
		.m_axis_rx_tvalid(s_tvalid && gate), .m_axis_rx_tready(m_tready),
		.m_axis_rx_tdata(s_tdata), .m_axis_rx_tkeep(s_tkeep), .m_axis_rx_tlast(s_tlast),
		.m_axis_rx_tuser(22'd4), .rx_np_ok(c_np_ok), .rx_np_req(c_np_req),
		.s_axis_tx_tvalid(s_tvalid), .s_axis_tx_tready(m_tready && gate),
		.s_axis_tx_tdata(s_tdata), .s_axis_tx_tkeep(s_tkeep), .s_axis_tx_tlast(s_tlast),
		.s_axis_tx_tuser(tuser), .tx_cfg_gnt(gnt),
		.cfg_command(16'h0006), .cfg_dcommand(16'h2020), .cfg_bus_number(8'd1),
		.cfg_device_number(5'd0), .cfg_function_number(3'd0),
		.cfg_interrupt_msixenable(1'b1), .cfg_interrupt_msixfm(1'b0),
		.cfg_interrupt_msienable(1'b0), .cfg_interrupt_mmenable(3'd0),
		.cfg_interrupt(cint), .cfg_interrupt_rdy(1'b0), .cfg_interrupt_di(di),
		.cfg_interrupt_assert(cass),
		.cfg_err_ur(eur), .cfg_err_cpl_timeout(eto), .cfg_err_cpl_unexpect(eunx),
		.cfg_err_poisoned(eep), .cfg_err_posted(epost), .cfg_err_locked(elk),
		.cfg_err_tlp_cpl_header(ehdr), .cfg_err_cpl_rdy(erdy),
		.cfg_bus_master(bm), .cfg_msix_en(xen), .cfg_msix_mask(xmask), .cfg_msi_en(men),
		.cfg_msi_mm(mm), .cfg_mps(mps), .cfg_mrrs(mrrs), .cfg_id(id),
		.rx_valid(rx_valid), .rx_ready(rx_ready), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data), .np_ok(1'b1), .np_req(1'b1),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.msi_req(1'b0), .msi_num(5'd0), .msi_ack(msi_ack), .tx_idle(tx_idle),
		.err_cpl_timeout(e_in[0]), .err_cpl_unexpect(e_in[1]), .err_cpl_poisoned(e_in[2]),
		.err_wr_poisoned(e_in[3]));

	// ---- error reports -------------------------------------------------------------
	// The engine's pulses, at random (about one in 40 clocks each, in
	// bursts sometimes), and a core whose error completion buffer is full
	// a third of the time.
	reg [3:0]  e_in, owed;
	integer    age [0:3];                   // clocks each kind has been owed
	reg        erdy, pulsing = 1'b1;
	integer    u_i, k, reps, pulses;
	always @(posedge clk) begin
		erdy <= {$random(seed)} % 3 != 0;
		for (k = 0; k < 4; k = k + 1)
			e_in[k] <= !rst && pulsing && {$random(seed)} % 40 == 0;
	end
	wire [3:0] rep = {eep && epost, eep && !epost, eunx, eto};
	always @(posedge clk)
		if (rst) begin
			owed <= 0;
			for (k = 0; k < 4; k = k + 1)
				age[k] = 0;
		end else begin
			if ((eur + eto + eunx + eep) > 1 || (epost && !eep) || (elk && !eur)) begin
				$display("FAIL: errors: two reports in one clock, or posted/locked alone");
				errors = errors + 1;
			end
			for (k = 0; k < 4; k = k + 1) begin
				if (rep[k] && !owed[k]) begin
					$display("FAIL: errors: kind %0d reported with nothing to report", k);
					errors = errors + 1;
				end
				owed[k] <= (owed[k] && !rep[k]) || e_in[k];
				// one report a clock, the UR first: a kind waits a few
				age[k] = owed[k] && !rep[k] ? age[k] + 1 : 0;
				if (age[k] == 16) begin
					$display("FAIL: errors: kind %0d not reported in 16 clocks", k);
					errors = errors + 1;
				end
				pulses = pulses + e_in[k];
				reps = reps + rep[k];
			end
			if (eur) begin
				if (!erdy || u_i >= N || ehdr !== {hdr[u_i][70:64], hdr[u_i][43:32],
						hdr[u_i][22:20], hdr[u_i][13:12], hdr[u_i][95:80], hdr[u_i][79:72]} ||
				    elk !== hdr[u_i][24]) begin
					$display("FAIL: UR report %0d: header %h locked %b (cpl_rdy %b)", u_i,
						 ehdr, elk, erdy);
					errors = errors + 1;
				end
				u_i = u_i + 1;
				while (u_i < N && !ur[u_i])
					u_i = u_i + 1;
			end
		end

	// ---- the stream against PG054's layout ----------------------------------------
	integer w_i, w_dw, w_nh, w_tot;
	reg [31:0] want;
	task wire_dw;                           // the w_dw-th DW of TLP w_i on the stream
		input [31:0] got;
		begin
			w_nh = hdr[w_i][29] ? 4 : 3;
			if (w_dw < w_nh)
				want = hdr[w_i][32 * w_dw +: 32];
			else
				want = bswap(pay(w_i, w_dw - w_nh));
			if (got !== want) begin
				if (errors < 10)
					$display("FAIL: stream, TLP %0d DW %0d: %h, expected %h", w_i, w_dw,
						 got, want);
				errors = errors + 1;
			end
			w_dw = w_dw + 1;
		end
	endtask
	always @(posedge clk)
		if (!rst && link_fire) begin
			w_tot = (hdr[w_i][29] ? 4 : 3) + (dat[w_i] ? len[w_i] : 0);
			if (s_tkeep !== 8'hff && !(s_tkeep === 8'h0f && s_tlast)) begin
				$display("FAIL: stream, TLP %0d: tkeep %h", w_i, s_tkeep);
				errors = errors + 1;
			end
			wire_dw(s_tdata[31:0]);
			if (s_tkeep === 8'hff)
				wire_dw(s_tdata[63:32]);
			if (s_tlast !== (w_dw >= w_tot)) begin
				$display("FAIL: stream, TLP %0d: tlast %b after %0d of %0d DWs", w_i, s_tlast,
					 w_dw, w_tot);
				errors = errors + 1;
			end
			if (s_tlast === 1'b1) begin
				w_i = w_i + 1; w_dw = 0;
				while (w_i < N && ur[w_i])
					w_i = w_i + 1;
			end
		end

	// ---- the far end: the engine's receive edge --------------------------------------
	integer r_i, r_b, r_nb;
	always @(posedge clk)
		if (!rst && rx_valid && rx_ready) begin
			r_nb = dat[r_i] ? (len[r_i] + 1) / 2 : 1;
			if (rx_sop !== (r_b == 0) || rx_eop !== (r_b == r_nb - 1)) begin
				$display("FAIL: rx, TLP %0d beat %0d: sop %b eop %b", r_i, r_b, rx_sop, rx_eop);
				errors = errors + 1;
			end
			if (rx_hdr !== hdr[r_i]) begin
				if (errors < 10)
					$display("FAIL: rx, TLP %0d: header %h, expected %h", r_i, rx_hdr,
						 hdr[r_i]);
				errors = errors + 1;
			end
			if (dat[r_i] && (rx_data[31:0] !== pay(r_i, 2 * r_b) ||
					 (2 * r_b + 1 < len[r_i] && rx_data[63:32] !== pay(r_i, 2 * r_b + 1)))) begin
				if (errors < 10)
					$display("FAIL: rx, TLP %0d beat %0d: data %h", r_i, r_b, rx_data);
				errors = errors + 1;
			end
			if (r_b == r_nb - 1) begin
				r_i = r_i + 1; r_b = 0;
				while (r_i < N && ur[r_i])
					r_i = r_i + 1;
			end else begin
				r_b = r_b + 1;
			end
		end

	integer cyc;
	initial begin
		errors = 0; w_i = 0; w_dw = 0; r_i = 0; r_b = 0; reps = 0; pulses = 0;
		u_i = 0;
		while (!ur[u_i])
			u_i = u_i + 1;
		repeat (4) @(posedge clk);
		rst = 1'b0;
		for (cyc = 0; cyc < 200000 && r_i < N; cyc = cyc + 1)
			@(posedge clk);
		if (r_i != N || w_i != N || u_i != N) begin
			$display("FAIL: %0d of %0d TLPs crossed the stream, %0d arrived, UR reports up to %0d",
				 w_i, N, r_i, u_i);
			errors = errors + 1;
		end
		pulsing = 1'b0;
		repeat (8) @(posedge clk);
		if (owed != 0 || reps == 0) begin
			$display("FAIL: errors: %b never reported (%0d reports of %0d pulses)", owed, reps,
				 pulses);
			errors = errors + 1;
		end
		if (!tx_idle || bm !== 1'b1 || id !== 16'h0100 || mps !== 3'd1 || mrrs !== 3'd2) begin
			$display("FAIL: shim not idle at the end, or configuration mapped wrong");
			errors = errors + 1;
		end
		if (errors == 0)
			$display("PASS: pcie_7x shim: %0d TLPs (3DW/4DW, 0..40 DWs) out and back in %0d clocks, every DW checked on the stream and at the edge; URs and %0d error pulses reported (%0d reports)",
				 N, cyc, pulses, reps);
		$finish;
	end
endmodule

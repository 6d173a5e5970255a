// SPDX-License-Identifier: MIT
// The engine's generic TLP edge (fdma_engine.v) on the Xilinx 7-series
// Integrated Block for PCI Express (pcie_7x, PG054) with its 64-bit
// AXI4-Stream interface: gen2 x1..x4 at 125 or 250 MHz.
//
// The core carries TLPs in band: header DW0 in tdata[31:0] of the first
// beat, then DW after DW, two a beat; tkeep is 8'h0f on a last beat that
// holds one DW. Every DW, header or payload, has the TLP's first byte in
// bits 31:24 (PG054 draws TLPs this way; payload bytes are therefore
// swapped within each DW against the engine's memory order). The engine
// wants the header beside the first beat and the payload aligned to the
// beat, so behind a 3DW header (completions, requests below 4 GiB) the
// payload moves by one DW each way. Nothing else is translated: the engine
// builds and checks its own headers.
//
// Both directions keep AXI-Stream's rules towards the core: a beat offered
// is held until taken. The engine's first beat of a TLP is taken into this
// shim before its header goes out, so the engine's arbiter cannot change
// its mind under a beat the core has seen.
//
// Configure the core with BAR0 only (8 KiB, 32- or 64-bit): the engine
// answers every memory request it is given as BAR0, and the core itself
// refuses requests that hit no BAR. MSI goes through the core's interrupt
// port (cfg_interrupt), MSI-X as memory writes like any other TLP.
module fdma_pcie_7x #(
	// The core answers a poisoned TLP it receives by itself (status bits,
	// error message) unless it is generated with DISABLE_RX_POISONED_RESP
	// = TRUE; then set this to 1 and the engine's poisoned completions and
	// dropped poisoned writes go to cfg_err_poisoned.
	parameter REPORT_POISONED = 0
) (
	input  wire        clk,                  // user_clk_out
	// the core's receive stream (requests to BAR0, completions)
	input  wire        m_axis_rx_tvalid,
	output wire        m_axis_rx_tready,
	input  wire [63:0] m_axis_rx_tdata,
	input  wire [7:0]  m_axis_rx_tkeep,
	input  wire        m_axis_rx_tlast,
	input  wire [21:0] m_axis_rx_tuser,
	output wire        rx_np_ok,
	output wire        rx_np_req,
	// the core's transmit stream
	output wire        s_axis_tx_tvalid,
	input  wire        s_axis_tx_tready,
	output wire [63:0] s_axis_tx_tdata,
	output wire [7:0]  s_axis_tx_tkeep,
	output wire        s_axis_tx_tlast,
	output wire [3:0]  s_axis_tx_tuser,      // no discontinue, no streaming, no ECRC
	output wire        tx_cfg_gnt,
	// the core's configuration and interrupt ports
	input  wire [15:0] cfg_command,
	input  wire [15:0] cfg_dcommand,
	input  wire [7:0]  cfg_bus_number,
	input  wire [4:0]  cfg_device_number,
	input  wire [2:0]  cfg_function_number,
	input  wire        cfg_interrupt_msixenable,
	input  wire        cfg_interrupt_msixfm,
	input  wire        cfg_interrupt_msienable,
	input  wire [2:0]  cfg_interrupt_mmenable,
	output wire        cfg_interrupt,
	input  wire        cfg_interrupt_rdy,
	output wire [7:0]  cfg_interrupt_di,
	output wire        cfg_interrupt_assert,
	// the core's error reporting (PG054): one report a clock
	output wire        cfg_err_ur,
	output wire        cfg_err_cpl_timeout,
	output wire        cfg_err_cpl_unexpect,
	output wire        cfg_err_poisoned,
	output wire        cfg_err_posted,
	output wire        cfg_err_locked,
	output wire [47:0] cfg_err_tlp_cpl_header,
	input  wire        cfg_err_cpl_rdy,
	// the engine's side
	input  wire        rst,                  // user_reset_out (or with !user_lnk_up)
	output wire        cfg_bus_master,
	output wire        cfg_msix_en,
	output wire        cfg_msix_mask,
	output wire        cfg_msi_en,
	output wire [2:0]  cfg_msi_mm,
	output wire [2:0]  cfg_mps,
	output wire [2:0]  cfg_mrrs,
	output wire [15:0] cfg_id,
	output wire        rx_valid,
	input  wire        rx_ready,
	input  wire        np_ok,
	input  wire        np_req,
	output wire        rx_sop,
	output wire        rx_eop,
	output wire [127:0] rx_hdr,
	output wire [63:0] rx_data,
	input  wire        tx_valid,
	output wire        tx_ready,
	input  wire        tx_sop,
	input  wire        tx_eop,
	input  wire [127:0] tx_hdr,
	input  wire [63:0] tx_data,
	input  wire        msi_req,
	input  wire [4:0]  msi_num,
	output wire        msi_ack,
	output wire        tx_idle,              // every TLP taken from the engine is with the core
	// the engine's errors, one-clock pulses each
	input  wire        err_cpl_timeout,
	input  wire        err_cpl_unexpect,
	input  wire        err_cpl_poisoned,
	input  wire        err_wr_poisoned
);
	function [31:0] bswap;
		input [31:0] d;
		bswap = {d[7:0], d[15:8], d[23:16], d[31:24]};
	endfunction
	function [63:0] bswap2;                 // both DWs of a beat, each in place
		input [63:0] d;
		bswap2 = {bswap(d[63:32]), bswap(d[31:0])};
	endfunction

	// ---- configuration ---------------------------------------------------------
	assign cfg_bus_master = cfg_command[2];
	assign cfg_mps        = cfg_dcommand[7:5];
	assign cfg_mrrs       = cfg_dcommand[14:12];
	assign cfg_id         = {cfg_bus_number, cfg_device_number, cfg_function_number};
	assign cfg_msix_en    = cfg_interrupt_msixenable;
	assign cfg_msix_mask  = cfg_interrupt_msixfm;
	assign cfg_msi_en     = cfg_interrupt_msienable;
	assign cfg_msi_mm     = cfg_interrupt_mmenable;
	// Non-posted requests (register reads) come only while the engine's
	// queue has room for them; completions and writes pass them in the
	// core meanwhile. Which of the two signals counts is the core's option
	// (PG054's non-posted flow control; rx_np_req by default).
	assign rx_np_ok       = np_ok;
	assign rx_np_req      = np_req;
	assign tx_cfg_gnt     = 1'b1;            // the core's own TLPs may always go first
	assign s_axis_tx_tuser = 4'd0;
	assign cfg_interrupt_assert = 1'b0;     // no INTx (docs/engine.md section 7)

	// ---- receive: in-band header to the engine's side-band one ---------------
	// The core's stream first goes through a register slice, so the
	// engine's rx_ready never reaches the core's tready in the same clock
	// and the core's tdata reaches the engine's reorder buffers only
	// through a flop (the hard block's outputs are far from the fabric).
	wire        c_valid, c_last;
	wire [63:0] c_data;
	wire        c_ready;
	fdma_skid #(.W(65)) rx_slice (
		.clk(clk), .rst(rst),
		.s_valid(m_axis_rx_tvalid), .s_ready(m_axis_rx_tready),
		.s_data({m_axis_rx_tlast, m_axis_rx_tdata}),
		.m_valid(c_valid), .m_ready(c_ready), .m_data({c_last, c_data}));
	localparam R_H01 = 3'd0, R_H23 = 3'd1, R_PAY = 3'd2, R_SHIFT = 3'd3, R_ONE = 3'd4;
	reg  [2:0]  rs;
	reg  [31:0] h0, h1, h2, h3;
	reg  [31:0] r_hold;                     // a 3DW TLP's payload DW waiting for its pair
	reg  [10:0] r_rem;                      // payload DWs still in the core's beats
	reg         r_first;                    // the engine has not taken this TLP's first beat
	wire        rx_fire_c = c_valid && c_ready;
	wire [10:0] h_dws = h0[9:0] == 10'd0 ? 11'd1024 : {1'b0, h0[9:0]};
	// beat two, with DW0 already held
	wire        has_data = h0[30];
	wire        is4 = h0[29];
	assign rx_hdr = {h3, h2, h1, h0};
	assign rx_sop = r_first;
	// a 4DW TLP's payload passes through; a 3DW one's is a DW behind
	assign rx_valid = rs == R_PAY || rs == R_SHIFT ? c_valid : rs == R_ONE;
	assign rx_data  = rs == R_PAY   ? bswap2(c_data) :
			  rs == R_SHIFT ? {bswap(c_data[31:0]), r_hold} : {32'd0, r_hold};
	assign rx_eop   = rs == R_PAY ? c_last : rs == R_SHIFT ? r_rem == 11'd1 : 1'b1;
	assign c_ready = rs == R_H01 || rs == R_H23 ||
				  ((rs == R_PAY || rs == R_SHIFT) && rx_ready);
	always @(posedge clk) begin
		if (rst) begin
			rs <= R_H01; r_first <= 1'b0; r_rem <= 0;
			h0 <= 0; h1 <= 0; h2 <= 0; h3 <= 0; r_hold <= 0;
		end else begin
			if (rx_valid && rx_ready)
				r_first <= 1'b0;
			case (rs)
			R_H01: if (rx_fire_c) begin
				h0 <= c_data[31:0];
				h1 <= c_data[63:32];
			end
			R_H23: if (rx_fire_c) begin
				h2 <= c_data[31:0];
				h3 <= is4 ? c_data[63:32] : 32'd0;
				r_hold <= bswap(c_data[63:32]);
				r_rem <= h_dws - 11'd1;
				r_first <= 1'b1;
			end
			R_SHIFT: if (rx_fire_c) begin
				r_hold <= bswap(c_data[63:32]);
				r_rem <= r_rem <= 11'd2 ? 11'd0 : r_rem - 11'd2;
			end
			default: ;
			endcase
			// where the next beat goes
			case (rs)
			R_H01: if (rx_fire_c) rs <= R_H23;
			R_H23: if (rx_fire_c)
				rs <= !has_data ? R_ONE : is4 ? R_PAY : h_dws == 11'd1 ? R_ONE : R_SHIFT;
			R_PAY: if (rx_fire_c && c_last) rs <= R_H01;
			// two DWs left: the core's last beat, then its high DW alone
			R_SHIFT: if (rx_fire_c) rs <= r_rem == 11'd1 ? R_H01 : r_rem == 11'd2 ? R_ONE : R_SHIFT;
			default: if (rx_ready) rs <= R_H01;    // R_ONE: one beat from the registers
			endcase
		end
	end

	// ---- transmit: side-band header into the stream ------------------------------
	// The engine's beats come through a register slice, so the core's
	// tready reaches no channel's logic in the same clock. While an MSI
	// waits for the TLPs before it (below), no new TLP is taken from the
	// engine (the rest of one begun still is), so it waits for a bounded
	// number of them.
	reg          msi_hold, e_mid;           // e_mid: a TLP from the engine is half in
	wire         e_valid, e_sop, e_eop, e_ready, s_ready;
	wire [127:0] e_hdr;
	wire [63:0]  e_data;
	wire         hold = msi_hold && !e_mid;
	assign tx_ready = s_ready && !hold;
	always @(posedge clk)
		if (rst)
			e_mid <= 1'b0;
		else if (tx_valid && tx_ready)
			e_mid <= !tx_eop;
	fdma_skid #(.W(194)) tx_slice (
		.clk(clk), .rst(rst),
		.s_valid(tx_valid && !hold), .s_ready(s_ready),
		.s_data({tx_sop, tx_eop, tx_hdr, tx_data}),
		.m_valid(e_valid), .m_ready(e_ready), .m_data({e_sop, e_eop, e_hdr, e_data}));

	localparam T_IDLE = 3'd0, T_H01 = 3'd1, T_H23 = 3'd2, T_PAY = 3'd3, T_SHIFT = 3'd4,
		   T_UR = 3'd5;
	reg  [2:0]   ts;
	reg  [127:0] th;
	reg  [63:0]  tb;                        // the engine's beat waiting to go out
	reg          tb_v;
	reg          t_done;                    // the engine's last beat of this TLP is taken
	reg  [31:0]  t_hold;                    // 3DW: the DW that waits for its pair
	reg  [10:0]  t_rem;                     // payload DWs not yet sent
	wire         t_data = th[30];
	wire         t_is4 = th[29];
	wire [10:0]  t_dws = th[9:0] == 10'd0 ? 11'd1024 : {1'b0, th[9:0]};
	wire         c_fire = s_axis_tx_tvalid && s_axis_tx_tready;
	// A completion with Unsupported Request status is not sent: PG054's
	// core sends it itself when told through cfg_err_ur (with the header
	// fields in cfg_err_tlp_cpl_header), and logs the error as the
	// function's error registers ask. Sent by us as well, the requester
	// would get two completions for one read.
	wire         e_ur = !e_hdr[30] && e_hdr[28:25] == 4'b0101 && e_hdr[47:45] == 3'b001;
	wire         ur_go = ts == T_UR && cfg_err_cpl_rdy;
	reg  [63:0]  o_data;
	reg  [7:0]   o_keep;
	reg          o_last, o_valid, o_take;   // o_take: this beat uses up tb
	always @(*) begin
		o_data = 64'd0; o_keep = 8'hff; o_last = 1'b0; o_valid = 1'b0; o_take = 1'b0;
		case (ts)
		T_H01: begin
			o_valid = 1'b1; o_data = th[63:0];
		end
		T_H23: begin
			o_valid = 1'b1;
			if (t_is4) begin
				o_data = th[127:64]; o_last = !t_data;
			end else if (!t_data) begin
				o_data = {32'd0, th[95:64]}; o_keep = 8'h0f; o_last = 1'b1;
			end else begin
				o_data = {bswap(tb[31:0]), th[95:64]}; o_last = t_dws == 11'd1;
				o_take = 1'b1;
			end
		end
		T_PAY: begin
			o_valid = tb_v; o_data = bswap2(tb); o_take = 1'b1;
			o_last = t_rem <= 11'd2; o_keep = t_rem == 11'd1 ? 8'h0f : 8'hff;
		end
		T_SHIFT: begin
			// the held DW, and the low DW of the next beat if there is one
			o_valid = t_rem == 11'd1 || tb_v;
			o_data = {t_rem == 11'd1 ? 32'd0 : bswap(tb[31:0]), bswap(t_hold)};
			o_take = t_rem != 11'd1;
			o_last = t_rem <= 11'd2; o_keep = t_rem == 11'd1 ? 8'h0f : 8'hff;
		end
		default: ;
		endcase
	end
	assign s_axis_tx_tvalid = o_valid;
	assign s_axis_tx_tdata  = o_data;
	assign s_axis_tx_tkeep  = o_keep;
	assign s_axis_tx_tlast  = o_last;
	wire   take = c_fire && o_take;
	// This TLP is done with: its last beat is going to the core, or the
	// core takes its UR. The engine's last beat is always in by then
	// (t_done), so the next TLP's first beat may come in the same clock:
	// no idle clock between TLPs.
	wire   t_end = (c_fire && o_last) || ur_go;
	// the engine's next beat comes in as soon as there is room for it
	assign e_ready = ts == T_IDLE || t_end || (!t_done && (!tb_v || take));
	wire   e_fire = e_valid && e_ready;
	wire   t_new = e_fire && e_sop && (ts == T_IDLE || t_end);
	wire [2:0] t_first = e_ur ? T_UR : T_H01;
	assign tx_idle = ts == T_IDLE && !e_valid;
	always @(posedge clk) begin
		if (rst) begin
			ts <= T_IDLE; th <= 0; tb <= 0; tb_v <= 1'b0; t_done <= 1'b0;
			t_hold <= 0; t_rem <= 0;
		end else begin
			if (e_fire) begin
				tb <= e_data;
				t_done <= e_eop;
				if (t_new)
					th <= e_hdr;
			end else if (t_end) begin
				t_done <= 1'b0;
			end
			// a beat the header used whole (4DW, no payload) is dropped at the end
			tb_v <= e_fire || (tb_v && !take && !t_end);
			case (ts)
			T_IDLE: if (t_new) ts <= t_first;
			T_H01: if (c_fire) ts <= T_H23;
			T_H23: if (c_fire) begin
				t_hold <= tb[63:32];
				t_rem <= t_is4 ? t_dws : t_dws - 11'd1;
				ts <= o_last ? (t_new ? t_first : T_IDLE) : t_is4 ? T_PAY : T_SHIFT;
			end
			T_PAY, T_SHIFT: if (c_fire) begin
				if (ts == T_SHIFT && t_rem != 11'd1)
					t_hold <= tb[63:32];
				t_rem <= t_rem <= 11'd2 ? 11'd0 : t_rem - 11'd2;
				if (o_last)
					ts <= t_new ? t_first : T_IDLE;
			end
			T_UR: if (ur_go) ts <= t_new ? t_first : T_IDLE;
			default: ts <= T_IDLE;
			endcase
		end
	end

	// ---- errors, reported to the core (PG054's cfg_err_* inputs) ----------------
	// A UR goes as soon as the core has room for the completion it will
	// send (cfg_err_cpl_rdy); each of the other kinds is held until its
	// turn, one report a clock, because cfg_err_posted qualifies every
	// report of that clock. The turns go round, so a storm of one kind
	// cannot hold another back. Two of a kind while one waits are one
	// report: the core keeps status bits, not counts.
	reg  p_wrp, p_cplp, p_to, p_unx;
	reg  [1:0] e_rr;                        // the kind whose turn comes first
	wire [3:0] e_pend = {p_wrp, p_cplp, p_unx, p_to};
	wire [3:0] e_rot = e_rr == 2'd0 ? e_pend : e_rr == 2'd1 ? {e_pend[0], e_pend[3:1]} :
			   e_rr == 2'd2 ? {e_pend[1:0], e_pend[3:2]} : {e_pend[2:0], e_pend[3]};
	wire [1:0] e_j = e_rot[0] ? 2'd0 : e_rot[1] ? 2'd1 : e_rot[2] ? 2'd2 : 2'd3;
	wire       e_unused = e_rot[3];         // the last turn: taken when no other is
	wire [1:0] e_kind = e_rr + e_j;
	wire [3:0] e_sel = !ur_go && e_pend != 4'd0 ? 4'd1 << e_kind : 4'd0;
	wire sel_to = e_sel[0], sel_unx = e_sel[1], sel_cplp = e_sel[2], sel_wrp = e_sel[3];
	always @(posedge clk)
		if (rst) begin
			p_wrp <= 1'b0; p_cplp <= 1'b0; p_to <= 1'b0; p_unx <= 1'b0; e_rr <= 2'd0;
		end else begin
			p_wrp  <= (p_wrp && !sel_wrp) || (REPORT_POISONED && err_wr_poisoned);
			p_cplp <= (p_cplp && !sel_cplp) || (REPORT_POISONED && err_cpl_poisoned);
			p_to   <= (p_to && !sel_to) || err_cpl_timeout;
			p_unx  <= (p_unx && !sel_unx) || err_cpl_unexpect;
			if (e_sel != 4'd0)
				e_rr <= e_kind + 2'd1;
		end
	assign cfg_err_ur           = ur_go;
	assign cfg_err_locked       = ur_go && th[24];           // to MRdLk: CplLk
	// lower address, byte count, TC, attr, requester ID, tag
	assign cfg_err_tlp_cpl_header = {th[70:64], th[43:32], th[22:20], th[13:12], th[95:80],
					 th[79:72]};
	assign cfg_err_poisoned     = sel_wrp || sel_cplp;
	assign cfg_err_posted       = sel_wrp;
	assign cfg_err_cpl_timeout  = sel_to;
	assign cfg_err_cpl_unexpect = sel_unx;

	// ---- MSI: the core sends the message; ask only once the TLPs before it are
	// with the core, so the message cannot pass the write-back it announces;
	// the request is held until the core takes it (PG054's handshake)
	reg irq_on;
	always @(posedge clk)
		if (rst) begin
			irq_on <= 1'b0; msi_hold <= 1'b0;
		end else begin
			if (irq_on ? cfg_interrupt_rdy : msi_req && tx_idle)
				irq_on <= !irq_on;
			msi_hold <= msi_req && !irq_on;
		end
	assign cfg_interrupt    = irq_on;
	assign cfg_interrupt_di = {3'd0, msi_num};
	assign msi_ack          = irq_on && cfg_interrupt_rdy;

	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, e_unused, m_axis_rx_tkeep, m_axis_rx_tuser, cfg_command[15:3],
			 cfg_command[1:0], cfg_dcommand[15], cfg_dcommand[11:8], cfg_dcommand[4:0]};
	/* verilator lint_on UNUSEDSIGNAL */
`ifdef FORMAL
	// ---- properties (rtl/formal/run.sh: the shim alone, shim_top.v) -------
	// The core's side is free: tready, cfg_err_cpl_rdy, the MSI handshake.
	// The engine keeps its edge's rules: a beat offered is held until
	// taken; sop on a TLP's first beat, eop on its last (one beat without
	// payload, else one per two payload DWs); the header stays with its
	// TLP; the TLPs it sends (memory requests, completions), short here
	// (1 to 6 payload DWs) for a small state.
	reg        fv_past = 1'b0;
	always @(posedge clk) fv_past <= 1'b1;
	reg        fv_in = 1'b0;                // the engine is inside a TLP
	reg  [2:0] fv_eb = 3'd0;                // its beats taken
	wire [2:0] fv_nb = tx_hdr[30] ? (tx_hdr[2:0] + 3'd1) >> 1 : 3'd1;
	wire       fv_efire = tx_valid && tx_ready;
	always @(*) begin
		assume(rst == !fv_past);
		if (tx_valid) begin
			assume(tx_hdr[9:0] >= 10'd1 && tx_hdr[9:0] <= 10'd6 && !tx_hdr[31]);
			assume(tx_hdr[28:24] == 5'd0 || (tx_hdr[28:25] == 4'b0101 && !tx_hdr[29]));
			assume(tx_sop == !fv_in && tx_eop == (fv_eb + 3'd1 == fv_nb));
		end
	end
	always @(posedge clk)
		if (fv_past && !rst && $past(tx_valid && !tx_ready && !rst))
			assume(tx_valid && tx_sop == $past(tx_sop) && tx_eop == $past(tx_eop) &&
			       tx_hdr == $past(tx_hdr) && tx_data == $past(tx_data));
	always @(posedge clk)
		if (fv_past && !rst && fv_in && !$past(rst))
			assume(tx_hdr == $past(tx_hdr));
	always @(posedge clk)
		if (rst) begin
			fv_in <= 1'b0; fv_eb <= 3'd0;
		end else if (fv_efire) begin
			fv_in <= !tx_eop;
			fv_eb <= tx_eop ? 3'd0 : fv_eb + 3'd1;
		end

	// One TLP and one of its DWs, chosen by the solver: what the engine
	// gave for it, and where it must be on the core's stream.
	(* anyconst *) reg [3:0] fv_n;           // the n-th TLP the engine sends that is no UR
	(* anyconst *) reg [3:0] fv_k;           // its k-th DW on the stream
	reg  [3:0]  fv_etlp = 4'd0, fv_stlp = 4'd0;   // TLPs begun: engine side, stream side
	reg  [31:0] fv_want = 32'd0;
	reg         fv_have = 1'b0;
	wire        fv_eur = !tx_hdr[30] && tx_hdr[28:25] == 4'b0101 && tx_hdr[47:45] == 3'b001;
	wire [3:0]  fv_nh = tx_hdr[29] ? 4'd4 : 4'd3;
	// the DWs of the beat the engine gives (payload DW j is beat j/2's half j%2)
	wire [3:0]  fv_p0 = {fv_eb, 1'b0};
	always @(posedge clk)
		if (rst) begin
			fv_etlp <= 4'd0; fv_have <= 1'b0;
		end else if (fv_efire && !(tx_sop && fv_eur)) begin
			if (fv_etlp == fv_n) begin
				if (tx_sop && fv_k < fv_nh) begin
					fv_want <= tx_hdr[32 * fv_k[1:0] +: 32];
					fv_have <= 1'b1;
				end else if (tx_hdr[30] && fv_k >= fv_nh && fv_k - fv_nh == fv_p0) begin
					fv_want <= bswap(tx_data[31:0]);
					fv_have <= 1'b1;
				end else if (tx_hdr[30] && fv_k >= fv_nh && fv_k - fv_nh == fv_p0 + 4'd1) begin
					fv_want <= bswap(tx_data[63:32]);
					fv_have <= 1'b1;
				end
			end
			if (tx_eop)
				fv_etlp <= fv_etlp + 4'd1;
		end
	// the stream: DWs of the TLP in progress
	reg  [3:0]  fv_sdw = 4'd0;
	reg  [3:0]  fv_stot = 4'd0;             // its DWs in all, from its DW0
	wire [3:0]  fv_tot0 = (s_axis_tx_tdata[29] ? 4'd4 : 4'd3) +
			      (s_axis_tx_tdata[30] ? s_axis_tx_tdata[3:0] : 4'd0);
	wire [3:0]  fv_tot = fv_sdw == 4'd0 ? fv_tot0 : fv_stot;
	wire [3:0]  fv_after = fv_sdw + (s_axis_tx_tkeep == 8'hff ? 4'd2 : 4'd1);
	always @(posedge clk)
		if (rst) begin
			fv_sdw <= 4'd0; fv_stlp <= 4'd0;
		end else if (c_fire) begin
			fv_sdw <= s_axis_tx_tlast ? 4'd0 : fv_after;
			if (fv_sdw == 4'd0)
				fv_stot <= fv_tot0;
			if (s_axis_tx_tlast)
				fv_stlp <= fv_stlp + 4'd1;
		end
	// TLPs handed to the core (sent, or reported as UR) and taken from the engine
	reg  [3:0]  fv_taken = 4'd0, fv_done = 4'd0;
	reg  [2:0]  fv_ur = 3'd0;               // URs taken and not yet reported
	always @(posedge clk)
		if (rst) begin
			fv_taken <= 4'd0; fv_done <= 4'd0; fv_ur <= 3'd0;
		end else begin
			if (fv_efire && tx_sop)
				fv_taken <= fv_taken + 4'd1;
			if ((c_fire && s_axis_tx_tlast) || cfg_err_ur)
				fv_done <= fv_done + 4'd1;
			fv_ur <= fv_ur + (fv_efire && tx_sop && fv_eur) - cfg_err_ur;
		end
	// the engine's error pulses, owed until reported
	reg  [3:0]  fv_owed = 4'd0;
	reg  [2:0]  fv_age [0:3];
	wire [3:0]  fv_rep = {cfg_err_poisoned && cfg_err_posted, cfg_err_poisoned && !cfg_err_posted,
			      cfg_err_cpl_unexpect, cfg_err_cpl_timeout};
	wire [3:0]  fv_ev = {err_wr_poisoned, err_cpl_poisoned, err_cpl_unexpect, err_cpl_timeout};
	integer fv_i;
	always @(posedge clk)
		for (fv_i = 0; fv_i < 4; fv_i = fv_i + 1)
			if (rst) begin
				fv_owed[fv_i] <= 1'b0; fv_age[fv_i] <= 3'd0;
			end else begin
				fv_owed[fv_i] <= (fv_owed[fv_i] && !fv_rep[fv_i]) || fv_ev[fv_i];
				// (a clock that reports a UR does not count: a run of
				// URs, at most the engine's queue of reads, goes first)
				fv_age[fv_i] <= !fv_owed[fv_i] || fv_rep[fv_i] ? 3'd0 :
						cfg_err_ur ? fv_age[fv_i] : fv_age[fv_i] + 3'd1;
			end

	always @(posedge clk) if (fv_past && !rst && !$past(rst)) begin
		// AXI4-Stream towards the core: a beat offered is held until taken
		if ($past(s_axis_tx_tvalid && !s_axis_tx_tready))
			assert(s_axis_tx_tvalid && s_axis_tx_tdata == $past(s_axis_tx_tdata) &&
			       s_axis_tx_tkeep == $past(s_axis_tx_tkeep) &&
			       s_axis_tx_tlast == $past(s_axis_tx_tlast));
		// interrupts: an MSI is asked for only when every TLP taken from
		// the engine is with the core
		if (cfg_interrupt && !$past(cfg_interrupt))
			assert($past(fv_taken == fv_done));
	end
	always @(*) if (fv_past && !rst) begin
		if (s_axis_tx_tvalid) begin
			// PG054's framing: tkeep 8'h0f only on a last beat of one DW,
			// tlast exactly where the TLP's DWs end
			assert(s_axis_tx_tkeep == 8'hff || (s_axis_tx_tkeep == 8'h0f && s_axis_tx_tlast));
			assert(s_axis_tx_tlast == (fv_after >= fv_tot));
			assert(fv_after <= fv_tot);
			// a UR completion never reaches the stream (the core sends it)
			if (fv_sdw == 4'd0)
				assert(!(!s_axis_tx_tdata[30] && s_axis_tx_tdata[28:25] == 4'b0101 &&
					 s_axis_tx_tdata[47:45] == 3'b001));
			// the chosen DW, where it belongs: header DWs as they are,
			// payload DWs byte-swapped (TLP byte 0 in bits 31:24)
			if (fv_stlp == fv_n && fv_sdw == fv_k)
				assert(fv_have && s_axis_tx_tdata[31:0] == fv_want);
			if (fv_stlp == fv_n && fv_sdw + 4'd1 == fv_k && s_axis_tx_tkeep == 8'hff)
				assert(fv_have && s_axis_tx_tdata[63:32] == fv_want);
		end
		// errors: one report a clock; posted and locked only with theirs; a
		// UR only for a UR the engine gave, and while the core has room
		assert(cfg_err_ur + cfg_err_cpl_timeout + cfg_err_cpl_unexpect + cfg_err_poisoned <= 1);
		assert(!cfg_err_posted || cfg_err_poisoned);
		assert(!cfg_err_locked || cfg_err_ur);
		assert(!cfg_err_ur || (cfg_err_cpl_rdy && fv_ur != 3'd0));
		for (fv_i = 0; fv_i < 4; fv_i = fv_i + 1) begin
			// each reported, none made up, within 4 clocks of its turn
			assert(!fv_rep[fv_i] || fv_owed[fv_i]);
			assert(fv_age[fv_i] <= 3'd4);
		end
	end
	always @(posedge clk)
		if (fv_past && !rst) begin
			cover(c_fire && s_axis_tx_tlast && fv_stlp == 4'd2);
			cover(cfg_err_ur && fv_taken == 4'd2);
		end
`endif
endmodule

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
module fdma_pcie_7x (
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
	output wire        tx_idle               // every TLP taken from the engine is with the core
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
	localparam R_H01 = 3'd0, R_H23 = 3'd1, R_PAY = 3'd2, R_SHIFT = 3'd3, R_ONE = 3'd4;
	reg  [2:0]  rs;
	reg  [31:0] h0, h1, h2, h3;
	reg  [31:0] r_hold;                     // a 3DW TLP's payload DW waiting for its pair
	reg  [10:0] r_rem;                      // payload DWs still in the core's beats
	reg         r_first;                    // the engine has not taken this TLP's first beat
	wire        rx_fire_c = m_axis_rx_tvalid && m_axis_rx_tready;
	wire [10:0] h_dws = h0[9:0] == 10'd0 ? 11'd1024 : {1'b0, h0[9:0]};
	// beat two, with DW0 already held
	wire        has_data = h0[30];
	wire        is4 = h0[29];
	assign rx_hdr = {h3, h2, h1, h0};
	assign rx_sop = r_first;
	// a 4DW TLP's payload passes through; a 3DW one's is a DW behind
	assign rx_valid = rs == R_PAY || rs == R_SHIFT ? m_axis_rx_tvalid : rs == R_ONE;
	assign rx_data  = rs == R_PAY   ? bswap2(m_axis_rx_tdata) :
			  rs == R_SHIFT ? {bswap(m_axis_rx_tdata[31:0]), r_hold} : {32'd0, r_hold};
	assign rx_eop   = rs == R_PAY ? m_axis_rx_tlast : rs == R_SHIFT ? r_rem == 11'd1 : 1'b1;
	assign m_axis_rx_tready = rs == R_H01 || rs == R_H23 ||
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
				h0 <= m_axis_rx_tdata[31:0];
				h1 <= m_axis_rx_tdata[63:32];
			end
			R_H23: if (rx_fire_c) begin
				h2 <= m_axis_rx_tdata[31:0];
				h3 <= is4 ? m_axis_rx_tdata[63:32] : 32'd0;
				r_hold <= bswap(m_axis_rx_tdata[63:32]);
				r_rem <= h_dws - 11'd1;
				r_first <= 1'b1;
			end
			R_SHIFT: if (rx_fire_c) begin
				r_hold <= bswap(m_axis_rx_tdata[63:32]);
				r_rem <= r_rem <= 11'd2 ? 11'd0 : r_rem - 11'd2;
			end
			default: ;
			endcase
			// where the next beat goes
			case (rs)
			R_H01: if (rx_fire_c) rs <= R_H23;
			R_H23: if (rx_fire_c)
				rs <= !has_data ? R_ONE : is4 ? R_PAY : h_dws == 11'd1 ? R_ONE : R_SHIFT;
			R_PAY: if (rx_fire_c && m_axis_rx_tlast) rs <= R_H01;
			// two DWs left: the core's last beat, then its high DW alone
			R_SHIFT: if (rx_fire_c) rs <= r_rem == 11'd1 ? R_H01 : r_rem == 11'd2 ? R_ONE : R_SHIFT;
			default: if (rx_ready) rs <= R_H01;    // R_ONE: one beat from the registers
			endcase
		end
	end

	// ---- transmit: side-band header into the stream ------------------------------
	localparam T_IDLE = 3'd0, T_H01 = 3'd1, T_H23 = 3'd2, T_PAY = 3'd3, T_SHIFT = 3'd4;
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
	// the engine's next beat comes in as soon as there is room for it
	assign tx_ready = ts == T_IDLE || (!t_done && (!tb_v || take));
	wire   e_fire = tx_valid && tx_ready;
	assign tx_idle = ts == T_IDLE;
	always @(posedge clk) begin
		if (rst) begin
			ts <= T_IDLE; th <= 0; tb <= 0; tb_v <= 1'b0; t_done <= 1'b0;
			t_hold <= 0; t_rem <= 0;
		end else begin
			if (e_fire) begin
				tb <= tx_data;
				t_done <= tx_eop;
				if (ts == T_IDLE)
					th <= tx_hdr;
			end
			// a beat the header used whole (4DW, no payload) is dropped at the end
			tb_v <= e_fire || (tb_v && !take && !(c_fire && o_last));
			case (ts)
			T_IDLE: if (e_fire && tx_sop) ts <= T_H01;
			T_H01: if (c_fire) ts <= T_H23;
			T_H23: if (c_fire) begin
				t_hold <= tb[63:32];
				t_rem <= t_is4 ? t_dws : t_dws - 11'd1;
				ts <= o_last ? T_IDLE : t_is4 ? T_PAY : T_SHIFT;
			end
			T_PAY, T_SHIFT: if (c_fire) begin
				if (ts == T_SHIFT && t_rem != 11'd1)
					t_hold <= tb[63:32];
				t_rem <= t_rem <= 11'd2 ? 11'd0 : t_rem - 11'd2;
				if (o_last)
					ts <= T_IDLE;
			end
			default: ts <= T_IDLE;
			endcase
			if (ts != T_IDLE && c_fire && o_last)
				t_done <= 1'b0;
		end
	end

	// ---- MSI: the core sends the message; ask only once the TLPs before it are
	// with the core, so the message cannot pass the write-back it announces;
	// the request is held until the core takes it (PG054's handshake)
	reg irq_on;
	always @(posedge clk)
		if (rst)
			irq_on <= 1'b0;
		else if (irq_on ? cfg_interrupt_rdy : msi_req && tx_idle)
			irq_on <= !irq_on;
	assign cfg_interrupt    = irq_on;
	assign cfg_interrupt_di = {3'd0, msi_num};
	assign msi_ack          = irq_on && cfg_interrupt_rdy;

	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, m_axis_rx_tkeep, m_axis_rx_tuser, cfg_command[15:3],
			 cfg_command[1:0], cfg_dcommand[15], cfg_dcommand[11:8], cfg_dcommand[4:0]};
	/* verilator lint_on UNUSEDSIGNAL */
endmodule

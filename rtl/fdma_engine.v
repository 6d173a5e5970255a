// SPDX-License-Identifier: MIT
// The FDMA engine (docs/engine.md, version 1.1) at a generic raw-TLP edge.
//
// Channels: 0 H2C memory-mapped, 1 C2H memory-mapped, 2 C2H stream, 3 H2C
// stream (the last two with the test generator and checker), the layout of
// the software model's default device. Card memory is reached through a
// simple word port (fdma_card_bram.v, or an adapter to a DDR controller).
//
// The TLP edge (docs/rtl.md): 64-bit beats, valid/ready, sop/eop; the
// header (four DWs, DW0 in bits 31:0) rides beside the first beat, and
// payload DW k is bits 32*(k%2) +: 32 of beat k/2, so payload is always
// aligned to the beat whatever the header format. A hard-IP shim
// (fdma_pcie_7x.v for Xilinx 7-series) translates to the core's own format.
`include "fdma_defs.vh"

module fdma_engine #(
	parameter        CLK_MHZ = 125,
	parameter        ALIGN_LOG2 = 6,
	parameter        CARD_AW = 21,                  // card memory: 2^CARD_AW words of 8 bytes
	parameter        RING_MAX_LOG2 = 12,
	parameter        NSLOT = 7,                     // H2C reads in flight per channel (1..7)
	parameter        MAX_RD_LOG2 = 9,
	parameter        MAX_WR_LOG2 = 8,
	parameter        CARD_RD_LOG2 = 3,              // card words read ahead: 8 for block RAM, 64 for DDR
	parameter [31:0] CPL_TIMEOUT = 32'd6250000      // 50 ms at 125 MHz
) (
	input  wire         clk,
	input  wire         rst,
	// from the PCIe core's configuration space
	input  wire         cfg_bus_master,
	input  wire         cfg_msix_en,
	input  wire         cfg_msix_mask,
	input  wire         cfg_msi_en,     // MSI, used when MSI-X is off
	input  wire [2:0]   cfg_msi_mm,     // vectors allocated: 2^cfg_msi_mm
	input  wire [2:0]   cfg_mps,        // Device Control: 128 << n bytes
	input  wire [2:0]   cfg_mrrs,
	input  wire [15:0]  cfg_id,         // bus, device, function
	// Largest descriptor, bytes: a multiple of 2^ALIGN_LOG2, read back in
	// MAX_DESC_LEN. A strap: tie it to a constant and synthesis folds it
	// (the simulation harness sets it per run).
	input  wire [31:0]  max_desc_len,
	// TLPs from the link: requests to BAR0 and completions
	input  wire         rx_valid,
	output wire         rx_ready,
	input  wire         rx_sop,
	input  wire         rx_eop,
	input  wire [127:0] rx_hdr,
	input  wire [63:0]  rx_data,
	// TLPs to the link
	output wire         tx_valid,
	input  wire         tx_ready,
	output wire         tx_sop,
	output wire         tx_eop,
	output wire [127:0] tx_hdr,
	output wire [63:0]  tx_data,
	// MSI through the hard IP's interrupt port (the message number, held
	// until acknowledged); MSI-X messages are memory writes on tx_*
	output wire         msi_req,
	output wire [4:0]   msi_num,
	input  wire         msi_ack,
	// card memory
	output wire         card_we,
	output wire [CARD_AW-1:0] card_wa,
	output wire [63:0]  card_wd,
	input  wire         card_wready,
	input  wire         card_wbusy,     // writes taken, not yet in memory (0 for block RAM)
	output wire         card_re,
	output wire [CARD_AW-1:0] card_ra,
	input  wire         card_rready,
	input  wire         card_rvalid,
	input  wire [63:0]  card_rd,
	// stream source (channel 2) and sink (channel 3): AXI-Stream
	input  wire         s_axis_tvalid,
	output wire         s_axis_tready,
	input  wire [63:0]  s_axis_tdata,
	input  wire [7:0]   s_axis_tkeep,
	input  wire         s_axis_tlast,
	output wire         m_axis_tvalid,
	input  wire         m_axis_tready,
	output wire [63:0]  m_axis_tdata,
	output wire [7:0]   m_axis_tkeep,   // a frame's last word: its bytes
	output wire         m_axis_tuser,   // first word of a frame
	output wire         m_axis_tlast,
	// nothing to do until the host writes a register (simulation uses it to sleep)
	output wire         quiet
);
	`include "fdma_tlp.vh"
	localparam NCH = 4;
	localparam [63:0] CARD_BYTES = 64'd8 << CARD_AW;
	// COALESCE, TESTGEN, H2C_BYTES (1.3: the H2C stream channel is a byte stream)
	localparam [31:0] CAPS = NCH | (ALIGN_LOG2 << 8) | (1 << 16) | (1 << 17) | (1 << 20);

	// ---- time --------------------------------------------------------------
	// ns exact for any whole MHz: 1000 / CLK_MHZ a clock, the remainder
	// carried (156 MHz: 6 ns and 64/156 ns)
	localparam [63:0] NS_INT = 1000 / CLK_MHZ;
	localparam [15:0] NS_REM = 1000 % CLK_MHZ;
	reg [63:0] now_ns;
	reg [15:0] ns_frac, us_div;
	reg        us_tick;
	always @(posedge clk) begin
		if (rst) begin
			now_ns <= 0; ns_frac <= 0; us_div <= 0; us_tick <= 1'b0;
		end else begin
			if (ns_frac + NS_REM >= CLK_MHZ) begin
				now_ns <= now_ns + NS_INT + 64'd1;
				ns_frac <= ns_frac + NS_REM - CLK_MHZ;
			end else begin
				now_ns <= now_ns + NS_INT;
				ns_frac <= ns_frac + NS_REM;
			end
			us_tick <= us_div == CLK_MHZ - 1;
			us_div <= us_div == CLK_MHZ - 1 ? 16'd0 : us_div + 16'd1;
		end
	end

	// ---- global registers -------------------------------------------------
	reg  [31:0] g_ctrl, g_reset_req, g_reset_ack;
	wire        en = g_ctrl[0] && cfg_bus_master;
	wire [NCH-1:0] ch_busy, ch_quiet, ch_rst_done;
	wire        msix_busy;
	reg         tx_mid;                    // a TLP is half sent
	wire        busy = g_ctrl[0] || ch_busy != 0 || msix_busy || tx_mid;
	wire        eng_rst = g_reset_req != g_reset_ack;

	// ---- requests to BAR0: one register access at a time -----------------
	wire        h_is4 = rx_hdr[29];
	wire [31:0] h_lo = h_is4 ? rx_hdr[127:96] : rx_hdr[95:64];
	wire        is_cpl = rx_hdr[28:24] == `TLP_TYPE_CPL;
	wire        is_mem = rx_hdr[28:24] == `TLP_TYPE_MEM;
	wire        is_wr = rx_hdr[30];
	reg         rc_pend;                   // a read's completion waits to go
	reg  [12:0] rc_off;
	reg  [15:0] rc_req;
	reg  [7:0]  rc_tag;
	reg         rc_ur;
	reg  [2:0]  rc_tc;                     // a completion carries its request's TC and attributes
	reg  [2:0]  rc_attr;
	reg  [3:0]  rc_fbe;
	reg         rx_cpl_in;
	reg  [1:0]  rx_ch_in;
	assign rx_ready = !rc_pend;
	wire        rx_fire = rx_valid && rx_ready;
	wire        cur_cpl = rx_sop ? is_cpl : rx_cpl_in;
	wire [1:0]  cur_ch  = rx_sop ? rx_hdr[76:75] : rx_ch_in;   // tag[4:3]
	wire        wr_hit  = rx_fire && rx_sop && is_mem && is_wr && rx_hdr[35:32] == 4'hf;
	wire [12:0] w_off   = {h_lo[12:2], 2'b00};
	wire [12:0] r_off   = rc_off;

	// channel register ports
	wire        w_ch = w_off >= 13'h100 && w_off < 13'h100 + NCH * 13'h80;
	wire [3:0]  w_chn = w_off[10:7] - 4'd2;
	wire        r_ch = r_off >= 13'h100 && r_off < 13'h100 + NCH * 13'h80;
	wire [3:0]  r_chn = r_off[10:7] - 4'd2;
	wire [31:0] ch_rd [0:NCH-1];
	wire [31:0] msix_rd;
	reg  [31:0] rd_val;
	always @(*) begin
		rd_val = 32'd0;
		if (r_off >= `MSIX_TABLE_OFF)
			rd_val = msix_rd;
		else if (r_ch)
			rd_val = ch_rd[r_chn[1:0]];
		else
			case (r_off[11:0])
			`R_ID:           rd_val = `FDMA_ID_MAGIC;
			`R_VERSION:      rd_val = `FDMA_VERSION;
			`R_CAPS:         rd_val = CAPS;
			`R_MAX_DESC_LEN: rd_val = max_desc_len;
			`R_CARD_SIZE_LO: rd_val = CARD_BYTES[31:0];
			`R_CARD_SIZE_HI: rd_val = CARD_BYTES[63:32];
			`R_RING_MAX:     rd_val = 32'd1 << RING_MAX_LOG2;
			`R_CTRL:         rd_val = g_ctrl;
			`R_STATUS:       rd_val = {30'd0, busy, 1'b1};
			`R_RESET_REQ:    rd_val = g_reset_req;
			`R_RESET_ACK:    rd_val = g_reset_ack;
			default:         rd_val = 32'd0;
			endcase
	end

	always @(posedge clk) begin
		if (rst) begin
			g_ctrl <= 0; g_reset_req <= 0; g_reset_ack <= 0;
			rc_pend <= 1'b0; rc_off <= 0; rc_req <= 0; rc_tag <= 0; rc_ur <= 1'b0;
			rc_tc <= 0; rc_attr <= 0; rc_fbe <= 0;
			rx_cpl_in <= 1'b0; rx_ch_in <= 0;
		end else begin
			if (rx_fire && rx_sop) begin
				rx_cpl_in <= is_cpl;
				rx_ch_in <= rx_hdr[76:75];
			end
			if (wr_hit && w_off < 13'h100)
				case (w_off[11:0])
				`R_CTRL:      g_ctrl <= rx_data[31:0] & 32'h1;
				`R_RESET_REQ: g_reset_req <= rx_data[31:0];
				default: ;
				endcase
			if (rx_fire && rx_sop && is_mem && !is_wr) begin
				rc_pend <= 1'b1;
				rc_off <= {h_lo[12:2], 2'b00};
				rc_req <= rx_hdr[63:48];
				rc_tag <= rx_hdr[47:40];
				rc_ur <= rx_hdr[9:0] != 10'd1;     // registers are 32-bit words
				rc_tc <= rx_hdr[22:20];
				rc_attr <= {rx_hdr[18], rx_hdr[13:12]};
				rc_fbe <= rx_hdr[35:32];
			end
			if (rc_pend && src_fire[NCH] && tx_eop)
				rc_pend <= 1'b0;
			if (eng_rst && ch_rst_done == {NCH{1'b1}})
				g_reset_ack <= g_reset_req;
		end
	end

	// ---- channels ----------------------------------------------------------
	wire [NCH+1:0]   src_valid, src_sop, src_eop, src_fire;
	wire [127:0]     src_hdr [0:NCH+1];
	wire [63:0]      src_data [0:NCH+1];
	wire [NCH-1:0]   irq_req, irq_ack;
	wire [4*NCH-1:0] irq_vec;
	wire [NCH-1:0]   ch_cpl = {NCH{rx_fire && cur_cpl}} & (4'b0001 << cur_ch);
	wire             ch0_we, ch1_re;
	wire [CARD_AW-1:0] ch0_wa, ch1_ra;
	wire [63:0]      ch0_wd;

	genvar c;
	generate for (c = 0; c < NCH; c = c + 1) begin : g_ch
		wire        we_c = wr_hit && w_ch && w_chn == c;
		// each channel drives only the ports of its kind
		/* verilator lint_off UNUSEDSIGNAL */
		wire        cw_we, cr_re, mv, ms, ml, sr;
		wire [CARD_AW-1:0] cw_a, cr_a;
		wire [63:0] cw_d, md;
		wire [7:0]  mk;
		/* verilator lint_on UNUSEDSIGNAL */
		fdma_chan #(
			.CH(c), .C2H(c == 1 || c == 2), .STREAM(c >= 2), .TESTGEN(c >= 2),
			.ALIGN_LOG2(ALIGN_LOG2),
			.CARD_BYTES(c >= 2 ? 64'd0 : CARD_BYTES), .CARD_AW(CARD_AW),
			.RING_MAX_LOG2(RING_MAX_LOG2), .NSLOT(NSLOT),
			.MAX_RD_LOG2(MAX_RD_LOG2), .MAX_WR_LOG2(MAX_WR_LOG2),
			.CARD_RD_LOG2(CARD_RD_LOG2), .CPL_TIMEOUT(CPL_TIMEOUT)
		) ch (
			.clk(clk), .rst(rst), .en(en), .eng_rst(eng_rst), .eng_rst_done(ch_rst_done[c]),
			.us_tick(us_tick), .now_ns(now_ns), .req_id(cfg_id),
			.mps_code(cfg_mps), .mrrs_code(cfg_mrrs), .max_desc_len(max_desc_len),
			.reg_we(we_c), .reg_wa(w_off[6:2]), .reg_wd(rx_data[31:0]),
			.reg_ra(r_off[6:2]), .reg_rd(ch_rd[c]),
			.tx_valid(src_valid[c]), .tx_ready(src_fire[c]), .tx_sop(src_sop[c]),
			.tx_eop(src_eop[c]), .tx_hdr(src_hdr[c]), .tx_data(src_data[c]),
			.cpl_valid(ch_cpl[c]), .cpl_sop(rx_sop), .cpl_eop(rx_eop),
			.cpl_hdr(rx_hdr), .cpl_data(rx_data),
			.irq_req(irq_req[c]), .irq_vec(irq_vec[4*c +: 4]), .irq_ack(irq_ack[c]),
			.card_we(cw_we), .card_wa(cw_a), .card_wd(cw_d), .card_wready(c == 0 ? card_wready : 1'b0),
			.card_wbusy(c == 0 ? card_wbusy : 1'b0),
			.card_re(cr_re), .card_ra(cr_a), .card_rready(c == 1 ? card_rready : 1'b0),
			.card_rvalid(c == 1 ? card_rvalid : 1'b0), .card_rd(card_rd),
			.m_valid(mv), .m_ready(c == 3 ? m_axis_tready : 1'b0), .m_data(md),
			.m_keep(mk), .m_sof(ms), .m_last(ml),
			.s_valid(c == 2 ? s_axis_tvalid : 1'b0), .s_ready(sr), .s_data(s_axis_tdata),
			.s_keep(s_axis_tkeep), .s_last(s_axis_tlast),
			.busy(ch_busy[c]), .quiet(ch_quiet[c]));
		if (c == 0) begin : g_w
			assign ch0_we = cw_we; assign ch0_wa = cw_a; assign ch0_wd = cw_d;
		end
		if (c == 1) begin : g_r
			assign ch1_re = cr_re; assign ch1_ra = cr_a;
		end
		if (c == 2) begin : g_s
			assign s_axis_tready = sr;
		end
		if (c == 3) begin : g_m
			assign m_axis_tvalid = mv; assign m_axis_tdata = md; assign m_axis_tkeep = mk;
			assign m_axis_tuser = ms; assign m_axis_tlast = ml;
		end
	end endgenerate
	assign card_we = ch0_we; assign card_wa = ch0_wa; assign card_wd = ch0_wd;
	assign card_re = ch1_re; assign card_ra = ch1_ra;

	// ---- register-read completions ------------------------------------------
	assign src_valid[NCH] = rc_pend;
	assign src_sop[NCH] = 1'b1;
	assign src_eop[NCH] = 1'b1;
	// Byte count and lower address from the first DW's byte enables (a
	// 1-DW read: BC from the first enabled byte to the last; 0 enables, the
	// zero-length read hosts use as a flush, is answered as 1 byte).
	reg  [11:0] rc_bc;
	reg  [1:0]  rc_la;
	always @(*) begin
		casez (rc_fbe)
		4'b1??1: rc_bc = 12'd4;
		4'b01?1: rc_bc = 12'd3;
		4'b1?10: rc_bc = 12'd3;
		4'b0011, 4'b0110, 4'b1100: rc_bc = 12'd2;
		default: rc_bc = 12'd1;
		endcase
		casez (rc_fbe)
		4'b???1, 4'b0000: rc_la = 2'd0;
		4'b??10: rc_la = 2'd1;
		4'b?100: rc_la = 2'd2;
		default: rc_la = 2'd3;
		endcase
	end
	assign src_hdr[NCH] = rc_ur ? tlp_cpl(`CPL_UR, rc_tc, rc_attr, 11'd0, 12'd0, cfg_id, rc_req,
					      rc_tag, 7'd0)
				    : tlp_cpl(`CPL_SC, rc_tc, rc_attr, 11'd1, rc_bc, cfg_id, rc_req,
					      rc_tag, {rc_off[6:2], rc_la});
	assign src_data[NCH] = {32'd0, rd_val};

	// ---- MSI-X ----------------------------------------------------------------
	wire msix_we = wr_hit && w_off >= `MSIX_TABLE_OFF;
	fdma_msix #(.NREQ(NCH)) msix (
		.clk(clk), .rst(rst), .msix_en(cfg_msix_en), .func_mask(cfg_msix_mask), .en(en),
		.msi_en(cfg_msi_en), .msi_mm(cfg_msi_mm), .msi_req(msi_req), .msi_num(msi_num),
		.msi_ack(msi_ack),
		.req_id(cfg_id), .reg_we(msix_we), .reg_wa(w_off[12:2]), .reg_wd(rx_data[31:0]),
		.reg_ra(r_off[12:2]), .reg_rd(msix_rd),
		.req(irq_req), .vec(irq_vec), .ack(irq_ack),
		.tx_valid(src_valid[NCH+1]), .tx_ready(src_fire[NCH+1]), .tx_hdr(src_hdr[NCH+1]),
		.tx_data(src_data[NCH+1]), .busy(msix_busy));
	assign src_sop[NCH+1] = 1'b1;
	assign src_eop[NCH+1] = 1'b1;

	// ---- TX: round robin over whole TLPs ------------------------------------
	localparam NSRC = NCH + 2;
	reg  [2:0] grant, last_grant;
	reg        locked;
	reg  [2:0] pick;
	reg        pick_ok;
	integer    s;
	reg  [31:0] q;
	always @(*) begin
		pick = 3'd0; pick_ok = 1'b0;
		for (s = NSRC; s >= 1; s = s - 1) begin
			q = ({29'd0, last_grant} + s) % NSRC;
			if (src_valid[q]) begin
				pick = q[2:0]; pick_ok = 1'b1;
			end
		end
	end
	wire [2:0] cur = locked ? grant : pick;
	assign tx_valid = locked ? src_valid[grant] : pick_ok;
	assign tx_sop   = src_sop[cur];
	assign tx_eop   = src_eop[cur];
	assign tx_hdr   = src_hdr[cur];
	assign tx_data  = src_data[cur];
	assign src_fire = (tx_valid && tx_ready) ? (6'b000001 << cur) : 6'd0;
	always @(posedge clk) begin
		if (rst) begin
			grant <= 0; last_grant <= 0; locked <= 1'b0; tx_mid <= 1'b0;
		end else if (tx_valid && tx_ready) begin
			locked <= !tx_eop;
			tx_mid <= !tx_eop;
			grant <= cur;
			if (tx_eop)
				last_grant <= cur;
		end
	end

	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, h_lo[31:13], h_lo[1:0], r_chn[3:2], q[31:3]};
	/* verilator lint_on UNUSEDSIGNAL */

	assign quiet = ch_quiet == {NCH{1'b1}} && !rc_pend && !msix_busy && !tx_mid && !eng_rst;
endmodule

// SPDX-License-Identifier: MIT
// MSI-X table and PBA (in BAR0 at `MSIX_TABLE_OFF and `MSIX_PBA_OFF) and the
// message writer, for 16 vectors. A channel asks for its vector and is
// answered at once: the vector's pending bit is set, and the message goes
// out as soon as the vector and the function are unmasked and the engine
// may master the bus (PCIe's MSI-X rules: a masked vector's message waits
// in the PBA, it is not lost).
//
// With MSI-X off and MSI on, the same pending bits go out through the hard
// IP's MSI port instead (msi_req/msi_num/msi_ack): the vector is the message
// number, masked to the vectors the host allocated, and MSI-X's table masks
// do not apply.
`include "fdma_defs.vh"

module fdma_msix #(
	parameter NREQ = 4          // requesters
) (
	input  wire            clk,
	input  wire            rst,
	input  wire            msix_en,      // MSI-X Enable in the capability
	input  wire            func_mask,    // Function Mask in the capability
	input  wire            en,           // the engine may master the bus
	input  wire            msi_en,       // MSI Enable in the MSI capability
	input  wire [2:0]      msi_mm,       // Multiple Message Enable: 2^msi_mm vectors
	input  wire [15:0]     req_id,
	// table and PBA accesses (offset within BAR0)
	input  wire            reg_we,
	input  wire [12:2]     reg_wa,
	input  wire [31:0]     reg_wd,
	input  wire [12:2]     reg_ra,
	output reg  [31:0]     reg_rd,
	// requests: one vector each
	input  wire [NREQ-1:0]   req,
	input  wire [4*NREQ-1:0] vec,
	output reg  [NREQ-1:0]   ack,
	// message writes
	output wire            tx_valid,
	input  wire            tx_ready,
	output wire [127:0]    tx_hdr,
	output wire [63:0]     tx_data,
	// MSI through the hard IP: held until acknowledged
	output reg             msi_req,
	output reg  [4:0]      msi_num,
	input  wire            msi_ack,
	output wire            busy
);
	`include "fdma_tlp.vh"
	reg [31:0] t_lo [0:15];
	reg [31:0] t_hi [0:15];
	reg [31:0] t_dat [0:15];
	reg [15:0] t_mask, pend;
	reg        sending;
	reg [3:0]  sv;                  // vector being sent
	reg [63:0] m_addr;              // its message, latched when it was chosen
	reg [31:0] m_data;

	wire       deliver = msix_en && !func_mask && en;
	wire       msi_mode = !msix_en && msi_en && en;
	// the lowest pending, unmasked vector, and the lowest new request
	reg  [3:0] pv, mv;
	reg        pv_ok, mv_ok;
	reg  [3:0] rq_vec;
	reg  [NREQ-1:0] rq_one;
	integer k;
	always @(*) begin
		pv = 4'd0; pv_ok = 1'b0; mv = 4'd0; mv_ok = 1'b0;
		for (k = 15; k >= 0; k = k - 1) begin
			if (pend[k] && !t_mask[k]) begin
				pv = k[3:0]; pv_ok = deliver;
			end
			if (pend[k]) begin
				mv = k[3:0]; mv_ok = msi_mode;
			end
		end
		rq_one = {NREQ{1'b0}}; rq_vec = 4'd0;
		for (k = NREQ - 1; k >= 0; k = k - 1)
			if (req[k] && !ack[k]) begin
				rq_one = {{(NREQ-1){1'b0}}, 1'b1} << k;
				rq_vec = vec[4*k +: 4];
			end
	end

	wire [12:0] ra = {reg_ra, 2'b00};
	wire [12:0] wa = {reg_wa, 2'b00};
	wire [3:0]  rent = ra[7:4];
	wire [3:0]  went = wa[7:4];
	wire        r_tab = ra < `MSIX_TABLE_OFF + 13'h100;
	wire        w_tab = wa >= `MSIX_TABLE_OFF && wa < `MSIX_TABLE_OFF + 13'h100;
	always @(*) begin
		reg_rd = 32'd0;
		if (ra == `MSIX_PBA_OFF)
			reg_rd = {16'd0, pend};
		else if (r_tab)
			case (ra[3:2])
			2'd0: reg_rd = t_lo[rent];
			2'd1: reg_rd = t_hi[rent];
			2'd2: reg_rd = t_dat[rent];
			default: reg_rd = {31'd0, t_mask[rent]};
			endcase
	end

	// A message chosen is sent with the address and data its entry held
	// when it was chosen, never a mix of old and new halves of an entry
	// being rewritten; if its vector (or the function) is masked, or
	// delivery stops, before the core takes it, it goes back to pending
	// (PCIe's MSI-X rules: no message while masked, none lost).
	wire       recall = sending && (t_mask[sv] || !deliver);
	assign tx_valid = sending && !recall;
	assign tx_hdr   = tlp_mem(1'b1, m_addr, 11'd1, req_id, 8'd0);
	assign tx_data  = {32'd0, m_data};
	assign busy     = sending || msi_req;

	// The table's address and data are RAM (distributed, 16 x 32 each): not
	// reset, as PCIe leaves them undefined until software writes them; the
	// mask bits are flops, set by reset as the spec requires.
	always @(posedge clk)
		if (reg_we && w_tab)
			case (wa[3:2])
			2'd0: t_lo[went] <= {reg_wd[31:2], 2'b00};
			2'd1: t_hi[went] <= reg_wd;
			2'd2: t_dat[went] <= reg_wd;
			default: ;
			endcase

	always @(posedge clk) begin
		if (rst) begin
			t_mask <= 16'hffff;
			pend <= 0; sending <= 1'b0; sv <= 0; ack <= 0; m_addr <= 0; m_data <= 0;
			msi_req <= 1'b0; msi_num <= 0;
		end else begin
			ack <= rq_one;
			if (reg_we && w_tab && wa[3:2] == 2'd3)
				t_mask[went] <= reg_wd[0];
			if (sending && tx_ready && !recall)
				sending <= 1'b0;
			if (rq_one != 0)
				pend[rq_vec] <= 1'b1;
			if (recall) begin
				sending <= 1'b0;
				pend[sv] <= 1'b1;
			end
			// a message sent now covers a request for the same vector this clock
			if (!sending && pv_ok) begin
				sending <= 1'b1;
				sv <= pv;
				m_addr <= {t_hi[pv], t_lo[pv]};
				m_data <= t_dat[pv];
				pend[pv] <= 1'b0;
			end
			if (msi_req && msi_ack)
				msi_req <= 1'b0;
			if (!msi_req && !sending && mv_ok) begin
				msi_req <= 1'b1;
				msi_num <= {1'b0, mv} & ~(5'h1f << msi_mm);
				pend[mv] <= 1'b0;
			end
		end
	end
`ifdef FORMAL
	// ---- properties (rtl/formal/run.sh: fdma_msix alone, msix_top.v) ------
	// Every input free: the host's table writes, the capability's enables
	// and masks, the channels' requests, the core's tready and MSI
	// handshake. One rule of PCIe is assumed: software rewrites an entry's
	// address or data only while the entry is masked (otherwise the
	// message is undefined).
	reg        fv_past = 1'b0;
	reg [15:0] fv_owed = 16'd0;        // asked for since its last message was chosen
	reg        fv_lat_owed = 1'b0;     // ... the one being sent, when it was chosen
	always @(posedge clk) fv_past <= 1'b1;
	always @(*) begin
		assume(rst == !fv_past);
		if (reg_we && w_tab && wa[3:2] != 2'd3)
			assume(t_mask[went]);
	end
	wire       fv_x = tx_valid && tx_ready;               // an MSI-X message leaves
	wire       fv_m = msi_req && msi_ack;                 // the core took an MSI
	// a message chosen covers the requests up to that clock, its own included
	always @(posedge clk)
		if (rst) begin
			fv_owed <= 0;
		end else begin
			if (rq_one != 0)
				fv_owed[rq_vec] <= 1'b1;
			if (recall)
				fv_owed[sv] <= 1'b1;
			if (!sending && pv_ok) begin
				fv_lat_owed <= fv_owed[pv] || (rq_one != 0 && rq_vec == pv);
				fv_owed[pv] <= 1'b0;
			end
			if (!msi_req && !sending && mv_ok)
				fv_owed[mv] <= 1'b0;
		end
	always @(*)
		if (fv_past && !rst) begin
			// none while its vector or the function is masked, or the
			// engine may not master the bus
			if (tx_valid)
				assert(!t_mask[sv] && !func_mask && msix_en && en);
			// whole: the address and data the entry holds (it cannot
			// have been rewritten since: that takes a mask, which recalls)
			if (fv_x)
				assert(tx_hdr == tlp_mem(1'b1, {t_hi[sv], t_lo[sv]}, 11'd1, req_id, 8'd0) &&
				       tx_data == {32'd0, t_dat[sv]});
			// one message per request: none for a vector nobody asked for
			// since its last one
			if (fv_x)
				assert(fv_lat_owed);
			// (what makes these hold for all time: a message being sent
			// was owed and holds its entry while unmasked; a pending
			// vector is owed a message)
			if (sending)
				assert(fv_lat_owed);
			if (sending && !t_mask[sv])
				assert(m_addr == {t_hi[sv], t_lo[sv]} && m_data == t_dat[sv]);
			assert((pend & ~fv_owed) == 16'd0);
		end
	// none lost: a pending vector stops pending only as its message is
	// chosen (MSI-X) or asked of the core (MSI)
	integer fv_v;
	always @(posedge clk)
		if (fv_past && !rst && !$past(rst))
			for (fv_v = 0; fv_v < 16; fv_v = fv_v + 1)
				if ($past(pend[fv_v]) && !pend[fv_v])
					assert((sending && sv == fv_v) ||
					       (msi_req && !$past(msi_req) && $past(mv) == fv_v));
	// ... and a message chosen and recalled is pending again
	always @(posedge clk)
		if (fv_past && !rst && !$past(rst) && $past(recall))
			assert(pend[$past(sv)] || (sending && sv == $past(sv)));
	// the proof reaches what it is about: a message sent after one was
	// recalled, an MSI taken
	reg fv_recalled = 1'b0;
	always @(posedge clk)
		if (recall)
			fv_recalled <= 1'b1;
	always @(posedge clk)
		if (fv_past && !rst) begin
			cover(fv_x && fv_recalled);
			cover(fv_m);
		end
`endif
endmodule

// SPDX-License-Identifier: MIT
// A 4-state bench (Icarus) for fdma_msix.v: PCIe's MSI-X rules where the
// link is slow to take a message.
//  - a message goes with the address and data its entry held when it was
//    chosen, even if the entry is rewritten before the TX path takes it;
//  - a vector masked before its message is taken sends nothing while
//    masked: the message goes back to pending (PBA bit set), and leaves
//    with the new address and data once unmasked;
//  - the same for the function mask and for bus mastering turned off;
//  - no message is lost, and none is sent twice.
`timescale 1ns / 1ps
module tb_msix;
	reg         clk = 1'b0, rst = 1'b1;
	reg         msix_en = 1'b1, func_mask = 1'b0, en = 1'b1;
	reg         reg_we = 1'b0;
	reg  [12:2] reg_wa = 0, reg_ra = 0;
	reg  [31:0] reg_wd = 0;
	wire [31:0] reg_rd;
	reg  [3:0]  req = 0;
	reg  [15:0] vec = 16'h3210;
	wire [3:0]  ack;
	wire        tx_valid;
	reg         tx_ready = 1'b0;
	wire [127:0] tx_hdr;
	wire [63:0] tx_data;
	wire        msi_req, busy;
	wire [4:0]  msi_num;
	integer     fails = 0, sent = 0;
	reg  [63:0] got_addr;
	reg  [31:0] got_data;

	fdma_msix #(.NREQ(4)) dut (
		.clk(clk), .rst(rst), .msix_en(msix_en), .func_mask(func_mask), .en(en),
		.msi_en(1'b0), .msi_mm(3'd0), .req_id(16'h0100),
		.reg_we(reg_we), .reg_wa(reg_wa), .reg_wd(reg_wd), .reg_ra(reg_ra), .reg_rd(reg_rd),
		.req(req), .vec(vec), .ack(ack),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_hdr(tx_hdr), .tx_data(tx_data),
		.msi_req(msi_req), .msi_num(msi_num), .msi_ack(1'b0), .busy(busy));

	always #4 clk = !clk;

	// every message the TX path takes
	always @(posedge clk)
		if (tx_valid && tx_ready) begin
			sent = sent + 1;
			got_addr = tx_hdr[29] ? {tx_hdr[95:64], tx_hdr[127:96]} : {32'd0, tx_hdr[95:64]};
			got_data = tx_data[31:0];
		end

	task wr(input [12:0] off, input [31:0] d);
		begin
			@(negedge clk);
			reg_we = 1'b1; reg_wa = off[12:2]; reg_wd = d;
			@(negedge clk);
			reg_we = 1'b0;
		end
	endtask

	task entry(input [3:0] v, input [63:0] a, input [31:0] d);
		begin
			wr(13'h1000 + v * 16, a[31:0]);
			wr(13'h1004 + v * 16, a[63:32]);
			wr(13'h1008 + v * 16, d);
		end
	endtask

	// channel c asks for its vector (vec: channel c uses vector c)
	task ask(input integer c);
		begin
			@(negedge clk);
			req[c] = 1'b1;
			@(posedge clk); #1;
			while (!ack[c]) begin
				@(posedge clk); #1;
			end
			@(negedge clk);
			req[c] = 1'b0;
		end
	endtask


	task expect_pba(input integer v, input bit_set, input [511:0] what);
		begin
			@(negedge clk);
			reg_ra = 11'h600;             // 0x1800
			#1;
			if (reg_rd[v] !== bit_set) begin
				$display("FAIL: %0s: PBA bit %0d is %b", what, v, reg_rd[v]);
				fails = fails + 1;
			end
		end
	endtask

	task take(input [63:0] a, input [31:0] d, input [511:0] what);
		integer n, k;
		begin
			n = sent;
			@(negedge clk);
			tx_ready = 1'b1;
			for (k = 0; k < 8 && sent == n; k = k + 1)
				@(negedge clk);
			tx_ready = 1'b0;
			if (sent != n + 1)
				begin
					$display("FAIL: %0s: %0d messages sent, expected 1", what, sent - n);
					fails = fails + 1;
				end
			else if (got_addr !== a || got_data !== d) begin
				$display("FAIL: %0s: sent %h / %h, expected %h / %h", what, got_addr, got_data, a, d);
				fails = fails + 1;
			end
		end
	endtask

	task none(input [511:0] what);
		integer n;
		begin
			n = sent;
			@(negedge clk);
			tx_ready = 1'b1;
			repeat (8) @(negedge clk);
			tx_ready = 1'b0;
			if (sent != n) begin
				$display("FAIL: %0s: %0d messages sent, expected none", what, sent - n);
				fails = fails + 1;
			end
		end
	endtask

	initial begin
		repeat (3) @(negedge clk);
		rst = 1'b0;
		entry(0, 64'h0000_0001_fee0_0000, 32'h10);
		entry(1, 64'h0000_0000_fee0_1000, 32'h11);
		entry(2, 64'h0000_0000_fee0_2000, 32'h12);
		wr(13'h100c, 0); wr(13'h101c, 0); wr(13'h102c, 0);

		// 1. chosen, then the entry rewritten (unmasked, as no driver should):
		//    the message keeps what was chosen, whole
		ask(0);
		repeat (2) @(negedge clk);
		entry(0, 64'h0000_0002_fee0_0040, 32'h20);
		take(64'h0000_0001_fee0_0000, 32'h10, "a message chosen before its entry changed");

		// 2. masked before it is taken: nothing while masked, pending set;
		//    the rewrite (as Linux moves an interrupt) shows once unmasked
		ask(1);
		repeat (2) @(negedge clk);
		wr(13'h101c, 1);
		entry(1, 64'h0000_0000_fee0_5000, 32'h51);
		none("vector 1 masked");
		expect_pba(1, 1'b1, "vector 1 masked with a message owed");
		wr(13'h101c, 0);
		take(64'h0000_0000_fee0_5000, 32'h51, "vector 1 unmasked after its move");
		expect_pba(1, 1'b0, "vector 1 sent");
		none("vector 1 sent once");

		// 3. the function mask, then bus mastering off: the same
		ask(2);
		repeat (2) @(negedge clk);
		func_mask = 1'b1;
		none("the function masked");
		expect_pba(2, 1'b1, "vector 2 under the function mask");
		func_mask = 1'b0;
		en = 1'b0;
		none("bus mastering off");
		en = 1'b1;
		take(64'h0000_0000_fee0_2000, 32'h12, "vector 2 once delivery may go on");
		none("vector 2 sent once");

		if (fails == 0)
			$display("PASS: tb_msix: messages whole, none while masked, none lost or doubled");
		$finish;
	end
endmodule

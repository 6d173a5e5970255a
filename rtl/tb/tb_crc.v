// SPDX-License-Identifier: MIT
// A 4-state bench (Icarus) for the CRC-32 of fdma_crc.vh: the check value
// of "123456789" (0xCBF43926, the value zlib's crc32() gives), the 64-bit
// step against eight byte steps, and no X in either result.
`timescale 1ns / 1ps
module tb_crc;
	`include "fdma_crc.vh"
	reg [31:0] c, c8;
	reg [63:0] w;
	integer i, k, fails;
	reg [7:0] msg [0:8];

	initial begin
		fails = 0;
		msg[0] = "1"; msg[1] = "2"; msg[2] = "3"; msg[3] = "4"; msg[4] = "5";
		msg[5] = "6"; msg[6] = "7"; msg[7] = "8"; msg[8] = "9";
		c = 32'hffffffff;
		for (i = 0; i < 9; i = i + 1)
			c = crc32_d8(c, msg[i]);
		if (~c !== 32'hcbf43926) begin
			$display("FAIL: crc of \"123456789\" = %h, expected cbf43926", ~c);
			fails = fails + 1;
		end
		// the word step equals eight byte steps, low byte first
		for (k = 0; k < 100; k = k + 1) begin
			w = {$random, $random};
			c = crc32_d64(32'h12345678 + k, w);
			c8 = 32'h12345678 + k;
			for (i = 0; i < 8; i = i + 1)
				c8 = crc32_d8(c8, w[8*i +: 8]);
			if (c !== c8 || ^c === 1'bx) begin
				$display("FAIL: word %h: crc32_d64 %h, bytes %h", w, c, c8);
				fails = fails + 1;
			end
		end
		if (fails == 0)
			$display("PASS: tb_crc: check value and 100 words");
		$finish;
	end
endmodule

// SPDX-License-Identifier: MIT
/*
 * The root complex around the Verilated engine (fdma_rtl.h). One thread
 * owns the model and clocks it; other threads reach it only through the
 * request queue (register accesses), so the model is never touched
 * concurrently. When the engine says it is quiet and nothing is in flight
 * the thread sleeps until the host writes a register: an idle device costs
 * no CPU, as on the real bus.
 *
 * What the harness does per clock (125 MHz, 8 ns):
 *  - down (to the engine): register requests and read completions, one
 *    TLP at a time, each occupying the link for its bytes (framing, header,
 *    payload) at the link model's TLP rate; a completion may leave only
 *    rtt_ns after its request went up;
 *  - up (from the engine): a new TLP is accepted only when the link has
 *    carried the previous one; writes land in host memory, reads are
 *    checked (4 KiB, MRRS, tags) and answered, MSI-X writes interrupt.
 * Completions of different requests are delivered in random order
 * (seeded: a run is reproducible), split at the read completion boundary
 * or at MPS as the link configuration says.
 *
 * The engine sits behind its 7-series shim (fdma_pcie_7x.v), so the harness
 * speaks what a pcie_7x core speaks: TLPs in band on 64-bit AXI4-Stream,
 * header DW0 first, every DW with the TLP's first byte in bits 31:24, tkeep
 * 0x0f on a last beat of one DW. Unpaced, it also holds beats back at
 * random in both directions, as a core may, so the shim's flow control is
 * exercised; MSI (FDMA_RTL_IRQ=msi) goes through the core's interrupt port.
 *
 * Between the link and the engine sits a model of the core's receive
 * buffer (PG054), as hard as the real one:
 *  - the link never waits for the engine to take a completion: an endpoint
 *    advertises infinite completion credits, so completions pile up in the
 *    buffer, and more than it holds (kCplH headers, kCplD 16-byte data
 *    credits; FDMA_RTL_CPL_BUF=H,D) fails the run;
 *  - register reads (non-posted) reach the engine only as its flow control
 *    allows: rx_np_req credits (FDMA_RTL_NP=req, the core's default), or
 *    rx_np_ok with the two reads the core may still hand over after it
 *    falls (FDMA_RTL_NP=ok); writes and completions pass a held read, as
 *    PCIe's ordering rules say, and never pass a write;
 *  - FDMA_RTL_TX_STALL=N: the core stops taking TLPs for stretches of N
 *    clocks (its transmit buffer full, the link partner out of credits),
 *    and for as long as the engine refuses a TLP it is offered (a root
 *    complex that needs the one to make room for the other);
 *  - FDMA_RTL_LATE=1: fault=desc@N answers the Nth descriptor fetch after
 *    one and a half completion timeouts (the engine's strap set to 2 ms)
 *    instead of with UR: the engine must fail the fetch on its own, drop
 *    the completion when it comes, and not reuse the tag before then;
 *  - FDMA_RTL_HOST_READS=K: another CPU reads registers meanwhile, up to K
 *    reads outstanding (1- and 2-DW reads of known values, PBA reads, and
 *    reads the engine must refuse with UR), each answer checked; and now
 *    and then the host moves an MSI-X vector to another CPU as Linux does
 *    (mask, rewrite address and data, unmask): every message must carry
 *    an address and data its entry held whole, and none may leave once
 *    its vector is masked (beyond one already handed to the core).
 * The MSI-X table is set up with 8-byte writes (address; data and vector
 * control), which hosts are allowed to use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "Vfdma_sim_top.h"
#include "verilated.h"

extern "C" {
#include "fdma_rtl.h"
#include "fdma_plat.h"
#include "fdma_regs.h"
}

namespace {

constexpr double kClkNs = 8.0;               // 125 MHz
constexpr uint64_t kMsiBase = 0xfee00000ull; // where the harness points MSI-X entries
constexpr uint64_t kMsiMoved = 0xfee01000ull; // ... and where a moved vector points (another CPU)
constexpr uint32_t kMsiMovedData = 0x100;     // and what it adds to the data there
constexpr unsigned kNvec = 16;
constexpr unsigned kFraming = 8;             // STP, sequence number, LCRC, END
constexpr uint32_t kBar0Base = 0xf0000000u;  // BAR0's bus address (3DW requests)
// The core's completion space, as fdma_sim_top.v configures the engine's
// throttle (PG054's receive buffer for gen2 x4, MPS 512, buffering
// optimized for bus mastering: 36 completion headers, 461 data credits).
constexpr unsigned kCplH = 36, kCplD = 461;
constexpr unsigned kNpTags = 32;             // tags of the background reads: 32..63
constexpr uint64_t kReadTimeout = 4000000;   // clocks a host read may wait (32 ms)
constexpr uint32_t kPba = 0x1800;            // the MSI-X PBA in BAR0
constexpr unsigned kCoreNph = 12;            // non-posted requests the core buffers

struct Tlp {
	uint32_t hdr[4] = {};
	std::vector<uint64_t> data;   // payload, 8 bytes a beat, DW0 in the low half
	uint64_t ready = 0;           // cycle from which it may go down
	unsigned link_bytes = 0;
	int expect = -1;              // the error report it must bring (an Err), or -1
};

// The errors the engine reports to the core (cfg_err_*) other than UR,
// each allowed only while something the harness did calls for it, and
// then required: a read answered late (a timeout, then an unexpected
// completion), a poisoned completion, a poisoned write.
enum Err { kErrTimeout, kErrUnexpect, kErrPoisonedCpl, kErrPoisonedWr, kErrKinds };
const char *const kErrName[kErrKinds] = {"a completion timeout", "an unexpected completion",
					 "a poisoned completion", "a poisoned write"};
struct Expect {
	bool open = false;
	bool seen = false;
	uint64_t from = 0;            // not before this clock
	uint64_t due = 0;             // by this clock (0: not yet known)
};

// One beat of the core's AXI4-Stream.
struct Beat {
	uint64_t data;
	uint8_t keep;
	bool last;
};

bool tlp_is4(const uint32_t *h)
{
	return h[0] >> 29 & 1;
}

bool tlp_has_data(const uint32_t *h)
{
	return h[0] >> 30 & 1;
}

bool tlp_is_cpl(const uint32_t *h)
{
	return (h[0] >> 25 & 0xf) == 0x5;          // Cpl, CplD, CplLk, CplDLk
}

// non-posted: a request without data (MRd, MRdLk) that is no message
bool tlp_is_np(const uint32_t *h)
{
	return !tlp_has_data(h) && !tlp_is_cpl(h) && (h[0] >> 27 & 3) != 2;
}

// 16-byte completion data credits a completion takes in the core's buffer
unsigned cpl_dcredits(const uint32_t *h)
{
	unsigned dws = tlp_has_data(h) ? (h[0] & 0x3ff ? h[0] & 0x3ff : 1024) : 0;
	return (dws + 3) / 4;
}

// A TLP as the 7-series core carries it: header DWs, then payload DWs, each
// with the TLP's first byte in bits 31:24, two DWs a beat (PG054).
std::vector<Beat> to_7x(const Tlp &t)
{
	std::vector<uint32_t> dw(t.hdr, t.hdr + (tlp_is4(t.hdr) ? 4 : 3));
	std::vector<Beat> b;

	if (tlp_has_data(t.hdr)) {
		unsigned n = t.hdr[0] & 0x3ff ? t.hdr[0] & 0x3ff : 1024;
		for (unsigned i = 0; i < n; i++)
			dw.push_back(__builtin_bswap32((uint32_t)(t.data[i / 2] >> (32 * (i % 2)))));
	}
	for (size_t i = 0; i < dw.size(); i += 2) {
		bool two = i + 1 < dw.size();
		b.push_back({(two ? (uint64_t)dw[i + 1] << 32 : 0) | dw[i], (uint8_t)(two ? 0xff : 0x0f),
			     i + 2 >= dw.size()});
	}
	return b;
}

// The core's beats of one TLP back to a TLP; false if they do not add up
// to what the header says.
bool from_7x(const std::vector<Beat> &b, Tlp &t)
{
	std::vector<uint32_t> dw;

	for (const Beat &x : b) {
		if (x.keep != 0xff && !(x.keep == 0x0f && x.last))
			return false;
		dw.push_back((uint32_t)x.data);
		if (x.keep == 0xff)
			dw.push_back((uint32_t)(x.data >> 32));
	}
	if (dw.size() < 3)
		return false;
	t = Tlp();
	unsigned nh = tlp_is4(dw.data()) ? 4 : 3;
	unsigned n = tlp_has_data(dw.data()) ? (dw[0] & 0x3ff ? dw[0] & 0x3ff : 1024) : 0;
	if (dw.size() != nh + n)
		return false;
	for (unsigned i = 0; i < nh; i++)
		t.hdr[i] = dw[i];
	t.data.assign((n + 1) / 2, 0);
	for (unsigned i = 0; i < n; i++)
		t.data[i / 2] |= (uint64_t)__builtin_bswap32(dw[nh + i]) << (32 * (i % 2));
	return true;
}

// One read request of the engine being answered: its completions in order.
struct Pending {
	std::deque<Tlp> cpls;
};

struct HostReq {
	bool write;
	uint32_t off, val;
	bool done = false;
	uint32_t result = 0;
};

// A register read on its way: the library's (a caller waits on it) or one
// the harness makes itself (FDMA_RTL_HOST_READS), with what it must get.
struct HostRead {
	HostReq *q = nullptr;
	bool busy = false;
	uint32_t off = 0;
	unsigned dws = 1;
	bool expect_ur = false;
	bool locked = false;          // MRdLk: refused with CplLk
	bool check = false;           // the value is known: ID, or ID and VERSION; PBA's DW1 0
	uint64_t sent = 0;
};

uint64_t mix(uint64_t &s)
{
	s += 0x9e3779b97f4a7c15ull;
	uint64_t z = s;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

} // namespace

struct fdma_rtl {
	fdma_model_cfg cfg{};
	fdma_model_host host{};
	VerilatedContext ctx;
	Vfdma_sim_top *top = nullptr;
	std::thread thr;
	std::mutex mu;
	std::condition_variable cv, done_cv;
	std::deque<HostReq *> reqs;
	std::atomic<bool> asked{false};   // reqs or stop changed: take the lock
	bool stop = false;

	// link state, in cycles
	uint64_t cyc = 0;
	double bpc = 0;               // link bytes per clock, each direction (0: unpaced)
	uint64_t rtt = 0;
	double up_free = 0, down_free = 0;
	// down: the link carries register requests (in order) and completions
	// into the core's receive buffer; the engine takes them from there
	std::deque<Tlp> down_q;        // register requests, in order
	std::vector<Pending> pend;     // read completions, one entry per request
	std::deque<Tlp> wire_q;        // TLPs on the link, in order (at most one when paced)
	std::deque<Tlp> core_q;        // the core's receive buffer, in arrival order
	unsigned cpl_h = 0, cpl_d = 0; // completion space in use
	unsigned cap_h = kCplH, cap_d = kCplD;
	bool np_req_mode = true;       // FDMA_RTL_NP: req (default) or ok
	uint64_t np_credit = 0;        // rx_np_req: reads the engine asked for
	unsigned np_slack = 2;         // rx_np_ok low: reads the core may still hand over
	bool down_busy = false;
	Tlp down_cur;
	std::vector<Beat> down_beats;  // down_cur as the core's beats
	size_t down_beat = 0;
	HostRead hr[2 * kNpTags];      // register reads by tag
	unsigned hr_lib = 0;           // library reads outstanding
	unsigned hr_bg = 0;            // background reads outstanding
	unsigned bg_max = 0;           // FDMA_RTL_HOST_READS
	uint32_t version = 0;          // VERSION, once a background read saw it
	// the MSI-X table as the engine has received it, and what each vector
	// may send: the address and data it held when last unmasked, and before
	struct Vec {
		uint64_t addr = 0;
		uint32_t data = 0;
		bool masked = true;
		uint64_t ok_addr[2] = {}, ok_data[2] = {};
		uint64_t masked_at = 0;    // tx_willing when the mask reached the engine
		uint64_t unmasked_at = 0;  // ... and when the unmask did
	} vec[kNvec];
	uint64_t tx_willing = 0;       // clocks the core would take a TX beat
	uint64_t up_willing = 0;       // ... when the TLP being received began
	unsigned tx_stall = 0;         // FDMA_RTL_TX_STALL: clocks per stall
	bool late = false;             // FDMA_RTL_LATE: fault=desc answers late, not UR
	Expect expect[kErrKinds];
	uint64_t cpl_timeout = 6250000; // the engine's strap: 50 ms (2 ms with FDMA_RTL_LATE)
	uint64_t stall_left = 0, stall_gap = 0;
	uint64_t rx_refused = 0;       // clocks the engine has refused a beat offered
	// FDMA_FAULT_DATA: the first data read of poison_ch that touches the
	// faulty descriptor's source bytes [poison_lo, poison_hi)
	bool poison_next = false;
	unsigned poison_ch = 0;
	uint64_t poison_lo = 0, poison_hi = 0;
	// up: the TLP being received, as the core's beats
	std::vector<Beat> up_beats;
	bool up_in = false;
	bool gaps = false;             // unpaced: hold beats back at random
	bool msi = false;              // FDMA_RTL_IRQ=msi: MSI-X off, MSI on
	bool card_axi = false;         // FDMA_RTL_CARD=axi: card memory through AXI4
	unsigned msi_wait = 0;         // clocks before the core takes an MSI request
	bool up_granted = false;
	// rules and faults
	uint32_t tags_out = 0;         // tags in use (bit per tag)
	uint64_t desc_reads = 0;       // descriptor fetches seen (for fault_at)
	bool fault_armed = false;
	uint64_t rng = 0x5eed;
	fdma_rtl_counts n{};
	clockid_t cpu_clock{};
	bool have_clock = false;
	unsigned mps = 256, mrrs = 512;
	bool trace = false;            // FDMA_RTL_TRACE: every TLP on stderr
	bool in_order = false;         // FDMA_RTL_IN_ORDER: completions in request order
};

namespace {

unsigned code_of(unsigned bytes)
{
	unsigned c = 0;

	while ((128u << c) < bytes)
		c++;
	return c;
}

// A 1-DW memory request from the host (root complex) to BAR0.
Tlp host_req(bool write, uint32_t off, uint32_t val, uint8_t tag)
{
	Tlp t;
	uint32_t addr = kBar0Base + off;

	t.hdr[0] = (write ? 0x40000000u : 0) | 1u;
	t.hdr[1] = (uint32_t)tag << 8 | 0xf;
	t.hdr[2] = addr & ~3u;
	if (write)
		t.data.push_back(val);
	t.link_bytes = kFraming + 12 + (write ? 4 : 0);
	return t;
}

// An 8-byte write: two DWs, all bytes enabled.
Tlp host_write2(uint32_t off, uint32_t v0, uint32_t v1)
{
	Tlp t = host_req(true, off, v0, 0);

	t.hdr[0] = 0x40000000u | 2u;
	t.hdr[1] = 0xff;
	t.data[0] = (uint64_t)v1 << 32 | v0;
	t.link_bytes += 4;
	return t;
}

// A read of dws DWs (all bytes enabled); type 1 is MRdLk.
Tlp host_read(uint32_t off, unsigned dws, uint8_t tag, unsigned type)
{
	Tlp t = host_req(false, off, 0, tag);

	t.hdr[0] = type << 24 | (dws & 0x3ff);
	t.hdr[1] = (uint32_t)tag << 8 | (dws > 1 ? 0xffu : 0xfu);
	return t;
}

uint64_t tlp_addr(const uint32_t *h)
{
	bool is4 = h[0] >> 29 & 1;

	return is4 ? ((uint64_t)h[2] << 32 | (h[3] & ~3u)) : (h[2] & ~3u);
}

unsigned tlp_dws(const uint32_t *h)
{
	unsigned l = h[0] & 0x3ff;

	return l ? l : 1024;
}

[[noreturn]] void broken(fdma_rtl *r, const char *what, const Tlp &t);
void msix_message(fdma_rtl *r, const Tlp &t, uint64_t addr);

// The engine's read request: completions now, data as host memory holds it now.
void answer_read(fdma_rtl *r, const Tlp &t)
{
	uint64_t addr = tlp_addr(t.hdr);
	unsigned bytes = tlp_dws(t.hdr) * 4;
	unsigned tag = t.hdr[1] >> 8 & 0xff;
	uint16_t req_id = t.hdr[1] >> 16;
	bool is_desc = (tag & 7) == 7;
	void *p = r->host.dma(r->host.ctx, addr, bytes);
	Pending pd;
	uint64_t ready = r->cyc + r->rtt;
	unsigned st = p ? 0 : 1;                 // SC, else UR
	bool poison = false;

	r->n.reads++;
	if ((addr & 0xfff) + bytes > 4096 || bytes > r->mrrs)
		broken(r, "a read request crosses 4 KiB or exceeds MRRS", t);
	if (r->tags_out >> tag & 1)
		broken(r, "a read request reuses a tag still outstanding", t);
	if (is_desc)
		r->desc_reads++;
	if (r->fault_armed && is_desc && r->desc_reads == r->cfg.fault_at &&
	    (r->cfg.fault == FDMA_FAULT_DESC || r->cfg.fault == FDMA_FAULT_DATA)) {
		r->fault_armed = false;
		r->n.faults++;
		if (r->cfg.fault == FDMA_FAULT_DESC && r->late) {
			// answered, but only after the engine's completion timeout
			// has failed the fetch: the engine must drop the late
			// completion and must not reuse its tag meanwhile (the
			// tag stays outstanding here until it is delivered)
			ready = r->cyc + r->cpl_timeout + r->cpl_timeout / 2;
			// the engine gives up on it between 1 and 1.25 timeouts
			Expect &e = r->expect[kErrTimeout];
			e.open = true;
			e.seen = false;
			e.from = r->cyc + r->cpl_timeout;
			e.due = r->cyc + r->cpl_timeout + r->cpl_timeout / 4 + 64;
		} else if (r->cfg.fault == FDMA_FAULT_DESC) {
			st = 1;
		} else if (p) {
			// The descriptor reads fine; its data comes back poisoned.
			// Found by address: a prefetch goes out before the
			// current descriptor's data reads, and reads issued ahead
			// for this one may come before the current one's end.
			struct fdma_desc d;

			memcpy(&d, p, sizeof(d));
			r->poison_next = true;
			r->poison_ch = tag >> 3;
			r->poison_lo = d.src;
			r->poison_hi = d.src + d.len;
		}
	}
	if (!is_desc && r->poison_next && tag >> 3 == r->poison_ch &&
	    addr < r->poison_hi && addr + bytes > r->poison_lo) {
		r->poison_next = false;
		poison = true;
	}
	// what the engine must report when it takes them: a late answer is
	// one nobody waits for any more; a poisoned one is poisoned
	int expect = ready > r->cyc + r->rtt ? kErrUnexpect : poison ? kErrPoisonedCpl : -1;
	if (st) {
		Tlp c;
		c.hdr[0] = 0x0a000000u;          // Cpl, no data
		c.hdr[1] = (uint32_t)st << 13 | (bytes & 0xfff);
		c.hdr[2] = (uint32_t)req_id << 16 | tag << 8 | (addr & 0x7f);
		c.ready = ready;
		c.link_bytes = kFraming + 12;
		pd.cpls.push_back(c);
	} else {
		unsigned rcb = r->cfg.link.rcb ? r->cfg.link.rcb : r->mps;
		unsigned left = bytes;
		uint64_t a = addr;
		const uint8_t *src = (const uint8_t *)p;

		while (left) {
			// up to the next RCB (or MPS) boundary, the first piece aligned to it
			unsigned n = rcb - (unsigned)(a % rcb);
			Tlp c;

			if (n > left)
				n = left;
			c.hdr[0] = 0x4a000000u | (poison ? 1u << 14 : 0) | ((n / 4) & 0x3ff);
			c.hdr[1] = (left & 0xfff);
			c.hdr[2] = (uint32_t)req_id << 16 | tag << 8 | (a & 0x7f);
			c.data.resize((n + 7) / 8);
			memcpy(c.data.data(), src + (a - addr), n);
			c.ready = ready;
			c.link_bytes = kFraming + 12 + n;
			c.expect = expect;
			pd.cpls.push_back(c);
			a += n;
			left -= n;
		}
	}
	r->tags_out |= 1u << tag;
	r->pend.push_back(std::move(pd));
}

void trace(const fdma_rtl *r, const char *dir, const Tlp &t)
{
	if (!r->trace)
		return;
	fprintf(stderr, "%10llu %s %08x %08x %08x %08x", (unsigned long long)r->cyc, dir, t.hdr[0],
		t.hdr[1], t.hdr[2], t.hdr[3]);
	for (size_t i = 0; i < t.data.size() && i < 4; i++)
		fprintf(stderr, " %016llx", (unsigned long long)t.data[i]);
	fprintf(stderr, "%s\n", t.data.size() > 4 ? " ..." : "");
}

/*
 * The engine broke a rule of PCIe or of its ports. In simulation that is a
 * bug in the RTL, never something to carry on past: say what and stop
 * (the program, and with it the test, fails where it happened).
 */
[[noreturn]] void broken(fdma_rtl *r, const char *what, const Tlp &t)
{
	r->n.bad_tlps++;
	fprintf(stderr, "fdma rtl: clock %llu: %s: %08x %08x %08x %08x\n",
		(unsigned long long)r->cyc, what, t.hdr[0], t.hdr[1], t.hdr[2], t.hdr[3]);
	abort();
}

// An MSI-X write or an MSI request reaches the host, unless fault=irq@N loses it.
void interrupt(fdma_rtl *r, unsigned vec)
{
	if (r->cfg.fault == FDMA_FAULT_IRQ && r->fault_armed) {
		r->fault_armed = false;   // the next interrupt is lost
		r->n.faults++;
		return;
	}
	r->host.irq(r->host.ctx, vec);
}

// The completion of a register read: one per read, by tag, with the
// byte count, lower address and length the read asks for; UR where the
// engine must refuse; ID and VERSION as they are.
void host_cpl(fdma_rtl *r, const Tlp &t, bool from_core)
{
	unsigned tag = t.hdr[2] >> 8 & 0xff, st = t.hdr[1] >> 13 & 7;
	unsigned bc = t.hdr[1] & 0xfff, la = t.hdr[2] & 0x7f;
	bool data = tlp_has_data(t.hdr), lk = t.hdr[0] >> 24 & 1;

	if (tag >= 2 * kNpTags || !r->hr[tag].busy)
		broken(r, "a completion nobody asked for", t);
	HostRead &h = r->hr[tag];
	if ((t.hdr[2] >> 16) != 0 || (t.hdr[1] >> 16) != (1u << 8))
		broken(r, "a completion with the wrong requester or completer ID", t);
	if (h.expect_ur != from_core)
		broken(r, from_core ? "a UR reported to the core for a read the engine must answer"
				    : "a completion for a read the engine must refuse, sent by the engine: the core sends the UR when told through cfg_err_ur",
		       t);
	if (h.expect_ur) {
		if (st != 1 || data || lk != h.locked || bc != ((4 * h.dws) & 0xfff))
			broken(r, "a read the engine must refuse was not answered UR (CplLk for MRdLk) with its byte count", t);
	} else if (st != 0 || !data || lk || tlp_dws(t.hdr) != h.dws || bc != 4 * h.dws ||
		   la != (h.off & 0x7c)) {
		broken(r, "a register read's completion has the wrong status, length, byte count or lower address", t);
	}
	if (h.check && !h.expect_ur) {
		uint32_t d0 = (uint32_t)t.data[0], d1 = (uint32_t)(t.data[0] >> 32);

		if (h.off == kPba) {
			if (d1 != 0)
				broken(r, "the PBA's second DW (vectors 32..63, none) is not 0", t);
		} else {
			if (d0 != FDMA_ID_MAGIC || (h.dws == 2 && r->version && d1 != r->version))
				broken(r, "a read of ID (and VERSION) returned something else", t);
			if (h.dws == 2)
				r->version = d1;
		}
	}
	h.busy = false;
	r->n.reg_reads++;
	if (h.q) {
		std::lock_guard<std::mutex> g(r->mu);
		h.q->result = data ? (uint32_t)t.data[0] : 0xffffffffu;
		h.q->done = true;
		h.q = nullptr;
		r->hr_lib--;
		r->done_cv.notify_all();
	} else {
		r->hr_bg--;
	}
}

void take_up(fdma_rtl *r, const Tlp &t)
{
	unsigned fmt = t.hdr[0] >> 29, type = t.hdr[0] >> 24 & 0x1f;

	trace(r, "up  ", t);
	r->n.tlps_up++;
	if (type == 0x0a || type == 0x0b) {
		host_cpl(r, t, false);
		return;
	}
	if (type != 0) {
		broken(r, "a TLP of a type the engine never sends", t);
		return;
	}
	if (!(fmt & 2)) {
		answer_read(r, t);
		return;
	}
	uint64_t addr = tlp_addr(t.hdr);
	unsigned bytes = tlp_dws(t.hdr) * 4;

	if ((addr & 0xfff) + bytes > 4096 || bytes > r->mps)
		broken(r, "a write crosses 4 KiB or exceeds MPS", t);
	if (addr >= kMsiBase && addr < kMsiBase + 0x100000) {
		msix_message(r, t, addr);
		return;
	}
	void *p = r->host.dma(r->host.ctx, addr, bytes);

	if (p) {
		// aligned 32-bit fields land whole: a write-back field is never torn
		const uint32_t *w = (const uint32_t *)t.data.data();
		uint32_t *d = (uint32_t *)p;

		if (!(addr & 3))
			for (unsigned i = 0; i < bytes / 4; i++)
				__atomic_store_n(&d[i], w[i], __ATOMIC_RELEASE);
	}
}

// Pick the next completion: the first of a random request whose time has come.
bool next_cpl(fdma_rtl *r, Tlp &out)
{
	size_t ready = 0;

	for (auto &p : r->pend)
		ready += p.cpls.front().ready <= r->cyc;
	if (!ready)
		return false;
	size_t k = r->in_order ? 0 : mix(r->rng) % ready;
	for (size_t i = 0; i < r->pend.size(); i++) {
		if (r->pend[i].cpls.front().ready > r->cyc)
			continue;
		if (k--)
			continue;
		if (i)
			r->n.reordered++;
		out = r->pend[i].cpls.front();
		r->pend[i].cpls.pop_front();
		if (r->pend[i].cpls.empty()) {
			r->tags_out &= ~(1u << (out.hdr[2] >> 8 & 0xff));
			r->pend.erase(r->pend.begin() + (long)i);
		}
		return true;
	}
	return false;
}

// A TLP the engine has taken whole: writes to the MSI-X table update the
// harness's copy of it, as the engine now has it.
void delivered(fdma_rtl *r, const Tlp &t)
{
	if (t.expect >= 0)                // its report is due soon
		r->expect[t.expect].due = r->cyc + 32;
	if (!tlp_has_data(t.hdr) || tlp_is_cpl(t.hdr) || r->msi || (t.hdr[0] >> 14 & 1))
		return;
	uint32_t off = (uint32_t)tlp_addr(t.hdr) - kBar0Base;
	for (unsigned i = 0; i < tlp_dws(t.hdr); i++, off += 4) {
		if (off < 0x1000 || off >= 0x1000 + kNvec * 16)
			continue;
		fdma_rtl::Vec &v = r->vec[(off - 0x1000) / 16];
		uint32_t d = (uint32_t)(t.data[i / 2] >> (32 * (i % 2)));

		switch (off & 0xc) {
		case 0x0:
			v.addr = (v.addr & ~0xffffffffull) | (d & ~3u);
			break;
		case 0x4:
			v.addr = (v.addr & 0xffffffffull) | (uint64_t)d << 32;
			break;
		case 0x8:
			v.data = d;
			break;
		default:
			if ((d & 1) && !v.masked)
				v.masked_at = r->tx_willing;
			if (!(d & 1) && v.masked) {
				v.unmasked_at = r->tx_willing;
				v.ok_addr[1] = v.ok_addr[0];
				v.ok_data[1] = v.ok_data[0];
				v.ok_addr[0] = v.addr;
				v.ok_data[0] = v.data;
			}
			v.masked = d & 1;
			break;
		}
	}
}

// The host moves vector v to another CPU (or back), as Linux changes an
// interrupt's affinity: mask, new address and data a DW at a time, unmask.
void move_vector(fdma_rtl *r)
{
	unsigned v = (unsigned)(mix(r->rng) % kNvec);
	uint32_t e = 0x1000 + v * 16;
	bool away = !(r->vec[v].data & kMsiMovedData);

	r->down_q.push_back(host_req(true, e + 12, 1, 0));
	r->down_q.push_back(host_req(true, e, (uint32_t)(away ? kMsiMoved : kMsiBase), 0));
	r->down_q.push_back(host_req(true, e + 4, 0, 0));
	r->down_q.push_back(host_req(true, e + 8, v | (away ? kMsiMovedData : 0), 0));
	if (mix(r->rng) & 1) {
		// a poisoned write must be dropped (its data must not be used)
		// and reported: applied, the vector's next message would carry
		// data its entry never held
		Tlp p = host_req(true, e + 8, v | 0x5a0000, 0);

		p.hdr[0] |= 1u << 14;
		p.expect = kErrPoisonedWr;
		r->down_q.push_back(p);
	}
	r->down_q.push_back(host_req(true, e + 12, 0, 0));
}

// An MSI-X message: whole (the address and data its entry held when it was
// last unmasked, or before, for one sent just before a move), and not
// begun more than a few clocks the core would have taken after its vector
// was masked.
void msix_message(fdma_rtl *r, const Tlp &t, uint64_t addr)
{
	uint32_t d = (uint32_t)t.data[0];
	unsigned v = d & 0xff;

	if (v >= kNvec)
		broken(r, "an MSI-X message with data no entry holds", t);
	const fdma_rtl::Vec &e = r->vec[v];
	bool whole = false;
	for (int i = 0; i < 2; i++)
		whole |= addr == e.ok_addr[i] && d == e.ok_data[i];
	if (!whole)
		broken(r, "an MSI-X message with an address and data its entry never held together (torn)", t);
	// begun while masked: after the mask (by more than the clocks a message
	// already handed to the core needs), and before any unmask since
	bool began_masked = r->up_willing > e.masked_at + 16 &&
			    (e.masked || e.unmasked_at > r->up_willing);
	if (began_masked && e.masked_at)
		broken(r, "an MSI-X message begun after its vector was masked", t);
	r->n.msix++;
	interrupt(r, v);
}

// The link: the next TLP into the core's receive buffer, when the link has
// carried the last one (paced) or one a clock (unpaced). Register requests
// go in order; a read the core has no room for lets completions pass.
void link_down(fdma_rtl *r)
{
	Tlp t;
	bool got = false;

	// A TLP goes as soon as the link frees up in this clock, and is timed
	// from that moment, not from the clock's start: otherwise every TLP
	// whose link time is not a whole number of clocks would cost the
	// rest of a clock (at gen2 x2, a 64-byte completion's 10.5 clocks
	// would take 11).
	if (r->bpc && r->down_free >= (double)r->cyc + 1)
		return;
	if (!r->down_q.empty()) {
		unsigned nph = 0;

		for (const Tlp &c : r->core_q)
			nph += tlp_is_np(c.hdr);
		for (const Tlp &c : r->wire_q)
			nph += tlp_is_np(c.hdr);
		if (!tlp_is_np(r->down_q.front().hdr) || nph < kCoreNph) {
			t = r->down_q.front();
			r->down_q.pop_front();
			got = true;
		}
	}
	if (!got && !next_cpl(r, t))
		return;
	trace(r, "down", t);
	r->n.tlps_down++;
	// the core takes a TLP whole (it checks the LCRC at its end), so it
	// reaches the buffer when the link has carried its last byte
	t.ready = r->cyc;
	if (r->bpc) {
		r->down_free = std::max(r->down_free, (double)r->cyc) + t.link_bytes / r->bpc;
		t.ready = (uint64_t)r->down_free;
	}
	r->wire_q.push_back(std::move(t));
}

// A TLP the link has carried whole goes into the core's receive buffer.
void link_arrive(fdma_rtl *r)
{
	if (r->wire_q.empty() || r->wire_q.front().ready > r->cyc)
		return;
	Tlp t = std::move(r->wire_q.front());
	r->wire_q.pop_front();
	if (tlp_is_cpl(t.hdr)) {
		// infinite completion credits: nothing stops the link, so the
		// engine must never have asked for more than the buffer holds
		r->cpl_h++;
		r->cpl_d += cpl_dcredits(t.hdr);
		r->n.cplbuf_peak_h = std::max<uint64_t>(r->n.cplbuf_peak_h, r->cpl_h);
		r->n.cplbuf_peak_d = std::max<uint64_t>(r->n.cplbuf_peak_d, r->cpl_d);
		if (r->cpl_h > r->cap_h || r->cpl_d > r->cap_d) {
			char what[160];

			snprintf(what, sizeof(what),
				 "the core's completion buffer overflows (%u headers, %u data credits; it holds %u and %u)",
				 r->cpl_h, r->cpl_d, r->cap_h, r->cap_d);
			broken(r, what, t);
		}
	}
	r->core_q.push_back(std::move(t));
}

// What the core hands the engine next: the oldest TLP in its buffer, except
// that a read waits for the engine's flow control (rx_np_req credits, or
// rx_np_ok and the two the core may still hand over after it falls) while
// later writes and completions pass it. Nothing passes a write.
bool core_pick(fdma_rtl *r, Tlp &out, bool np_ok)
{
	for (size_t i = 0; i < r->core_q.size(); i++) {
		if (tlp_is_np(r->core_q[i].hdr)) {
			if (r->np_req_mode) {
				if (!r->np_credit)
					continue;
				r->np_credit--;
			} else if (!np_ok) {
				if (!r->np_slack)
					continue;
				r->np_slack--;
			}
		}
		out = std::move(r->core_q[i]);
		r->core_q.erase(r->core_q.begin() + (long)i);
		return true;
	}
	return false;
}

int free_tag(fdma_rtl *r, unsigned from)
{
	for (unsigned i = from; i < from + kNpTags; i++)
		if (!r->hr[i].busy)
			return (int)i;
	return -1;
}

// Another CPU reads a register (FDMA_RTL_HOST_READS): values it knows are
// checked, reads the engine must refuse must come back UR.
void background_read(fdma_rtl *r)
{
	int tag = free_tag(r, kNpTags);
	unsigned ch = (unsigned)(mix(r->rng) % 4);

	if (tag < 0)
		return;
	HostRead &h = r->hr[tag];
	h = HostRead();
	h.busy = true;
	h.sent = r->cyc;
	unsigned type = 0;
	switch (mix(r->rng) % 6) {
	case 0:
		h.off = FDMA_REG_ID; h.check = true;
		break;
	case 1:
		h.off = FDMA_REG_ID; h.dws = 2; h.check = true;
		break;
	case 2:
		h.off = FDMA_CH_BASE(ch) + FDMA_CH_STATUS;
		break;
	case 3:
		h.off = kPba; h.dws = 2; h.check = true;
		break;
	case 4:
		h.off = FDMA_CH_BASE(ch) + FDMA_CH_STATUS; h.dws = 4; h.expect_ur = true;
		break;
	default:
		h.off = FDMA_REG_ID; h.expect_ur = h.locked = true; type = 1;
		break;
	}
	r->hr_bg++;
	r->down_q.push_back(host_read(h.off, h.dws, (uint8_t)tag, type));
}

// Every register read is answered in time, whatever TX is doing.
void check_reads(fdma_rtl *r)
{
	for (const HostRead &h : r->hr)
		if (h.busy && r->cyc - h.sent > kReadTimeout) {
			Tlp t = host_read(h.off, h.dws, (uint8_t)(&h - r->hr), 0);
			broken(r, "a register read got no completion in 32 ms", t);
		}
}

// The core's error port: a UR goes back as the core would send it (the
// completion for a read the engine refuses); every other report must be
// one the harness asked for, and in time.
void take_reports(fdma_rtl *r)
{
	Vfdma_sim_top *t = r->top;
	bool rep[kErrKinds] = {(bool)t->cfg_err_cpl_timeout, (bool)t->cfg_err_cpl_unexpect,
			       t->cfg_err_poisoned && !t->cfg_err_posted,
			       t->cfg_err_poisoned && t->cfg_err_posted};
	uint64_t *count[kErrKinds] = {&r->n.err_timeout, &r->n.err_unexpect, &r->n.err_poisoned_cpl,
				      &r->n.err_poisoned_wr};

	if (t->cfg_err_ur && t->cfg_err_cpl_rdy) {
		uint64_t h = t->cfg_err_tlp_cpl_header;
		Tlp c;

		c.hdr[0] = (t->cfg_err_locked ? 0x0b000000u : 0x0a000000u) | (uint32_t)(h >> 26 & 7) << 20 |
			   (uint32_t)(h >> 24 & 3) << 12;
		c.hdr[1] = 1u << 24 | 1u << 13 | (uint32_t)(h >> 29 & 0xfff);   // completer: the core's ID
		c.hdr[2] = (uint32_t)(h >> 8 & 0xffff) << 16 | (uint32_t)(h & 0xff) << 8 |
			   (uint32_t)(h >> 41 & 0x7f);
		r->n.err_ur++;
		trace(r, "ur  ", c);
		host_cpl(r, c, true);
	}
	for (int k = 0; k < kErrKinds; k++) {
		if (!rep[k])
			continue;
		Expect &e = r->expect[k];
		if (!e.open || r->cyc < e.from) {
			Tlp none;
			fprintf(stderr, "fdma rtl: %s reported to the core, with none to report\n",
				kErrName[k]);
			broken(r, "an error report nothing called for", none);
		}
		e.seen = true;
		(*count[k])++;
	}
}

// Each report called for came in time.
void check_reports(fdma_rtl *r)
{
	for (int k = 0; k < kErrKinds; k++) {
		Expect &e = r->expect[k];

		if (!e.open || !e.due || r->cyc <= e.due)
			continue;
		if (!e.seen) {
			Tlp none;
			fprintf(stderr, "fdma rtl: %s was not reported to the core\n", kErrName[k]);
			broken(r, "an error the engine must report was not", none);
		}
		e.open = false;
	}
}

void tick(fdma_rtl *r)
{
	Vfdma_sim_top *t = r->top;

	link_down(r);
	link_arrive(r);
	// the engine's flow control for reads, as it stood this clock
	if (r->np_req_mode && t->rx_np_req)
		r->np_credit++;
	if (t->rx_np_ok)
		r->np_slack = 2;
	if (!r->down_busy && core_pick(r, r->down_cur, t->rx_np_ok)) {
		r->down_beats = to_7x(r->down_cur);
		r->down_beat = 0;
		r->down_busy = true;
		if (r->down_cur.expect >= 0) {
			Expect &e = r->expect[r->down_cur.expect];

			if (!e.open)
				e = Expect{true, false, r->cyc, 0};
			e.due = 0;          // until it is delivered
		}
	}
	check_reports(r);
	if (r->bg_max && r->hr_bg < r->bg_max && (mix(r->rng) & 63) == 0)
		background_read(r);
	if (r->bg_max && !r->msi && (mix(r->rng) & 16383) == 0)
		move_vector(r);
	if ((r->cyc & 4095) == 0)
		check_reads(r);
	// a core may pause mid-TLP in either direction: 1 clock in 8 at random
	bool hold_rx = r->gaps && (mix(r->rng) & 7) == 0;
	bool hold_tx = r->gaps && (mix(r->rng) & 7) == 0;
	const Beat *db = r->down_busy ? &r->down_beats[r->down_beat] : nullptr;
	t->m_axis_rx_tvalid = db && !hold_rx;
	t->m_axis_rx_tdata = db ? db->data : 0;
	t->m_axis_rx_tkeep = db ? db->keep : 0;
	t->m_axis_rx_tlast = db ? db->last : 0;
	// the core stops taking TLPs now and then (FDMA_RTL_TX_STALL)
	bool stalled = false;
	if (r->tx_stall) {
		if (r->stall_left) {
			r->stall_left--;
			stalled = true;
			r->n.stall_clocks++;
		} else if (r->stall_gap) {
			r->stall_gap--;
		} else {
			r->stall_left = r->tx_stall;
			r->stall_gap = r->tx_stall + mix(r->rng) % (4 * r->tx_stall);
		}
	}
	// A root complex whose buffers serve both directions (as a bridge's
	// may) cannot take the device's TLPs while the device refuses the ones
	// it could take: the dependency PCIe's ordering rules exist to break.
	// With stalls on, a refusal of 64 clocks holds TX until RX moves.
	if (r->tx_stall && r->rx_refused > 64)
		stalled = true;
	// up: a new TLP only when the link has carried the last one
	t->s_axis_tx_tready = !hold_tx && !stalled &&
			      (r->up_in || r->bpc == 0 || r->up_free < (double)r->cyc + 1);
	r->tx_willing += t->s_axis_tx_tready;
	// MSI: the core takes a request after a few clocks
	t->cfg_interrupt_rdy = 0;
	if (t->cfg_interrupt && r->msi_wait-- == 0) {
		t->cfg_interrupt_rdy = 1;
		r->msi_wait = (unsigned)(mix(r->rng) & 3);
	}

	// the core's buffer for the completions it sends for errors is full
	// now and then
	t->cfg_err_cpl_rdy = (mix(r->rng) & 3) != 0;

	t->clk = 0;
	t->eval();
	bool rx_fire = t->m_axis_rx_tvalid && t->m_axis_rx_tready;
	if (t->m_axis_rx_tvalid)          // (a clock the harness held its beat back does not count)
		r->rx_refused = t->m_axis_rx_tready ? 0 : r->rx_refused + 1;
	bool tx_fire = t->s_axis_tx_tvalid && t->s_axis_tx_tready;
	bool msi_fire = t->cfg_interrupt && t->cfg_interrupt_rdy;
	unsigned msi_vec = t->cfg_interrupt_di;
	take_reports(r);
	bool got = false;
	if (tx_fire) {
		if (!r->up_in) {
			r->up_beats.clear();
			r->up_in = true;
			r->up_willing = r->tx_willing;
			// the link is busy for the whole TLP from its first beat on
			uint32_t h0 = (uint32_t)t->s_axis_tx_tdata;
			unsigned bytes = kFraming + (tlp_is4(&h0) ? 16 : 12) +
					 (tlp_has_data(&h0) ? tlp_dws(&h0) * 4 : 0);
			if (r->bpc)
				r->up_free = std::max(r->up_free, (double)r->cyc) + bytes / r->bpc;
		}
		r->up_beats.push_back({t->s_axis_tx_tdata, (uint8_t)t->s_axis_tx_tkeep,
				       (bool)t->s_axis_tx_tlast});
		if (t->s_axis_tx_tlast) {
			r->up_in = false;
			got = true;
		}
	}
	t->clk = 1;
	t->eval();
	r->cyc++;
	if (t->card_errors) {
		fprintf(stderr, "fdma rtl: clock %llu: the card port's AXI4 bus broke a rule or got an error response (%u)\n",
			(unsigned long long)r->cyc, (unsigned)t->card_errors);
		abort();
	}
	if (rx_fire && ++r->down_beat == r->down_beats.size()) {
		r->down_busy = false;
		delivered(r, r->down_cur);
		// the engine has taken the whole completion: its space is free
		if (tlp_is_cpl(r->down_cur.hdr)) {
			r->cpl_h--;
			r->cpl_d -= cpl_dcredits(r->down_cur.hdr);
		}
	}
	if (got) {
		Tlp up;
		if (from_7x(r->up_beats, up)) {
			take_up(r, up);
		} else {
			r->n.tlps_up++;
			broken(r, "beats that are no TLP on the 7-series stream (tkeep, or length)", up);
		}
	}
	if (msi_fire) {
		r->n.msi++;
		interrupt(r, msi_vec);
	}
}

void run(fdma_rtl *r)
{
	unsigned quiet_for = 0;

	if (pthread_getcpuclockid(pthread_self(), &r->cpu_clock) == 0)
		r->have_clock = true;
	for (;;) {
		bool idle_now = quiet_for > 8 && r->pend.empty() && r->down_q.empty() &&
				r->wire_q.empty() && r->core_q.empty() && !r->down_busy && !r->up_in &&
				!r->hr_lib && !r->hr_bg;
		if (idle_now || r->asked.load(std::memory_order_acquire)) {
			std::unique_lock<std::mutex> g(r->mu);
			r->asked.store(false, std::memory_order_relaxed);
			bool idle = idle_now && r->reqs.empty();
			if (idle && !r->stop)
				r->cv.wait_for(g, std::chrono::milliseconds(50),
					       [r] { return r->stop || !r->reqs.empty(); });
			if (r->stop)
				break;
			// host requests go down in order; each read has its tag
			while (!r->reqs.empty()) {
				HostReq *q = r->reqs.front();
				int tag = q->write ? 0 : free_tag(r, 0);

				if (tag < 0)
					break;
				r->reqs.pop_front();
				r->down_q.push_back(host_req(q->write, q->off, q->val, (uint8_t)tag));
				if (q->write) {
					q->done = true;
					r->done_cv.notify_all();
				} else {
					HostRead &h = r->hr[tag];
					h = HostRead();
					h.q = q;
					h.busy = true;
					h.off = q->off;
					h.sent = r->cyc;
					r->hr_lib++;
				}
			}
		}
		tick(r);
		quiet_for = r->top->quiet ? quiet_for + 1 : 0;
	}
}

void reset(fdma_rtl *r)
{
	Vfdma_sim_top *t = r->top;

	t->rst = 1;
	for (int i = 0; i < 8; i++) {
		t->clk = 0;
		t->eval();
		t->clk = 1;
		t->eval();
	}
	t->rst = 0;
}

// An environment variable that is a number 0..max (unset: 0); false if not.
bool env_num(const char *name, unsigned max, unsigned *out)
{
	const char *v = getenv(name);
	char *end;

	*out = 0;
	if (!v || !*v)
		return true;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n > max)
		return false;
	*out = (unsigned)n;
	return true;
}

int fail(char *why, size_t len, const char *msg)
{
	if (why && len)
		snprintf(why, len, "%s", msg);
	return -EINVAL;
}

int rtl_create(const fdma_model_cfg *cfg, const fdma_model_host *host, fdma_rtl **out, char *why,
	       size_t whylen)
{
	char lw[128];

	*out = nullptr;
	// What the RTL is (rtl/fdma_sim_top.v's parameters) is not a run-time choice.
	if (cfg->mm_pairs != 1 || !cfg->streams)
		return fail(why, whylen, "the RTL engine has one memory-mapped pair and one stream pair");
	if (cfg->memcpy_chans)
		return fail(why, whylen, "the RTL engine has no memory-to-memory channels");
	if (cfg->card_size > (64ull << 20))
		return fail(why, whylen, "the RTL engine has 64 MiB of card memory");
	if (cfg->align_log2 != 6 || cfg->ring_max != 4096)
		return fail(why, whylen, "the RTL engine's alignment (64) and largest ring (4096) are fixed");
	if (cfg->fault != FDMA_FAULT_NONE && cfg->fault != FDMA_FAULT_DESC &&
	    cfg->fault != FDMA_FAULT_DATA && cfg->fault != FDMA_FAULT_IRQ)
		return fail(why, whylen, "the RTL harness injects desc, data and irq faults only");
	if (fdma_link_validate(&cfg->link, lw, sizeof(lw)))
		return fail(why, whylen, lw);
	const char *irq = getenv("FDMA_RTL_IRQ");
	if (irq && strcmp(irq, "msi") && strcmp(irq, "msix"))
		return fail(why, whylen, "FDMA_RTL_IRQ: expected msi or msix");
	const char *card = getenv("FDMA_RTL_CARD");
	if (card && strcmp(card, "axi") && strcmp(card, "bram"))
		return fail(why, whylen, "FDMA_RTL_CARD: expected axi or bram");
	const char *np = getenv("FDMA_RTL_NP");
	if (np && strcmp(np, "req") && strcmp(np, "ok"))
		return fail(why, whylen, "FDMA_RTL_NP: expected req (rx_np_req credits) or ok (rx_np_ok)");
	unsigned cap_h = kCplH, cap_d = kCplD, stall = 0, bg = 0;
	const char *cb = getenv("FDMA_RTL_CPL_BUF");
	if (cb && (sscanf(cb, "%u,%u", &cap_h, &cap_d) != 2 || !cap_h || !cap_d || cap_h > 1024 ||
		   cap_d > 4096))
		return fail(why, whylen,
			    "FDMA_RTL_CPL_BUF: expected HEADERS,DATA_CREDITS (1..1024, 1..4096; the core's: 36,461)");
	if (!env_num("FDMA_RTL_TX_STALL", 1000000, &stall))
		return fail(why, whylen, "FDMA_RTL_TX_STALL: expected clocks per stall, 0 to 1000000");
	if (!env_num("FDMA_RTL_HOST_READS", kNpTags, &bg))
		return fail(why, whylen, "FDMA_RTL_HOST_READS: expected reads outstanding, 0 to 32");
	unsigned late = 0;
	if (!env_num("FDMA_RTL_LATE", 1, &late))
		return fail(why, whylen, "FDMA_RTL_LATE: expected 0 or 1");

	fdma_rtl *r = new fdma_rtl;
	r->cfg = *cfg;
	r->host = *host;
	r->mps = cfg->link.mps;
	r->mrrs = cfg->link.mrrs;
	r->fault_armed = cfg->fault != FDMA_FAULT_NONE;
	r->trace = getenv("FDMA_RTL_TRACE") != nullptr;
	r->in_order = getenv("FDMA_RTL_IN_ORDER") != nullptr;
	r->np_req_mode = !np || !strcmp(np, "req");
	r->cap_h = cap_h;
	r->cap_d = cap_d;
	r->tx_stall = stall;
	r->stall_gap = stall;
	r->bg_max = bg;
	r->late = late;
	if (late)
		r->cpl_timeout = 250000;
	r->ctx.threads(1);
	r->top = new Vfdma_sim_top{&r->ctx};
	Vfdma_sim_top *t = r->top;
	// the configuration space as the host left it: bus mastering, MPS and
	// MRRS in Device Control, bus 1 device 0 function 0, MSI-X or MSI
	r->msi = irq && !strcmp(irq, "msi");
	r->card_axi = card && !strcmp(card, "axi");
	r->gaps = !cfg->paced;
	t->cfg_command = 1u << 2 | 1u << 1;
	t->cfg_dcommand = (uint16_t)(code_of(r->mps) << 5 | code_of(r->mrrs) << 12);
	t->cfg_bus_number = 1;
	t->cfg_device_number = 0;
	t->cfg_function_number = 0;
	t->cfg_interrupt_msixenable = !r->msi;
	t->cfg_interrupt_msixfm = 0;
	t->cfg_interrupt_msienable = r->msi;
	t->cfg_interrupt_mmenable = 4;      // 16 vectors allocated
	t->max_desc_len = cfg->max_desc_len;
	t->cpl_timeout = (uint32_t)r->cpl_timeout;
	t->card_axi = r->card_axi;
	if (cfg->paced) {
		r->bpc = fdma_link_tlp_Bps(&cfg->link) * kClkNs * 1e-9;
		r->rtt = (uint64_t)(cfg->link.rtt_ns / kClkNs + 0.5);
	} else {
		r->bpc = 0;
		r->rtt = 4;
	}
	reset(r);
	// the host's MSI-X setup: entry v sends data v to the interrupt window,
	// each half of the entry in one 8-byte write
	for (unsigned v = 0; v < kNvec; v++) {
		uint32_t e = 0x1000 + v * 16;
		r->down_q.push_back(host_write2(e, (uint32_t)kMsiBase, 0));
		r->down_q.push_back(host_write2(e + 8, v, 0));
	}
	r->thr = std::thread(run, r);
	*out = r;
	return 0;
}

void rtl_destroy(fdma_rtl *r)
{
	{
		std::lock_guard<std::mutex> g(r->mu);
		r->stop = true;
		r->asked.store(true, std::memory_order_release);
		r->cv.notify_all();
	}
	r->thr.join();
	r->top->final();
	delete r->top;
	delete r;
}

uint32_t rtl_access(fdma_rtl *r, bool write, uint32_t off, uint32_t val)
{
	HostReq q;
	std::unique_lock<std::mutex> g(r->mu);

	q.write = write;
	q.off = off;
	q.val = val;
	r->reqs.push_back(&q);
	r->asked.store(true, std::memory_order_release);
	r->cv.notify_all();
	r->done_cv.wait(g, [&q] { return q.done; });
	return q.result;
}

uint32_t rtl_read(fdma_rtl *r, uint32_t off)
{
	return rtl_access(r, false, off, 0);
}

void rtl_write(fdma_rtl *r, uint32_t off, uint32_t val)
{
	rtl_access(r, true, off, val);
}

double rtl_cpu(fdma_rtl *r)
{
	struct timespec ts;

	if (!r->have_clock || clock_gettime(r->cpu_clock, &ts))
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void rtl_counts(fdma_rtl *r, fdma_rtl_counts *out)
{
	std::lock_guard<std::mutex> g(r->mu);

	*out = r->n;
	out->cycles = r->cyc;
}

} // namespace

extern "C" {
const struct fdma_rtl_plugin fdma_rtl_plugin = {
	FDMA_RTL_ABI, rtl_create, rtl_destroy, rtl_read, rtl_write, rtl_cpu, rtl_counts,
};
}

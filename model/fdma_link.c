// SPDX-License-Identifier: MIT
/*
 * fdma_link.c - analytic PCIe link model; see docs/link-model.md.
 */
#include "fdma_link.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* SKP ordered sets take about 0.3% of every lane on every generation. */
#define LINK_SKP_EFF		0.997

/* STP/sequence number + LCRC (+ END on gen1/2): 8 bytes per TLP. */
#define TLP_FRAMING		8u
#define TLP_HDR_3DW		12u
#define TLP_HDR_4DW		16u
#define TLP_ECRC		4u
/* Completions with data always carry a 3DW header. */
#define TLP_CPL_HDR		12u

/* An Ack or an UpdateFC DLLP with its framing. */
#define DLLP_BYTES		8u

/*
 * Ack transmission latency limits in symbol times, PCIe base spec rev 5.0
 * tables 3-7 (2.5 GT/s), 3-8 (5 GT/s) and 3-9 (8 GT/s and up), as
 * pcie-bench's model uses them for both the Ack and the FC update interval.
 * Index: [gen1, gen2, gen3+][x1, x2, x4, x8, x16][MPS 128 .. 4096].
 */
static const unsigned short ack_limit[3][5][6] = {
	{	/* 2.5 GT/s */
		{ 237, 416, 559, 1071, 2095, 4143 },
		{ 128, 217, 289,  545, 1057, 2081 },
		{  73, 118, 154,  282,  538, 1050 },
		{  67, 107,  86,  150,  278,  534 },
		{  48,  72,  86,  150,  278,  534 },
	},
	{	/* 5 GT/s */
		{ 288, 467, 610, 1122, 2146, 4194 },
		{ 179, 268, 340,  596, 1108, 2132 },
		{ 124, 169, 205,  333,  589, 1101 },
		{ 118, 158, 137,  201,  329,  585 },
		{  99, 123, 137,  201,  329,  585 },
	},
	{	/* 8, 16, 32 GT/s */
		{ 333, 512, 655, 1167, 2191, 4239 },
		{ 224, 313, 385,  641, 1153, 2177 },
		{ 169, 214, 250,  378,  634, 1146 },
		{ 163, 203, 182,  246,  374,  630 },
		{ 144, 168, 182,  246,  374,  630 },
	},
};

void fdma_link_defaults(struct fdma_link_cfg *c)
{
	*c = (struct fdma_link_cfg){
		.gen = 2,
		.lanes = 1,
		.mps = 256,
		.mrrs = 512,
		.rcb = 0,
		.addr64 = true,
		.ecrc = false,
		.dllp = false,
		.tags = 32,
		.rtt_ns = 800,
		.irq_ns = 1000,
	};
}

static bool is_pow2_in(unsigned v, unsigned lo, unsigned hi)
{
	return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

/* log2 of a power of two */
static unsigned ilog2u(unsigned v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

/*
 * First invalid field of c, with its value and the values it may take, or
 * NULL when c is valid.
 */
static const char *check(const struct fdma_link_cfg *c, unsigned *val,
			 const char **allowed)
{
	static const char pow2[] = "128, 256, 512, 1024, 2048 or 4096";

	if (c->gen < 1 || c->gen > 5) {
		*val = c->gen;
		*allowed = "1, 2, 3, 4 or 5";
		return "gen";
	}
	if (!is_pow2_in(c->lanes, 1, 16)) {
		*val = c->lanes;
		*allowed = "1, 2, 4, 8 or 16";
		return "lanes";
	}
	if (!is_pow2_in(c->mps, 128, 4096)) {
		*val = c->mps;
		*allowed = pow2;
		return "mps";
	}
	if (!is_pow2_in(c->mrrs, 128, 4096)) {
		*val = c->mrrs;
		*allowed = pow2;
		return "mrrs";
	}
	if (c->rcb != 0 && c->rcb != 64 && c->rcb != 128) {
		*val = c->rcb;
		*allowed = "0 (completions up to MPS), 64 or 128";
		return "rcb";
	}
	/* 10-bit tags (PCIe 4.0) allow up to 1024 reads in flight. */
	if (c->tags < 1 || c->tags > 1024) {
		*val = c->tags;
		*allowed = "1 to 1024";
		return "tags";
	}
	if (c->rtt_ns < 1) {
		*val = c->rtt_ns;
		*allowed = "1 or more";
		return "rtt_ns";
	}
	return NULL;
}

const char *fdma_link_bad_field(const struct fdma_link_cfg *c)
{
	const char *allowed;
	unsigned val;

	return check(c, &val, &allowed);
}

int fdma_link_validate(const struct fdma_link_cfg *c, char *why, size_t whylen)
{
	const char *allowed = NULL;
	unsigned val = 0;
	const char *f = check(c, &val, &allowed);

	if (why && whylen) {
		if (f)
			snprintf(why, whylen, "%s %u is invalid: must be %s",
				 f, val, allowed);
		else
			why[0] = '\0';
	}
	return f ? -EINVAL : 0;
}

static bool valid(const struct fdma_link_cfg *c)
{
	return fdma_link_bad_field(c) == NULL;
}

/* Raw bytes/s of one lane after line encoding, before SKP. */
static double lane_Bps(unsigned gen)
{
	/* 8b/10b: 2.5 and 5 GT/s carry 8 bits per 10 transferred. */
	if (gen == 1)
		return 250e6;
	if (gen == 2)
		return 500e6;
	/* 128b/130b at 8 GT/s, doubling per generation after gen3. */
	return 8e9 * 128.0 / 130.0 / 8.0 * (double)(1u << (gen - 3));
}

double fdma_link_raw_Bps(const struct fdma_link_cfg *c)
{
	if (!valid(c))
		return 0.0;
	return (double)c->lanes * lane_Bps(c->gen) * LINK_SKP_EFF;
}

double fdma_link_clock_hz(const struct fdma_link_cfg *c)
{
	if (!valid(c))
		return 0.0;
	return (double)c->lanes * lane_Bps(c->gen) / 8.0;
}

/* Fraction of the raw rate pcie-bench charges for Acks and FC updates. */
static double dllp_frac(const struct fdma_link_cfg *c)
{
	unsigned g = c->gen >= 3 ? 2 : c->gen - 1;
	unsigned limit = ack_limit[g][ilog2u(c->lanes)][ilog2u(c->mps) - 7];

	/* One Ack and one UpdateFC per limit, both as DLLP_BYTES. */
	return 2.0 * DLLP_BYTES / (double)limit;
}

double fdma_link_tlp_Bps(const struct fdma_link_cfg *c)
{
	double eff = LINK_SKP_EFF;

	if (!valid(c))
		return 0.0;
	if (c->dllp)
		eff -= dllp_frac(c);
	return (double)c->lanes * lane_Bps(c->gen) * eff;
}

/* Wire overhead of a memory write or read request TLP. */
static unsigned req_overhead(const struct fdma_link_cfg *c)
{
	return TLP_FRAMING + (c->addr64 ? TLP_HDR_4DW : TLP_HDR_3DW) +
	       (c->ecrc ? TLP_ECRC : 0);
}

/* Wire overhead of a completion with data. */
static unsigned cpl_overhead(const struct fdma_link_cfg *c)
{
	return TLP_FRAMING + TLP_CPL_HDR + (c->ecrc ? TLP_ECRC : 0);
}

unsigned fdma_link_cpl_bytes(const struct fdma_link_cfg *c)
{
	unsigned cb = c->mps;

	if (!valid(c))
		return 0;
	/* A completion never carries more than the request asked for. */
	if (c->mrrs < cb)
		cb = c->mrrs;
	if (c->rcb && c->rcb < cb)
		cb = c->rcb;
	return cb;
}

double fdma_link_write_Bps(const struct fdma_link_cfg *c)
{
	if (!valid(c))
		return 0.0;
	return fdma_link_tlp_Bps(c) * c->mps /
	       (double)(c->mps + req_overhead(c));
}

/* Little's law: tags requests of MRRS bytes each, one round trip apiece. */
static double tags_Bps(const struct fdma_link_cfg *c)
{
	return (double)c->tags * c->mrrs / (c->rtt_ns * 1e-9);
}

/* The three read bounds, bytes/s. */
static void read_bounds(const struct fdma_link_cfg *c, double *down,
			double *up, double *lat)
{
	double u = fdma_link_tlp_Bps(c);
	unsigned cb = fdma_link_cpl_bytes(c);

	*down = u * cb / (double)(cb + cpl_overhead(c));
	/*
	 * Requests go upstream, one per MRRS bytes. With MRRS >= 128 this is
	 * over four times the link and never binds a one-way read; it is
	 * kept so the bound stays complete.
	 */
	*up = u * c->mrrs / (double)req_overhead(c);
	*lat = tags_Bps(c);
}

double fdma_link_read_Bps(const struct fdma_link_cfg *c)
{
	double down, up, lat, bw;

	if (!valid(c))
		return 0.0;
	read_bounds(c, &down, &up, &lat);
	bw = down;
	if (up < bw)
		bw = up;
	if (lat < bw)
		bw = lat;
	return bw;
}

double fdma_link_copy_Bps(const struct fdma_link_cfg *c)
{
	double rd = fdma_link_read_Bps(c), wr = fdma_link_write_Bps(c);

	return rd < wr ? rd : wr;
}

const char *fdma_link_read_limit(const struct fdma_link_cfg *c)
{
	double down, up, lat;

	if (!valid(c))
		return NULL;
	read_bounds(c, &down, &up, &lat);
	if (lat < down && lat < up)
		return "tags";
	return up < down ? "requests" : "link";
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

int fdma_link_xfer_cost(const struct fdma_link_cfg *c, int dir, uint64_t size,
			struct fdma_link_cost *out)
{
	uint64_t req = req_overhead(c);

	if (!valid(c) || (dir != FDMA_LINK_H2C && dir != FDMA_LINK_C2H))
		return -EINVAL;
	/*
	 * Every descriptor: its fetch returns as one completion (fetches are
	 * batched, so the request upstream is not charged per descriptor),
	 * and the device posts a completion record and a write-back.
	 */
	out->down_bytes = FDMA_LINK_DESC_BYTES + cpl_overhead(c);
	out->up_bytes = FDMA_LINK_CMPL_BYTES + req + FDMA_LINK_WB_BYTES + req;
	out->read_reqs = 0;
	if (dir == FDMA_LINK_C2H) {
		/* Buffers are MPS aligned: only the last TLP is partial. */
		out->up_bytes += size + div_up(size, c->mps) * req;
	} else {
		out->read_reqs = div_up(size, c->mrrs);
		out->up_bytes += out->read_reqs * req;
		/* MRRS is a multiple of the completion size, so splitting per
		 * request adds no completions beyond the last partial one. */
		out->down_bytes += size + div_up(size, fdma_link_cpl_bytes(c)) *
			cpl_overhead(c);
	}
	return 0;
}

/* Seconds the link is busy with one transfer, not counting a cold start. */
static double xfer_s(const struct fdma_link_cfg *c, int dir, uint64_t size)
{
	struct fdma_link_cost k;
	double u, t, lat;

	if (fdma_link_xfer_cost(c, dir, size, &k))
		return 0.0;
	u = fdma_link_tlp_Bps(c);
	t = (double)(k.up_bytes > k.down_bytes ? k.up_bytes : k.down_bytes) / u;
	/* With all tags busy a new request can issue once per rtt/tags. */
	lat = (double)k.read_reqs * c->rtt_ns * 1e-9 / c->tags;
	return lat > t ? lat : t;
}

double fdma_link_xfer_Bps(const struct fdma_link_cfg *c, int dir, uint64_t size)
{
	double t = xfer_s(c, dir, size);

	if (t <= 0.0)
		return 0.0;
	return (double)size / t;
}

uint64_t fdma_link_xfer_ns(const struct fdma_link_cfg *c, int dir,
			   uint64_t size, bool from_idle)
{
	double ns;

	if (!valid(c) || (dir != FDMA_LINK_H2C && dir != FDMA_LINK_C2H))
		return 0;
	ns = xfer_s(c, dir, size) * 1e9;
	/* Posted writes leave at once; a cold read waits for the first data. */
	if (from_idle && dir == FDMA_LINK_H2C)
		ns += c->rtt_ns;
	return (uint64_t)floor(ns + 0.5);
}

uint64_t fdma_link_fetch_ns(const struct fdma_link_cfg *c)
{
	return valid(c) ? c->rtt_ns : 0;
}

/* snprintf at offset *n of buf, keeping *n within len on truncation. */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*n + 1 >= len)
		return;
	va_start(ap, fmt);
	r = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	*n += (size_t)r;
	if (*n >= len)
		*n = len - 1;
}

void fdma_link_describe(const struct fdma_link_cfg *c, char *buf, size_t len)
{
	size_t n = 0;

	if (!buf || !len)
		return;
	buf[0] = '\0';
	append(buf, len, &n, "gen%u x%u MPS %u MRRS %u", c->gen, c->lanes,
	       c->mps, c->mrrs);
	/* Only what differs from the defaults, to keep the line short. */
	if (c->rcb)
		append(buf, len, &n, " RCB %u", c->rcb);
	if (!c->addr64)
		append(buf, len, &n, " 3DW");
	if (c->ecrc)
		append(buf, len, &n, " ECRC");
	if (c->dllp)
		append(buf, len, &n, " DLLP");
	if (c->tags != 32)
		append(buf, len, &n, " tags %u", c->tags);
	if (c->rtt_ns != 800)
		append(buf, len, &n, " rtt %u ns", c->rtt_ns);
}

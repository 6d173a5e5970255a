/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma.ko: a network interface over a stream channel pair (net=1). The
 * H2C stream channel sends frames, the C2H stream channel receives them,
 * one frame per descriptor chain. On an engine with H2C byte streams
 * (FDMA 1.3, docs/engine.md section 8; XDMA's AXI-ST) a packet goes from
 * where the stack put it, head and page fragments, with no copy and no
 * padding. On one without, whose stream requests are whole alignment
 * units, it is copied into a bounce page of its ring slot and padded with
 * zeros to the alignment, as Ethernet pads a short frame: the receiver's
 * IP layer trims by the packet's own length.
 *
 * One object per file, as NIC drivers do: the interface and its life
 * (fdma_net.c), transmit (fdma_net_tx.c), receive (fdma_net_rx.c),
 * ethtool (fdma_net_ethtool.c). Both rings are driven through the engine
 * core (fdma_ering_*) without the channel layer's mutex: the channels are
 * claimed for the interface's lifetime (its struct fdma_chan_client), the
 * transmit ring is touched only under the queue's xmit lock (transmit, and
 * completion in NAPI), the receive ring only by NAPI (and by open and
 * stop, with NAPI off). The interrupt mask is flipped by the hard
 * interrupt and NAPI without a lock: the engine keeps it apart from the
 * rest of the control register, which only open and stop change.
 */
#ifndef FDMA_NET_H
#define FDMA_NET_H

#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>

#include "fdma_drv.h"

struct page_pool;

/* Counters of one ring, written in one context (see above), read anywhere. */
struct fdma_net_stats {
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t doorbells;
	u64_stats_t errors;	/* completions with an error status */
	u64_stats_t ring_full;	/* transmit: queue stopped for want of descriptors */
	u64_stats_t dropped;	/* receive: no page, or a frame too long or short */
	struct u64_stats_sync syncp;
};

/* What a transmit descriptor holds until its completion. */
struct fdma_net_txb {
	struct sk_buff *skb;	/* on the frame's last descriptor only; none when copied */
	dma_addr_t dma;
	u32 len;
	u32 pkt_len;		/* on the frame's last descriptor: its bytes, for BQL */
	bool page;		/* a fragment (dma_unmap_page), else the head */
};

/* A transmit slot's bounce page, mapped for the interface's life (copy mode). */
struct fdma_net_bounce {
	void *va;
	dma_addr_t dma;
};

struct fdma_net {
	struct net_device *ndev;
	struct fdma_device *fdev;
	struct fdma_chan *tx, *rx;
	/* How the channel layer hands both channels' interrupts over (fdma_drv.h) */
	struct fdma_chan_client cl;
	u32 pair;
	struct napi_struct napi;
	struct work_struct reset_work;	/* recovery: a halted channel, a stuck queue */
	struct timer_list refill;	/* receive: retry a refill that found no page */

	/* transmit: slot i of the ring (the descriptor's index) */
	struct fdma_net_txb *txb;
	u32 tx_max_desc;	/* descriptors a packet may take: the queue stops below */
	u32 tx_wake;		/* free descriptors that wake a stopped queue */
	struct fdma_net_bounce *bounce;	/* copy mode: slot i's page (else NULL) */
	const char *tx_copy_why;	/* copy mode: why (else NULL) */
	struct fdma_net_stats txs;

	/* receive */
	struct page_pool *pool;
	struct page **rxp;	/* slot i's page */
	dma_addr_t *rxd;	/* and its mapping, while the engine has it */
	u32 rx_headroom;	/* bytes before the frame: skb headroom */
	u32 rx_buf_len;		/* bytes the engine may write */
	u32 overruns_seen;	/* the engine's drop count at open */
	struct fdma_net_stats rxs;

	/* ethtool */
	u32 coal[2][2];		/* [tx, rx][frames, usecs] */
	bool per_packet;	/* private flag: a doorbell and an interrupt per packet */
	bool tx_pause;		/* receive holds the sender back (else the engine drops) */
	bool up;		/* rings running, NAPI on (open): written under RTNL */
	/*
	 * A channel never acknowledged its reset: the packets and pages
	 * posted to it stay mapped in txb and rxp/rxd, until remove() has
	 * stopped the engine (fdma_net_release()), or for good.
	 */
	bool kept;
};

/* fdma_net.c (and, for the rest of the driver, fdma_drv.h's four) */
void fdma_net_apply_coalesce(struct fdma_net *np);
void fdma_net_set_per_packet(struct fdma_net *np, bool on);
int fdma_net_restart(struct fdma_net *np);

/* fdma_net_tx.c */
int fdma_net_tx_init(struct fdma_net *np);
void fdma_net_tx_free(struct fdma_net *np);
netdev_tx_t fdma_net_xmit(struct sk_buff *skb, struct net_device *ndev);
bool fdma_net_tx_clean(struct fdma_net *np, int budget);
void fdma_net_tx_drain(struct fdma_net *np, bool device_let_go);
void fdma_net_tx_release_kept(struct fdma_net *np);

/* fdma_net_rx.c */
int fdma_net_rx_init(struct fdma_net *np);
void fdma_net_rx_free(struct fdma_net *np);
int fdma_net_rx_fill(struct fdma_net *np);
int fdma_net_rx_poll(struct fdma_net *np, int budget);
void fdma_net_rx_drain(struct fdma_net *np, bool device_let_go);
void fdma_net_rx_release_kept(struct fdma_net *np);
u64 fdma_net_rx_overruns(struct fdma_net *np);

/* fdma_net_ethtool.c */
extern const struct ethtool_ops fdma_net_ethtool_ops;

static inline void fdma_net_count(struct fdma_net_stats *s, u64_stats_t *ctr, u64 n)
{
	u64_stats_update_begin(&s->syncp);
	u64_stats_add(ctr, n);
	u64_stats_update_end(&s->syncp);
}

static inline u64 fdma_net_read(const struct fdma_net_stats *s, const u64_stats_t *ctr)
{
	unsigned int start;
	u64 v;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		v = u64_stats_read(ctr);
	} while (u64_stats_fetch_retry(&s->syncp, start));
	return v;
}

#endif /* FDMA_NET_H */

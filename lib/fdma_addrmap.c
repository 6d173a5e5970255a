// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "fdma_addrmap.h"

void fdma_addrmap_init(struct fdma_addrmap *m)
{
	memset(m->slot, 0, sizeof(m->slot));
	m->shift = FDMA_ADDRMAP_SHIFT;
	m->nslots = FDMA_ADDRMAP_SLOTS;
	pthread_mutex_init(&m->lock, NULL);
}

void fdma_addrmap_init_low(struct fdma_addrmap *m)
{
	fdma_addrmap_init(m);
	m->shift = FDMA_ADDRMAP_LOW_SHIFT;
	m->nslots = FDMA_ADDRMAP_LOW_SLOTS;
}

void fdma_addrmap_destroy(struct fdma_addrmap *m)
{
	pthread_mutex_destroy(&m->lock);
}

int fdma_addrmap_add(struct fdma_addrmap *m, void *host, uint64_t len, uint64_t *bus)
{
	int ret = -ENOSPC;

	if (!host || !len || len > (1ull << m->shift))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	for (unsigned int w = 0; w < m->nslots; w++) {
		struct fdma_addrmap_slot *s = &m->slot[w];

		if (atomic_load_explicit(&s->host, memory_order_relaxed))
			continue;
		/* len first, then host with release: a reader that sees host sees its len. */
		atomic_store_explicit(&s->len, len, memory_order_relaxed);
		atomic_store_explicit(&s->host, host, memory_order_release);
		*bus = (uint64_t)(w + 1) << m->shift;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static struct fdma_addrmap_slot *slot_of(struct fdma_addrmap *m, uint64_t bus)
{
	uint64_t w = (bus >> m->shift);

	if (w == 0 || w > m->nslots)
		return NULL;
	return &m->slot[w - 1];
}

int fdma_addrmap_remove(struct fdma_addrmap *m, uint64_t bus)
{
	struct fdma_addrmap_slot *s = slot_of(m, bus);

	if (!s || (bus & ((1ull << m->shift) - 1)))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	atomic_store_explicit(&s->host, NULL, memory_order_release);
	atomic_store_explicit(&s->len, 0, memory_order_relaxed);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void *fdma_addrmap_lookup(struct fdma_addrmap *m, uint64_t bus, uint64_t len)
{
	struct fdma_addrmap_slot *s = slot_of(m, bus);
	uint64_t off = bus & ((1ull << m->shift) - 1);
	char *host;

	if (!s)
		return NULL;
	host = atomic_load_explicit(&s->host, memory_order_acquire);
	if (!host)
		return NULL;
	if (off > atomic_load_explicit(&s->len, memory_order_relaxed) ||
	    len > atomic_load_explicit(&s->len, memory_order_relaxed) - off)
		return NULL;
	return host + off;
}

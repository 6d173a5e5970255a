/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A stand-in for NVIDIA's nv-p2p.h, for fdma's VM tests only: the calls,
 * types and fields of NVIDIA's peer-to-peer API that fdma.ko uses, written
 * from the documented API (docs/dmabuf.md), with
 * fdma_nvp2p_standin.c (beside it) exporting the calls. Two APIs:
 * FDMA_NV_P2P_JETSON selects Jetson Linux's (a struct device, 4 KiB host
 * pages, hw_address[]/hw_len[], put_pages fires the free callback); else
 * the discrete GPU's (a struct pci_dev peer, 64 KiB GPU pages,
 * dma_addresses[], the callback only when the memory goes away).
 */
#ifndef FDMA_NV_P2P_STANDIN_H
#define FDMA_NV_P2P_STANDIN_H

#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <linux/types.h>

enum nvidia_p2p_page_size_type {
	NVIDIA_P2P_PAGE_SIZE_4KB = 0,
	NVIDIA_P2P_PAGE_SIZE_64KB,
	NVIDIA_P2P_PAGE_SIZE_128KB,
	NVIDIA_P2P_PAGE_SIZE_COUNT
};

#ifdef FDMA_NV_P2P_JETSON

struct nvidia_p2p_page_table {
	u32 version;
	u32 page_size;
	u64 size;
	u32 entries;
	struct page **pages;
	u64 vaddr;
	void (*free_callback)(void *data);
	void *data;
};

struct nvidia_p2p_dma_mapping {
	u32 version;
	dma_addr_t *hw_address;
	u32 *hw_len;
	u32 entries;
	struct nvidia_p2p_page_table *page_table;
	struct device *dev;
	enum dma_data_direction direction;
};

int nvidia_p2p_get_pages(u64 vaddr, u64 size,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_dma_map_pages(struct device *dev,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **map,
			     enum dma_data_direction direction);
int nvidia_p2p_dma_unmap_pages(struct nvidia_p2p_dma_mapping *map);

#else

struct nvidia_p2p_page {
	u64 physical_address;
};

struct nvidia_p2p_page_table {
	u32 version;
	u32 page_size;		/* enum nvidia_p2p_page_size_type */
	struct nvidia_p2p_page **pages;
	u32 entries;
	u8 *gpu_uuid;
};

struct nvidia_p2p_dma_mapping {
	u32 version;
	enum nvidia_p2p_page_size_type page_size_type;
	u32 entries;
	u64 *dma_addresses;
	void *private;
	struct pci_dev *pci_dev;
};

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 u64 length, struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping);
int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping);
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping);

#endif

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fake RDMA devices for KUnit: real struct ib_device objects from
 * ib_alloc_device(), never registered, with virtual DMA, the limits of a
 * device profile, and verbs that record what the core asked of them.
 */
#ifndef _MRCORE_FAKE_DEV_H
#define _MRCORE_FAKE_DEV_H

#include <kunit/test.h>
#include <rdma/ib_verbs.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "cases/profiles.h"

#define FAKE_MAX_PAGES	512

/**
 * struct fake_mr - a device MR of a fake device
 * @ibmr: the verbs MR.
 * @max_num_sg: page list room.
 * @npages: pages of the last ib_map_mr_sg().
 * @pages: their addresses.
 */
struct fake_mr {
	struct ib_mr ibmr;
	u32 max_num_sg;
	unsigned int npages;
	u64 pages[];
};

/**
 * struct fake_fmr - a handle of the fake FMR callbacks
 * @dev: its device.
 * @mapped: holds a key the device would honour.
 * @key: that key.
 * @maps: maps made on it.
 */
struct fake_fmr {
	struct fake_dev *dev;
	bool mapped;
	u32 key;
	unsigned int maps;
};

/**
 * struct fake_dev - a fake device and what happened to it
 * @ibdev: the device; first, as ib_alloc_device() requires.
 * @ports: port data for port 1 (the core asks about the transport).
 * @pd: a protection domain on it.
 * @qp: a QP on it, for I/O pools (never posted on).
 * @allocs: device MRs allocated (verbs or FMR handles).
 * @frees: device MRs freed.
 * @map_calls: ib_map_mr_sg() calls.
 * @last_map_nents: the last call's entry count.
 * @fmr_maps: FMR map calls.
 * @fmr_unmap_calls: FMR unmap calls.
 * @fmr_unmapped: handles those calls unmapped.
 * @fmr_remap_unflushed: maps of a handle still holding a key (a bug).
 * @dma_maps: DMA mappings the core made of memory for this device
 *	(tracepoint mrcore_dma_map; the device itself uses virtual DMA).
 * @dma_unmaps: mappings it released (mrcore_dma_unmap).
 * @dma_last_dir: the direction of the last mapping.
 * @dma_last_sg: its scatterlist.
 * @dma_unmap_mismatch: releases whose direction or scatterlist was not
 *	the last mapping's (a bug the DMA API's debugging would report).
 */
struct fake_dev {
	struct ib_device ibdev;
	struct ib_port_data ports[2];
	struct ib_pd pd;
	struct ib_qp qp;
	unsigned int allocs;
	unsigned int frees;
	unsigned int map_calls;
	int last_map_nents;
	unsigned int fmr_maps;
	unsigned int fmr_unmap_calls;
	unsigned int fmr_unmapped;
	unsigned int fmr_remap_unflushed;
	unsigned int dma_maps;
	unsigned int dma_unmaps;
	enum dma_data_direction dma_last_dir;
	const struct scatterlist *dma_last_sg;
	unsigned int dma_unmap_mismatch;
};

struct fake_dev *fake_dev_create(struct kunit *test,
				 enum mrcore_profile profile);
u8 *fake_arena_alloc(struct kunit *test, unsigned int pages);

#endif /* _MRCORE_FAKE_DEV_H */

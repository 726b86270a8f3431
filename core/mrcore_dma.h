/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core's DMA mappings: every one goes through these helpers, so that
 * the fault point ``dma_map`` can fail it, a tracepoint sees it and a
 * mapping left behind shows in rdma_mrcore_dma_maps_live().
 */
#ifndef _MRCORE_DMA_H
#define _MRCORE_DMA_H

#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
int mrcore_dma_map_faulty(struct ib_device *dev, struct scatterlist *sg,
			  u32 nents, enum dma_data_direction dir);
#else
static inline int mrcore_dma_map_faulty(struct ib_device *dev,
					struct scatterlist *sg, u32 nents,
					enum dma_data_direction dir)
{
	return ib_dma_map_sg(dev, sg, nents, dir);
}
#endif

DECLARE_PER_CPU(long, mrcore_dma_live);

int mrcore_dma_map_slow(struct ib_device *dev, struct scatterlist *sg,
			u32 nents, enum dma_data_direction dir);
void mrcore_dma_unmap_traced(struct ib_device *dev, struct scatterlist *sg,
			     u32 nents, enum dma_data_direction dir);

/*
 * The mapping of mrcore_dma_map() before it is counted: what the device
 * returned, <= 0 on failure.  For a caller that tests the count for its own
 * common case first and then calls mrcore_dma_count_live() on success.
 *
 * The tracepoint reports the mapping's result, so it fires after the
 * driver's call; fired inline, it would keep every argument alive across
 * that call on every I/O, traced or not.  A traced or fault-injected
 * mapping goes out of line instead (mrcore_dma_map_slow()).
 */
static inline int __mrcore_dma_map(struct ib_device *dev,
				   struct scatterlist *sg, u32 nents,
				   enum dma_data_direction dir)
{
	if (unlikely(trace_mrcore_dma_map_enabled() || mrcore_fault_armed()))
		return mrcore_dma_map_slow(dev, sg, nents, dir);
	return ib_dma_map_sg(dev, sg, nents, dir);
}

/* A mapping of __mrcore_dma_map() that succeeded, for the leak count. */
static inline void mrcore_dma_count_live(void)
{
	this_cpu_inc(mrcore_dma_live);
}

/**
 * mrcore_dma_map() - DMA-map a scatterlist for the core
 * @dev: the device.
 * @sg: the scatterlist.
 * @nents: its entries.
 * @dir: the direction.
 *
 * Every DMA mapping of the core goes through here (or __mrcore_dma_map()
 * and mrcore_dma_count_live()) and is released with mrcore_dma_unmap(), so
 * that rdma_mrcore_dma_maps_live() shows one left behind.  The fault point
 * ``dma_map`` fails it.  Its caller counts it in its device's counters
 * (``dma_maps``, ``dma_unmaps``, ``err_dma_map``): the map API when it
 * maps; an I/O by its backend's count (mrcore_count_use()), which
 * ``dma_maps`` sums, so that a built I/O costs one counter at init, and an
 * init that fails after mapping with mrcore_io_dma_unbuilt().  Inline: it
 * is on every I/O's path.
 *
 * Context: As ib_dma_map_sg().
 * Return: the number of DMA entries, or 0 if the mapping failed.
 */
static inline int mrcore_dma_map(struct ib_device *dev, struct scatterlist *sg,
				 u32 nents, enum dma_data_direction dir)
{
	int n = __mrcore_dma_map(dev, sg, nents, dir);

	if (unlikely(n <= 0))
		return 0;
	mrcore_dma_count_live();
	return n;
}

/**
 * mrcore_dma_unmap() - release a mapping of mrcore_dma_map()
 * @dev: the device.
 * @sg: the scatterlist.
 * @nents: the entries given to mrcore_dma_map() (not the DMA count).
 * @dir: the direction.
 *
 * Context: As ib_dma_unmap_sg().
 */
static inline void mrcore_dma_unmap(struct ib_device *dev,
				    struct scatterlist *sg, u32 nents,
				    enum dma_data_direction dir)
{
	/* Out of line when traced, as __mrcore_dma_map(). */
	if (unlikely(trace_mrcore_dma_unmap_enabled()))
		mrcore_dma_unmap_traced(dev, sg, nents, dir);
	else
		ib_dma_unmap_sg(dev, sg, nents, dir);
	this_cpu_dec(mrcore_dma_live);
}

/* The mapping of an init that built no I/O: counted, then released. */
static inline void mrcore_io_dma_unbuilt(struct rdma_io_pool *pool,
					 struct scatterlist *sg, u32 nents,
					 enum dma_data_direction dir)
{
	mrcore_pool_stat_add(pool, MRCORE_STAT_DMA_MAPS, 1);
	mrcore_pool_stat_add(pool, MRCORE_STAT_DMA_UNMAPS, 1);
	mrcore_dma_unmap(pool->info.dev, sg, nents, dir);
}

#endif /* _MRCORE_DMA_H */

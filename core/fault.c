// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fault injection at the points where the core meets the device: posting,
 * MR allocation, page-list mapping, DMA mapping, the MR pool.
 *
 * post_wr is asked once per WR of a chain rdma_post_send_chain() posts (an
 * I/O's, an rkey set's request and invalidations, the adapters'): armed
 * with @skip k, the driver takes the first k WRs and the post fails on the
 * next, as with a send queue that had room for k.
 *
 * Free when off: every point is behind one static key, enabled only while
 * some point is armed.  Armed from KUnit (rdma_mrcore_fault_arm()) or from
 * debugfs (rdma_mrcore/fault/<point>: write "skip times", read "skip times
 * hits"): the next @skip passes succeed, the @times after them fail.
 */
#include "mrcore_priv.h"

DEFINE_STATIC_KEY_FALSE(mrcore_fault_key);

static const char * const mrcore_fault_names[MRCORE_FAULT_NR] = {
	[MRCORE_FAULT_POST_SEND] = "post_send",
	[MRCORE_FAULT_MR_ALLOC] = "mr_alloc",
	[MRCORE_FAULT_MAP_SHORT] = "map_short",
	[MRCORE_FAULT_DMA_MAP] = "dma_map",
	[MRCORE_FAULT_POOL_EMPTY] = "pool_empty",
	[MRCORE_FAULT_POST_WR] = "post_wr",
};

/**
 * struct mrcore_fault - one injection point
 * @skip: passes left that succeed before failures start.
 * @times: failures left.
 * @hits: failures injected so far.
 */
struct mrcore_fault {
	atomic_t skip;
	atomic_t times;
	atomic_t hits;
};

static struct mrcore_fault mrcore_faults[MRCORE_FAULT_NR];
static DEFINE_MUTEX(mrcore_fault_lock);

/**
 * __mrcore_should_fail() - whether this pass through a point fails
 * @point: the point.
 *
 * Context: Any context.
 * Return: true if the caller must act as if the device failed.
 */
bool __mrcore_should_fail(enum mrcore_fault_point point)
{
	struct mrcore_fault *f = &mrcore_faults[point];

	if (atomic_read(&f->times) <= 0)
		return false;
	if (atomic_dec_if_positive(&f->skip) >= 0)
		return false;
	if (atomic_dec_if_positive(&f->times) < 0)
		return false;
	atomic_inc(&f->hits);
	return true;
}

/**
 * mrcore_dma_map_faulty() - mrcore_dma_map() while a point is armed
 * @dev: the device.
 * @sg: the scatterlist.
 * @nents: its entries.
 * @dir: the direction.
 *
 * Out of line, so that the I/O path need not keep its arguments across a
 * second call when no test injects failures.
 *
 * Context: As ib_dma_map_sg().
 * Return: 0 if the dma_map point fails this pass, else ib_dma_map_sg()'s.
 */
int mrcore_dma_map_faulty(struct ib_device *dev, struct scatterlist *sg,
			  u32 nents, enum dma_data_direction dir)
{
	if (__mrcore_should_fail(MRCORE_FAULT_DMA_MAP))
		return 0;
	return ib_dma_map_sg(dev, sg, nents, dir);
}

/**
 * rdma_mrcore_fault_arm() - arm or disarm an injection point
 * @name: the point: post_send, mr_alloc, map_short, dma_map, pool_empty or
 *	post_wr.
 * @skip: passes that succeed first.
 * @times: failures after them; 0 disarms.
 *
 * For tests.  The hit count restarts at 0.
 *
 * Context: Process context; takes a mutex.
 * Return: 0, or -EINVAL for an unknown @name.
 */
int rdma_mrcore_fault_arm(const char *name, u32 skip, u32 times)
{
	bool armed = false;
	int i, point = -1;

	for (i = 0; i < MRCORE_FAULT_NR; i++)
		if (!strcmp(name, mrcore_fault_names[i]))
			point = i;
	if (point < 0)
		return -EINVAL;

	mutex_lock(&mrcore_fault_lock);
	atomic_set(&mrcore_faults[point].times, 0);
	atomic_set(&mrcore_faults[point].skip, skip);
	atomic_set(&mrcore_faults[point].hits, 0);
	atomic_set(&mrcore_faults[point].times, times);
	for (i = 0; i < MRCORE_FAULT_NR; i++)
		armed |= atomic_read(&mrcore_faults[i].times) > 0;
	if (armed)
		static_branch_enable(&mrcore_fault_key);
	else
		static_branch_disable(&mrcore_fault_key);
	mutex_unlock(&mrcore_fault_lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_mrcore_fault_arm, RDMA_MRCORE);

/**
 * rdma_mrcore_fault_hits() - failures a point injected since it was armed
 * @name: the point.
 *
 * Context: Any context.
 * Return: the count, or -EINVAL for an unknown @name.
 */
int rdma_mrcore_fault_hits(const char *name)
{
	int i;

	for (i = 0; i < MRCORE_FAULT_NR; i++)
		if (!strcmp(name, mrcore_fault_names[i]))
			return atomic_read(&mrcore_faults[i].hits);
	return -EINVAL;
}
EXPORT_SYMBOL_NS_GPL(rdma_mrcore_fault_hits, RDMA_MRCORE);

/**
 * mrcore_fault_name() - the name of an injection point
 * @point: the point.
 *
 * Context: Any context.
 * Return: its name.
 */
const char *mrcore_fault_name(enum mrcore_fault_point point)
{
	return mrcore_fault_names[point];
}

/**
 * mrcore_fault_state() - what a point is armed with
 * @point: the point.
 * @skip: passes left before failures.
 * @times: failures left.
 * @hits: failures so far.
 *
 * Context: Any context.
 */
void mrcore_fault_state(enum mrcore_fault_point point, int *skip, int *times,
			int *hits)
{
	*skip = atomic_read(&mrcore_faults[point].skip);
	*times = atomic_read(&mrcore_faults[point].times);
	*hits = atomic_read(&mrcore_faults[point].hits);
}

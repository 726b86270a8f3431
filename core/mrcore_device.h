/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core's state of a device (core/device.c): its quirks (core/quirks.c),
 * its counters and the record of its strategy choices, and the debugfs
 * tree they are read from (core/debugfs.c).
 */
#ifndef _MRCORE_DEVICE_H
#define _MRCORE_DEVICE_H

/* The longest name of a backend, for its counters and for forcing it. */
#define MRCORE_BACKEND_NAME_LEN	16

bool mrcore_dev_unchecked_remote_read(const struct ib_device *dev);
bool mrcore_dev_random_mr_index(const struct ib_device *dev);
bool mrcore_dev_unsignaled_zcopy(const struct ib_device *dev);
u32 mrcore_dev_mr_page_weight(const struct ib_device *dev);

/**
 * enum mrcore_stat - the counters of a device
 * @MRCORE_STAT_MAPS: map-API mappings (rdma_map_sg_lkey(), rdma_map_sg_rkey()).
 * @MRCORE_STAT_UNMAPS: map-API unmaps.
 * @MRCORE_STAT_DMA_MAPS: scatterlists the core DMA-mapped (map API and I/O
 *	contexts); a mapping of a map-API MR or of a built I/O is not
 *	counted on its own but by @MRCORE_STAT_MAPS or by its per-backend
 *	READ or WRITE use, which the sum adds.
 * @MRCORE_STAT_DMA_UNMAPS: those it unmapped again, @MRCORE_STAT_UNMAPS
 *	added when read; equal to @MRCORE_STAT_DMA_MAPS when nothing is
 *	mapped.
 * @MRCORE_STAT_IOS: I/O contexts built (not counted on its own: the sum
 *	of the per-backend READ and WRITE uses).
 * @MRCORE_STAT_WRS: WRs of I/O chains handed out for posting.
 * @MRCORE_STAT_POSTS: rdma_io_ctx_post() calls that reached the driver.
 * @MRCORE_STAT_POOL_HITS: MRs taken from a pool.
 * @MRCORE_STAT_POOL_MISSES: takes refused, too few free MRs.
 * @MRCORE_STAT_POOL_FALLBACKS: I/Os moved without MRs after a miss.
 * @MRCORE_STAT_IO_ALLOCS: storage an I/O allocated for itself (its WRs,
 *	SGEs and MR slots, or a bio_vec I/O's scatterlist), because every
 *	block of its pool was in use (more I/Os in flight than the pool's
 *	max_ctxs) or it was larger than the pool's max_pages.
 * @MRCORE_STAT_MR_RECYCLED: MRs whose device MR was replaced: to kill the
 *	key of a failed or flushed I/O, or because it had handed out
 *	%MRCORE_KEY_USES keys.
 * @MRCORE_STAT_POOL_SHRUNK: pool MRs freed for good because no new device
 *	MR could be allocated to replace theirs: the pool shrank by one.
 * @MRCORE_STAT_POOL_GROWN: MRs a pool whose MRs come on demand added
 *	(%RDMA_IO_POOL_MRS_ON_DEMAND).
 * @MRCORE_STAT_MR_INDEX_REFUSED: new device MRs deregistered unused because
 *	the core had given their index back too recently (core/mrindex.c).
 * @MRCORE_STAT_INV_LOCAL: keys killed by a WR of ours (LOCAL_INV, or a
 *	READ_WITH_INV into the sink).
 * @MRCORE_STAT_INV_REMOTE: keys the peer killed (SEND_WITH_INV).
 * @MRCORE_STAT_ERR_DMA_MAP: DMA mappings that failed.
 * @MRCORE_STAT_ERR_MR_ALLOC: device MR allocations that failed.
 * @MRCORE_STAT_ERR_MAP: registrations the backend refused.
 * @MRCORE_STAT_ERR_NO_BACKEND: I/Os no backend could move.
 * @MRCORE_STAT_ERR_POOL_DRY: I/Os refused with -EAGAIN.
 * @MRCORE_STAT_ERR_POST: rdma_io_ctx_post() failures.
 * @MRCORE_STAT_ERR_COMPLETION: I/Os destroyed after a failed completion
 *	(any status but success and %IB_WC_WR_FLUSH_ERR) or none at all.
 * @MRCORE_STAT_ERR_FLUSH: I/Os destroyed after a flushed completion
 *	(%IB_WC_WR_FLUSH_ERR: the QP went to the error state).
 * @MRCORE_STAT_NR: number of counters.
 */
enum mrcore_stat {
	MRCORE_STAT_MAPS,
	MRCORE_STAT_UNMAPS,
	MRCORE_STAT_DMA_MAPS,
	MRCORE_STAT_DMA_UNMAPS,
	MRCORE_STAT_IOS,
	MRCORE_STAT_WRS,
	MRCORE_STAT_POSTS,
	MRCORE_STAT_POOL_HITS,
	MRCORE_STAT_POOL_MISSES,
	MRCORE_STAT_POOL_FALLBACKS,
	MRCORE_STAT_IO_ALLOCS,
	MRCORE_STAT_MR_RECYCLED,
	MRCORE_STAT_POOL_SHRUNK,
	MRCORE_STAT_POOL_GROWN,
	MRCORE_STAT_MR_INDEX_REFUSED,
	MRCORE_STAT_INV_LOCAL,
	MRCORE_STAT_INV_REMOTE,
	MRCORE_STAT_ERR_DMA_MAP,
	MRCORE_STAT_ERR_MR_ALLOC,
	MRCORE_STAT_ERR_MAP,
	MRCORE_STAT_ERR_NO_BACKEND,
	MRCORE_STAT_ERR_POOL_DRY,
	MRCORE_STAT_ERR_POST,
	MRCORE_STAT_ERR_COMPLETION,
	MRCORE_STAT_ERR_FLUSH,
	MRCORE_STAT_NR,
};

/**
 * enum mrcore_class - a class of operations a backend is chosen for
 * @MRCORE_CLASS_MAP: the map API's MRs.
 * @MRCORE_CLASS_READ: I/O contexts that READ.
 * @MRCORE_CLASS_WRITE: I/O contexts that WRITE.
 * @MRCORE_CLASS_NR: number of classes.
 */
enum mrcore_class {
	MRCORE_CLASS_MAP,
	MRCORE_CLASS_READ,
	MRCORE_CLASS_WRITE,
	MRCORE_CLASS_NR,
};

/**
 * enum mrcore_why - why a backend was chosen
 * @MRCORE_WHY_NONE: nothing chosen yet.
 * @MRCORE_WHY_ONLY: the first backend serving the device (the map API).
 * @MRCORE_WHY_CHEAPEST: the cost model's choice.
 * @MRCORE_WHY_FORCED: forced (module parameter, debugfs or the pool).
 * @MRCORE_WHY_POOL_DRY: the fallback after a pool miss.
 * @MRCORE_WHY_NR: number of reasons.
 */
enum mrcore_why {
	MRCORE_WHY_NONE,
	MRCORE_WHY_ONLY,
	MRCORE_WHY_CHEAPEST,
	MRCORE_WHY_FORCED,
	MRCORE_WHY_POOL_DRY,
	MRCORE_WHY_NR,
};

#define MRCORE_DEVICE_SLOTS	8

/**
 * struct mrcore_device_stats - one CPU's counters of a device
 * @v: by enum mrcore_stat.
 * @by_backend: uses per backend slot and class.
 */
struct mrcore_device_stats {
	u64 v[MRCORE_STAT_NR];
	u64 by_backend[MRCORE_DEVICE_SLOTS][MRCORE_CLASS_NR];
};

/**
 * struct mrcore_device - what the core keeps per RDMA device
 * @ref: held by the device's registration, each MR and each pool.
 * @ibdev: the device, while it is registered.
 * @stats: per-CPU counters.
 * @dir: debugfs directory devices/<name>/.
 * @lock: serializes claiming a backend slot.
 * @nr_slots: backend slots claimed.
 * @slot_ops: the backend of each slot (compared, never dereferenced).
 * @slot_name: its name, kept for when the backend is gone.
 * @last: per class, 1 + the slot of the backend chosen last (or 0) in the
 *	low 16 bits, and why (enum mrcore_why) above.
 * @mrindex: the indices of device MRs deregistered recently, on a driver
 *	that draws them at random (core/mrindex.c); %NULL elsewhere.
 */
struct mrcore_device {
	struct kref ref;
	struct ib_device *ibdev;
	struct mrcore_device_stats __percpu *stats;
	struct dentry *dir;
	spinlock_t lock;	/* serializes claiming a backend slot */
	u32 nr_slots;
	const struct rdma_mr_backend_ops *slot_ops[MRCORE_DEVICE_SLOTS];
	char slot_name[MRCORE_DEVICE_SLOTS][MRCORE_BACKEND_NAME_LEN];
	u32 last[MRCORE_CLASS_NR];
	struct mrcore_mrindex *mrindex;
};

struct mrcore_device *mrcore_device_get(struct ib_device *ibdev);
void mrcore_device_put(struct mrcore_device *mdev);
void mrcore_device_chose(struct mrcore_device *mdev, enum mrcore_class op_class,
			 const struct rdma_mr_backend_ops *ops,
			 enum mrcore_why why);
u32 mrcore_device_slot(struct mrcore_device *mdev,
		       const struct rdma_mr_backend_ops *ops);
u64 mrcore_device_stat(struct mrcore_device *mdev, enum mrcore_stat stat);
extern const char *const mrcore_why_names[MRCORE_WHY_NR];

/**
 * mrcore_why_name() - why a backend was chosen, in words
 * @why: the reason.
 *
 * The words of the debugfs file ``backends`` and of the io_init tracepoint.
 *
 * Context: Any context.
 * Return: a static string.
 */
static inline const char *mrcore_why_name(enum mrcore_why why)
{
	return mrcore_why_names[why];
}

int mrcore_devices_init(struct dentry *root);
void mrcore_devices_exit(void);

/* What mrcore_count_use() records as a class's last choice. */
static inline u32 mrcore_use_last(u32 slot, enum mrcore_why why)
{
	return (slot + 1) | why << 16;
}

/*
 * mrcore_count_use() with its counter and last-choice word resolved (the
 * one-WR shortcut keeps them in its pool's set).
 */
static inline void mrcore_count_use_at(u64 __percpu *use, u32 *last, u32 now)
{
	this_cpu_inc(*use);
	/* Written only when it changes: the common case stays read-only. */
	if (READ_ONCE(*last) != now)
		WRITE_ONCE(*last, now);
}

/**
 * mrcore_count_use() - count a use of the backend in a slot
 * @stats: the device's per-CPU counters, or mrcore_nodev_stats.
 * @last: the device's last choice per class, or mrcore_nodev_last.
 * @op_class: what it does.
 * @slot: the backend's slot (mrcore_device_slot()).
 * @why: why the core chose it.
 *
 * The I/O path passes its pool's @stats and @last, which are never %NULL;
 * the map API (mrcore_device_chose()) its device's, when it keeps state.
 *
 * Context: Any context.
 */
static inline void mrcore_count_use(struct mrcore_device_stats __percpu *stats,
				    u32 *last, enum mrcore_class op_class,
				    u32 slot, enum mrcore_why why)
{
	mrcore_count_use_at(&stats->by_backend[slot][op_class],
			    &last[op_class], mrcore_use_last(slot, why));
}

/* Counting is per CPU and free of atomics; a device without state skips it. */
static inline void mrcore_stat_add(struct mrcore_device *mdev,
				   enum mrcore_stat stat, u32 n)
{
	if (mdev)
		this_cpu_add(mdev->stats->v[stat], n);
}

static inline void mrcore_stat_inc(struct mrcore_device *mdev,
				   enum mrcore_stat stat)
{
	mrcore_stat_add(mdev, stat, 1);
}

/* What a pool counts into when its device keeps no state: read by nobody. */
DECLARE_PER_CPU(struct mrcore_device_stats, mrcore_nodev_stats);
extern u32 mrcore_nodev_last[MRCORE_CLASS_NR];

struct dentry *mrcore_debugfs_init(void);
void mrcore_debugfs_exit(void);

#endif /* _MRCORE_DEVICE_H */

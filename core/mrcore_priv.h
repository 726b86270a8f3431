/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations shared between the files of the core and its built-in
 * backends.  Included through mrcore_internal.h, in the kernel and in the
 * userspace mirror alike.
 */
#ifndef _MRCORE_PRIV_H
#define _MRCORE_PRIV_H

/**
 * struct mrcore_access - what a mapping asks of the HCA
 * @ib_access: IB access flags for the registration.
 * @dir: DMA direction for mapping the memory.
 */
struct mrcore_access {
	int ib_access;
	enum dma_data_direction dir;
};

int mrcore_local_access(struct ib_device *dev, unsigned int local_ops,
			struct mrcore_access *out);
int mrcore_remote_access(unsigned int remote_ops, struct mrcore_access *out);
bool mrcore_access_is_remote(int ib_access);

/**
 * struct mrcore_sg_shape - a DMA-mapped scatterlist as an MR sees it
 * @npages: pages the bytes span.
 * @length: bytes.
 * @holes: places where a page list would need a hole; 0 fits one MR.
 * @last_len: length of the last entry.
 */
struct mrcore_sg_shape {
	u32 npages;
	u64 length;
	u32 holes;
	u32 last_len;
};

int mrcore_sg_shape(struct scatterlist *sg, u32 offset, int dma_nents,
		    struct mrcore_sg_shape *shape);

/**
 * struct mrcore_sg_iter - a position in a DMA-mapped scatterlist
 * @sg: the current entry.
 * @offset: bytes of it already consumed.
 * @left: entries left, the current one included.
 */
struct mrcore_sg_iter {
	struct scatterlist *sg;
	u32 offset;
	int left;
};

/**
 * struct mrcore_chunk - a run of bytes one MR maps
 * @sg: its first entry.
 * @offset: bytes of @sg before the run.
 * @nents: entries it touches.
 * @length: bytes.
 * @npages: pages.
 * @last_end: bytes of its last entry it covers, from that entry's start.
 */
struct mrcore_chunk {
	struct scatterlist *sg;
	u32 offset;
	int nents;
	u64 length;
	u32 npages;
	u32 last_end;
};

void mrcore_sg_iter_init(struct mrcore_sg_iter *it, struct scatterlist *sg,
			 u32 offset, int dma_nents);
bool mrcore_sg_next_chunk(struct mrcore_sg_iter *it, u32 max_pages,
			  struct mrcore_chunk *c);

int mrcore_mr_map_chunk(struct rdma_mr *mr, const struct mrcore_chunk *c,
			int access, struct ib_send_wr **post_wr);
int mrcore_mr_recycle(struct rdma_mr *mr);

#define MRCORE_BACKEND_NAME_LEN	16

/**
 * enum mrcore_stat - the counters of a device
 * @MRCORE_STAT_MAPS: map-API mappings (rdma_map_sg_lkey(), rdma_map_sg_rkey()).
 * @MRCORE_STAT_UNMAPS: map-API unmaps.
 * @MRCORE_STAT_DMA_MAPS: scatterlists the core DMA-mapped (map API and I/O
 *	contexts).
 * @MRCORE_STAT_DMA_UNMAPS: those it unmapped again; equal to
 *	@MRCORE_STAT_DMA_MAPS when nothing is mapped.
 * @MRCORE_STAT_IOS: I/O contexts built.
 * @MRCORE_STAT_WRS: WRs of I/O chains handed out for posting.
 * @MRCORE_STAT_POSTS: rdma_io_ctx_post() calls that reached the driver.
 * @MRCORE_STAT_POOL_HITS: MRs taken from a pool.
 * @MRCORE_STAT_POOL_MISSES: takes refused, too few free MRs.
 * @MRCORE_STAT_POOL_FALLBACKS: I/Os moved without MRs after a miss.
 * @MRCORE_STAT_MR_RECYCLED: quarantined MRs whose device MR was replaced
 *	(which killed the key of their failed or flushed I/O).
 * @MRCORE_STAT_INV_LOCAL: keys killed by a WR of ours (LOCAL_INV, or a
 *	READ_WITH_INV into the sink).
 * @MRCORE_STAT_INV_REMOTE: keys the peer killed (SEND_WITH_INV).
 * @MRCORE_STAT_ERR_DMA_MAP: DMA mappings that failed.
 * @MRCORE_STAT_ERR_MR_ALLOC: device MR allocations that failed.
 * @MRCORE_STAT_ERR_MAP: registrations the backend refused.
 * @MRCORE_STAT_ERR_NO_BACKEND: I/Os no backend could move.
 * @MRCORE_STAT_ERR_POOL_DRY: I/Os refused with -EAGAIN.
 * @MRCORE_STAT_ERR_POST: rdma_io_ctx_post() failures.
 * @MRCORE_STAT_ERR_COMPLETION: I/Os destroyed after a failed, flushed or
 *	missing completion.
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
	MRCORE_STAT_MR_RECYCLED,
	MRCORE_STAT_INV_LOCAL,
	MRCORE_STAT_INV_REMOTE,
	MRCORE_STAT_ERR_DMA_MAP,
	MRCORE_STAT_ERR_MR_ALLOC,
	MRCORE_STAT_ERR_MAP,
	MRCORE_STAT_ERR_NO_BACKEND,
	MRCORE_STAT_ERR_POOL_DRY,
	MRCORE_STAT_ERR_POST,
	MRCORE_STAT_ERR_COMPLETION,
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
 * @stats: per-CPU counters.
 * @dir: debugfs directory devices/<name>/.
 * @lock: serializes claiming a backend slot.
 * @nr_slots: backend slots claimed.
 * @slot_ops: the backend of each slot (compared, never dereferenced).
 * @slot_name: its name, kept for when the backend is gone.
 * @last_slot: per class, 1 + the slot of the backend chosen last, or 0.
 * @last_why: per class, why.
 */
struct mrcore_device {
	struct kref ref;
	struct mrcore_device_stats __percpu *stats;
	struct dentry *dir;
	spinlock_t lock;	/* serializes claiming a backend slot */
	u32 nr_slots;
	const struct rdma_mr_backend_ops *slot_ops[MRCORE_DEVICE_SLOTS];
	char slot_name[MRCORE_DEVICE_SLOTS][MRCORE_BACKEND_NAME_LEN];
	u32 last_slot[MRCORE_CLASS_NR];
	u32 last_why[MRCORE_CLASS_NR];
};

struct mrcore_device *mrcore_device_get(struct ib_device *ibdev);
void mrcore_device_put(struct mrcore_device *mdev);
void mrcore_device_chose(struct mrcore_device *mdev, enum mrcore_class op_class,
			 const struct rdma_mr_backend_ops *ops,
			 enum mrcore_why why);
u64 mrcore_device_stat(struct mrcore_device *mdev, enum mrcore_stat stat);
const char *mrcore_why_name(enum mrcore_why why);
int mrcore_dma_map_sg(struct ib_device *dev, struct mrcore_device *mdev,
		      struct scatterlist *sg, u32 nents,
		      enum dma_data_direction dir);
void mrcore_dma_unmap_sg(struct ib_device *dev, struct mrcore_device *mdev,
			 struct scatterlist *sg, u32 nents,
			 enum dma_data_direction dir);
int mrcore_devices_init(struct dentry *root);
void mrcore_devices_exit(void);

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

/**
 * struct rdma_io_pool - the MRs of one QP
 * @qp: the QP.
 * @pd: its protection domain.
 * @dev: its device.
 * @port_num: the port the QP uses.
 * @mr_backend: the backend of the MRs, or %NULL if no MR backend serves
 *	the device (the pool then holds no MRs).
 * @mr_pages: pages per MR.
 * @lock: protects the lists and counts.
 * @free: MRs ready for reuse.
 * @quarantine: MRs whose key state is unknown, waiting for @recycle_work.
 * @nr_total: MRs the pool owns, wherever they are.
 * @nr_free: MRs on @free.
 * @recycle_work: deregisters and replaces the MRs on @quarantine.
 * @forced: name of the backend every I/O of this pool must use, or "".
 * @mdev: the device's state, or %NULL.
 */
struct rdma_io_pool {
	struct ib_qp *qp;
	struct ib_pd *pd;
	struct ib_device *dev;
	u32 port_num;
	const struct rdma_mr_backend_ops *mr_backend;
	u32 mr_pages;
	spinlock_t lock;	/* protects the lists and counts */
	struct list_head free;
	struct list_head quarantine;
	u32 nr_total;
	u32 nr_free;
	struct work_struct recycle_work;
	char forced[MRCORE_BACKEND_NAME_LEN];
	struct mrcore_device *mdev;
};

int mrcore_pool_take(struct rdma_io_pool *pool, struct rdma_mr **mrs, u32 n);
void mrcore_pool_return(struct rdma_io_pool *pool, struct rdma_mr *mr,
			bool key_dead);
bool mrcore_pool_forced(const struct rdma_io_pool *pool,
			char name[MRCORE_BACKEND_NAME_LEN]);

const struct rdma_mr_backend_ops *mrcore_backend_get(struct ib_device *dev);
void mrcore_backend_put(const struct rdma_mr_backend_ops *ops);
const struct rdma_mr_backend_ops *
mrcore_backend_choose_io(const struct rdma_io_ctx *ctx, const char *forced,
			 struct rdma_io_plan *plan);

/**
 * enum mrcore_fault_point - where a device failure can be injected
 * @MRCORE_FAULT_POST_SEND: rdma_io_ctx_post()'s ib_post_send().
 * @MRCORE_FAULT_MR_ALLOC: a backend's device MR allocation.
 * @MRCORE_FAULT_MAP_SHORT: ib_map_mr_sg() mapping fewer bytes than asked.
 * @MRCORE_FAULT_DMA_MAP: ib_dma_map_sg().
 * @MRCORE_FAULT_POOL_EMPTY: the MR pool having no free MR.
 * @MRCORE_FAULT_NR: number of points.
 */
enum mrcore_fault_point {
	MRCORE_FAULT_POST_SEND,
	MRCORE_FAULT_MR_ALLOC,
	MRCORE_FAULT_MAP_SHORT,
	MRCORE_FAULT_DMA_MAP,
	MRCORE_FAULT_POOL_EMPTY,
	MRCORE_FAULT_NR,
};

DECLARE_STATIC_KEY_FALSE(mrcore_fault_key);
bool __mrcore_should_fail(enum mrcore_fault_point point);
const char *mrcore_fault_name(enum mrcore_fault_point point);
void mrcore_fault_state(enum mrcore_fault_point point, int *skip, int *times,
			int *hits);

static inline bool mrcore_should_fail(enum mrcore_fault_point point)
{
	return static_branch_unlikely(&mrcore_fault_key) &&
	       __mrcore_should_fail(point);
}

struct dentry *mrcore_debugfs_init(void);
void mrcore_debugfs_exit(void);

extern char mrcore_force_backend[MRCORE_BACKEND_NAME_LEN];

extern struct rdma_mr_backend_ops mrcore_frwr_ops;
extern struct rdma_mr_backend_ops mrcore_iwarp_ops;
extern struct rdma_mr_backend_ops mrcore_fmr_ops;
extern struct rdma_mr_backend_ops mrcore_multiread_ops;

#endif /* _MRCORE_PRIV_H */

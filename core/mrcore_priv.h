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
bool mrcore_dev_unchecked_remote_read(const struct ib_device *dev);
bool mrcore_dev_random_mr_index(const struct ib_device *dev);
bool mrcore_dev_unsignaled_zcopy(const struct ib_device *dev);
u32 mrcore_dev_mr_page_weight(const struct ib_device *dev);
int mrcore_remote_access(unsigned int remote_ops, struct mrcore_access *out);
bool mrcore_access_is_remote(int ib_access);

/**
 * struct mrcore_sg_summary - a DMA-mapped scatterlist, measured in one pass
 * @length: bytes.
 * @npages: pages the bytes span.
 * @holes: places where a page list would need a hole; 0 fits one MR.
 * @runs: runs of pages one MR maps each, as mrcore_sg_next_chunk() cuts
 *	them for the MR size asked for; 0 if none was asked for.
 * @last: the last DMA entry.
 * @last_len: its length.
 */
struct mrcore_sg_summary {
	u64 length;
	u32 npages;
	u32 holes;
	u32 runs;
	struct scatterlist *last;
	u32 last_len;
};

/**
 * mrcore_sg_step() - the DMA entry after one that is not the last walked
 * @s: the entry; the caller counts its DMA entries and knows more follow.
 *
 * What sg_next() returns then, through a chain link.  sg_next() is out of
 * line (lib/scatterlist.c) and tests for the end of the list, which a walk
 * that counts its entries has no use for: the walks every I/O pays for
 * step inline.
 *
 * Context: Any context.
 * Return: the next entry.
 */
static inline struct scatterlist *mrcore_sg_step(struct scatterlist *s)
{
	if (unlikely(sg_is_chain(s + 1))) {
		/*
		 * A branch, not a conditional move: a chain link is rare,
		 * and a move would be paid on every entry of every list.
		 */
		barrier();
		return sg_chain_ptr(s + 1);
	}
	return s + 1;
}

/**
 * mrcore_sg_entry() - the bytes of one DMA entry, checked
 * @s: the entry.
 * @skip: bytes of it to skip (the I/O's offset, on the first entry).
 * @start: where its bytes start, on success.
 * @len: how many there are, on success.
 *
 * The checks every pass over a list makes of each entry, with one answer.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for an empty entry or a @skip at or past its end;
 * -EOVERFLOW if its bytes wrap or end in the address space's last page.
 */
static inline int mrcore_sg_entry(struct scatterlist *s, u32 skip,
				  u64 *start, u32 *len)
{
	u32 n = sg_dma_len(s);
	u64 end;

	if (unlikely(skip >= n))
		return -EINVAL;
	*start = sg_dma_address(s) + skip;
	*len = n - skip;
	/* Wraps exactly when *start > U64_MAX - PAGE_SIZE - *len. */
	if (unlikely(check_add_overflow(*start, *len + (u64)PAGE_SIZE, &end)))
		return -EOVERFLOW;
	return 0;
}

int mrcore_sg_summarize(struct scatterlist *sg, u32 offset, int dma_nents,
			u32 mr_pages, struct mrcore_sg_summary *sum);
int mrcore_sg_summarize_any(struct scatterlist *sg, u32 offset, int dma_nents,
			    u32 mr_pages, struct mrcore_sg_summary *sum);

/**
 * mrcore_sg_whole_pages() - measure a DMA-mapped list of whole pages
 * @sg: the scatterlist, already DMA-mapped.
 * @offset: bytes of the first entry to skip.
 * @dma_nents: number of DMA entries.
 * @last: its last entry, for a list of whole pages.
 *
 * The common list: every entry whole pages from a page boundary, so none
 * shares a page or leaves a hole.  No entry can wrap while every start
 * stays below the top U32_MAX bytes and a page of the address space.
 * The checks of each entry fold into one word, tested once after the
 * loop: its start, and its length less a page, which is a multiple of the
 * page size for a length of whole pages and has its top bits set for an
 * entry shorter than a page (an empty one too): either lands in the
 * in-page bits or above the wrap limit.  Inline: the first pass over every
 * list the core maps, in the summary of the I/O path and in the map of
 * the map API and the rkey set.
 *
 * Context: Any context.
 * Return: the length of such a list, @offset bytes of the first entry left
 * out; or 0 for any other list, errors included, which the caller measures
 * entry by entry (mrcore_sg_summarize_any()).
 */
static inline u64 mrcore_sg_whole_pages(struct scatterlist *sg, u32 offset,
					int dma_nents,
					struct scatterlist **last)
{
	struct scatterlist *s = sg;
	u32 n = sg_dma_len(sg);
	u64 length, acc;
	int i;

	if (unlikely(offset >= n))
		return 0;
	length = n - offset;
	acc = (sg_dma_address(sg) + offset) | (length - PAGE_SIZE);
	/* Counted down: the count is all the loop needs. */
	for (i = dma_nents - 1; i > 0; i--) {
		s = mrcore_sg_step(s);
		n = sg_dma_len(s);
		acc |= sg_dma_address(s) | ((u64)n - PAGE_SIZE);
		length += n;
	}
	if (unlikely((acc & ~PAGE_MASK) || length > U32_MAX ||
		     acc > U64_MAX - PAGE_SIZE - U32_MAX))
		return 0;
	*last = s;
	return length;
}

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
 * @last: its last entry.
 * @last_end: bytes of @last it covers, from that entry's start.
 */
struct mrcore_chunk {
	struct scatterlist *sg;
	u32 offset;
	int nents;
	u64 length;
	u32 npages;
	struct scatterlist *last;
	u32 last_end;
};

/**
 * mrcore_sg_iter_init() - start walking a DMA-mapped scatterlist
 * @it: the iterator.
 * @sg: the scatterlist.
 * @offset: bytes of the first entry to skip.
 * @dma_nents: number of DMA entries.
 *
 * Inline: every registered I/O starts one, and most cut a single run.
 *
 * Context: Any context.
 */
static inline void mrcore_sg_iter_init(struct mrcore_sg_iter *it,
				       struct scatterlist *sg, u32 offset,
				       int dma_nents)
{
	it->sg = sg;
	it->offset = offset;
	it->left = dma_nents;
}

bool mrcore_sg_next_chunk(struct mrcore_sg_iter *it, u32 max_pages,
			  struct mrcore_chunk *c);

int mrcore_mr_map_run(struct rdma_mr *mr, int access,
		      struct ib_send_wr **post_wr);
int mrcore_map_sg(struct rdma_mr *mr, struct scatterlist *sg,
		  unsigned int sg_nents, const struct mrcore_access *access,
		  struct ib_send_wr **post_wr);
bool mrcore_mr_remote_inv(struct rdma_mr *mr, const struct ib_wc *wc);
void mrcore_mr_unmap_invalid(struct rdma_mr *mr);

/**
 * __mrcore_mr_set_run() - tell an MR which run of bytes it is to map
 * @mr: an MR that is not mapped.
 * @sg: the run's first DMA entry.
 * @offset: bytes of @sg before the run.
 * @nents: DMA entries the run touches.
 * @last: its last entry.
 * @last_end: bytes of @last in the run, from the entry's start.
 * @length: bytes in the run.
 * @npages: pages the run spans.
 *
 * The fields a backend's @map reads; mrcore_mr_map_run() maps them.  An
 * I/O of one run passes its summary (no chunk), the others a chunk
 * (mrcore_mr_set_run()).
 *
 * Context: Any context; the caller serializes calls on one MR.
 */
static __always_inline void __mrcore_mr_set_run(struct rdma_mr *mr,
						struct scatterlist *sg,
						u32 offset, int nents,
						struct scatterlist *last,
						u32 last_end, u64 length,
						u32 npages)
{
	mr->sg = sg;
	mr->sg_offset = offset;
	mr->sg_last = last;
	mr->sg_last_end = last_end;
	mr->dma_nents = nents;
	mr->length = length;
	mr->npages = npages;
}

/* __mrcore_mr_set_run() of a run mrcore_sg_next_chunk() measured. */
static __always_inline void mrcore_mr_set_run(struct rdma_mr *mr,
					      const struct mrcore_chunk *c)
{
	__mrcore_mr_set_run(mr, c->sg, c->offset, c->nents, c->last,
			    c->last_end, c->length, c->npages);
}

int mrcore_mr_recycle(struct rdma_mr *mr);

/*
 * Keys one device MR hands out before the core replaces it: the variable
 * byte of a key has 256 values, so no key value of an MR comes back within
 * 256 of its mappings, and with a new device MR (a new index from the
 * driver) not at all.  The price: one deregistration and one allocation per
 * 256 mappings of an MR.
 */
#define MRCORE_KEY_USES		256

/*
 * Keys of a device within which no key value comes back: on drivers that
 * hand out an MR index again soon (siw draws them at random), the core
 * refuses a new device MR with the index of one of the last this many it
 * deregistered (core/mrindex.c).
 */
#define MRCORE_KEY_WINDOW	65536
/* New device MRs refused in a row before giving up (1 in 256 on siw). */
#define MRCORE_MRINDEX_TRIES	8

struct mrcore_device;
struct mrcore_mrindex;
int mrcore_mrindex_create(struct mrcore_device *mdev);
void mrcore_mrindex_destroy(struct mrcore_device *mdev);
bool mrcore_mrindex_recent(const struct rdma_mr *mr);
void mrcore_mrindex_released(const struct rdma_mr *mr);
int mrcore_mr_dev_alloc(struct rdma_mr *mr);
void mrcore_mr_dev_release(struct rdma_mr *mr);

#define MRCORE_BACKEND_NAME_LEN	16

/*
 * Messages for operators name the device (ibdev_*(): driver, parent and
 * device name) and this module, and are rate-limited: each comes from a
 * path an I/O or a peer can make hot.  Warnings say that capacity was lost
 * or a request refused for a reason its caller cannot see; debug messages
 * (dynamic debug) say why an I/O's MRs were replaced.
 */
#define mrcore_warn_ratelimited(ibdev, fmt, ...) \
	ibdev_warn_ratelimited(ibdev, KBUILD_MODNAME ": " fmt, ##__VA_ARGS__)
#define mrcore_dbg_ratelimited(ibdev, fmt, ...) \
	ibdev_dbg_ratelimited(ibdev, KBUILD_MODNAME ": " fmt, ##__VA_ARGS__)

/**
 * enum mrcore_stat - the counters of a device
 * @MRCORE_STAT_MAPS: map-API mappings (rdma_map_sg_lkey(), rdma_map_sg_rkey()).
 * @MRCORE_STAT_UNMAPS: map-API unmaps.
 * @MRCORE_STAT_DMA_MAPS: scatterlists the core DMA-mapped (map API and I/O
 *	contexts); a built I/O's mapping is not counted on its own but by
 *	its per-backend READ or WRITE use, which the sum adds.
 * @MRCORE_STAT_DMA_UNMAPS: those it unmapped again; equal to
 *	@MRCORE_STAT_DMA_MAPS when nothing is mapped.
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

/**
 * enum mrcore_io_kind - how an I/O is built, and undone
 * @MRCORE_IO_SGES: READ/WRITE WRs on the PD's local DMA lkey, no MR.
 * @MRCORE_IO_MRS: one pool MR per run, registered in the chain before its
 *	READ or WRITE; a local-only key is left for lazy invalidation.
 * @MRCORE_IO_IWARP_READ: an iWARP READ into pool MRs registered as remote
 *	write sinks, each killed by its READ_WITH_INV or a LOCAL_INV after it.
 * @MRCORE_IO_CUSTOM: a backend's own io_plan/io_build/io_done.
 */
enum mrcore_io_kind {
	MRCORE_IO_SGES,
	MRCORE_IO_MRS,
	MRCORE_IO_IWARP_READ,
	MRCORE_IO_CUSTOM,
};

#define MRCORE_IO_CANDS		8

/**
 * struct mrcore_io_cand - a backend that can move a pool's I/O
 * @ops: the backend.
 * @kind: the strategy it stands for.
 * @slot: its counter slot on the device.
 * @pinned: its module, referenced until the pool goes; %NULL for the core.
 */
struct mrcore_io_cand {
	const struct rdma_mr_backend_ops *ops;
	enum mrcore_io_kind kind;
	u32 slot;
	struct module *pinned;
};

/**
 * struct mrcore_io_set - the backends serving a pool, resolved once
 * @entry: linkage on the pool's list of sets, freed with the pool.
 * @nr: candidates.
 * @forced: the index of the candidate every I/O must use, @nr if the
 *	forced name matches none, or -1 for the cost model's choice.
 * @sges: the candidate of kind %MRCORE_IO_SGES, or -1.
 * @one_wr: per direction (index: a READ), the most DMA entries an I/O may
 *	have to go as one WR of SGEs without being priced: they fit the QP's
 *	WR, and no plan with an MR could cost less, whatever the pages.  0
 *	when a backend is forced, a custom backend must be asked, or the
 *	transport refuses (an iWARP READ).
 * @sges_max: per direction, the most DMA entries an I/O may have to go as
 *	WRs of SGEs (one WR up to @one_wr) without being priced: no plan with
 *	an MR could cost less, whatever the pages.  At least @one_wr; 0 where
 *	@one_wr is.
 * @sges_first: per direction, whether an I/O of several WRs of SGEs may be
 *	built before the list is measured (no backend forced, no custom
 *	backend, and the transport allows SGEs).
 * @only: per direction, the one candidate that can move such an I/O when
 *	no other can (e.g. the sink MRs of an iWARP READ): nothing to price.
 *	-1 if there are several, one is forced, or one is custom.
 * @mr_only: per direction, @only when that candidate moves the I/O through
 *	pool MRs (%MRCORE_IO_MRS, %MRCORE_IO_IWARP_READ), else -1: an I/O goes
 *	from its summary straight to the MR builder, nothing chosen or priced
 *	(one DMA entry is its own summary).
 * @sges_ops: the backend of candidate @sges, for the one-WR shortcut.
 * @sges_uses: per direction (index: a READ), the counter of its uses in
 *	the pool's device counters, which the shortcut increments as
 *	mrcore_count_use() would; %NULL where @one_wr is 0, which is the
 *	shortcut's test.
 * @sges_last: per direction, the device's last choice of the class.
 * @sges_now: the value mrcore_count_use() stores there for the shortcut.
 * @sges_lkey: the local DMA lkey of the pool's PD, the shortcut's SGE's.
 * @sges_op: per direction, the shortcut's RDMA opcode.
 * @cand: the candidates, newest registered first.
 *
 * A set is immutable once published.  The modules of its backends are
 * pinned until the pool is destroyed (the core's own are not counted), so
 * no I/O touches a module reference.
 */
struct mrcore_io_set {
	struct list_head entry;
	u32 nr;
	int forced;
	int sges;
	u32 one_wr[2];
	u32 sges_max[2];
	bool sges_first[2];
	int only[2];
	int mr_only[2];
	const struct rdma_mr_backend_ops *sges_ops;
	u64 __percpu *sges_uses[2];
	u32 *sges_last[2];
	u32 sges_now;
	u32 sges_lkey;
	enum ib_wr_opcode sges_op[2];
	struct mrcore_io_cand cand[MRCORE_IO_CANDS];
};

/**
 * struct mrcore_io_stash - storage blocks of one size for a pool's I/Os
 * @lock: protects @free and @nr.
 * @free: the blocks no I/O holds, linked through their first word.
 * @nr: blocks allocated, free or held.
 * @max: the most it allocates: the pool's max_ctxs.
 * @size: bytes of a block.
 */
struct mrcore_io_stash {
	spinlock_t lock;	/* protects @free and @nr */
	void *free;
	u32 nr;
	u32 max;
	size_t size;
};

void *mrcore_stash_get(struct mrcore_io_stash *st);
void mrcore_stash_put(struct mrcore_io_stash *st, void *block);

/**
 * struct rdma_io_pool - the MRs of one QP
 * @info: what backends may know of the pool (rdma_io_pool_get_info()).
 * @mr_backend: the backend of the MRs, or %NULL if no MR backend serves
 *	the device (the pool then holds no MRs).
 * @mr_pages: pages per MR.
 * @kill_local_keys: the device does not check access rights on incoming
 *	READs, so no local key may outlive its I/O (no lazy invalidation).
 * @signal_writes: the device may send an unsignaled WR's payload again after
 *	the I/O completed, so every RDMA WRITE of an I/O is signaled.
 * @read_inv: the device has READ_WITH_INV (iWARP).
 * @sink_access: IB access flags of an I/O's READ sink MR on the device.
 * @src_access: IB access flags of an I/O's WRITE source MR.
 * @lock: protects the lists and counts.
 * @clean: free MRs without a valid key.
 * @stale: free MRs whose local-only key is still valid (lazy invalidation);
 *	their next registration kills it, at the price of a WR.
 * @quarantine: MRs whose key state is unknown, waiting for @recycle_work.
 * @nr_total: MRs the pool owns, wherever they are.
 * @nr_free: MRs on @clean and @stale.
 * @nr_clean: MRs on @clean.
 * @recycle_work: deregisters and replaces the MRs on @quarantine.
 * @io: the resolved backends, for as long as @io_gen is current.
 * @io_gen: the registry generation @io was resolved at; 0 to resolve again.
 * @io_sets: every set resolved for this pool, freed with it.
 * @resolve_lock: serializes resolving.
 * @forced: name of the backend every I/O of this pool must use, or "".
 * @mdev: the device's state, or %NULL.
 * @stats: @mdev's per-CPU counters, or those no device reads
 *	(mrcore_nodev_stats): never %NULL, so that the I/O path counts
 *	without a test.
 * @last: @mdev's last choices, or those no device reads.
 * @io_mem: blocks of @mem_wrs WRs, @mem_sges SGEs and @mem_mrs MR
 *	pointers, for the I/Os that do not fit the context's own
 *	(mrcore_io_alloc()).
 * @sg_mem: blocks of @mem_sg scatterlist entries, for the bio_vec I/Os of
 *	several segments (rdma_io_ctx_init_bvec()).
 * @mem_wrs: RDMA WRs of the worst plan of an I/O of max_pages pages.
 * @mem_sges: its SGEs.
 * @mem_mrs: its MRs.
 * @mem_sg: its segments: max_pages.
 * @mem_sges_at: where the SGEs of an @io_mem block start, in bytes.
 * @mem_mrs_at: where its MR pointers start.
 */
struct rdma_io_pool {
	struct rdma_io_pool_info info;
	const struct rdma_mr_backend_ops *mr_backend;
	u32 mr_pages;
	bool kill_local_keys;
	bool signal_writes;
	bool read_inv;
	int sink_access;
	int src_access;
	spinlock_t lock;	/* protects the lists and counts */
	struct list_head clean;
	struct list_head stale;
	struct list_head quarantine;
	u32 nr_total;
	u32 nr_free;
	u32 nr_clean;
	struct work_struct recycle_work;
	const struct mrcore_io_set *io;
	u32 io_gen;
	struct list_head io_sets;
	struct mutex resolve_lock;	/* serializes resolving */
	char forced[MRCORE_BACKEND_NAME_LEN];
	struct mrcore_device *mdev;
	struct mrcore_device_stats __percpu *stats;
	u32 *last;
	struct mrcore_io_stash io_mem;
	struct mrcore_io_stash sg_mem;
	u32 mem_wrs;
	u32 mem_sges;
	u32 mem_mrs;
	u32 mem_sg;
	size_t mem_sges_at;
	size_t mem_mrs_at;
};

struct rdma_io_pool *mrcore_pool_alloc(struct ib_qp *qp, u32 nr_mrs,
				       u32 mr_pages, enum rdma_mr_role role);
int mrcore_pool_take(struct rdma_io_pool *pool, struct rdma_mr **mrs, u32 n);
struct rdma_mr *mrcore_pool_take_one(struct rdma_io_pool *pool);
void mrcore_pool_kill_return(struct rdma_io_pool *pool, struct rdma_mr *mr);
void mrcore_pool_return(struct rdma_io_pool *pool, struct rdma_mr *mr,
			bool key_dead);
const struct mrcore_io_set *mrcore_pool_resolve(struct rdma_io_pool *pool);

/**
 * mrcore_mr_io_wrs() - WRs an I/O through MRs posts: the one rule
 * @sync_map: the backend registers synchronously (no REG_MR, no LOCAL_INV).
 * @iwarp_read: an iWARP READ into sink MRs.
 * @read_inv: the device invalidates a sink's key with the READ.
 * @kill: the key of each MR dies after its I/O (a LOCAL_INV after it).
 * @runs: MRs the I/O takes.
 * @stale: of those, MRs still holding a key of an earlier I/O, which a
 *	LOCAL_INV kills first.
 *
 * Per MR: a REG_MR and the READ or WRITE; an iWARP READ's sink then a
 * LOCAL_INV unless the READ invalidates; another MR a LOCAL_INV if @kill.
 * The cost model prices a plan with it and rdma_io_max_send_wr() sizes the
 * send queue with its worst case, so that the two cannot disagree.
 *
 * Return: the number of WRs, in 64 bits: no product wraps.
 */
static inline u64 mrcore_mr_io_wrs(bool sync_map, bool iwarp_read,
				   bool read_inv, bool kill, u32 runs,
				   u32 stale)
{
	if (sync_map)
		return runs;
	if (iwarp_read)
		return (u64)runs * (read_inv ? 2 : 3) + stale;
	return (u64)runs * (2 + kill) + stale;
}

/*
 * A valid set of RDMA_MR_REMOTE_* operations as an index: the bits below
 * RDMA_MR_REMOTE_READ are 0 in it.
 */
#define MRCORE_RKEY_OPS_INDEX(ops)	((ops) / RDMA_MR_REMOTE_READ)
#define MRCORE_RKEY_NR_OPS	(MRCORE_RKEY_OPS_INDEX(RDMA_MR_REMOTE_ALL) + 1)

/**
 * struct rdma_rkey_set - the rkey MRs of one QP (core/rkey.c)
 * @pool: the MRs, a pool of rkey-role MRs of one size: taken, returned
 *	clean after their key died, or given a new device MR.
 * @lock: protects @retiring.
 * @retiring: requests whose keys die by deregistration, for @retire_work.
 * @retire_work: drains the send queue if a request asks, deregisters and
 *	replaces the MRs of each request on @retiring, then completes it.
 * @access: the access flags and DMA direction of each valid set of
 *	RDMA_MR_REMOTE_* operations, by MRCORE_RKEY_OPS_INDEX(); resolved by
 *	mrcore_remote_access() when the set is created.
 */
struct rdma_rkey_set {
	struct rdma_io_pool *pool;
	spinlock_t lock;	/* protects @retiring */
	struct list_head retiring;
	struct work_struct retire_work;
	struct mrcore_access access[MRCORE_RKEY_NR_OPS];
};

/* The module's work queue for work that memory reclaim may wait on. */
extern struct workqueue_struct *mrcore_wq;

extern u32 mrcore_registry_gen;
void mrcore_registry_changed(void);

/* The backends serving a pool, resolved again when the registry changed. */
static inline const struct mrcore_io_set *
mrcore_pool_io(struct rdma_io_pool *pool)
{
	if (unlikely(READ_ONCE(pool->io_gen) !=
		     READ_ONCE(mrcore_registry_gen)))
		return mrcore_pool_resolve(pool);
	/* Pairs with the release in mrcore_pool_resolve(): a set is whole. */
	return smp_load_acquire(&pool->io);
}

int mrcore_backend_resolve_io(struct rdma_io_pool *pool,
			      struct mrcore_io_set *set);
void mrcore_backend_unpin_io(const struct mrcore_io_set *set);

/*
 * The cost model (core/cost.c).  The price of a plan, inline for the
 * planner of every I/O; rdma_io_cost() is the same for backends.
 */
static inline u32 mrcore_cost(const struct rdma_io_weights *w, u32 wrs,
			      u32 mrs, u32 pages, u32 sges)
{
	return wrs * w->wr + mrs * w->mr + pages * w->page + sges * w->sge;
}

void mrcore_io_weights(struct ib_device *dev, u32 port_num,
		       const struct rdma_mr_backend_ops *mr_backend,
		       struct rdma_io_weights *w);
u32 mrcore_sges_beat_mrs(const struct rdma_io_weights *w,
			 const struct rdma_mr_backend_ops *mrs);
u32 mrcore_sges_max(const struct rdma_io_weights *w,
		    const struct rdma_mr_backend_ops *mrs, u32 per_wr,
		    u32 one_wr);

const struct rdma_mr_backend_ops *mrcore_backend_get(struct ib_device *dev);
void mrcore_backend_put(const struct rdma_mr_backend_ops *ops);

/**
 * enum mrcore_fault_point - where a device failure can be injected
 * @MRCORE_FAULT_POST_SEND: rdma_io_ctx_post()'s ib_post_send().
 * @MRCORE_FAULT_MR_ALLOC: a backend's device MR allocation.
 * @MRCORE_FAULT_MAP_SHORT: ib_map_mr_sg() mapping fewer bytes than asked.
 * @MRCORE_FAULT_DMA_MAP: ib_dma_map_sg().
 * @MRCORE_FAULT_POOL_EMPTY: the MR pool having no free MR.
 * @MRCORE_FAULT_POST_WR: one WR of the chain rdma_io_ctx_post() posts, as
 *	a full send queue refuses it: the WRs before it are posted.
 * @MRCORE_FAULT_NR: number of points.
 */
enum mrcore_fault_point {
	MRCORE_FAULT_POST_SEND,
	MRCORE_FAULT_MR_ALLOC,
	MRCORE_FAULT_MAP_SHORT,
	MRCORE_FAULT_DMA_MAP,
	MRCORE_FAULT_POOL_EMPTY,
	MRCORE_FAULT_POST_WR,
	MRCORE_FAULT_NR,
};

/*
 * Test hooks (fault injection, the force_backend module parameter and
 * debugfs file) exist only in a build with CONFIG_RDMA_MRCORE_TEST_HOOKS
 * (Kbuild).  Without them no point ever fails and no backend is forced but
 * by a pool's own rdma_io_pool_force_backend().
 */
#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
DECLARE_STATIC_KEY_FALSE(mrcore_fault_key);
bool __mrcore_should_fail(enum mrcore_fault_point point);
const char *mrcore_fault_name(enum mrcore_fault_point point);
void mrcore_fault_state(enum mrcore_fault_point point, int *skip, int *times,
			int *hits);

/* Whether any point is armed: a test is injecting failures. */
static inline bool mrcore_fault_armed(void)
{
	return static_branch_unlikely(&mrcore_fault_key);
}

static inline bool mrcore_should_fail(enum mrcore_fault_point point)
{
	return mrcore_fault_armed() && __mrcore_should_fail(point);
}

int mrcore_dma_map_faulty(struct ib_device *dev, struct scatterlist *sg,
			  u32 nents, enum dma_data_direction dir);

extern char mrcore_force_backend[MRCORE_BACKEND_NAME_LEN];
#else
static inline bool mrcore_fault_armed(void)
{
	return false;
}

static inline bool mrcore_should_fail(enum mrcore_fault_point point)
{
	return false;
}

static inline int mrcore_dma_map_faulty(struct ib_device *dev,
					struct scatterlist *sg, u32 nents,
					enum dma_data_direction dir)
{
	return ib_dma_map_sg(dev, sg, nents, dir);
}

/* An empty name of the parameter's size: the cost model decides. */
#define mrcore_force_backend ((const char[MRCORE_BACKEND_NAME_LEN]) { 0 })
#endif

DECLARE_PER_CPU(long, mrcore_dma_live);

/*
 * The mapping of mrcore_dma_map() before it is counted: what the device
 * returned, <= 0 on failure.  For a caller that tests the count for its own
 * common case first and then calls mrcore_dma_count_live() on success.
 */
static inline int __mrcore_dma_map(struct ib_device *dev,
				   struct scatterlist *sg, u32 nents,
				   enum dma_data_direction dir)
{
	int n = unlikely(mrcore_fault_armed()) ?
		mrcore_dma_map_faulty(dev, sg, nents, dir) :
		ib_dma_map_sg(dev, sg, nents, dir);

	trace_mrcore_dma_map(dev, sg, nents, dir, n);
	return n;
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
	trace_mrcore_dma_unmap(dev, sg, nents, dir);
	ib_dma_unmap_sg(dev, sg, nents, dir);
	this_cpu_dec(mrcore_dma_live);
}

/*
 * The I/O path's counters, through its pool: no test for a device without
 * state (@pool->stats is never %NULL).
 */
static inline void mrcore_pool_stat_add(struct rdma_io_pool *pool,
					enum mrcore_stat stat, u32 n)
{
	this_cpu_add(pool->stats->v[stat], n);
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

struct dentry *mrcore_debugfs_init(void);
void mrcore_debugfs_exit(void);

extern struct rdma_mr_backend_ops mrcore_frwr_ops;
extern struct rdma_mr_backend_ops mrcore_iwarp_ops;
extern struct rdma_mr_backend_ops mrcore_fmr_ops;
extern struct rdma_mr_backend_ops mrcore_multiread_ops;

#endif /* _MRCORE_PRIV_H */

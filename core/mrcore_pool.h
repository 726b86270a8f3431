/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A QP's pool of MRs and the backends that serve its I/Os (core/pool.c,
 * core/backend.c), the storage an I/O takes from it, the rkey MR set built
 * on one (core/rkey.c), and the cost model that picks an I/O's strategy
 * (core/cost.c).
 */
#ifndef _MRCORE_POOL_H
#define _MRCORE_POOL_H

/*
 * The force_backend module parameter, a test hook (mrcore_drv.h): without
 * the hooks, an empty name of the parameter's size, and the cost model
 * decides.
 */
#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
extern char mrcore_force_backend[MRCORE_BACKEND_NAME_LEN];
#else
#define mrcore_force_backend ((const char[MRCORE_BACKEND_NAME_LEN]) { 0 })
#endif

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
 * @quarantine: MRs waiting for @recycle_work to replace their device MRs.
 * @nr_total: MRs the pool owns, wherever they are.
 * @nr_target: MRs it may own: @nr_total, or more in a pool whose MRs come
 *	on demand (%RDMA_IO_POOL_MRS_ON_DEMAND), which @recycle_work adds a
 *	batch at a time when a take finds too few free.
 * @role: the role of its MRs, for those added later.
 * @nr_free: MRs on @clean and @stale.
 * @nr_clean: MRs on @clean.
 * @nr_quarantined: MRs on @quarantine.
 * @recycle_batch: MRs @quarantine gathers before @recycle_work is queued,
 *	while the pool has as many free (mrcore_pool_return_slow()).
 * @recycle_work: deregisters and replaces the MRs on @quarantine, then
 *	adds MRs up to @nr_target.
 * @space: called by @recycle_work once it has put MRs on the free lists,
 *	replaced or added, with @space_arg; or %NULL.  An rkey set's ULP
 *	waiting for MRs learns so (rdma_rkey_set_create_flags()).
 * @space_arg: its argument.
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
	u32 nr_target;
	enum rdma_mr_role role;
	u32 nr_free;
	u32 nr_clean;
	u32 nr_quarantined;
	u32 recycle_batch;
	struct work_struct recycle_work;
	void (*space)(void *arg);
	void *space_arg;
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
				       u32 mr_pages, enum rdma_mr_role role,
				       u32 nr_now);
int mrcore_pool_take(struct rdma_io_pool *pool, struct rdma_mr **mrs, u32 n);
void mrcore_pool_kill_return(struct rdma_io_pool *pool, struct rdma_mr *mr);
struct rdma_mr *mrcore_pool_miss(struct rdma_io_pool *pool, u32 free,
				 int err);
void mrcore_pool_return_slow(struct rdma_io_pool *pool, struct rdma_mr *mr,
			     bool key_dead);
const struct mrcore_io_set *mrcore_pool_resolve(struct rdma_io_pool *pool);

/**
 * enum mrcore_key_end - how the key of an I/O's MR ends
 * @MRCORE_KEY_SYNC: the backend registers and invalidates in its calls,
 *	without a WR.
 * @MRCORE_KEY_KEPT: it outlives the I/O (a local key, killed lazily by the
 *	MR's next registration).
 * @MRCORE_KEY_KILLED: a LOCAL_INV after the READ or WRITE kills it (a key
 *	no peer may keep: an iWARP READ sink's, or any on a device that does
 *	not check a local key against remote READs).
 * @MRCORE_KEY_READ_INV: the iWARP READ_WITH_INV that fills the MR kills it.
 */
enum mrcore_key_end {
	MRCORE_KEY_SYNC,
	MRCORE_KEY_KEPT,
	MRCORE_KEY_KILLED,
	MRCORE_KEY_READ_INV,
};

/**
 * mrcore_mr_io_wrs() - WRs an I/O through MRs posts: the one rule
 * @end: how the key of each MR ends.
 * @runs: MRs the I/O takes.
 * @stale: of those, MRs still holding a key of an earlier I/O, which a
 *	LOCAL_INV kills first.
 *
 * Per MR: a REG_MR and the READ or WRITE, and a LOCAL_INV after it if the
 * key is killed so; a synchronous backend posts the READ or WRITE alone.
 * The cost model prices a plan with it and rdma_io_max_send_wr() sizes the
 * send queue with its worst case, so that the two cannot disagree.
 *
 * Return: the number of WRs, in 64 bits: no product wraps.
 */
static inline u64 mrcore_mr_io_wrs(enum mrcore_key_end end, u32 runs,
				   u32 stale)
{
	if (end == MRCORE_KEY_SYNC)
		return runs;
	return (u64)runs * (end == MRCORE_KEY_KILLED ? 3 : 2) + stale;
}

/* The I/O path's counters, through its pool: @pool->stats is never NULL. */
static inline void mrcore_pool_stat_add(struct rdma_io_pool *pool,
					enum mrcore_stat stat, u32 n)
{
	this_cpu_add(pool->stats->v[stat], n);
}

/* The next MR of a take, the pool's lock held and one known to be free. */
static inline struct rdma_mr *mrcore_pool_next(struct rdma_io_pool *pool)
{
	struct list_head *from = &pool->stale;
	struct rdma_mr *mr;

	if (pool->nr_clean) {
		from = &pool->clean;
		pool->nr_clean--;
	}
	mr = list_first_entry(from, struct rdma_mr, pool_entry);
	list_del_init(&mr->pool_entry);
	return mr;
}

/**
 * mrcore_pool_take_one() - mrcore_pool_take() of one MR
 * @pool: the pool.
 *
 * The take of every I/O of one run and of every rkey, without the loop
 * and the array; inline, as ib_mr_pool_get() is a list pop under a lock.
 *
 * Context: Any context.
 * Return: the MR, or an ERR_PTR() (counted as by mrcore_pool_take()):
 * -EAGAIN if none is free now, -E2BIG if the pool may have none at all.
 */
static inline struct rdma_mr *mrcore_pool_take_one(struct rdma_io_pool *pool)
{
	unsigned long flags;
	struct rdma_mr *mr;

	spin_lock_irqsave(&pool->lock, flags);
	if (unlikely(!pool->nr_free ||
		     mrcore_should_fail(MRCORE_FAULT_POOL_EMPTY))) {
		u32 free = pool->nr_free;
		int ret = pool->nr_target ? -EAGAIN : -E2BIG;

		spin_unlock_irqrestore(&pool->lock, flags);
		return mrcore_pool_miss(pool, free, ret);
	}
	mr = mrcore_pool_next(pool);
	pool->nr_free--;
	spin_unlock_irqrestore(&pool->lock, flags);
	mrcore_pool_stat_add(pool, MRCORE_STAT_POOL_HITS, 1);
	return mr;
}

/**
 * mrcore_pool_return() - give an MR back
 * @pool: the pool.
 * @mr: an MR taken from @pool, not mapped.
 * @key_dead: the MR's key is dead or local-only and tracked (the MR is
 *	%RDMA_MR_FREE or %RDMA_MR_STALE); false quarantines it until the
 *	pool's work has replaced its device MR.
 *
 * Inline for the common case, a clean MR back at the head of its list.
 *
 * Context: Any context.
 */
static inline void mrcore_pool_return(struct rdma_io_pool *pool,
				      struct rdma_mr *mr, bool key_dead)
{
	unsigned long flags;

	if (unlikely(!key_dead || mr->state == RDMA_MR_STALE)) {
		mrcore_pool_return_slow(pool, mr, key_dead);
		return;
	}
	spin_lock_irqsave(&pool->lock, flags);
	list_add_tail(&mr->pool_entry, &pool->clean);
	pool->nr_free++;
	pool->nr_clean++;
	spin_unlock_irqrestore(&pool->lock, flags);
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

#endif /* _MRCORE_POOL_H */

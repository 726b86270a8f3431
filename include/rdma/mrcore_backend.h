/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma-mrcore backend interface: what a registration mechanism implements.
 *
 * The core validates every request, DMA-maps the scatterlist, translates the
 * caller's operations into IB access flags and keeps the MR's state machine;
 * a backend only turns a validated, DMA-mapped scatterlist into a key (by a
 * registration WR or synchronously) and kills that key again.  Driver vendors
 * register their own backends for their devices; the built-in ones live in
 * drivers/ of this module.
 */
#ifndef _RDMA_MRCORE_BACKEND_H
#define _RDMA_MRCORE_BACKEND_H

#include <rdma/mrcore.h>

/**
 * enum rdma_mr_state - where an MR is in its life cycle
 * @RDMA_MR_FREE: no DMA mapping, no valid key in the HCA.
 * @RDMA_MR_STALE: no DMA mapping, but the last key may still be valid in the
 *	HCA.  Only local-only mappings get here (lazy invalidation): nobody but
 *	this host can use such a key, and the next map kills it before it
 *	registers the new one.  Never on a device where the peer can READ
 *	through any live key (siw).
 * @RDMA_MR_MAPPED: DMA-mapped and registered (or registration WR built).
 * @RDMA_MR_INVALID: the key was invalidated, locally (WR built) or by the
 *	peer; the DMA mapping is still held until rdma_unmap_mr().
 */
enum rdma_mr_state {
	RDMA_MR_FREE,
	RDMA_MR_STALE,
	RDMA_MR_MAPPED,
	RDMA_MR_INVALID,
};

struct rdma_mr_backend_ops;

struct mrcore_device;

/**
 * struct rdma_mr - a memory region managed by rdma-mrcore
 * @pd: protection domain the MR belongs to.
 * @ops: the backend that registers this MR.
 * @role: lkey or rkey, fixed at creation.
 * @state: life-cycle state, changed by the core only.
 * @max_pages: how many pages one mapping may span.
 * @ibmr: the verbs MR, for backends that use one (may be %NULL).
 * @backend_priv: backend-private data.
 * @pool: the I/O pool the MR belongs to, or %NULL.
 * @pool_entry: linkage on the pool's free list.
 * @sg: the scatterlist of the current mapping.
 * @sg_nents: number of CPU entries in @sg.
 * @dma_nents: number of DMA entries of the mapping, starting at @sg.
 * @sg_offset: bytes of the first DMA entry the mapping skips.
 * @sg_last: the last DMA entry of the mapping.
 * @sg_last_end: bytes of the last DMA entry the mapping covers, counted
 *	from that entry's start; less than its length when the mapping ends
 *	inside it.
 * @dma_owned: the core DMA-mapped @sg for this mapping (map API) rather
 *	than the I/O context that holds the MR.
 * @dir: DMA direction of the current mapping.
 * @access: IB access flags of the current mapping.
 * @key: key of the current mapping, set by the backend.
 * @iova: I/O virtual address of the first mapped byte, set by the backend.
 * @length: number of mapped bytes.
 * @npages: pages spanned by the current mapping.
 * @key_uses: mappings made on the current device MR (@ibmr or
 *	@backend_priv); the core replaces the device MR before the key byte
 *	would come round again (%MRCORE_KEY_USES).
 * @dev_keyed: the current device MR has handed out a key, so its index is
 *	remembered when it is deregistered (core/mrindex.c); not for backends.
 * @cqe: completion entry of the signaled WRs the core builds, or %NULL.
 * @reg_wr: registration WR storage for backends that post one.
 * @inv_wr: invalidation WR storage for backends that post one.
 * @stale_inv_wr: storage for the WR that kills a stale key (%RDMA_MR_STALE)
 *	before the next registration, apart from @inv_wr: one chain may hold
 *	both (an iWARP READ sink is invalidated after its READ).
 * @mdev: the core's state of the device (counters); not for backends.
 */
struct rdma_mr {
	struct ib_pd *pd;
	const struct rdma_mr_backend_ops *ops;
	enum rdma_mr_role role;
	enum rdma_mr_state state;
	u32 max_pages;
	struct ib_mr *ibmr;
	void *backend_priv;
	struct rdma_io_pool *pool;
	struct list_head pool_entry;

	struct scatterlist *sg;
	unsigned int sg_nents;
	int dma_nents;
	u32 sg_offset;
	struct scatterlist *sg_last;
	u32 sg_last_end;
	bool dma_owned;
	enum dma_data_direction dir;
	int access;
	u32 key;
	u64 iova;
	u64 length;
	u32 npages;
	u32 key_uses;
	bool dev_keyed;

	struct ib_cqe *cqe;
	struct ib_reg_wr reg_wr;
	struct ib_send_wr inv_wr;
	struct ib_send_wr stale_inv_wr;
	struct mrcore_device *mdev;
};

/**
 * struct rdma_io_plan - what one way of doing an I/O costs
 * @wrs: WRs posted, registrations and invalidations included.
 * @mrs: MRs taken from the pool.
 * @cost: the cost model's figure (rdma_io_cost()); the lowest wins.
 */
struct rdma_io_plan {
	u32 wrs;
	u32 mrs;
	u32 cost;
};

/**
 * struct rdma_io_weights - the cost model's weights for one device
 * @wr: one WR posted (fetched, parsed, and for RDMA a request on the wire).
 * @mr: one pool MR used (a registration the device performs).
 * @page: one page of an MR's page list.
 * @sge: one SGE of a READ/WRITE WR.
 *
 * The core sets defaults per transport (Documentation/design.rst says how
 * they were measured); the backend of the device's MRs may adjust them
 * (@io_weights of struct rdma_mr_backend_ops).  debugfs shows them in
 * ``devices/<dev>/weights``.
 */
struct rdma_io_weights {
	u32 wr;
	u32 mr;
	u32 page;
	u32 sge;
};

/**
 * struct rdma_io_pool_info - what a backend may know of an I/O pool
 * @dev: the device.
 * @pd: the protection domain of the QP.
 * @qp: the QP the pool's I/Os are posted on.
 * @port_num: the port it uses.
 * @mr_pages: pages one pool MR maps; 0 if the pool holds no MRs.
 * @iwarp: the QP runs iWARP.
 * @weights: the cost model's weights for the device.
 */
struct rdma_io_pool_info {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_qp *qp;
	u32 port_num;
	u32 mr_pages;
	bool iwarp;
	struct rdma_io_weights weights;
};

/*
 * What a backend declares of the I/O it moves (@io_flags).  An MR backend
 * without @io_plan moves non-iWARP-READ I/O through the pool's MRs, built by
 * the core: it declares nothing unless it registers without a WR.
 */
/* READ/WRITE WRs on the PD's local DMA lkey, priced and built by the core. */
#define RDMA_IO_SGES		0x1u
/*
 * iWARP READs into the pool's MRs registered with REMOTE_WRITE (the sink
 * rule), each killed by its READ_WITH_INV or a LOCAL_INV chained after it.
 */
#define RDMA_IO_IWARP_READ	0x2u
/* An MR backend that registers synchronously: no WR per registration. */
#define RDMA_IO_SYNC_MAP	0x4u

/**
 * struct rdma_mr_backend_ops - a memory registration mechanism
 * @name: short name, shown in logs, debugfs and the demo.
 * @owner: module that implements the backend.
 * @serves: whether this backend can register memory on @dev (MR backends)
 *	or move I/O on it (I/O-only backends).
 * @max_pages: the largest page list one MR can map on @dev.
 * @mr_init: allocate the device resources of @mr for @mr->max_pages pages,
 *	kept in @mr->ibmr and @mr->backend_priv only: the core may call it
 *	on a blank MR (@pd, @ops, @role, @max_pages set) and move those two
 *	fields to the MR they replace the resources of.
 *	Return 0 or a negative errno; on error nothing may be left allocated.
 *	Process context; may sleep.
 * @mr_release: free what @mr_init allocated.  Any key of @mr dies with it.
 *	Process context; may sleep.
 * @map: register @mr->dma_nents DMA entries from @mr->sg to @mr->sg_last,
 *	skipping @mr->sg_offset bytes of the first and ending
 *	@mr->sg_last_end bytes into the last, @mr->length bytes in all
 *	(validated and counted by the core), with @mr->access.  Set @mr->key
 *	and @mr->iova; either chain the registration WR(s) in front of
 *	*@post_wr and point *@post_wr at the first one, or register
 *	synchronously and leave *@post_wr alone.  When @mr->state is
 *	%RDMA_MR_STALE the previous key must be killed first.  The new key
 *	must differ from the previous one.  Return 0 or a negative errno; on
 *	error nothing may have changed.  Called in any context (the map API's
 *	caller's, or rdma_io_ctx_init()'s): must not sleep.
 * @invalidate: kill @mr->key, either by chaining an invalidation WR in
 *	front of *@post_wr or synchronously.  Return 0 or a negative errno.
 *	Called in any context: must not sleep.
 * @recycle: optional; a local-only mapping was released and its key left
 *	valid (%RDMA_MR_STALE).  Backends that batch invalidations queue it.
 * @io_flags: what the backend moves and how (RDMA_IO_*).
 * @io_weights: optional, MR backends; adjust the cost model's weights for
 *	@dev, which hold the transport's defaults.
 * @io_plan: optional, for I/O the core does not build; whether this backend
 *	can move @ctx and at what cost (rdma_io_cost()).  @ctx is DMA-mapped
 *	and measured: @ctx->dma_nents, @ctx->length, @ctx->npages and
 *	@ctx->nr_runs are set.  Return 0 and fill @plan, or -EOPNOTSUPP.
 *	Must not sleep.
 * @io_build: with @io_plan: build @ctx's WR chain: set @ctx->first,
 *	@ctx->last, and the counts.  Return 0 or a negative errno; on error
 *	nothing may be held.
 * @io_done: with @io_plan, optional: the I/O ended, successfully if @ok.
 *	Called in the context of rdma_io_ctx_destroy(); must not sleep.
 * @list: registry linkage, owned by the core.
 *
 * A backend offers MRs (@max_pages, @mr_init, @mr_release, @map,
 * @invalidate), I/O the core builds (@io_flags), I/O it builds itself
 * (@io_plan, @io_build), or MRs and I/O.
 */
struct rdma_mr_backend_ops {
	const char *name;
	struct module *owner;
	bool (*serves)(struct ib_device *dev);
	u32 (*max_pages)(struct ib_device *dev);
	int (*mr_init)(struct rdma_mr *mr);
	void (*mr_release)(struct rdma_mr *mr);
	int (*map)(struct rdma_mr *mr, struct ib_send_wr **post_wr);
	int (*invalidate)(struct rdma_mr *mr, struct ib_send_wr **post_wr);
	void (*recycle)(struct rdma_mr *mr);
	unsigned int io_flags;
	void (*io_weights)(struct ib_device *dev, struct rdma_io_weights *w);
	int (*io_plan)(const struct rdma_io_ctx *ctx, struct rdma_io_plan *plan);
	int (*io_build)(struct rdma_io_ctx *ctx);
	void (*io_done)(struct rdma_io_ctx *ctx, bool ok);
	struct list_head list;
};

int rdma_mr_backend_register(struct rdma_mr_backend_ops *ops);
void rdma_mr_backend_unregister(struct rdma_mr_backend_ops *ops);

#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
/* Fault injection, for tests (core/fault.c); only in a test-hooks build. */
int rdma_mrcore_fault_arm(const char *name, u32 skip, u32 times);
int rdma_mrcore_fault_hits(const char *name);
#endif
int rdma_mrcore_devices_live(void);
long rdma_mrcore_dma_maps_live(void);
int rdma_mrcore_device_counter(struct ib_device *ibdev, const char *name,
			       u64 *value);

/* Helpers for backends that build I/O. */
const struct rdma_io_pool_info *
rdma_io_pool_get_info(const struct rdma_io_pool *pool);
int rdma_io_alloc_wrs(struct rdma_io_ctx *ctx, u32 nr_wrs, u32 nr_sges);
u32 rdma_io_cost(const struct rdma_io_weights *w, u32 wrs, u32 mrs, u32 pages,
		 u32 sges);
int rdma_mr_sg_pages(const struct rdma_mr *mr, u64 *pages, u32 max);

/**
 * struct rdma_fmr_ops - a vendor's FMR-style registration callbacks
 * @alloc: allocate a device MR for @max_pages pages on @pd; return a
 *	handle or an ERR_PTR().
 * @map: map @npages page addresses, of which exactly [@iova, @iova +
 *	@length) may be accessed, with @access, synchronously; store the new
 *	key in @key.  The handle is unmapped (new, or flushed).  Must not
 *	sleep.
 * @unmap: kill the keys of @n handles at once and make them mappable
 *	again.  Must not sleep.
 * @free: free a handle (unmapped, or its key dies with it).
 *
 * FMR left the upstream core in 5.8; rdma-mrcore keeps the model for
 * devices whose vendors register these callbacks (rdma_fmr_register()).
 */
struct rdma_fmr_ops {
	void *(*alloc)(struct ib_pd *pd, u32 max_pages);
	int (*map)(void *fmr, const u64 *pages, u32 npages, u64 iova,
		   u64 length, int access, u32 *key);
	int (*unmap)(void **fmrs, unsigned int n);
	void (*free)(void *fmr);
};

int rdma_fmr_register(struct ib_device *dev, const struct rdma_fmr_ops *ops,
		      u32 max_pages);
void rdma_fmr_unregister(struct ib_device *dev);
u32 rdma_fmr_flushes(struct ib_device *dev);

#endif /* _RDMA_MRCORE_BACKEND_H */

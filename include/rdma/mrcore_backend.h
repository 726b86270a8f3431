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
 *	registers the new one.
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

/**
 * struct rdma_mr - a memory region managed by rdma-mrcore
 * @pd: protection domain the MR belongs to.
 * @ops: the backend that registers this MR.
 * @role: lkey or rkey, fixed at creation.
 * @state: life-cycle state, changed by the core only.
 * @max_pages: how many pages one mapping may span.
 * @ibmr: the verbs MR, for backends that use one (may be %NULL).
 * @backend_priv: backend-private data.
 * @sg: the scatterlist of the current mapping.
 * @sg_nents: number of CPU entries in @sg.
 * @dma_nents: number of DMA entries ib_dma_map_sg() returned for @sg.
 * @dir: DMA direction of the current mapping.
 * @access: IB access flags of the current mapping.
 * @key: key of the current mapping, set by the backend.
 * @iova: I/O virtual address of the first mapped byte, set by the backend.
 * @length: number of mapped bytes.
 * @npages: pages spanned by the current mapping.
 * @cqe: completion entry of the signaled WRs the core builds, or %NULL.
 * @reg_wr: registration WR storage for backends that post one.
 * @inv_wr: invalidation WR storage for backends that post one.
 */
struct rdma_mr {
	struct ib_pd *pd;
	const struct rdma_mr_backend_ops *ops;
	enum rdma_mr_role role;
	enum rdma_mr_state state;
	u32 max_pages;
	struct ib_mr *ibmr;
	void *backend_priv;

	struct scatterlist *sg;
	unsigned int sg_nents;
	int dma_nents;
	enum dma_data_direction dir;
	int access;
	u32 key;
	u64 iova;
	u64 length;
	u32 npages;

	struct ib_cqe *cqe;
	struct ib_reg_wr reg_wr;
	struct ib_send_wr inv_wr;
};

/**
 * struct rdma_mr_backend_ops - a memory registration mechanism
 * @name: short name, shown in logs, debugfs and the demo.
 * @owner: module that implements the backend.
 * @serves: whether this backend can register memory on @dev.
 * @max_pages: the largest page list one MR can map on @dev.
 * @mr_init: allocate the device resources of @mr for @mr->max_pages pages.
 *	Return 0 or a negative errno; on error nothing may be left allocated.
 * @mr_release: free what @mr_init allocated.  The MR is not mapped.
 * @map: register @mr->sg (@mr->dma_nents DMA entries, already validated and
 *	counted by the core) with @mr->access.  Set @mr->key and @mr->iova;
 *	either chain the registration WR(s) in front of *@post_wr and point
 *	*@post_wr at the first one, or register synchronously and leave
 *	*@post_wr alone.  When @mr->state is %RDMA_MR_STALE the previous key
 *	must be killed first.  The new key must differ from the previous one.
 *	Return 0 or a negative errno; on error nothing may have changed.
 * @invalidate: kill @mr->key, either by chaining an invalidation WR in
 *	front of *@post_wr or synchronously.  Return 0 or a negative errno.
 * @list: registry linkage, owned by the core.
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
	struct list_head list;
};

int rdma_mr_backend_register(struct rdma_mr_backend_ops *ops);
void rdma_mr_backend_unregister(struct rdma_mr_backend_ops *ops);

#endif /* _RDMA_MRCORE_BACKEND_H */

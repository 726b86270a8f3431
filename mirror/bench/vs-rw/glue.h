/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C side of make bench-vs-rw: one I/O of either implementation, and
 * ib_core's R/W API for the C++ rig, which cannot include rdma/rw.h (a
 * struct declared inside an anonymous union is not C++).
 */
#ifndef MRCORE_VS_RW_GLUE_H
#define MRCORE_VS_RW_GLUE_H

#include "mrcore_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The I/Os run so far and their WRs: the same two additions on both sides,
 * from init's return value (what each I/O takes from its pool is read from
 * the checked I/Os, outside the measured loop).
 */
struct vsrw_tally {
	u64 ios;
	u64 wrs;
};

/* One I/O's arguments: the same memory, peer and QP for both. */
struct vsrw_io {
	struct ib_qp *qp;
	u32 port_num;
	struct rdma_io_pool *pool;	/* mrcore only */
	struct scatterlist *sg;
	u32 sg_cnt;
	u64 remote_addr;
	u32 rkey;
	enum dma_data_direction dir;
	struct ib_cqe *cqe;
	const struct ib_wc *wc_ok;	/* mrcore's destroy takes the completion */
};

/*
 * The measured I/O: init, post (each implementation's own:
 * rdma_io_ctx_post(), rdma_rw_ctx_post(); completion on the last WR,
 * nothing chained) on a QP whose device takes the WRs and runs none
 * (sim::set_post_sink()), destroy as after a successful completion.
 * Return 0, or init's or the post's negative errno.
 */
int vsrw_mrcore_io(const struct vsrw_io *io, struct vsrw_tally *t);
int vsrw_rw_io(const struct vsrw_io *io, struct vsrw_tally *t);

/*
 * What ib_create_qp() does for a QP created with cap.max_rdma_ctxs: the MR
 * lists, then rdma_rw_init_qp() and rdma_rw_init_mrs().  @max_ctxs I/Os of
 * up to @max_pages pages, sized the way nvmet-rdma sizes them
 * (max_ctxs * rdma_rw_mr_factor()).  Returns 0 or a negative errno.
 */
int vsrw_rw_qp_init(struct ib_qp *qp, u32 port_num, u32 max_ctxs,
		    u32 max_pages);
void vsrw_rw_qp_exit(struct ib_qp *qp);

/*
 * An rdma_rw I/O to post: rdma_rw_ctx_init() and rdma_rw_ctx_wrs().  NULL
 * and *err set on failure; else *wrs, *mrs (MRs taken from the QP's pool)
 * and *first (the chain) are set.
 */
struct vsrw_rw_ctx;
struct vsrw_rw_ctx *vsrw_rw_begin(const struct vsrw_io *io, int *err,
				  int *wrs, u32 *mrs,
				  struct ib_send_wr **first);
/* rdma_rw_ctx_destroy() and free. */
void vsrw_rw_end(struct vsrw_rw_ctx *c, const struct vsrw_io *io);

/*
 * rw.c sets a READ_WITH_INV's ex.invalidate_rkey at init, and
 * rdma_rw_ctx_wrs() then moves the MR to a new key (ib_inc_rkey()), so the
 * chain invalidates the key before the one it registers.  Sets each
 * READ_WITH_INV's invalidate_rkey to the key it reads into (its SGE's
 * lkey, the registered one) and returns how many it changed.
 */
u32 vsrw_fix_read_inv(struct ib_send_wr *first);

/*
 * One keyed command of nvme-rdma's host, data path only (glue.c): stock
 * (the QP's ib_core MR pool, vsrw_rw_qp_init()) and the port's (an rkey
 * set).  @reply: a successful SEND_WITH_INV receive completion, whose key
 * is set to the command's.  Not posted.  Return 0 or a negative errno.
 */
int vsrw_stock_key_io(struct ib_qp *qp, struct scatterlist *sg, int nents,
		      struct ib_send_wr *send, struct ib_wc *reply,
		      struct vsrw_tally *t);
/* nvme-rdma's own MR pool on @qp: @nr MRs of @pages pages. */
int vsrw_key_pool_init(struct ib_qp *qp, u32 nr, u32 pages);
void vsrw_key_pool_exit(struct ib_qp *qp);
int vsrw_mrcore_key_io(struct rdma_rkey_set *set, struct scatterlist *sg,
		       int nents, struct ib_send_wr *send,
		       struct ib_wc *reply, struct vsrw_tally *t);

#ifdef __cplusplus
}
#endif

#endif /* MRCORE_VS_RW_GLUE_H */

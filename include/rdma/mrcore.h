/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma-mrcore: memory registration for in-kernel RDMA upper-layer protocols.
 *
 * A ULP never handles IB access flags or transport differences: it says what
 * the local HCA does with the memory (rdma_map_sg_lkey()) or what the peer may
 * do with it (rdma_map_sg_rkey()), and the core turns that into the right
 * registration for the device.  One MR serves one role for its whole life, so
 * a remotely usable key cannot be created by accident.
 */
#ifndef _RDMA_MRCORE_H
#define _RDMA_MRCORE_H

#include <linux/bvec.h>
#include <rdma/ib_verbs.h>

struct rdma_mr;

/*
 * Local operations: what this HCA does with the memory of an lkey mapping.
 * They never grant the peer anything (see rdma_map_sg_lkey() for the one
 * transport exception, which is confined to the core).
 */
#define RDMA_MR_LOCAL_SEND_SRC		0x0001u	/* source of a SEND */
#define RDMA_MR_LOCAL_RECV_SINK		0x0002u	/* sink of a RECV */
#define RDMA_MR_LOCAL_READ_SINK		0x0004u	/* sink of an RDMA READ */
#define RDMA_MR_LOCAL_WRITE_SRC		0x0008u	/* source of an RDMA WRITE */
#define RDMA_MR_LOCAL_ALL		0x000fu

/*
 * Remote operations: what the peer may do with the memory of an rkey mapping.
 * The bit values differ from the local ones, so passing one kind to the other
 * entry point is refused instead of silently reinterpreted.
 */
#define RDMA_MR_REMOTE_READ		0x0100u	/* the peer READs from it */
#define RDMA_MR_REMOTE_WRITE		0x0200u	/* the peer WRITEs into it */
#define RDMA_MR_REMOTE_ALL		0x0300u

/**
 * enum rdma_mr_role - what an MR is for, fixed when it is created
 * @RDMA_MR_ROLE_LKEY: mapped by rdma_map_sg_lkey() only; its key goes into
 *	local SGEs and is never sent to the peer.
 * @RDMA_MR_ROLE_RKEY: mapped by rdma_map_sg_rkey() only; its key and IOVA
 *	are advertised to the peer.
 */
enum rdma_mr_role {
	RDMA_MR_ROLE_LKEY = 1,
	RDMA_MR_ROLE_RKEY = 2,
};

struct rdma_mr *rdma_create_mr(struct ib_pd *pd, u32 max_pages,
			       enum rdma_mr_role role);
void rdma_destroy_mr(struct rdma_mr *mr);

void rdma_mr_set_cqe(struct rdma_mr *mr, struct ib_cqe *cqe);

int rdma_map_sg_lkey(u32 *lkey, struct rdma_mr *mr, struct scatterlist *sg,
		     unsigned int sg_nents, unsigned int local_ops,
		     struct ib_send_wr **post_wr);
int rdma_map_sg_rkey(u32 *rkey, u64 *iova, struct rdma_mr *mr,
		     struct scatterlist *sg, unsigned int sg_nents,
		     unsigned int remote_ops, struct ib_send_wr **post_wr);

int rdma_invalidate_mr(struct rdma_mr *mr, struct ib_send_wr **post_wr);
int rdma_mr_remote_invalidated(struct rdma_mr *mr, u32 rkey);
int rdma_mr_check_remote_inv(struct rdma_mr *mr, const struct ib_wc *wc);
int rdma_send_with_inv(struct ib_send_wr *wr, u32 rkey);
int rdma_unmap_mr(struct rdma_mr *mr);
int rdma_mr_reset(struct rdma_mr *mr);

int rdma_post_send_chain(struct ib_qp *qp, struct ib_send_wr *first);

u32 rdma_mr_max_pages(const struct rdma_mr *mr);
u64 rdma_mr_length(const struct rdma_mr *mr);

/*
 * The rkey MR set: memory a ULP advertises to the peer (NFS chunks, an iSER
 * task's buffer), a request at a time.  A request takes MRs from its QP's
 * set, maps each for what the peer may do, chains the registrations before
 * the ULP's Send, and is retired with the reply: the core checks a remote
 * invalidation, invalidates the other keys locally, or kills every key by
 * deregistration on error or timeout, and only then gives the memory and
 * the MRs back and calls the request's done callback.
 */
struct rdma_rkey_set;

/* MRs one request holds at most. */
#define RDMA_RKEY_REQ_MAX_MRS	8

/**
 * struct rdma_rkey_req - the keys one request advertises
 *
 * Embedded by the ULP, set up by rdma_rkey_req_init(); every field is
 * private to the core.
 *
 * @set: the set the MRs come from.
 * @first: the first WR to post: the registrations, then the ULP's Send.
 * @done: called once every key of the request is dead.
 * @nr_mrs: MRs the request holds.
 * @mrs: the MRs, in the order they were mapped.
 * @sgl: the scatterlist the core built for an MR (bio_vecs, pages), where
 *	@built says so.
 * @built: a bit per MR, set where the core built the MR's entry of @sgl,
 *	which it frees with the MR.
 * @drain: the driver took the request's chain only in part: the send
 *	queue is drained before the MRs are deregistered.
 * @posted: the driver took the request's chain, or a part of it: its
 *	registrations may have run.
 * @inv_cqe: completion entry of the last local invalidation.
 * @entry: linkage on the set's list of requests to retire by
 *	deregistration.
 */
struct rdma_rkey_req {
	struct rdma_rkey_set *set;
	struct ib_send_wr *first;
	void (*done)(struct rdma_rkey_req *req, int status);
	u32 nr_mrs;
	struct rdma_mr *mrs[RDMA_RKEY_REQ_MAX_MRS];
	struct scatterlist *sgl[RDMA_RKEY_REQ_MAX_MRS];
	u8 built;
	bool drain;
	bool posted;
	struct ib_cqe inv_cqe;
	struct list_head entry;
};

/* rdma_rkey_set_create_flags(): MRs as requests need them, from one's most. */
#define RDMA_RKEY_SET_MRS_ON_DEMAND	BIT(0)

struct rdma_rkey_set *rdma_rkey_set_create(struct ib_qp *qp, u32 nr_mrs,
					   u32 max_pages);
struct rdma_rkey_set *rdma_rkey_set_create_flags(struct ib_qp *qp, u32 nr_mrs,
						 u32 max_pages, u32 flags,
						 void (*space)(void *arg),
						 void *arg);
void rdma_rkey_set_destroy(struct rdma_rkey_set *set);
u32 rdma_rkey_set_size(const struct rdma_rkey_set *set);
u32 rdma_rkey_set_drain(struct rdma_rkey_set *set);

void rdma_rkey_req_init(struct rdma_rkey_req *req, struct rdma_rkey_set *set,
			struct ib_send_wr *send_wr,
			void (*done)(struct rdma_rkey_req *req, int status));
int rdma_rkey_map_sg(struct rdma_rkey_req *req, struct scatterlist *sg,
		     unsigned int sg_nents, unsigned int remote_ops, u32 *rkey,
		     u64 *iova);
int rdma_rkey_map_bvec(struct rdma_rkey_req *req, const struct bio_vec *bvecs,
		       u32 nr_bvec, struct bvec_iter *iter,
		       unsigned int remote_ops, u32 *rkey, u64 *iova, u32 *len);
int rdma_rkey_map_pages(struct rdma_rkey_req *req, struct page **pages,
			u32 offset, u32 len, unsigned int remote_ops, u32 *rkey,
			u64 *iova, u32 *mapped);
int rdma_rkey_req_post(struct rdma_rkey_req *req);
int rdma_rkey_req_retire(struct rdma_rkey_req *req,
			 const struct ib_wc *reply_wc);

/*
 * RDMA READ and WRITE helper.  One context is one I/O: the core DMA-maps the
 * scatterlist, chooses how to move it (several READ/WRITE WRs on the local
 * DMA lkey, or registered MRs from the QP's pool), and builds one chained WR
 * list, posted with one ib_post_send().
 */
struct rdma_io_pool;

/**
 * struct rdma_io_ctx - one RDMA READ or WRITE
 *
 * Embedded by the ULP, filled by rdma_io_ctx_init(); every field is private
 * to the core and its backends.
 *
 * @pool: the QP's pool.
 * @backend: the backend that moves this I/O (its name, its counters).
 * @map_sg: the caller's scatterlist, DMA-mapped for the I/O.
 * @sg: the first DMA entry the I/O moves bytes of: @map_sg's first, or a
 *	later one when the caller's offset skipped entries whole.
 * @sg_cnt: CPU entries in @map_sg.
 * @sg_offset: bytes of @sg the I/O skips.
 * @dma_nents: DMA entries from @sg on.
 * @dir: %DMA_FROM_DEVICE for a READ, %DMA_TO_DEVICE for a WRITE.
 * @kind: how the I/O is built and undone (enum mrcore_io_kind).
 * @mem_pooled: @wrs, @sges and @mrs are in a block of the pool's, which
 *	goes back to it; else they are the context's own, or were allocated
 *	for this I/O.
 * @sg_pooled: @map_sg of rdma_io_ctx_init_bvec() is a block of the pool's.
 * @remote_addr: the peer's address.
 * @rkey: the peer's key.
 * @length: bytes the I/O moves.
 * @npages: pages those bytes span; 0 when the plan needed no page count.
 * @nr_runs: runs of pages one pool MR maps each (the MRs a registered plan
 *	takes); 0 when the plan needed no MR count.
 * @sg_last: the last DMA entry, when the list was measured.
 * @sg_last_len: its length.
 * @nr_wrs: WRs the I/O posts (registrations and invalidations included).
 * @nr_ops: RDMA READ/WRITE WRs among them.
 * @nr_mrs: MRs the I/O took from the pool.
 * @first: the first WR to post.
 * @last: the last WR of the chain, which rdma_io_ctx_wrs() links on.
 * @wrs: @nr_ops RDMA WRs.
 * @sges: SGEs of the RDMA WRs.
 * @mrs: the MRs.
 * @inline_wr: storage for a one-WR I/O, which then needs no allocation.
 * @inline_sge: its SGE.
 * @inline_mr: its MR, if it takes one.
 * @inline_sg: the scatterlist of a one-segment rdma_io_ctx_init_bvec().
 */
struct rdma_io_ctx {
	struct rdma_io_pool *pool;
	const struct rdma_mr_backend_ops *backend;
	struct scatterlist *map_sg;
	struct scatterlist *sg;
	u32 sg_cnt;
	u32 sg_offset;
	int dma_nents;
	enum dma_data_direction dir;
	u32 kind;
	bool mem_pooled;
	bool sg_pooled;
	u64 remote_addr;
	u32 rkey;
	u64 length;
	u32 npages;
	u32 nr_runs;
	struct scatterlist *sg_last;
	u32 sg_last_len;
	u32 nr_wrs;
	u32 nr_ops;
	u32 nr_mrs;
	struct ib_send_wr *first;
	struct ib_send_wr *last;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sges;
	struct rdma_mr **mrs;
	struct ib_rdma_wr inline_wr;
	struct ib_sge inline_sge;
	struct rdma_mr *inline_mr;
	struct scatterlist inline_sg;
};

/* rdma_io_pool_create_flags(): the MRs of an IB/RoCE pool as I/Os need them. */
#define RDMA_IO_POOL_MRS_ON_DEMAND	BIT(0)

struct rdma_io_pool *rdma_io_pool_create(struct ib_qp *qp, u32 port_num,
					 u32 max_ctxs, u32 max_pages);
struct rdma_io_pool *rdma_io_pool_create_flags(struct ib_qp *qp, u32 port_num,
					       u32 max_ctxs, u32 max_pages,
					       u32 flags);
void rdma_io_pool_destroy(struct rdma_io_pool *pool);
int rdma_io_pool_force_backend(struct rdma_io_pool *pool, const char *name);
u32 rdma_io_pool_drain(struct rdma_io_pool *pool);
u32 rdma_io_pool_size(const struct rdma_io_pool *pool);

int rdma_io_ctx_init(struct rdma_io_ctx *ctx, struct rdma_io_pool *pool,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir);
struct ib_send_wr *rdma_io_ctx_wrs(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr);
int rdma_io_ctx_post(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
		     struct ib_send_wr *chain_wr);
void rdma_io_ctx_destroy(struct rdma_io_ctx *ctx, const struct ib_wc *wc);
int rdma_io_ctx_init_bvec(struct rdma_io_ctx *ctx, struct rdma_io_pool *pool,
			  const struct bio_vec *bvecs, u32 nr_bvec,
			  struct bvec_iter iter, u64 remote_addr, u32 rkey,
			  enum dma_data_direction dir);
void rdma_io_ctx_destroy_bvec(struct rdma_io_ctx *ctx, const struct ib_wc *wc);
const char *rdma_io_ctx_backend(const struct rdma_io_ctx *ctx);

u32 rdma_io_mr_factor(struct ib_device *dev, u32 port_num, u32 max_pages);
u32 rdma_io_max_send_wr(struct ib_device *dev, u32 port_num, u32 max_pages,
			u32 max_send_sge);
u32 rdma_io_max_cqe(struct ib_device *dev, u32 port_num, u32 max_pages,
		    u32 max_send_sge);
/* Deprecated: rdma_io_max_send_wr(dev, port_num, max_pages, 0). */
u32 rdma_io_send_wrs_per_ctx(struct ib_device *dev, u32 port_num,
			     u32 max_pages);

#endif /* _RDMA_MRCORE_H */

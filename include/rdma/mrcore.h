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
int rdma_unmap_mr(struct rdma_mr *mr);

u32 rdma_mr_max_pages(const struct rdma_mr *mr);
u64 rdma_mr_length(const struct rdma_mr *mr);

#endif /* _RDMA_MRCORE_H */

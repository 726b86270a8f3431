// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_RDMA_RW_U32_PORT: the RDMA R/W API (the peer we measure
 * against) takes a u32 port number (5.13+).  Same prototypes on 6.1 and
 * 6.12; a guard that fails loudly if rw.h changes.
 */
#include <rdma/rw.h>

typedef int (*mrcore_probe_init_t)(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct scatterlist *sg,
				   u32 sg_cnt, u32 sg_offset, u64 remote_addr,
				   u32 rkey, enum dma_data_direction dir);
typedef void (*mrcore_probe_destroy_t)(struct rdma_rw_ctx *ctx,
				       struct ib_qp *qp, u32 port_num,
				       struct scatterlist *sg, u32 sg_cnt,
				       enum dma_data_direction dir);
typedef int (*mrcore_probe_post_t)(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr);

const mrcore_probe_init_t mrcore_probe_init = rdma_rw_ctx_init;
const mrcore_probe_destroy_t mrcore_probe_destroy = rdma_rw_ctx_destroy;
const mrcore_probe_post_t mrcore_probe_post = rdma_rw_ctx_post;

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of rdma-mrcore (TRACE_SYSTEM rdma_mrcore): maps, unmaps and
 * invalidations of MRs; I/O init (with the backend chosen and why), post
 * and completion (with its status); pool exhaustion.  The I/O events and
 * pool exhaustion name the device and the QP number.
 *
 * Device names are copied into fixed arrays rather than __string() fields,
 * whose assignment macro changed between the kernels this module builds
 * for.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_mrcore

#if !defined(_MRCORE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRCORE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

TRACE_EVENT(mrcore_map,
	    TP_PROTO(const struct rdma_mr *mr),
	    TP_ARGS(mr),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, key)
			     __field(u64, iova)
			     __field(u64, length)
			     __field(u32, npages)
			     __field(int, access)
			     __field(int, role)),
	    TP_fast_assign(strscpy(__entry->dev,
				   dev_name(&mr->pd->device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->key = mr->key;
			   __entry->iova = mr->iova;
			   __entry->length = mr->length;
			   __entry->npages = mr->npages;
			   __entry->access = mr->access;
			   __entry->role = mr->role;),
	    TP_printk("dev=%s %s key=0x%08x iova=0x%llx length=%llu pages=%u access=0x%x",
		      __entry->dev,
		      __entry->role == RDMA_MR_ROLE_LKEY ? "lkey" : "rkey",
		      __entry->key, __entry->iova, __entry->length,
		      __entry->npages, __entry->access));

DECLARE_EVENT_CLASS(mrcore_key_class,
		    TP_PROTO(const struct rdma_mr *mr),
		    TP_ARGS(mr),
		    TP_STRUCT__entry(__field(u32, key)
				     __field(int, state)),
		    TP_fast_assign(__entry->key = mr->key;
				   __entry->state = mr->state;),
		    TP_printk("key=0x%08x state=%d", __entry->key,
			      __entry->state));

DEFINE_EVENT(mrcore_key_class, mrcore_unmap,
	     TP_PROTO(const struct rdma_mr *mr),
	     TP_ARGS(mr));
DEFINE_EVENT(mrcore_key_class, mrcore_invalidate_local,
	     TP_PROTO(const struct rdma_mr *mr),
	     TP_ARGS(mr));
DEFINE_EVENT(mrcore_key_class, mrcore_invalidate_remote,
	     TP_PROTO(const struct rdma_mr *mr),
	     TP_ARGS(mr));

/* The DMA API's directions, for the tools that read the format. */
TRACE_DEFINE_ENUM(DMA_BIDIRECTIONAL);
TRACE_DEFINE_ENUM(DMA_TO_DEVICE);
TRACE_DEFINE_ENUM(DMA_FROM_DEVICE);

#define mrcore_show_dma_dir(dir)					\
	__print_symbolic(dir,						\
			 { DMA_BIDIRECTIONAL, "BIDIRECTIONAL" },	\
			 { DMA_TO_DEVICE, "TO_DEVICE" },		\
			 { DMA_FROM_DEVICE, "FROM_DEVICE" })

/*
 * Every DMA mapping the core makes (mapped: the entries the DMA API
 * returned, 0 if it failed) and releases, with the direction it gave the
 * DMA API: on rxe and siw (virtual DMA) and on the unit tests' fake
 * devices the DMA API's own debugging sees none of them.
 */
TRACE_EVENT(mrcore_dma_map,
	    TP_PROTO(const struct ib_device *dev, const struct scatterlist *sg,
		     u32 nents, enum dma_data_direction dir, int mapped),
	    TP_ARGS(dev, sg, nents, dir, mapped),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(const void *, sg)
			     __field(u32, nents)
			     __field(int, dir)
			     __field(int, mapped)),
	    TP_fast_assign(strscpy(__entry->dev, dev->name,
				   IB_DEVICE_NAME_MAX);
			   __entry->sg = sg;
			   __entry->nents = nents;
			   __entry->dir = dir;
			   __entry->mapped = mapped;),
	    TP_printk("dev=%s sg=%p nents=%u dir=%s mapped=%d",
		      __entry->dev, __entry->sg, __entry->nents,
		      mrcore_show_dma_dir(__entry->dir), __entry->mapped));

TRACE_EVENT(mrcore_dma_unmap,
	    TP_PROTO(const struct ib_device *dev, const struct scatterlist *sg,
		     u32 nents, enum dma_data_direction dir),
	    TP_ARGS(dev, sg, nents, dir),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(const void *, sg)
			     __field(u32, nents)
			     __field(int, dir)),
	    TP_fast_assign(strscpy(__entry->dev, dev->name,
				   IB_DEVICE_NAME_MAX);
			   __entry->sg = sg;
			   __entry->nents = nents;
			   __entry->dir = dir;),
	    TP_printk("dev=%s sg=%p nents=%u dir=%s", __entry->dev,
		      __entry->sg, __entry->nents,
		      mrcore_show_dma_dir(__entry->dir)));

/*
 * The completion status of io_done, by name: enum ib_wc_status, and
 * MRCORE_WC_NONE for an I/O destroyed without a completion (never posted,
 * or its completion not seen).
 */
#define MRCORE_WC_NONE	(-1)

/* The enum's values, for the tools that read the format (perf, trace-cmd). */
TRACE_DEFINE_ENUM(IB_WC_SUCCESS);
TRACE_DEFINE_ENUM(IB_WC_LOC_LEN_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_QP_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_EEC_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_PROT_ERR);
TRACE_DEFINE_ENUM(IB_WC_WR_FLUSH_ERR);
TRACE_DEFINE_ENUM(IB_WC_MW_BIND_ERR);
TRACE_DEFINE_ENUM(IB_WC_BAD_RESP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_ACCESS_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_INV_REQ_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_ACCESS_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_RETRY_EXC_ERR);
TRACE_DEFINE_ENUM(IB_WC_RNR_RETRY_EXC_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_RDD_VIOL_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_INV_RD_REQ_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_ABORT_ERR);
TRACE_DEFINE_ENUM(IB_WC_INV_EECN_ERR);
TRACE_DEFINE_ENUM(IB_WC_INV_EEC_STATE_ERR);
TRACE_DEFINE_ENUM(IB_WC_FATAL_ERR);
TRACE_DEFINE_ENUM(IB_WC_RESP_TIMEOUT_ERR);
TRACE_DEFINE_ENUM(IB_WC_GENERAL_ERR);

#define mrcore_show_wc_status(status)					\
	__print_symbolic(status,					\
			 { MRCORE_WC_NONE, "NO_COMPLETION" },		\
			 { IB_WC_SUCCESS, "SUCCESS" },			\
			 { IB_WC_LOC_LEN_ERR, "LOC_LEN_ERR" },		\
			 { IB_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR" },	\
			 { IB_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR" },	\
			 { IB_WC_LOC_PROT_ERR, "LOC_PROT_ERR" },	\
			 { IB_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR" },	\
			 { IB_WC_MW_BIND_ERR, "MW_BIND_ERR" },		\
			 { IB_WC_BAD_RESP_ERR, "BAD_RESP_ERR" },	\
			 { IB_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR" },	\
			 { IB_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR" },	\
			 { IB_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR" },	\
			 { IB_WC_REM_OP_ERR, "REM_OP_ERR" },		\
			 { IB_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR" },	\
			 { IB_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR" },	\
			 { IB_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR" },	\
			 { IB_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR" },	\
			 { IB_WC_REM_ABORT_ERR, "REM_ABORT_ERR" },	\
			 { IB_WC_INV_EECN_ERR, "INV_EECN_ERR" },	\
			 { IB_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR" },	\
			 { IB_WC_FATAL_ERR, "FATAL_ERR" },		\
			 { IB_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR" },	\
			 { IB_WC_GENERAL_ERR, "GENERAL_ERR" })

/*
 * The device and QP of an I/O: every event of the I/O path carries them,
 * so one device's or connection's events can be told apart.
 */
#define mrcore_trace_dev(pool)	((pool)->info.dev->name)
#define mrcore_trace_qpn(pool)	((pool)->info.qp->qp_num)

TRACE_EVENT(mrcore_io_init,
	    TP_PROTO(const struct rdma_io_ctx *ctx, const char *why, u32 cost),
	    TP_ARGS(ctx, why, cost),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __array(char, backend, 16)
			     __array(char, why, 16)
			     __field(bool, read)
			     __field(u64, length)
			     __field(u32, nents)
			     __field(u32, cost)
			     __field(u32, wrs)
			     __field(u32, mrs)),
	    TP_fast_assign(strscpy(__entry->dev, mrcore_trace_dev(ctx->pool),
				   IB_DEVICE_NAME_MAX);
			   __entry->qpn = mrcore_trace_qpn(ctx->pool);
			   strscpy(__entry->backend, ctx->backend->name, 16);
			   strscpy(__entry->why, why, 16);
			   __entry->read = ctx->dir == DMA_FROM_DEVICE;
			   __entry->length = ctx->length;
			   __entry->nents = ctx->dma_nents;
			   __entry->cost = cost;
			   __entry->wrs = ctx->nr_wrs;
			   __entry->mrs = ctx->nr_mrs;),
	    TP_printk("dev=%s qpn=%u %s length=%llu nents=%u backend=%s (%s, cost %u) wrs=%u mrs=%u",
		      __entry->dev, __entry->qpn,
		      __entry->read ? "READ" : "WRITE", __entry->length,
		      __entry->nents, __entry->backend, __entry->why,
		      __entry->cost,
		      __entry->wrs, __entry->mrs));

TRACE_EVENT(mrcore_io_post,
	    TP_PROTO(const struct rdma_io_ctx *ctx, int ret),
	    TP_ARGS(ctx, ret),
	    TP_STRUCT__entry(__field(u32, wrs)
			     __field(int, ret)),
	    TP_fast_assign(__entry->wrs = ctx->nr_wrs;
			   __entry->ret = ret;),
	    TP_printk("wrs=%u ret=%d", __entry->wrs, __entry->ret));

TRACE_EVENT(mrcore_io_done,
	    TP_PROTO(const struct rdma_io_ctx *ctx, const struct ib_wc *wc),
	    TP_ARGS(ctx, wc),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __array(char, backend, 16)
			     __field(int, status)
			     __field(u32, mrs)),
	    TP_fast_assign(strscpy(__entry->dev, mrcore_trace_dev(ctx->pool),
				   IB_DEVICE_NAME_MAX);
			   __entry->qpn = mrcore_trace_qpn(ctx->pool);
			   strscpy(__entry->backend, ctx->backend->name, 16);
			   __entry->status = wc ? wc->status : MRCORE_WC_NONE;
			   __entry->mrs = ctx->nr_mrs;),
	    TP_printk("dev=%s qpn=%u backend=%s status=%s mrs=%u",
		      __entry->dev, __entry->qpn, __entry->backend,
		      mrcore_show_wc_status(__entry->status), __entry->mrs));

TRACE_EVENT(mrcore_pool_exhausted,
	    TP_PROTO(const struct rdma_io_pool *pool, u32 wanted, u32 free),
	    TP_ARGS(pool, wanted, free),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, wanted)
			     __field(u32, free)),
	    TP_fast_assign(strscpy(__entry->dev, mrcore_trace_dev(pool),
				   IB_DEVICE_NAME_MAX);
			   __entry->qpn = mrcore_trace_qpn(pool);
			   __entry->wanted = wanted;
			   __entry->free = free;),
	    TP_printk("dev=%s qpn=%u wanted=%u free=%u", __entry->dev,
		      __entry->qpn, __entry->wanted, __entry->free));

#endif /* _MRCORE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mrcore_trace
#include <trace/define_trace.h>

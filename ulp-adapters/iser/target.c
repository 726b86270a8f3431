// SPDX-License-Identifier: GPL-2.0-only
/*
 * iSER-style adapter, target side: data-out pulled with RDMA READ, data-in
 * pushed with RDMA WRITE before the response, through the READ/WRITE
 * helper.  See include/rdma/mrcore_iser.h.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/mrcore_iser.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_iser_target - the target end of one connection
 * @qp: the connection's QP.
 * @pool: the READ/WRITE helper's pool on @qp.
 */
struct mrcore_iser_target {
	struct ib_qp *qp;
	struct rdma_io_pool *pool;
};

/**
 * mrcore_iser_target_create() - set up the target end of a connection
 * @qp: the connected QP.
 * @port_num: its port.
 * @max_cmds: commands moving data at once.
 * @max_pages: pages of the largest transfer.
 *
 * Size the send queue for rdma_io_max_send_wr() per command, plus the
 * responses, and the send CQ for rdma_io_max_cqe() per command, plus the
 * responses.  The send CQ of @qp must be polled in process context
 * (%IB_POLL_WORKQUEUE, %IB_POLL_UNBOUND_WORKQUEUE or direct): a command's
 * completion handler destroys its I/O, and the destroy of a failed one
 * sleeps until its keys are dead.
 *
 * Context: Process context; may sleep.
 * Return: the target, or an ERR_PTR(): -EINVAL for a NULL @qp, a zero
 * count or a send CQ polled in softirq, -ENOMEM, or the error of rdma_io_pool_create().
 */
struct mrcore_iser_target *mrcore_iser_target_create(struct ib_qp *qp,
						     u32 port_num,
						     u32 max_cmds,
						     u32 max_pages)
{
	struct mrcore_iser_target *target;
	int ret;

	if (!qp || !max_cmds || !max_pages ||
	    qp->send_cq->poll_ctx == IB_POLL_SOFTIRQ)
		return ERR_PTR(-EINVAL);
	target = kzalloc(sizeof(*target), GFP_KERNEL);
	if (!target)
		return ERR_PTR(-ENOMEM);
	target->qp = qp;
	target->pool = rdma_io_pool_create(qp, port_num, max_cmds, max_pages);
	if (IS_ERR(target->pool)) {
		ret = PTR_ERR(target->pool);
		kfree(target);
		return ERR_PTR(ret);
	}
	return target;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_target_create, RDMA_MRCORE);

/**
 * mrcore_iser_target_destroy() - free the target end of a connection
 * @target: the target, or %NULL.
 *
 * Every command must have completed or been released.
 *
 * Context: Process context; may sleep.
 */
void mrcore_iser_target_destroy(struct mrcore_iser_target *target)
{
	if (!target)
		return;
	rdma_io_pool_destroy(target->pool);
	kfree(target);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_target_destroy, RDMA_MRCORE);

static void cmd_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrcore_iser_cmd *cmd = container_of(wc->wr_cqe,
						   struct mrcore_iser_cmd, cqe);

	if (cmd->io_live) {
		rdma_io_ctx_destroy(&cmd->io, wc);
		cmd->io_live = false;
	}
	cmd->done(cmd, wc->status == IB_WC_SUCCESS ? 0 : -EIO);
}

/**
 * mrcore_iser_cmd_init() - start a command on the target
 * @cmd: the command.
 * @target: the target end of the connection.
 * @stag: the STag of the command's iSER header (the initiator's buffer).
 * @va: the VA of the iSER header.
 *
 * Context: Any context.
 */
void mrcore_iser_cmd_init(struct mrcore_iser_cmd *cmd,
			  struct mrcore_iser_target *target, u32 stag, u64 va)
{
	cmd->target = target;
	cmd->stag = stag;
	cmd->va = va;
	cmd->io_live = false;
	cmd->done = NULL;
	cmd->cqe.done = cmd_done;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_cmd_init, RDMA_MRCORE);

static int cmd_io_init(struct mrcore_iser_cmd *cmd, struct scatterlist *sg,
		       unsigned int nents, enum dma_data_direction dir)
{
	int ret;

	if (!cmd || !cmd->target || !sg || !nents)
		return -EINVAL;
	if (cmd->io_live)
		return -EBUSY;
	ret = rdma_io_ctx_init(&cmd->io, cmd->target->pool, sg, nents, 0,
			       cmd->va, cmd->stag, dir);
	if (ret < 0)
		return ret;
	cmd->io_live = true;
	return 0;
}

/**
 * mrcore_iser_cmd_data_out() - READ a SCSI WRITE's data-out
 * @cmd: the command.
 * @sg: the buffer to fill.
 * @nents: entries of @sg.
 * @done: called with 0 when every byte arrived, or -EIO; from the CQ's
 *	completion context.
 *
 * Context: Process context; may sleep.
 * Return: 0 when posted; -EINVAL for a NULL argument or zero @nents;
 * -EBUSY if the command has a transfer in progress; the error of
 * rdma_io_ctx_init() or of ib_post_send().  On an error nothing is held
 * and @done is not called, except -EINPROGRESS: the driver took part of
 * the chain; drain the QP's send queue (ib_drain_sq()), then call
 * mrcore_iser_cmd_release().
 */
int mrcore_iser_cmd_data_out(struct mrcore_iser_cmd *cmd,
			     struct scatterlist *sg, unsigned int nents,
			     void (*done)(struct mrcore_iser_cmd *cmd,
					  int status))
{
	int ret;

	if (!done)
		return -EINVAL;
	ret = cmd_io_init(cmd, sg, nents, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	cmd->done = done;
	ret = rdma_io_ctx_post(&cmd->io, &cmd->cqe, NULL);
	/* In part: the I/O stays until the ULP drained and released it. */
	if (ret && ret != -EINPROGRESS)
		mrcore_iser_cmd_release(cmd);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_cmd_data_out, RDMA_MRCORE);

/**
 * mrcore_iser_cmd_data_in() - prepare the WRITE of a SCSI READ's data-in
 * @cmd: the command.
 * @sg: the data.
 * @nents: entries of @sg.
 *
 * The WRITE is posted by mrcore_iser_cmd_response(), in front of the
 * response.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL argument or zero @nents; -EBUSY if the
 * command has a transfer in progress; or the error of rdma_io_ctx_init().
 */
int mrcore_iser_cmd_data_in(struct mrcore_iser_cmd *cmd,
			    struct scatterlist *sg, unsigned int nents)
{
	return cmd_io_init(cmd, sg, nents, DMA_TO_DEVICE);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_cmd_data_in, RDMA_MRCORE);

/**
 * mrcore_iser_cmd_response() - post the data-in (if any) and the response
 * @cmd: the command.
 * @rsp_send: the response's Send WR, its payload encoded; the adapter sets
 *	its opcode, completion entry and flags, and chains the data-in WRITE
 *	in front of it.
 * @remote_inv: the initiator accepts remote invalidation: the response is
 *	a SEND_WITH_INV of the command's STag.
 * @done: called with 0 when the response was sent (so the data-in
 *	landed), or -EIO; from the CQ's completion context.
 *
 * Context: Any context.
 * Return: 0 when posted; -EINVAL for a NULL argument; or the error of
 * ib_post_send(), after which the data-in is released and @done is not
 * called; or -EINPROGRESS if the driver took part of the chain: @done is
 * not called, and once the QP's send queue was drained (ib_drain_sq())
 * mrcore_iser_cmd_release() releases the data-in.
 */
int mrcore_iser_cmd_response(struct mrcore_iser_cmd *cmd,
			     struct ib_send_wr *rsp_send, bool remote_inv,
			     void (*done)(struct mrcore_iser_cmd *cmd,
					  int status))
{
	struct ib_send_wr *first = rsp_send;
	int ret;

	if (!cmd || !cmd->target || !rsp_send || !done)
		return -EINVAL;
	rsp_send->next = NULL;
	rsp_send->opcode = IB_WR_SEND;
	if (remote_inv)
		rdma_send_with_inv(rsp_send, cmd->stag);
	rsp_send->wr_cqe = &cmd->cqe;
	rsp_send->send_flags |= IB_SEND_SIGNALED;
	if (cmd->io_live)
		first = rdma_io_ctx_wrs(&cmd->io, NULL, rsp_send);
	cmd->done = done;
	ret = rdma_post_send_chain(cmd->target->qp, first);
	/* In part: the I/O stays until the ULP drained and released it. */
	if (ret && ret != -EINPROGRESS)
		mrcore_iser_cmd_release(cmd);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_cmd_response, RDMA_MRCORE);

/**
 * mrcore_iser_cmd_release() - drop a data-in that will not be posted
 * @cmd: the command, with no transfer posted and not completed, or one
 *	whose post returned -EINPROGRESS, once the QP's send queue was
 *	drained.
 *
 * No key of the transfer stays valid; its MRs go through the helper's
 * quarantine.
 *
 * Context: Any context.
 */
void mrcore_iser_cmd_release(struct mrcore_iser_cmd *cmd)
{
	if (cmd && cmd->io_live) {
		rdma_io_ctx_destroy(&cmd->io, NULL);
		cmd->io_live = false;
	}
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_cmd_release, RDMA_MRCORE);

MODULE_DESCRIPTION("rdma-mrcore iSER-style adapter: SCSI data-in and data-out on the map API and the READ/WRITE helper");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);

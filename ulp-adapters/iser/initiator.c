// SPDX-License-Identifier: GPL-2.0-only
/*
 * iSER-style adapter, initiator side: a task's data buffer registered for
 * the target, and its STag dead before the task completes, on the core's
 * rkey MR set (the MRs, their invalidation and the retiring of STags in an
 * unknown state are the core's).  See include/rdma/mrcore_iser.h.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/mrcore_iser.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_iser_conn - the initiator end of one connection
 * @set: the rkey MRs of the connection's QP, one per task.
 */
struct mrcore_iser_conn {
	struct rdma_rkey_set *set;
};

/**
 * mrcore_iser_conn_create() - set up the initiator end of a connection
 * @qp: the connected QP; commands and the adapter's WRs are posted on it.
 * @max_tasks: tasks with data in flight at once (one MR each).
 * @max_pages: pages of the largest data buffer.
 *
 * Size the send queue for two WRs per task (registration, invalidation)
 * besides the commands.
 *
 * Context: Process context; may sleep.
 * Return: the connection, or an ERR_PTR(): -EINVAL for a NULL @qp or a zero
 * count, -ENOMEM, or the error of rdma_rkey_set_create() (e.g. -E2BIG when
 * the device cannot register @max_pages pages in one MR).
 */
struct mrcore_iser_conn *mrcore_iser_conn_create(struct ib_qp *qp,
						 u32 max_tasks, u32 max_pages)
{
	struct mrcore_iser_conn *conn = kzalloc(sizeof(*conn), GFP_KERNEL);

	if (!conn)
		return ERR_PTR(-ENOMEM);
	conn->set = rdma_rkey_set_create(qp, max_tasks, max_pages);
	if (IS_ERR(conn->set)) {
		struct rdma_rkey_set *err = conn->set;

		kfree(conn);
		return ERR_CAST(err);
	}
	return conn;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_conn_create, RDMA_MRCORE);

/**
 * mrcore_iser_conn_destroy() - free the initiator end of a connection
 * @conn: the connection, or %NULL.
 *
 * Waits for tasks being retired; every task must have completed (its done
 * callback ran).  Call before the QP's PD is freed.
 *
 * Context: Process context; may sleep.
 */
void mrcore_iser_conn_destroy(struct mrcore_iser_conn *conn)
{
	if (!conn)
		return;
	rdma_rkey_set_destroy(conn->set);
	kfree(conn);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_conn_destroy, RDMA_MRCORE);

static void task_done(struct rdma_rkey_req *rk, int status)
{
	struct mrcore_iser_task *task = container_of(rk,
						     struct mrcore_iser_task,
						     rk);

	task->done(task, status);
}

/**
 * mrcore_iser_task_reg() - register a task's data buffer for the target
 * @task: the task.
 * @conn: the initiator end of the connection.
 * @dir: data-in (the target WRITEs the buffer) or data-out (the target
 *	READs it).
 * @sg: the buffer (the SCSI command's scatterlist); it must stay valid
 *	until @done ran.
 * @nents: entries of @sg.
 * @cmd_send: the Send WR that will carry the command; the registration is
 *	chained in front of it.  Its payload (the iSER header with @stag and
 *	@va) may be written after this call; it must stay valid until
 *	mrcore_iser_task_send() returned.
 * @stag: the STag for the iSER header, on success.
 * @va: the VA for the iSER header, on success.
 * @done: called once when the STag is dead and the buffer is the ULP's
 *	again: with 0, or -EIO if the STag had to be killed by deregistering
 *	its MR.  Runs in the CQ's completion context or in a work item, or
 *	within mrcore_iser_task_response().
 *
 * The target gets exactly @dir's access to exactly the bytes of @sg.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for a NULL argument, zero @nents or an unknown @dir;
 * -EAGAIN if the connection has no free MR; or the error of
 * rdma_rkey_map_sg().  On an error nothing is registered and @done is not
 * called.
 */
int mrcore_iser_task_reg(struct mrcore_iser_task *task,
			 struct mrcore_iser_conn *conn,
			 enum mrcore_iser_dir dir, struct scatterlist *sg,
			 unsigned int nents, struct ib_send_wr *cmd_send,
			 u32 *stag, u64 *va,
			 void (*done)(struct mrcore_iser_task *task, int status))
{
	if (!task || !conn || !cmd_send || !done || dir > MRCORE_ISER_DATA_OUT)
		return -EINVAL;
	task->done = done;
	rdma_rkey_req_init(&task->rk, conn->set, cmd_send, task_done);
	return rdma_rkey_map_sg(&task->rk, sg, nents,
				dir == MRCORE_ISER_DATA_IN ?
				RDMA_MR_REMOTE_WRITE : RDMA_MR_REMOTE_READ,
				stag, va);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_task_reg, RDMA_MRCORE);

/**
 * mrcore_iser_task_send() - post the registration and the command
 * @task: the task, its buffer registered and the command encoded.
 *
 * Post the Receive for the response before.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for a NULL @task; or the error of ib_post_send():
 * then end the task with mrcore_iser_task_response(@task, %NULL).
 * -EINPROGRESS: the driver took part of the chain (the registration, which
 * may run); mrcore_iser_task_response() then drains the QP's send queue
 * before it deregisters the MR.
 */
int mrcore_iser_task_send(struct mrcore_iser_task *task)
{
	return task ? rdma_rkey_req_post(&task->rk) : -EINVAL;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_task_send, RDMA_MRCORE);

/**
 * mrcore_iser_task_response() - the response arrived: kill the STag
 * @task: the task.
 * @rsp_wc: the Receive completion of the SCSI response, or %NULL if none
 *	will come (the command was never sent, or the connection is lost).
 *
 * rdma_rkey_req_retire(): if the target invalidated the task's STag
 * (SEND_WITH_INV, seen as %IB_WC_WITH_INVALIDATE with that key) nothing is
 * left to do; otherwise the STag is invalidated locally and the task
 * completes with that invalidation.  Without a successful response, or if
 * the invalidation fails, the MR is deregistered by the core's work, which
 * kills the STag, and done gets -EIO.
 *
 * Context: Any context.
 */
void mrcore_iser_task_response(struct mrcore_iser_task *task,
			       const struct ib_wc *rsp_wc)
{
	rdma_rkey_req_retire(&task->rk, rsp_wc);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_task_response, RDMA_MRCORE);

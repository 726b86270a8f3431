// SPDX-License-Identifier: GPL-2.0-only
/*
 * iSER-style adapter, initiator side: a task's data buffer registered for
 * the target, and its STag dead before the task completes.  See
 * include/rdma/mrcore_iser.h.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/mrcore_iser.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_iser_conn - the initiator end of one connection
 * @qp: the connection's QP.
 * @max_pages: pages of the largest data buffer.
 * @wq: retires MRs whose keys are in an unknown state.
 * @lock: protects @free, @nr_free and @nr_mrs.
 * @free: the MRs no task uses.
 * @nr_free: entries in @free.
 * @nr_mrs: MRs the connection owns (free or in use).
 */
struct mrcore_iser_conn {
	struct ib_qp *qp;
	u32 max_pages;
	struct workqueue_struct *wq;
	spinlock_t lock;	/* the free MRs and the count */
	struct rdma_mr **free;
	u32 nr_free;
	u32 nr_mrs;
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
 * count, -ENOMEM, or the error of rdma_create_mr() (e.g. -E2BIG when the
 * device cannot register @max_pages pages in one MR).
 */
struct mrcore_iser_conn *mrcore_iser_conn_create(struct ib_qp *qp,
						 u32 max_tasks, u32 max_pages)
{
	struct mrcore_iser_conn *conn;
	struct rdma_mr *mr;
	int ret;

	if (!qp || !max_tasks || !max_pages)
		return ERR_PTR(-EINVAL);
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	conn->qp = qp;
	conn->max_pages = max_pages;
	spin_lock_init(&conn->lock);
	conn->free = kcalloc(max_tasks, sizeof(*conn->free), GFP_KERNEL);
	if (!conn->free) {
		ret = -ENOMEM;
		goto free_conn;
	}
	conn->wq = alloc_workqueue("mrcore_iser_ini", WQ_MEM_RECLAIM, 0);
	if (!conn->wq) {
		ret = -ENOMEM;
		goto free_array;
	}
	while (conn->nr_mrs < max_tasks) {
		mr = rdma_create_mr(qp->pd, max_pages, RDMA_MR_ROLE_RKEY);
		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			goto destroy_mrs;
		}
		conn->free[conn->nr_free++] = mr;
		conn->nr_mrs++;
	}
	return conn;

destroy_mrs:
	while (conn->nr_free)
		rdma_destroy_mr(conn->free[--conn->nr_free]);
	destroy_workqueue(conn->wq);
free_array:
	kfree(conn->free);
free_conn:
	kfree(conn);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_conn_create, RDMA_MRCORE);

/**
 * mrcore_iser_conn_destroy() - free the initiator end of a connection
 * @conn: the connection, or %NULL.
 *
 * Every task must have completed (its done callback ran).  Call before the
 * QP's PD is freed.
 *
 * Context: Process context; may sleep.
 */
void mrcore_iser_conn_destroy(struct mrcore_iser_conn *conn)
{
	if (!conn)
		return;
	/* Tasks being retired give their MRs back first. */
	destroy_workqueue(conn->wq);
	WARN_ON_ONCE(conn->nr_free != conn->nr_mrs);
	while (conn->nr_free)
		rdma_destroy_mr(conn->free[--conn->nr_free]);
	kfree(conn->free);
	kfree(conn);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_conn_destroy, RDMA_MRCORE);

static void conn_put_mr(struct mrcore_iser_conn *conn, struct rdma_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	if (mr)
		conn->free[conn->nr_free++] = mr;
	else
		conn->nr_mrs--;
	spin_unlock_irqrestore(&conn->lock, flags);
}

/*
 * The STag's state is unknown (the registration or invalidation may or may
 * not have run): rdma_mr_reset() deregisters the device MR, which kills it
 * whatever happened, before it releases the buffer, and a fresh device MR
 * takes its place.
 */
static void task_retire_work(struct work_struct *work)
{
	struct mrcore_iser_task *task = container_of(work,
						     struct mrcore_iser_task,
						     work);
	struct mrcore_iser_conn *conn = task->conn;
	struct rdma_mr *mr = task->mr;

	/* The key dies with the device MR, before the memory is released;
	 * an MR that got no new device MR is gone.
	 */
	conn_put_mr(conn, rdma_mr_reset(mr) ? NULL : mr);
	task->mr = NULL;
	task->done(task, task->status);
}

static void task_retire(struct mrcore_iser_task *task)
{
	task->status = -EIO;
	queue_work(task->conn->wq, &task->work);
}

/* The STag is dead: release the buffer and complete the task. */
static void task_finish(struct mrcore_iser_task *task)
{
	if (WARN_ON_ONCE(rdma_unmap_mr(task->mr))) {
		/* Cannot happen for an invalidated STag; be safe. */
		task_retire(task);
		return;
	}
	conn_put_mr(task->conn, task->mr);
	task->mr = NULL;
	task->done(task, 0);
}

static void task_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrcore_iser_task *task = container_of(wc->wr_cqe,
						     struct mrcore_iser_task,
						     inv_cqe);

	if (wc->status == IB_WC_SUCCESS)
		task_finish(task);
	else
		task_retire(task);
}

/**
 * mrcore_iser_task_reg() - register a task's data buffer for the target
 * @task: the task.
 * @conn: the initiator end of the connection.
 * @dir: data-in (the target WRITEs the buffer) or data-out (the target
 *	READs it).
 * @sg: the buffer (the SCSI command's scatterlist).
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
 * rdma_map_sg_rkey().  On an error nothing is registered and @done is not
 * called.
 */
int mrcore_iser_task_reg(struct mrcore_iser_task *task,
			 struct mrcore_iser_conn *conn,
			 enum mrcore_iser_dir dir, struct scatterlist *sg,
			 unsigned int nents, struct ib_send_wr *cmd_send,
			 u32 *stag, u64 *va,
			 void (*done)(struct mrcore_iser_task *task, int status))
{
	unsigned int ops;
	unsigned long flags;
	int ret;

	if (!task || !conn || !sg || !nents || !cmd_send || !stag || !va ||
	    !done)
		return -EINVAL;
	if (dir == MRCORE_ISER_DATA_IN)
		ops = RDMA_MR_REMOTE_WRITE;
	else if (dir == MRCORE_ISER_DATA_OUT)
		ops = RDMA_MR_REMOTE_READ;
	else
		return -EINVAL;

	task->conn = conn;
	task->done = done;
	task->status = 0;
	task->first = cmd_send;
	task->inv_cqe.done = task_inv_done;
	INIT_WORK(&task->work, task_retire_work);
	task->mr = NULL;
	spin_lock_irqsave(&conn->lock, flags);
	if (conn->nr_free)
		task->mr = conn->free[--conn->nr_free];
	spin_unlock_irqrestore(&conn->lock, flags);
	if (!task->mr)
		return -EAGAIN;
	ret = rdma_map_sg_rkey(stag, va, task->mr, sg, nents, ops,
			       &task->first);
	if (ret) {
		conn_put_mr(conn, task->mr);
		task->mr = NULL;
	}
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_task_reg, RDMA_MRCORE);

/**
 * mrcore_iser_task_send() - post the registration and the command
 * @task: the task, its buffer registered and the command encoded.
 *
 * Post the Receive for the response before.
 *
 * Context: Any context.
 * Return: 0, or the error of ib_post_send(); then end the task with
 * mrcore_iser_task_response(@task, %NULL).  -EINPROGRESS: the driver took
 * part of the chain (the registration, which may run): drain the QP's
 * send queue (ib_drain_sq()) first.
 */
int mrcore_iser_task_send(struct mrcore_iser_task *task)
{
	if (!task || !task->mr)
		return -EINVAL;
	return rdma_post_send_chain(task->conn->qp, task->first);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_task_send, RDMA_MRCORE);

/**
 * mrcore_iser_task_response() - the response arrived: kill the STag
 * @task: the task.
 * @rsp_wc: the Receive completion of the SCSI response, or %NULL if none
 *	will come (the command was never sent, or the connection is lost).
 *
 * If the target invalidated the task's STag (SEND_WITH_INV, seen as
 * %IB_WC_WITH_INVALIDATE with that key) nothing is left to do; otherwise
 * the STag is invalidated locally and the task completes with that
 * invalidation.  Without a successful response, or if the invalidation
 * fails, the MR is deregistered by a work item, which kills the STag, and
 * done gets -EIO.
 *
 * Context: Any context.
 */
void mrcore_iser_task_response(struct mrcore_iser_task *task,
			       const struct ib_wc *rsp_wc)
{
	struct ib_send_wr *first = NULL;
	int ret;

	if (!rsp_wc || rsp_wc->status != IB_WC_SUCCESS) {
		task_retire(task);
		return;
	}
	if (!rdma_mr_check_remote_inv(task->mr, rsp_wc)) {
		task_finish(task);
		return;
	}
	/* No remote invalidation, or of another key: invalidate here. */
	rdma_mr_set_cqe(task->mr, &task->inv_cqe);
	ret = rdma_invalidate_mr(task->mr, &first);
	rdma_mr_set_cqe(task->mr, NULL);
	if (ret) {
		task_retire(task);
		return;
	}
	/* A backend that invalidates synchronously posts nothing. */
	if (!first) {
		task_finish(task);
		return;
	}
	if (ib_post_send(task->conn->qp, first, NULL))
		task_retire(task);
}
EXPORT_SYMBOL_NS_GPL(mrcore_iser_task_response, RDMA_MRCORE);

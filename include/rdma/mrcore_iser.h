/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma-mrcore iSER-style adapter (mrcore_iser.ko): SCSI data movement of
 * iSER on top of the rkey MR set and the READ/WRITE helper.
 *
 * Initiator, on the rkey MR set: a task registers its data buffer for the
 * target (data-in: the target WRITEs into it; data-out: the target READs
 * from it), which gives the STag and VA of the iSER header, chained before
 * the command's Send.  When the response arrives the STag is dead before
 * the task completes: invalidated by the target (SEND_WITH_INV) or else
 * locally.
 *
 * Target: a command pulls data-out with RDMA READ, and pushes data-in with
 * RDMA WRITE chained before the response, which may invalidate the
 * initiator's STag.
 *
 * Neither side sees an lkey, an access flag or the transport.
 */
#ifndef _RDMA_MRCORE_ISER_H
#define _RDMA_MRCORE_ISER_H

#include <rdma/mrcore.h>

/**
 * enum mrcore_iser_dir - the data direction of a task
 * @MRCORE_ISER_DATA_IN: a SCSI READ: the target WRITEs data-in into the
 *	initiator's buffer.
 * @MRCORE_ISER_DATA_OUT: a SCSI WRITE: the target READs data-out from the
 *	initiator's buffer.
 */
enum mrcore_iser_dir {
	MRCORE_ISER_DATA_IN,
	MRCORE_ISER_DATA_OUT,
};

struct mrcore_iser_conn;
struct mrcore_iser_target;

/**
 * struct mrcore_iser_task - one SCSI task on the initiator; embedded by
 *	the ULP
 * @rk: the key of the data buffer, in the connection's rkey set.
 * @done: called once the STag is dead.
 *
 * Every field is private to the adapter.
 */
struct mrcore_iser_task {
	struct rdma_rkey_req rk;
	void (*done)(struct mrcore_iser_task *task, int status);
};

struct mrcore_iser_conn *mrcore_iser_conn_create(struct ib_qp *qp,
						 u32 max_tasks, u32 max_pages);
void mrcore_iser_conn_destroy(struct mrcore_iser_conn *conn);

int mrcore_iser_task_reg(struct mrcore_iser_task *task,
			 struct mrcore_iser_conn *conn,
			 enum mrcore_iser_dir dir, struct scatterlist *sg,
			 unsigned int nents, struct ib_send_wr *cmd_send,
			 u32 *stag, u64 *va,
			 void (*done)(struct mrcore_iser_task *task, int status));
int mrcore_iser_task_send(struct mrcore_iser_task *task);
void mrcore_iser_task_response(struct mrcore_iser_task *task,
			       const struct ib_wc *rsp_wc);

/**
 * struct mrcore_iser_cmd - one SCSI command on the target; embedded by the
 *	ULP
 * @target: the connection.
 * @stag: the initiator's STag from the iSER header.
 * @va: the initiator's VA from the iSER header.
 * @io: the data-in or data-out transfer.
 * @io_live: @io is initialized and not yet destroyed.
 * @done: called when the step completed.
 * @cqe: completion entry of the step's last WR.
 *
 * Every field is private to the adapter.
 */
struct mrcore_iser_cmd {
	struct mrcore_iser_target *target;
	u32 stag;
	u64 va;
	struct rdma_io_ctx io;
	bool io_live;
	void (*done)(struct mrcore_iser_cmd *cmd, int status);
	struct ib_cqe cqe;
};

struct mrcore_iser_target *mrcore_iser_target_create(struct ib_qp *qp,
						     u32 port_num,
						     u32 max_cmds,
						     u32 max_pages);
void mrcore_iser_target_destroy(struct mrcore_iser_target *target);

void mrcore_iser_cmd_init(struct mrcore_iser_cmd *cmd,
			  struct mrcore_iser_target *target, u32 stag, u64 va);
int mrcore_iser_cmd_data_out(struct mrcore_iser_cmd *cmd,
			     struct scatterlist *sg, unsigned int nents,
			     void (*done)(struct mrcore_iser_cmd *cmd,
					  int status));
int mrcore_iser_cmd_data_in(struct mrcore_iser_cmd *cmd,
			    struct scatterlist *sg, unsigned int nents);
int mrcore_iser_cmd_response(struct mrcore_iser_cmd *cmd,
			     struct ib_send_wr *rsp_send, bool remote_inv,
			     void (*done)(struct mrcore_iser_cmd *cmd,
					  int status));
void mrcore_iser_cmd_release(struct mrcore_iser_cmd *cmd);

#endif /* _RDMA_MRCORE_ISER_H */

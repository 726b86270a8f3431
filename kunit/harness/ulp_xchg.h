/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NFS-style and iSER-style exchanges over a harness pair, through the ULP
 * adapters (mrcore_ulp.ko): the client/initiator runs on the pair's active
 * end, the server/target on its passive end.  Calls, commands, replies and
 * responses are real SENDs into posted RECVs; the data moves through the
 * adapters.  Shared by the KUnit suites mrcore_nfs_* and mrcore_iser_* and
 * by the demo.  Exported in the MRCORE_HARNESS namespace.
 */
#ifndef _MRCORE_ULP_XCHG_H
#define _MRCORE_ULP_XCHG_H

#include <rdma/mrcore_iser.h>
#include <rdma/mrcore_nfs.h>

#include "mrcore_harness.h"

/* Pages of one NFS segment (client MR), and of the largest iSER buffer. */
#define MRCORE_XCHG_NFS_SEG_PAGES	128
#define MRCORE_XCHG_ISER_MAX_PAGES	256

/**
 * enum mrcore_xchg_kind - the protocol of an exchange pair
 * @MRCORE_XCHG_NFS: NFS-style client and server.
 * @MRCORE_XCHG_ISER: iSER-style initiator and target.
 */
enum mrcore_xchg_kind {
	MRCORE_XCHG_NFS,
	MRCORE_XCHG_ISER,
};

/**
 * struct mrcore_xchg_key - a key the client/initiator advertised
 * @handle: the rkey (handle, STag).
 * @addr: its address (offset, VA).
 * @len: bytes behind it.
 * @writable: the server/target was to WRITE it (else READ it).
 * @remote_inv: the server/target invalidated it with SEND_WITH_INV.
 */
struct mrcore_xchg_key {
	u32 handle;
	u64 addr;
	u32 len;
	bool writable;
	bool remote_inv;
};

#define MRCORE_XCHG_MAX_KEYS	(3 * MRCORE_NFS_MAX_SEGS)

/**
 * struct mrcore_xchg_wait - a completion entry that keeps the whole
 *	work completion (flags and invalidated key included)
 * @cqe: the entry.
 * @done: completed by the CQ callback.
 * @wc: a copy of the work completion.
 */
struct mrcore_xchg_wait {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

/**
 * struct mrcore_xchg_msg - a small message buffer for a SEND or a RECV
 * @buf: the bytes.
 * @dma: their DMA address.
 * @sge: the SGE over them.
 * @side: the end that owns the buffer.
 * @device: its device, which outlives the pair (the buffer is unmapped
 *	after the pair's QPs were drained and the pair freed).
 */
struct mrcore_xchg_msg {
	void *buf;
	u64 dma;
	struct ib_sge sge;
	struct mrcore_e2e_side *side;
	struct ib_device *device;
};

/**
 * enum mrcore_xchg_post - the adapters' posts of an exchange, in order
 * @MRCORE_XCHG_POST_NONE: none.
 * @MRCORE_XCHG_POST_CALL: the client's registrations and call (the
 *	initiator's registration and command).
 * @MRCORE_XCHG_POST_DATA: the server's READs of a read chunk (the target's
 *	data-out).
 * @MRCORE_XCHG_POST_REPLY: the server's WRITEs and reply (the target's
 *	data-in and response).
 * @MRCORE_XCHG_POST_INV: the client's invalidations after the reply.
 */
enum mrcore_xchg_post {
	MRCORE_XCHG_POST_NONE,
	MRCORE_XCHG_POST_CALL,
	MRCORE_XCHG_POST_DATA,
	MRCORE_XCHG_POST_REPLY,
	MRCORE_XCHG_POST_INV,
};

/**
 * struct mrcore_xchg - a connected pair with one protocol's adapters
 * @kind: the protocol.
 * @pair: the harness pair (active: client/initiator; passive:
 *	server/target).
 * @call_tx: the call/command, sent by the active end.
 * @call_rx: where the passive end receives it.
 * @reply_tx: the reply/response, sent by the passive end.
 * @reply_rx: where the active end receives it.
 * @call_sent: completion of the call's Send.
 * @call_recv: completion of the call's Receive.
 * @reply_recv: completion of the reply's Receive.
 * @active_done: the client/initiator's done callback ran.
 * @active_status: its status.
 * @passive_done: the server/target's done callback ran.
 * @passive_status: its status.
 * @send_wr: the call's Send WR.
 * @reply_wr: the reply's Send WR.
 * @nfs_clnt: NFS client.
 * @nfs_svc: NFS server.
 * @nfs_req: the client's request.
 * @nfs_rpc: the server's RPC.
 * @iser_conn: iSER initiator.
 * @iser_target: iSER target.
 * @iser_task: the initiator's task.
 * @iser_cmd: the target's command.
 * @keys: the keys the last exchange advertised.
 * @nr_keys: entries of @keys.
 * @cut_post: the post of the next exchange whose chain the post_wr fault
 *	point cuts (the driver takes @cut_after WRs and refuses the next);
 *	the exchange then does what the adapters' kernel-doc asks (drain the
 *	send queue, release) and fails.
 * @cut_after: WRs of that chain taken.
 * @cut_ret: what the cut post returned.
 * @cut_hits: failures the fault point injected.
 * @srv_keys: keys of the server's/target's own I/Os in the cut post, as
 *	they were before the release (handle and address only).
 * @nr_srv_keys: entries of @srv_keys.
 */
struct mrcore_xchg {
	enum mrcore_xchg_kind kind;
	struct mrcore_e2e_pair *pair;
	struct mrcore_xchg_msg call_tx, call_rx, reply_tx, reply_rx;
	struct mrcore_xchg_wait call_sent, call_recv, reply_recv;
	struct completion active_done;
	int active_status;
	struct completion passive_done;
	int passive_status;
	struct ib_send_wr send_wr;
	struct ib_send_wr reply_wr;

	struct mrcore_nfs_clnt *nfs_clnt;
	struct mrcore_nfs_svc *nfs_svc;
	struct mrcore_nfs_req nfs_req;
	struct mrcore_nfs_rpc nfs_rpc;

	struct mrcore_iser_conn *iser_conn;
	struct mrcore_iser_target *iser_target;
	struct mrcore_iser_task iser_task;
	struct mrcore_iser_cmd iser_cmd;

	struct mrcore_xchg_key keys[MRCORE_XCHG_MAX_KEYS];
	unsigned int nr_keys;

	enum mrcore_xchg_post cut_post;
	u32 cut_after;
	int cut_ret;
	int cut_hits;
	struct mrcore_xchg_key srv_keys[MRCORE_XCHG_MAX_KEYS];
	unsigned int nr_srv_keys;
};

int mrcore_xchg_create(const struct mrcore_e2e_target *target,
		       enum mrcore_xchg_kind kind, struct mrcore_xchg **xp);
void mrcore_xchg_destroy(struct mrcore_xchg *x);

int mrcore_xchg_nfs_write(struct mrcore_xchg *x, struct mrcore_e2e_buf *data,
			  struct mrcore_e2e_buf *sink, bool remote_inv);
int mrcore_xchg_nfs_read(struct mrcore_xchg *x, struct mrcore_e2e_buf *src,
			 struct mrcore_e2e_buf *data,
			 struct mrcore_e2e_buf *reply_src,
			 struct mrcore_e2e_buf *reply_dst, bool remote_inv);
int mrcore_xchg_nfs_abandon(struct mrcore_xchg *x, struct mrcore_e2e_buf *data);
int mrcore_xchg_iser(struct mrcore_xchg *x, bool scsi_read,
		     struct mrcore_e2e_buf *ini, struct mrcore_e2e_buf *tgt,
		     bool remote_inv);
int mrcore_xchg_iser_abandon(struct mrcore_xchg *x, bool scsi_read,
			     struct mrcore_e2e_buf *ini);

int mrcore_xchg_probe(struct mrcore_xchg *x, const struct mrcore_xchg_key *key,
		      struct mrcore_e2e_buf *local);

#endif /* _MRCORE_ULP_XCHG_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma-mrcore NFS-style adapter (mrcore_nfs.ko): RPC-over-RDMA chunks on
 * top of the rkey MR set and the READ/WRITE helper.
 *
 * Client side (as xprtrdma), on the rkey MR set: a request registers the
 * pages of its chunks for the server (read chunks: the server READs them;
 * write and reply chunks: the server WRITEs into them), the registrations
 * are chained before the call's Send, and when the reply arrives every key
 * of the request is dead before the request completes: the one the server
 * invalidated with SEND_WITH_INV is recognised, the others are invalidated
 * locally.
 *
 * Server side (as svcrdma): an RPC pulls the segments of a read chunk into
 * pages with RDMA READ, and pushes pages into a write chunk and a reply
 * chunk with RDMA WRITE chained before the reply's Send, which may
 * invalidate one of the client's handles.
 *
 * Neither side sees an lkey, an access flag or the transport.
 */
#ifndef _RDMA_MRCORE_NFS_H
#define _RDMA_MRCORE_NFS_H

#include <linux/scatterlist.h>
#include <rdma/mrcore.h>

/*
 * Segments one request (client) or one RPC (server) handles at most: on
 * the client one MR each, the most an rkey set's request holds.
 */
#define MRCORE_NFS_MAX_SEGS	RDMA_RKEY_REQ_MAX_MRS

/**
 * struct mrcore_nfs_segment - one registered run of bytes, as on the wire
 * @handle: the key the server uses (an rkey).
 * @length: bytes of the segment.
 * @offset: the address the server uses with @handle.
 */
struct mrcore_nfs_segment {
	u32 handle;
	u32 length;
	u64 offset;
};

/**
 * struct mrcore_nfs_chunk - a read chunk, a write chunk or a reply chunk
 * @nsegs: segments in use.
 * @segs: the segments, in payload order.
 */
struct mrcore_nfs_chunk {
	u32 nsegs;
	struct mrcore_nfs_segment segs[MRCORE_NFS_MAX_SEGS];
};

/**
 * enum mrcore_nfs_chunk_type - what the server does with a chunk
 * @MRCORE_NFS_READ_CHUNK: the server READs the payload from it.
 * @MRCORE_NFS_WRITE_CHUNK: the server WRITEs the result's payload into it.
 * @MRCORE_NFS_REPLY_CHUNK: the server WRITEs the whole reply into it.
 */
enum mrcore_nfs_chunk_type {
	MRCORE_NFS_READ_CHUNK,
	MRCORE_NFS_WRITE_CHUNK,
	MRCORE_NFS_REPLY_CHUNK,
};

struct mrcore_nfs_clnt;
struct mrcore_nfs_svc;

/**
 * struct mrcore_nfs_req - one RPC on the client; embedded by the ULP
 * @rk: the keys of the request's chunks, in the client's rkey set.
 * @done: called once every key of the request is dead.
 *
 * Every field is private to the adapter.
 */
struct mrcore_nfs_req {
	struct rdma_rkey_req rk;
	void (*done)(struct mrcore_nfs_req *req, int status);
};

struct mrcore_nfs_clnt *mrcore_nfs_clnt_create(struct ib_qp *qp, u32 max_mrs,
					       u32 seg_pages);
void mrcore_nfs_clnt_destroy(struct mrcore_nfs_clnt *clnt);

void mrcore_nfs_req_init(struct mrcore_nfs_req *req,
			 struct mrcore_nfs_clnt *clnt,
			 struct ib_send_wr *call_send,
			 void (*done)(struct mrcore_nfs_req *req, int status));
int mrcore_nfs_req_register(struct mrcore_nfs_req *req,
			    enum mrcore_nfs_chunk_type type,
			    struct page **pages, unsigned int page_base,
			    u32 len, struct mrcore_nfs_chunk *chunk);
int mrcore_nfs_req_send(struct mrcore_nfs_req *req);
void mrcore_nfs_req_reply(struct mrcore_nfs_req *req,
			  const struct ib_wc *reply_wc);

/**
 * struct mrcore_nfs_rpc - one RPC on the server; embedded by the ULP
 * @svc: the transport.
 * @done: called when the RPC's RDMA (and reply) completed.
 * @nr_io: I/Os of the current step.
 * @io: one I/O per segment.
 * @bv: the bio_vecs of each I/O, one per page.
 * @inv_handle: a handle of the client's that the reply may invalidate.
 * @have_inv_handle: @inv_handle is set.
 * @cqe: completion entry of the step's last WR.
 *
 * Every field is private to the adapter.
 */
struct mrcore_nfs_rpc {
	struct mrcore_nfs_svc *svc;
	void (*done)(struct mrcore_nfs_rpc *rpc, int status);
	unsigned int nr_io;
	struct rdma_io_ctx io[MRCORE_NFS_MAX_SEGS];
	struct bio_vec *bv[MRCORE_NFS_MAX_SEGS];
	u32 inv_handle;
	bool have_inv_handle;
	struct ib_cqe cqe;
};

struct mrcore_nfs_svc *mrcore_nfs_svc_create(struct ib_qp *qp, u32 port_num,
					     u32 max_rpcs, u32 seg_pages);
void mrcore_nfs_svc_destroy(struct mrcore_nfs_svc *svc);

void mrcore_nfs_rpc_init(struct mrcore_nfs_rpc *rpc, struct mrcore_nfs_svc *svc);
int mrcore_nfs_svc_pull(struct mrcore_nfs_rpc *rpc,
			const struct mrcore_nfs_chunk *read_chunk,
			struct page **pages, unsigned int page_base,
			void (*done)(struct mrcore_nfs_rpc *rpc, int status));
int mrcore_nfs_svc_push(struct mrcore_nfs_rpc *rpc,
			const struct mrcore_nfs_chunk *chunk,
			struct page **pages, unsigned int page_base, u32 len,
			struct mrcore_nfs_chunk *used);
int mrcore_nfs_svc_reply(struct mrcore_nfs_rpc *rpc,
			 struct ib_send_wr *reply_send, bool remote_inv,
			 void (*done)(struct mrcore_nfs_rpc *rpc, int status));
void mrcore_nfs_rpc_release(struct mrcore_nfs_rpc *rpc);

#endif /* _RDMA_MRCORE_NFS_H */

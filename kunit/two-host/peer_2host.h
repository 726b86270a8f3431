/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The peer of make kunit-2host: a test module (mrcore_2host_peer.ko) in the
 * second guest that serves the initiator's *_2host suites over the wire.
 *
 * Transport.  The peer listens with rdma_cm (RDMA_PS_TCP, RC) on its rxe
 * address (203.0.113.N, rxe0 on eth0) and on its siw address (198.18.0.N,
 * siw0; scripts/guest-init.sh says why siw has an address of its own),
 * ports %MRCORE_PEER_PORT_RXE and %MRCORE_PEER_PORT_SIW.  It accepts any
 * number of connections; all connections on one device share one PD, so a
 * key the peer hands out on one connection can be tried from another: the
 * attacker of DESIGN.md, on another connection of the same PD.  On rxe
 * both ends set the local ACK timeout %MRCORE_PEER_ACK_TIMEOUT, and the
 * initiator asks for %MRCORE_PEER_RETRY_COUNT transport retries (the peer's
 * QP takes the count of the connection request).
 *
 * Messages.  Every request is one SEND of a &struct mrcore_peer_msg from the
 * initiator; the peer answers each with one SEND of the same struct, @op
 * and @tag echoed, @status 0 or a positive errno.  The peer keeps four
 * RECVs posted per connection and serves one request at a time, in order
 * (all connections share one ordered workqueue), so an initiator posts its
 * RECV for the answer, then its request, and waits for both.  All fields
 * little-endian.
 *
 * Requests (fields not named are zero):
 *
 * %MRCORE_PEER_HELLO
 *	The first request of a connection.  Answer: @id = the connection's
 *	number on the peer (for ACCESS).  The initiator says it again every
 *	2 s until the first answer comes (each HELLO is answered): on siw a
 *	first message that arrives while the peer's siw_accept() has sent
 *	its MPA reply but not yet hooked the socket to the QP waits unread
 *	until more data comes.
 * %MRCORE_PEER_EXPOSE  @len, @start (offset of the data in its first page),
 *	@ops, @flags, @seed
 *	Allocates @len bytes, page by page (mrcore_e2e_buf_alloc()), fills
 *	them with mrcore_e2e_pattern(@seed) (or poison, %MRCORE_E2E_POISONED)
 *	and maps them on this connection's QP:
 *	  - default: rdma_map_sg_rkey(@ops = RDMA_MR_REMOTE_*);
 *	  - %MRCORE_PEER_F_LKEY: rdma_map_sg_lkey(@ops = RDMA_MR_LOCAL_*),
 *	    the key handed out as if it were an rkey (rule 1's attack);
 *	  - %MRCORE_PEER_F_DMA_LKEY: no MR, the buffer DMA-mapped and the PD's
 *	    local_dma_lkey handed out (rule 4's attack);
 *	  - %MRCORE_PEER_F_CONTIG: one physically contiguous 4 MiB buffer
 *	    (the data @len bytes of it, from its start) under a raw FRWR MR
 *	    of two 2 MiB pages with REMOTE_READ|REMOTE_WRITE: the owner of the
 *	    scenario table's I/Os, the test's tool rather than its subject
 *	    (the devices' page lists do not cover 4 MiB in 4 KiB pages).
 *	Answer: @id (the buffer's handle), @key, @addr (its first data byte
 *	for that key), @len.
 * %MRCORE_PEER_FILL  @id, @start, @len, @seed
 *	Writes the pattern (or poison) into bytes [@start, @start + @len).
 *	%MRCORE_PEER_F_POISON_ALL poisons the whole data first.
 * %MRCORE_PEER_VERIFY  @id, @start, @len, @seed
 *	mrcore_e2e_buf_verify(): the range, the poison around it, the guard
 *	bytes outside the data.  %MRCORE_PEER_F_WAIT retries for up to 2 s
 *	(an iWARP WRITE completes at its sender before it is placed).
 *	Answer: @value = the number of wrong bytes, @addr = the first one's
 *	position (as s64), @key = its value << 8 | the value wanted.
 * %MRCORE_PEER_INVALIDATE  @id
 *	rdma_invalidate_mr() posted and completed, then rdma_unmap_mr() (a
 *	raw MR: LOCAL_INV); with %MRCORE_PEER_F_UNMAP_ONLY only
 *	rdma_unmap_mr() (how an lkey mapping ends).  The key is dead after.
 * %MRCORE_PEER_REMAP  @id, @ops
 *	INVALIDATE, then the same buffer mapped again on the same MR with
 *	@ops.  Answer: the new @key and @addr.
 * %MRCORE_PEER_FREE  @id
 *	Invalidates what is still mapped, destroys the MR, frees the memory.
 *	A connection's buffers are freed with it when it goes away.
 * %MRCORE_PEER_NET  @value (MRCORE_PEER_NET_*), @len
 *	Faults on the peer's side of the wire, from inside the guest:
 *	%MRCORE_PEER_NET_OFF removes any qdisc from eth0,
 *	%MRCORE_PEER_NET_FAULTS puts netem on eth0 (MRCORE_2HOST_NETEM),
 *	%MRCORE_PEER_NET_ACK_LATE holds its RoCE ACKs and READ responses
 *	back (MRCORE_2HOST_NET_ACK_LATE),
 *	%MRCORE_PEER_NET_POWEROFF powers the guest off @len ms after the
 *	answer (sysrq o: no disconnect, no FIN, as a power cut).
 * %MRCORE_PEER_ACCESS  @value (a connection number from HELLO), @addr,
 *	@key, @len, @seed, %MRCORE_PEER_F_READ or not
 *	The peer as an attacker or a client: a READ into (or a WRITE from,
 *	holding pattern @seed) @len bytes of its own memory, with @addr/@key
 *	of the initiator, through the I/O helper (rdma_io_ctx_*()) on the
 *	peer's end of connection @value, waited for up to 30 s.  Answer:
 *	@value = the completion status (enum ib_wc_status, negative errno if
 *	there was none), @key = 1 if that QP is in the error state after it;
 *	for a READ, @addr = the wrong bytes of the sink against @seed.
 *
 * The server halves of the ULP adapters (mrcore_nfs.ko, mrcore_iser.ko),
 * each on this connection's QP, for the mrcore_ulp_*_2host suites: the
 * request is the client's call (its registrations chained before it), and
 * the answer is the server's reply, posted by the adapter behind the RDMA
 * it chains before it; with %MRCORE_PEER_F_REMOTE_INV the reply is a
 * SEND_WITH_INV (of the first handle the RPC moved data with, or of the
 * STag).  A call carries its chunks' segments after the message (&struct
 * mrcore_peer_call; %MRCORE_PEER_CALL_SEGS at most, each at most
 * %MRCORE_PEER_NFS_SEG_PAGES pages).  The server's memory is new (a chunk
 * of %MRCORE_PEER_NFS_MAX_BYTES at most, a command's transfer of
 * %MRCORE_PEER_ISER_MAX_BYTES), filled with a pattern or poisoned, and
 * freed after the answer.
 *
 * %MRCORE_PEER_NFS_WRITE  @len, @seed, @id (segments of the read chunk)
 *	An NFS-style WRITE RPC: mrcore_nfs_svc_pull() of the read chunk into
 *	@len poisoned bytes, checked against pattern @seed as VERIFY checks,
 *	then mrcore_nfs_svc_reply().  Answer: as VERIFY's.
 * %MRCORE_PEER_NFS_READ  @len, @start, @seed, @id (segments of the write
 *	chunk), @ops (segments of the reply chunk, after them)
 *	An NFS-style READ RPC: @len bytes of pattern @seed pushed into the
 *	write chunk and @start bytes of pattern @seed + 1 into the reply
 *	chunk (mrcore_nfs_svc_push()), then mrcore_nfs_svc_reply().
 * %MRCORE_PEER_ISER  @key (the STag), @addr (its VA), @len, @seed,
 *	%MRCORE_PEER_F_READ or not
 *	An iSER-style command: a SCSI READ (F_READ) pushes @len bytes of
 *	pattern @seed as data-in (mrcore_iser_cmd_data_in()); a SCSI WRITE
 *	pulls data-out into @len poisoned bytes (mrcore_iser_cmd_data_out())
 *	and checks them as VERIFY does; then mrcore_iser_cmd_response().
 *	Answer: a WRITE's as VERIFY's.
 *
 * An error before the reply is posted is answered with a plain SEND of
 * its status; a reply the adapter could post only in part is not answered
 * (the peer's QP is then in the error state).
 *
 * Test code: the peer trusts the initiator (it is the test).  It never hands
 * out a key the rules forbid except where a request asks for exactly that
 * attack (F_LKEY, F_DMA_LKEY), and every key it handed out is dead when its
 * buffer is freed.
 */
#ifndef _MRCORE_PEER_2HOST_H
#define _MRCORE_PEER_2HOST_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/umh.h>
#include <asm/byteorder.h>

#define MRCORE_PEER_MAGIC	0x3250524dU	/* "MRP2" */
#define MRCORE_PEER_PORT_RXE	7100
#define MRCORE_PEER_PORT_SIW	7101
/*
 * rxe's local ACK timeout, 4.096 us * 2^14: about 67 ms, against rdma_cm's
 * 0.5 s.  Once rxe has gone back N after a NAK, it goes back again only
 * when this timer fires, until a WR completes: under the netem suites'
 * 1% loss and 5% reordering nearly every retry waits for it.  With 0.5 s,
 * 256 I/Os took 819 s; with 134 ms, 32 (16 WRITEs, then their READs)
 * took 23 to 49 s.  The round trip, 10 ms +- 10 ms each way, stays under
 * it.
 */
#define MRCORE_PEER_ACK_TIMEOUT	14
/*
 * The ACK timeout of mrcore_queue_rxe_2host's connections, 4.096 us * 2^19:
 * about 2.1 s.  Its queue keeps 64 I/Os of up to 32 KiB in flight on a
 * wire of two one-vCPU TCG guests that moves some 250 packets a second each
 * way (18,183 in the 72 s of a run's I/O), so a QP can wait for its next
 * response far longer than 67 ms with no packet lost.  Each such timeout
 * resends the QP's window, which the peer answers again, which delays
 * every QP further, until 7 in a row end I/Os with a retry-exceeded error.
 * In runs of the suite alone: with %MRCORE_PEER_ACK_TIMEOUT, 3 of 4 parts
 * failed, 206 timeouts, 4,159 duplicate requests at the peer, every packet
 * sent received (eth0, qdisc and rxe counters of both guests); with 2^18,
 * 12 timeouts, 4 of 4 passed; with 2^19, 3 timeouts, 31 duplicate
 * requests, 4 of 4 passed.
 */
#define MRCORE_PEER_ACK_TIMEOUT_QUEUE	19
/*
 * Transport retries of the two-host connections: rxe takes 7 as "for ever",
 * which would keep an I/O to a dead link or a powered-off peer pending.
 */
#define MRCORE_PEER_RETRY_COUNT	6
/* rxe's "for ever" (rxe_completer() never counts 7 down). */
#define MRCORE_PEER_RETRY_FOREVER	7

enum mrcore_peer_op {
	MRCORE_PEER_HELLO = 1,
	MRCORE_PEER_EXPOSE,
	MRCORE_PEER_FILL,
	MRCORE_PEER_VERIFY,
	MRCORE_PEER_INVALIDATE,
	MRCORE_PEER_REMAP,
	MRCORE_PEER_FREE,
	MRCORE_PEER_ACCESS,
	MRCORE_PEER_NET,
	MRCORE_PEER_NFS_WRITE,
	MRCORE_PEER_NFS_READ,
	MRCORE_PEER_ISER,
};

enum mrcore_peer_net {
	MRCORE_PEER_NET_OFF,
	MRCORE_PEER_NET_FAULTS,
	MRCORE_PEER_NET_POWEROFF,
	MRCORE_PEER_NET_ACK_LATE,
};

/*
 * The faults, the same on both guests' eth0 (egress): 10 ms +- 10 ms delay
 * (the jitter reorders), 5% sent at once (reordered), 1% lost, 1%
 * duplicated.  Run with /bin/sh -c by the usermode helper.
 */
#define MRCORE_2HOST_TC		"/usr/local/sbin/tc"
#define MRCORE_2HOST_NET_FAULTS	MRCORE_2HOST_TC \
	" qdisc replace dev eth0 root netem delay 10ms 10ms reorder 5% loss 1% duplicate 1%"
#define MRCORE_2HOST_NET_OFF	MRCORE_2HOST_TC \
	" qdisc del dev eth0 root 2>/dev/null; true"

/*
 * One order of packets, made on purpose (mrcore_ackorder_rxe_2host): the
 * RoCE v2 packets (UDP port 4791, or 4792 for the stock copy of rxe that
 * scripts/rxe-stock.sh builds: the mask 0xfff0 takes 4784-4799, which
 * nothing else uses here) whose BTH opcode (the first byte after
 * the 20-byte IP and 8-byte UDP headers) is RC ACKNOWLEDGE (0x11) leave
 * 20 ms late, those of RC RDMA READ RESPONSE MIDDLE and LAST (0x0e, 0x0f)
 * 40 ms late, all others at once (a prio qdisc, its bands chosen by u32
 * on the opcode, netem on the two late bands).
 */
#define MRCORE_2HOST_U32_ROCE \
	" protocol ip u32 match ip protocol 17 0xff match ip dport 4784 0xfff0"
#define MRCORE_2HOST_NET_ACK_LATE \
	MRCORE_2HOST_TC " qdisc replace dev eth0 root handle 1: prio bands 3" \
	" priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 && " \
	MRCORE_2HOST_TC " qdisc add dev eth0 parent 1:1 netem delay 20ms && " \
	MRCORE_2HOST_TC " qdisc add dev eth0 parent 1:2 netem delay 40ms && " \
	MRCORE_2HOST_TC " filter add dev eth0 parent 1: prio 1" \
	MRCORE_2HOST_U32_ROCE " match u8 0x11 0xff at 28 flowid 1:1 && " \
	MRCORE_2HOST_TC " filter add dev eth0 parent 1: prio 2" \
	MRCORE_2HOST_U32_ROCE " match u8 0x0e 0xfe at 28 flowid 1:2"

#define MRCORE_PEER_F_LKEY		0x0001
#define MRCORE_PEER_F_DMA_LKEY		0x0002
#define MRCORE_PEER_F_CONTIG		0x0004
#define MRCORE_PEER_F_POISON_ALL	0x0008
#define MRCORE_PEER_F_WAIT		0x0010
#define MRCORE_PEER_F_UNMAP_ONLY	0x0020
#define MRCORE_PEER_F_READ		0x0040
#define MRCORE_PEER_F_REMOTE_INV	0x0080

/* The data of an F_CONTIG buffer: 4 MiB, the largest shape. */
#define MRCORE_PEER_CONTIG_BYTES	(4u << 20)

/**
 * struct mrcore_peer_msg - a request or its answer (64 bytes)
 * @magic: %MRCORE_PEER_MAGIC.
 * @op: enum mrcore_peer_op.
 * @flags: MRCORE_PEER_F_*.
 * @tag: chosen by the initiator, echoed.
 * @status: answer: 0 or a positive errno.
 * @id: a buffer's handle.
 * @seed: a pattern (mrcore_e2e_pattern()), or %MRCORE_E2E_POISONED.
 * @ops: RDMA_MR_REMOTE_* or RDMA_MR_LOCAL_* (include/rdma/mrcore.h).
 * @key: a key.
 * @addr: an address (for a key).
 * @len: bytes.
 * @start: an offset.
 * @value: per request, see above.
 */
struct mrcore_peer_msg {
	__le32 magic;
	__le16 op;
	__le16 flags;
	__le32 tag;
	__le32 status;
	__le32 id;
	__le32 seed;
	__le32 ops;
	__le32 key;
	__le64 addr;
	__le64 len;
	__le64 start;
	__le64 value;
};

/**
 * struct mrcore_peer_seg - one segment of a chunk (NFS_WRITE, NFS_READ)
 * @handle: the client's rkey.
 * @length: bytes behind it.
 * @offset: the address to use with @handle.
 */
struct mrcore_peer_seg {
	__le32 handle;
	__le32 length;
	__le64 offset;
};

/* Segments of one call, all chunks together. */
#define MRCORE_PEER_CALL_SEGS		8
/* Pages of a client's segment (one MR), and a server's I/O spans one more. */
#define MRCORE_PEER_NFS_SEG_PAGES	128
/* The longest NFS-style chunk, and the longest iSER-style transfer. */
#define MRCORE_PEER_NFS_MAX_BYTES	SZ_2M
#define MRCORE_PEER_ISER_MAX_BYTES	SZ_1M

/**
 * struct mrcore_peer_call - a request with the segments of its chunks
 * @msg: the request.
 * @segs: its segments: as many as the request says, in chunk order.
 *
 * Every request may be one (the peer's RECVs are this size); a SEND
 * carries the message and the segments in use only.
 */
struct mrcore_peer_call {
	struct mrcore_peer_msg msg;
	struct mrcore_peer_seg segs[MRCORE_PEER_CALL_SEGS];
};

/**
 * mrcore_2host_run() - run a shell command in this guest
 * @cmd: the command, for busybox sh -c.
 * @wait: UMH_WAIT_PROC (its end) or UMH_WAIT_EXEC (its start).
 *
 * How the tests and the peer change their guest's wire (tc, ip) from inside.
 *
 * Context: Process context; sleeps.
 * Return: 0, the command's wait status, or a negative errno.
 */
static inline int mrcore_2host_run(const char *cmd, int wait)
{
	char *argv[4], *envp[2];

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = (char *)cmd;
	argv[3] = NULL;
	envp[0] = "PATH=/usr/local/sbin:/bin:/sbin:/usr/bin:/usr/sbin";
	envp[1] = NULL;
	return call_usermodehelper(argv[0], argv, envp, wait);
}

/**
 * struct mrcore_peer_req - a message's fields in CPU byte order
 * @op: enum mrcore_peer_op.
 * @flags: MRCORE_PEER_F_*.
 * @tag: echoed.
 * @status: 0 or a positive errno (answers).
 * @id: a buffer's handle, or a connection's number.
 * @seed: a pattern.
 * @ops: RDMA_MR_* ops.
 * @key: a key.
 * @addr: an address.
 * @len: bytes.
 * @start: an offset.
 * @value: per request.
 */
struct mrcore_peer_req {
	u16 op;
	u16 flags;
	u32 tag;
	u32 status;
	u32 id;
	u32 seed;
	u32 ops;
	u32 key;
	u64 addr;
	u64 len;
	u64 start;
	u64 value;
};

static inline void mrcore_peer_pack(struct mrcore_peer_msg *m,
				    const struct mrcore_peer_req *r)
{
	m->magic = cpu_to_le32(MRCORE_PEER_MAGIC);
	m->op = cpu_to_le16(r->op);
	m->flags = cpu_to_le16(r->flags);
	m->tag = cpu_to_le32(r->tag);
	m->status = cpu_to_le32(r->status);
	m->id = cpu_to_le32(r->id);
	m->seed = cpu_to_le32(r->seed);
	m->ops = cpu_to_le32(r->ops);
	m->key = cpu_to_le32(r->key);
	m->addr = cpu_to_le64(r->addr);
	m->len = cpu_to_le64(r->len);
	m->start = cpu_to_le64(r->start);
	m->value = cpu_to_le64(r->value);
}

/* Returns -EPROTO if @m is not a message of this protocol. */
static inline int mrcore_peer_unpack(struct mrcore_peer_req *r,
				     const struct mrcore_peer_msg *m)
{
	r->op = le16_to_cpu(m->op);
	r->flags = le16_to_cpu(m->flags);
	r->tag = le32_to_cpu(m->tag);
	r->status = le32_to_cpu(m->status);
	r->id = le32_to_cpu(m->id);
	r->seed = le32_to_cpu(m->seed);
	r->ops = le32_to_cpu(m->ops);
	r->key = le32_to_cpu(m->key);
	r->addr = le64_to_cpu(m->addr);
	r->len = le64_to_cpu(m->len);
	r->start = le64_to_cpu(m->start);
	r->value = le64_to_cpu(m->value);
	return le32_to_cpu(m->magic) == MRCORE_PEER_MAGIC ? 0 : -EPROTO;
}

#endif /* _MRCORE_PEER_2HOST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * End-to-end harness for rdma-mrcore tests on real RDMA devices (the kernel's
 * soft drivers rxe and siw in the test kernel): finds the devices, connects
 * an RC QP pair over a device with in-kernel rdma_cm, and posts work requests
 * and waits for their completions.
 *
 * The harness is a module of its own (mrcore_harness.ko) that exports its
 * symbols in the MRCORE_HARNESS namespace, so every e2e suite, the demo and
 * later adapter tests share it.  It does not depend on KUnit.
 */
#ifndef _MRCORE_HARNESS_H
#define _MRCORE_HARNESS_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_e2e_target - a device kind and where to connect over it
 * @name: short name used in messages and suite names ("siw", "rxe").
 * @driver_id: the driver both ends of a pair must run on.
 * @active_addr: IPv4 address (dotted quad) the connecting side binds to.
 * @passive_addr: IPv4 address the listening side binds to.
 * @port_base: first rdma_cm (RDMA_PS_TCP) port; each pair takes the next one.
 * @bind_src: bind the active side to @active_addr before resolving.  Without
 *	it rdma_cm binds both ends to the device owning @passive_addr (the
 *	destination is a local address, routed through lo).
 * @remote: @passive_addr is another host's (make kunit-2host): a pair
 *	connects to its listener at port @port_base, and has no passive end
 *	in this kernel.
 * @ack_timeout: the local ACK timeout of the active end's QP,
 *	rdma_set_ack_timeout() (4.096 us * 2^@ack_timeout), or 0 for rdma_cm's
 *	(on rxe 17, about 0.5 s, from its packet lifetime).
 * @retry_count: the QPs' transport retries (rdma_conn_param), or 0 for 7.
 *	rxe reads 7 as "retry for ever" (rxe_completer() never counts it
 *	down), so a pair whose peer may vanish sets fewer.
 *
 * The two addresses are the two ends of the veth pair that the guest's init
 * created for this device kind (see scripts/guest-init.sh), or this guest's
 * and the peer guest's addresses for a remote target.
 */
struct mrcore_e2e_target {
	const char *name;
	enum rdma_driver_id driver_id;
	const char *active_addr;
	const char *passive_addr;
	u16 port_base;
	bool bind_src;
	bool remote;
	u8 ack_timeout;
	u8 retry_count;
};

extern const struct mrcore_e2e_target mrcore_e2e_siw;
extern const struct mrcore_e2e_target mrcore_e2e_rxe;

/* The default queues (mrcore_e2e_default_caps). */
#define MRCORE_E2E_OWN_WRS	16	/* the user's own send WRs */
#define MRCORE_E2E_SGES		4	/* SGEs per send WR */
#define MRCORE_E2E_RD_ATOM	4	/* READs in flight */
/* Pages of the largest helper I/O: 4 MiB starting inside a page. */
#define MRCORE_E2E_IO_PAGES	1025

/**
 * struct mrcore_e2e_side - one end of a connected RC QP pair
 * @cm_id: the connected rdma_cm id; owns @qp.
 * @device: the RDMA device this end runs on.
 * @pd: protection domain of @qp.
 * @cq: send and receive completion queue of @qp (IB_POLL_WORKQUEUE).
 * @qp: the RC QP.
 * @qp_events: number of asynchronous QP events seen on @qp.
 * @last_qp_event: type of the last one (valid when @qp_events > 0).
 * @pd_shared: @pd belongs to another pair (mrcore_e2e_pair_create_shared()).
 * @send_wrs: the send queue depth the driver gave @qp.
 * @cqes: the entries of @cq.
 */
struct mrcore_e2e_side {
	struct rdma_cm_id *cm_id;
	struct ib_device *device;
	struct ib_pd *pd;
	bool pd_shared;
	struct ib_cq *cq;
	struct ib_qp *qp;
	atomic_t qp_events;
	enum ib_event_type last_qp_event;
	u32 send_wrs;
	u32 cqes;
};

/**
 * struct mrcore_e2e_caps - queue sizes of a pair's QPs
 * @max_send_wr: the user's own send WRs in flight, besides the helper's.
 * @max_send_sge: SGEs per send WR, capped at the device's max_send_sge.
 * @max_rdma_ctxs: ib_core RDMA R/W contexts (rdma_rw_ctx_*()) the QPs must
 *	serve; ib_core then adds their registration WRs to the send queue and
 *	gives the QPs an MR pool.  0 for none.
 * @rd_atom: RDMA READs in flight per QP (initiator depth and responder
 *	resources), capped at the device's limits.
 * @io_ctxs: I/Os of the READ/WRITE helper (rdma_io_ctx_*()) in flight per
 *	QP at most; 0 for none.
 * @io_pages: pages the largest of them spans.
 *
 * Each end's send queue takes @max_send_wr plus @io_ctxs times
 * rdma_io_max_send_wr() for @io_pages pages and the QP's SGEs, and its
 * completion queue @max_send_wr plus @io_ctxs times rdma_io_max_cqe() plus
 * the receive queue, so neither a full send queue nor a flush of it
 * overflows the CQ.  Both are capped at the device's max_qp_wr and
 * max_cqe (&struct mrcore_e2e_side says what the QP got).
 */
struct mrcore_e2e_caps {
	u32 max_send_wr;
	u32 max_send_sge;
	u32 max_rdma_ctxs;
	u8 rd_atom;
	u32 io_ctxs;
	u32 io_pages;
};

/**
 * struct mrcore_e2e_pair - an RC QP pair connected by rdma_cm
 * @target: the device kind and addresses.
 * @caps: the QPs' queue sizes.
 * @active: the end that called rdma_connect().
 * @passive: the end accepted by the listener.
 * @port: the rdma_cm port the listener used.
 * @listen_id: the listener, destroyed once @passive is connected.
 * @active_step: completed by the active end's rdma_cm events.
 * @active_event: the last rdma_cm event of the active end.
 * @active_status: its status.
 * @passive_done: completed when the passive end is established or failed.
 * @passive_status: 0 when established, else a negative errno.
 * @disconnected: number of RDMA_CM_EVENT_DISCONNECTED events on both ends.
 * @on_removal: if set, called once when rdma_cm reports the removal of the
 *	pair's device, before the harness releases the QPs: the user
 *	releases what it built on them (pools, MRs), as a ULP must.
 * @removal_data: its argument.
 * @removals: DEVICE_REMOVAL events handled; each released its end, whose
 *	cm_id rdma_cm then destroyed.
 * @shared_pd: the PD the active end uses instead of one of its own, or
 *	%NULL (mrcore_e2e_pair_create_shared()).
 */
struct mrcore_e2e_pair {
	const struct mrcore_e2e_target *target;
	struct mrcore_e2e_caps caps;
	struct mrcore_e2e_side active;
	struct mrcore_e2e_side passive;
	u16 port;

	struct rdma_cm_id *listen_id;
	struct completion active_step;
	enum rdma_cm_event_type active_event;
	int active_status;
	struct completion passive_done;
	int passive_status;
	atomic_t disconnected;
	void (*on_removal)(struct mrcore_e2e_pair *pair, void *data);
	void *removal_data;
	atomic_t removals;
	struct ib_pd *shared_pd;
};

/**
 * struct mrcore_e2e_wait - a completion entry a caller can wait on
 * @cqe: put &@cqe in the signaled WR's wr_cqe.
 * @done: completed by the CQ callback.
 * @status: status of the work completion.
 * @opcode: opcode of the work completion.
 * @byte_len: byte_len of the work completion.
 * @vendor_err: vendor_err of the work completion.
 */
struct mrcore_e2e_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 byte_len;
	u32 vendor_err;
};

/**
 * struct mrcore_e2e_buf - test memory
 * @pages: the pages.  Separate allocations (mrcore_e2e_buf_alloc()), not
 *	physically contiguous with each other, or the pages of one
 *	higher-order allocation (mrcore_e2e_buf_alloc_contig()).
 * @npages: number of @pages.
 * @sg: one entry per page, the first starting at @offset, the last ending
 *	where @len does; or one entry over all of a contiguous buffer.
 * @nents: number of entries in @sg.
 * @offset: byte offset of the data in the first page.
 * @len: number of data bytes.
 * @order: allocation order of a contiguous buffer.
 * @contig: @pages are one allocation of order @order.
 *
 * The bytes of the pages outside the data (before @offset in the first page,
 * after the data in the last) hold %MRCORE_E2E_GUARD for the buffer's life:
 * a device that writes outside what it was given changes them.
 */
struct mrcore_e2e_buf {
	struct page **pages;
	unsigned int npages;
	struct scatterlist *sg;
	unsigned int nents;
	unsigned int offset;
	size_t len;
	unsigned int order;
	bool contig;
};

/**
 * struct mrcore_e2e_diff - what mrcore_e2e_buf_verify() found wrong
 * @bad: number of wrong bytes.
 * @pos: the first one, as an index into the data; negative in the guard
 *	bytes before the data, @len or more in those after it.
 * @got: its value.
 * @want: the value it should have.
 * @what: which expectation it broke: "data", "poison" (a byte near the
 *	range that the I/O must not touch) or "guard" (outside the data).
 */
struct mrcore_e2e_diff {
	u64 bad;
	s64 pos;
	u8 got;
	u8 want;
	const char *what;
};

bool mrcore_e2e_device_present(const struct mrcore_e2e_target *target,
			       char *name, size_t name_len);

extern const struct mrcore_e2e_caps mrcore_e2e_default_caps;

int mrcore_e2e_pair_create(const struct mrcore_e2e_target *target,
			   struct mrcore_e2e_pair **pairp);
int mrcore_e2e_pair_create_caps(const struct mrcore_e2e_target *target,
				const struct mrcore_e2e_caps *caps,
				struct mrcore_e2e_pair **pairp);
int mrcore_e2e_pair_create_shared(const struct mrcore_e2e_pair *base,
				  struct mrcore_e2e_pair **pairp);
int mrcore_e2e_pair_create_on_pd(const struct mrcore_e2e_pair *base,
				 struct ib_pd *pd,
				 struct mrcore_e2e_pair **pairp);
void mrcore_e2e_pair_destroy(struct mrcore_e2e_pair *pair);

/**
 * struct mrcore_e2e_ref - the bytes a key named, for the attacker's control
 * @buf: the memory.
 * @at: the data byte of @buf at the key's address; the control reaches
 *	%MRCORE_E2E_TRY_BYTES bytes from there (mrcore_e2e_try_ref()).
 */
struct mrcore_e2e_ref {
	struct mrcore_e2e_buf *buf;
	size_t at;
};

int mrcore_e2e_try_key(const struct mrcore_e2e_pair *base, struct ib_pd *pd,
		       enum ib_wr_opcode op, u32 key, u64 iova,
		       const struct mrcore_e2e_ref *ref);
int mrcore_e2e_try_live_key(const struct mrcore_e2e_pair *base,
			    struct ib_pd *pd, enum ib_wr_opcode op, u32 key,
			    u64 iova, const struct mrcore_e2e_ref *lands);
int mrcore_e2e_try_key_on(struct mrcore_e2e_pair *atk, enum ib_wr_opcode op,
			  u32 key, u64 iova, const struct mrcore_e2e_ref *ref,
			  struct mrcore_e2e_wait *w);
int mrcore_e2e_try_ref(struct mrcore_e2e_pair *atk, enum ib_wr_opcode op,
		       const struct mrcore_e2e_ref *ref,
		       struct mrcore_e2e_wait *w);

/* Bytes of one mrcore_e2e_try_key() access. */
#define MRCORE_E2E_TRY_BYTES	64
/* The pattern of the attacker's WRITE (mrcore_e2e_buf_fill()). */
#define MRCORE_E2E_TRY_SEED	0x7e57
/* The pattern a control READ through a reference key must bring back. */
#define MRCORE_E2E_REF_SEED	0x7ef0

struct rdma_io_ctx;
int mrcore_e2e_io_run(struct mrcore_e2e_side *side, struct rdma_io_ctx *ctx,
		      void (*destroy)(struct rdma_io_ctx *ctx,
				      const struct ib_wc *wc),
		      unsigned int timeout_ms);
int mrcore_e2e_io_finish(struct mrcore_e2e_side *side, struct rdma_io_ctx *ctx,
			 void (*destroy)(struct rdma_io_ctx *ctx,
					 const struct ib_wc *wc),
			 int posted, struct mrcore_e2e_wait *w,
			 unsigned int timeout_ms);

void mrcore_e2e_wait_init(struct mrcore_e2e_wait *w);
int mrcore_e2e_post(struct mrcore_e2e_side *side, struct ib_send_wr *first,
		    struct mrcore_e2e_wait *w, unsigned int timeout_ms);
int mrcore_e2e_wait_done(struct mrcore_e2e_side *side,
			 struct mrcore_e2e_wait *w, unsigned int timeout_ms);
void mrcore_e2e_rdma_wr(struct ib_rdma_wr *wr, enum ib_wr_opcode opcode,
			struct ib_sge *sge, u64 remote_addr, u32 rkey,
			struct mrcore_e2e_wait *w);
void mrcore_e2e_reg_wr(struct ib_reg_wr *reg, struct ib_mr *mr,
		       struct mrcore_e2e_wait *w);
enum ib_qp_state mrcore_e2e_qp_state(struct mrcore_e2e_side *side);
bool mrcore_e2e_qp_failed(struct mrcore_e2e_side *side,
			  unsigned int timeout_ms);

int mrcore_e2e_buf_alloc(struct mrcore_e2e_buf *buf, size_t len,
			 unsigned int offset);
int mrcore_e2e_buf_alloc_contig(struct mrcore_e2e_buf *buf, size_t len,
				unsigned int offset);
void mrcore_e2e_buf_free(struct mrcore_e2e_buf *buf);
u8 *mrcore_e2e_buf_byte(struct mrcore_e2e_buf *buf, size_t i);
void mrcore_e2e_buf_fill(struct mrcore_e2e_buf *buf, u32 seed);
void mrcore_e2e_buf_fill_range(struct mrcore_e2e_buf *buf, size_t start,
			       size_t len, u32 seed);
void mrcore_e2e_buf_poison(struct mrcore_e2e_buf *buf);
bool mrcore_e2e_buf_verify(struct mrcore_e2e_buf *buf, size_t start,
			   size_t len, u32 seed, struct mrcore_e2e_diff *diff);
void mrcore_e2e_buf_memset(struct mrcore_e2e_buf *buf, u8 c);
long mrcore_e2e_buf_check(struct mrcore_e2e_buf *buf, u32 seed);
long mrcore_e2e_buf_check_byte(struct mrcore_e2e_buf *buf, u8 c);
u8 mrcore_e2e_pattern(u32 seed, size_t i);
u64 mrcore_e2e_buf_dma_addr(struct mrcore_e2e_buf *buf);
bool mrcore_e2e_buf_guard_intact(struct mrcore_e2e_buf *buf);

/* Value of the bytes of a buffer's pages outside its data. */
#define MRCORE_E2E_GUARD	0xa5
/* Value of data bytes no I/O is meant to write (mrcore_e2e_buf_poison()). */
#define MRCORE_E2E_POISON	0x3c
/* A seed for mrcore_e2e_buf_verify(): the range holds poison, no pattern. */
#define MRCORE_E2E_POISONED	U32_MAX
/* Data bytes on each side of a range that mrcore_e2e_buf_verify() checks. */
#define MRCORE_E2E_VERIFY_SPAN	PAGE_SIZE

#endif /* _MRCORE_HARNESS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the end-to-end suites of the READ/WRITE helper share (mrcore_io_*,
 * mrcore_flush_*, mrcore_soak_*, mrcore_keys_*, mrcore_stress_*,
 * mrcore_rkey_*): a connected pair, the far side's memory under one rkey,
 * local memory of a shape, a pool, running one I/O, and the attacker's
 * tries of the keys that named memory given back.  Everything is released
 * by KUnit actions at the end of the test.
 */
#ifndef _MRCORE_IO_E2E_H
#define _MRCORE_IO_E2E_H

#include <kunit/test.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "mrcore_harness.h"
#include "cases/shapes.h"

#ifndef IO_TIMEOUT_MS
#define IO_TIMEOUT_MS		30000
#endif
#define IO_OWNER_ORDER		10	/* 4 MiB, the largest shape */
#define IO_OWNER_BYTES		(PAGE_SIZE << IO_OWNER_ORDER)

/**
 * struct io_owner - the far side's memory, one rkey over 4 MiB
 * @pair: the pair.
 * @buf: the memory, physically contiguous and 4 MiB aligned; poisoned but
 *	for what a test fills.
 * @mr: a raw FRWR MR of two 2 MiB pages (the test's tool, not the subject:
 *	the devices' page lists would not cover 4 MiB in 4 KiB pages).
 * @rkey: the key.
 * @iova: the address of the first byte.
 */
struct io_owner {
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_buf buf;
	struct ib_mr *mr;
	u32 rkey;
	u64 iova;
};

/**
 * struct io_local - local memory of a shape
 * @buf: the memory: one contiguous entry for a contiguous shape, else a page
 *	per entry; poisoned when created.
 * @sg: @buf's scatterlist.
 * @nents: entries in @sg.
 * @len: bytes.
 */
struct io_local {
	struct mrcore_e2e_buf buf;
	struct scatterlist *sg;
	unsigned int nents;
	u64 len;
};

/**
 * struct io_fixture - what an I/O of the suites runs on
 * @pair: a connected pair (io_pair()).
 * @owner: the passive end's memory under one rkey (io_owner_create()).
 * @l: local memory of the test's shape (io_local_create()), or NULL.
 * @pool: the active end's pool (io_pool()).
 */
struct io_fixture {
	struct mrcore_e2e_pair *pair;
	struct io_owner *owner;
	struct io_local *l;
	struct rdma_io_pool *pool;
};

/* What the memory holds when the attacker tries. */
#define KEYS_SEED_REUSED	0x20003

/*
 * What named the memory: a key, the address it was used at, whether it
 * granted the peer anything (a pool's lkey-role MRs do not, but for an
 * iWARP READ sink), and the byte of the memory at that address (where the
 * attacker's control reaches the same bytes, mrcore_e2e_try_ref()).
 */
struct keys_named {
	u32 key;
	u64 iova;
	bool remote;
	size_t at;
};

/* A Receive whose whole completion the test reads. */
struct keys_recv {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

struct mrcore_e2e_pair *io_pair(struct kunit *test, u32 max_ctxs,
				u32 max_pages);
struct io_owner *io_owner_create(struct kunit *test,
				 struct mrcore_e2e_pair *pair);
struct io_local *io_local_create(struct kunit *test,
				 const struct mrcore_shape_desc *d);
void io_local_chain(struct kunit *test, struct io_local *l);
struct rdma_io_pool *io_pool(struct kunit *test, struct mrcore_e2e_side *side,
			     u32 max_ctxs, u32 max_pages);
struct rdma_io_pool *io_pool_flags(struct kunit *test,
				   struct mrcore_e2e_side *side, u32 max_ctxs,
				   u32 max_pages, u32 flags);
void io_fixture_create(struct kunit *test, struct io_fixture *f,
		       const struct mrcore_shape_desc *d, u32 max_ctxs,
		       u32 max_pages, const char *force);
void io_release_now(struct kunit *test, struct mrcore_e2e_pair *pair,
		    struct io_owner *owner, struct rdma_io_pool *pool);
int io_run(struct kunit *test, struct mrcore_e2e_side *side,
	   struct rdma_io_ctx *ctx);
int io_run_bvec(struct kunit *test, struct mrcore_e2e_side *side,
		struct rdma_io_ctx *ctx);
struct bio_vec *io_local_bvecs(struct kunit *test, const struct io_local *l);
bool io_on_iwarp(struct kunit *test);
bool io_key_refused(struct kunit *test, struct mrcore_e2e_pair *base,
		    enum ib_wr_opcode op, u32 key, u64 iova,
		    struct mrcore_e2e_buf *mem, size_t at);
void keys_expect_dead(struct kunit *test, struct mrcore_e2e_pair *base,
		      const struct keys_named *k, unsigned int n,
		      struct mrcore_e2e_buf *mem, const char *what);
void keys_expect_served_op(struct kunit *test, struct mrcore_e2e_pair *base,
			   const struct keys_named *k, enum ib_wr_opcode op,
			   struct mrcore_e2e_buf *mem, size_t at);
void keys_expect_served(struct kunit *test, struct mrcore_e2e_pair *base,
			const struct keys_named *k, struct mrcore_e2e_buf *mem);
void keys_recv_done(struct ib_cq *cq, struct ib_wc *wc);

#endif /* _MRCORE_IO_E2E_H */

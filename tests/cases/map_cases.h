/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The map API's case table: one row per (SG shape, role, ops) and what the
 * core must answer.  The KUnit fake-device suite (kunit/suites/map_kunit.c) and the
 * userspace mirror (mirror/tests/map_cases_test.cpp) both run every row.
 *
 * An SG entry is (page, offset, length) inside a test arena of
 * MRCORE_CASE_ARENA_PAGES pages; the arena starts page-aligned.  Rows marked
 * mirror_only describe memory no kernel test may touch (address wrap).
 */
#ifndef _MRCORE_MAP_CASES_H
#define _MRCORE_MAP_CASES_H

#define MRCORE_CASE_ARENA_PAGES		40
#define MRCORE_CASE_MAX_ENTRIES		40

struct mrcore_case_entry {
	unsigned int page;
	unsigned int offset;
	unsigned int length;
};

struct mrcore_map_case {
	const char *name;
	enum rdma_mr_role mr_role;	/* role the MR is created with */
	bool use_rkey_entry;		/* call rdma_map_sg_rkey() */
	unsigned int ops;
	unsigned int max_pages;		/* of the MR */
	unsigned int nents;
	bool mirror_only;
	bool wrap_address;		/* first entry at the top of the address space */
	int expect;			/* 0 or a negative errno */
	unsigned int expect_pages;	/* pages spanned when expect == 0 */
	unsigned int expect_length;	/* bytes mapped when expect == 0 */
	struct mrcore_case_entry e[MRCORE_CASE_MAX_ENTRIES];
};

#define L_ROLE		RDMA_MR_ROLE_LKEY
#define R_ROLE		RDMA_MR_ROLE_RKEY
#define L_SRC		(RDMA_MR_LOCAL_SEND_SRC | RDMA_MR_LOCAL_WRITE_SRC)
#define L_SINK		(RDMA_MR_LOCAL_RECV_SINK | RDMA_MR_LOCAL_READ_SINK)
#define R_RW		(RDMA_MR_REMOTE_READ | RDMA_MR_REMOTE_WRITE)
#define PG		4096u

/*
 * The DMA direction a mapping of @ops must be made with, written from what
 * the device does with the memory, apart from the core's own rule: it
 * reads a SEND or WRITE source and what the peer READs, it writes a RECV
 * or READ sink and what the peer WRITEs.
 */
static inline enum dma_data_direction mrcore_map_case_dir(unsigned int ops)
{
	bool dev_reads = ops & (RDMA_MR_LOCAL_SEND_SRC |
				RDMA_MR_LOCAL_WRITE_SRC | RDMA_MR_REMOTE_READ);
	bool dev_writes = ops & (RDMA_MR_LOCAL_RECV_SINK |
				 RDMA_MR_LOCAL_READ_SINK |
				 RDMA_MR_REMOTE_WRITE);

	if (dev_reads && dev_writes)
		return DMA_BIDIRECTIONAL;
	return dev_writes ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

static const struct mrcore_map_case mrcore_map_cases[] = {
	/* Shapes that map. */
	{ "lkey one byte", L_ROLE, false, L_SRC, 8, 1, false, false, 0, 1, 1,
	  { { 0, 0, 1 } } },
	{ "lkey one page", L_ROLE, false, L_SINK, 8, 1, false, false, 0, 1, PG,
	  { { 0, 0, PG } } },
	{ "rkey one page", R_ROLE, true, R_RW, 8, 1, false, false, 0, 1, PG,
	  { { 0, 0, PG } } },
	{ "rkey unaligned within a page", R_ROLE, true, RDMA_MR_REMOTE_READ, 8,
	  1, false, false, 0, 1, 100, { { 1, 3000, 100 } } },
	{ "rkey unaligned across a page boundary", R_ROLE, true,
	  RDMA_MR_REMOTE_WRITE, 8, 1, false, false, 0, 2, 200,
	  { { 1, 4000, 200 } } },
	{ "lkey unaligned first and last", L_ROLE, false, L_SRC, 8, 3, false,
	  false, 0, 3, (PG - 512) + PG + 7,
	  { { 2, 512, PG - 512 }, { 5, 0, PG }, { 9, 0, 7 } } },
	{ "rkey 8 scattered pages", R_ROLE, true, R_RW, 8, 8, false, false, 0,
	  8, 8 * PG,
	  { { 0, 0, PG }, { 2, 0, PG }, { 4, 0, PG }, { 6, 0, PG },
	    { 8, 0, PG }, { 10, 0, PG }, { 12, 0, PG }, { 14, 0, PG } } },
	{ "rkey 32 contiguous pages in one entry", R_ROLE, true,
	  RDMA_MR_REMOTE_READ, 32, 1, false, false, 0, 32, 32 * PG,
	  { { 0, 0, 32 * PG } } },
	{ "lkey contiguous split inside a page", L_ROLE, false, L_SRC, 8, 2,
	  false, false, 0, 2, PG + 100,
	  { { 3, 0, 1000 }, { 3, 1000, PG - 900 } } },
	{ "rkey exactly max_pages", R_ROLE, true, R_RW, 4, 4, false, false, 0,
	  4, 4 * PG,
	  { { 0, 0, PG }, { 7, 0, PG }, { 3, 0, PG }, { 20, 0, PG } } },
	{ "lkey all local ops", L_ROLE, false, RDMA_MR_LOCAL_ALL, 8, 1, false,
	  false, 0, 1, 64, { { 0, 64, 64 } } },
	/* The MR counts pages, not entries: sub-page entries that join. */
	{ "lkey four entries share one page", L_ROLE, false, L_SRC, 1, 4,
	  false, false, 0, 1, PG,
	  { { 5, 0, 1000 }, { 5, 1000, 1000 }, { 5, 2000, 1000 },
	    { 5, 3000, PG - 3000 } } },
	{ "rkey sub-page entries straddle a page boundary", R_ROLE, true, R_RW,
	  2, 3, false, false, 0, 2, 4500,
	  { { 6, 1000, 2000 }, { 6, 3000, 2000 }, { 7, 904, 500 } } },
	{ "rkey half pages then a whole page", R_ROLE, true,
	  RDMA_MR_REMOTE_READ, 2, 3, false, false, 0, 2, 2 * PG,
	  { { 10, 0, PG / 2 }, { 10, PG / 2, PG / 2 }, { 11, 0, PG } } },

	/* Bad input. */
	{ "zero entries", R_ROLE, true, R_RW, 8, 0, false, false, -EINVAL, 0, 0,
	  { { 0, 0, PG } } },
	{ "empty entry", L_ROLE, false, L_SRC, 8, 2, false, false, -EINVAL, 0,
	  0, { { 0, 0, PG }, { 1, 0, 0 } } },
	{ "more entries than pages", R_ROLE, true, R_RW, 2, 3, false, false,
	  -E2BIG, 0, 0, { { 0, 0, PG }, { 2, 0, PG }, { 4, 0, PG } } },
	{ "more pages than the MR holds", L_ROLE, false, L_SRC, 4, 1, false,
	  false, -E2BIG, 0, 0, { { 0, 0, 5 * PG } } },
	{ "unaligned start spills one page over", R_ROLE, true, R_RW, 2, 1,
	  false, false, -E2BIG, 0, 0, { { 0, 1, 2 * PG } } },
	{ "gap: middle entry starts inside a page", R_ROLE, true, R_RW, 8, 3,
	  false, false, -EINVAL, 0, 0,
	  { { 0, 0, PG }, { 2, 8, PG - 8 }, { 4, 0, PG } } },
	{ "gap: first entry ends inside a page", L_ROLE, false, L_SRC, 8, 2,
	  false, false, -EINVAL, 0, 0, { { 0, 0, 100 }, { 2, 0, PG } } },
	{ "gap: same page, bytes skipped", L_ROLE, false, L_SRC, 8, 2, false,
	  false, -EINVAL, 0, 0, { { 1, 0, 100 }, { 1, 200, 100 } } },
	{ "gap: sub-page entries leave a gap in their page", L_ROLE, false,
	  L_SRC, 1, 3, false, false, -EINVAL, 0, 0,
	  { { 12, 0, 1000 }, { 12, 1000, 1000 }, { 12, 3000, 1000 } } },
	{ "sub-page entries spill one page past the MR", R_ROLE, true, R_RW, 1,
	  3, false, false, -E2BIG, 0, 0,
	  { { 13, 0, 2000 }, { 13, 2000, 2000 }, { 13, 4000, 200 } } },
	{ "no ops", R_ROLE, true, 0, 8, 1, false, false, -EINVAL, 0, 0,
	  { { 0, 0, PG } } },
	{ "unknown remote op bit", R_ROLE, true, RDMA_MR_REMOTE_READ | 0x8000,
	  8, 1, false, false, -EINVAL, 0, 0, { { 0, 0, PG } } },
	{ "local ops to the rkey entry", R_ROLE, true, L_SRC, 8, 1, false,
	  false, -EINVAL, 0, 0, { { 0, 0, PG } } },
	{ "remote ops to the lkey entry", L_ROLE, false, RDMA_MR_REMOTE_READ, 8,
	  1, false, false, -EINVAL, 0, 0, { { 0, 0, PG } } },
	{ "mixed local and remote ops", L_ROLE, false,
	  RDMA_MR_LOCAL_SEND_SRC | RDMA_MR_REMOTE_WRITE, 8, 1, false, false,
	  -EINVAL, 0, 0, { { 0, 0, PG } } },
	{ "lkey MR through the rkey entry", L_ROLE, true, R_RW, 8, 1, false,
	  false, -EPERM, 0, 0, { { 0, 0, PG } } },
	{ "rkey MR through the lkey entry", R_ROLE, false, L_SRC, 8, 1, false,
	  false, -EPERM, 0, 0, { { 0, 0, PG } } },
	{ "length beyond U32_MAX", R_ROLE, true, R_RW, 8, 2, true, false,
	  -EOVERFLOW, 0, 0, { { 0, 0, 0xfffff000u }, { 0, 0, 0xfffff000u } } },
	{ "address wraps", R_ROLE, true, R_RW, 8, 1, true, true, -EOVERFLOW, 0,
	  0, { { 0, 0, 2 * PG } } },
};

#undef L_ROLE
#undef R_ROLE
#undef L_SRC
#undef L_SINK
#undef R_RW
#undef PG

#endif /* _MRCORE_MAP_CASES_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The READ/WRITE helper's scenario table: device profile x SG shape x
 * direction (x forced backend) -> the backend the cost model picks and the
 * WRs and MRs the I/O takes on a fresh pool.  The mirror
 * (mirror/tests/scenario_test.cpp) runs every row with data moved and
 * verified by the simulated HCA; the KUnit suite mrcore_scenarios
 * (kunit/suites/scenarios_kunit.c) runs every row on fake devices of the same
 * profiles.
 *
 * Why each row expects what it does follows from rdma_io_cost() with the
 * device's weights (core/io.c: IB and RoCE 16 per WR, 144 per MR, 1 per page
 * registered, 1 per SGE; iWARP 16, 16, 1, 1; the fmr backend prices an MR
 * like a WR) and the profiles' limits (profiles.h); on iwarp every READ sink
 * is a temporary MR with REMOTE_WRITE
 * (the iwarp backend), however short the READ: the PD's DMA lkey never
 * sinks an iWARP READ.  On a fresh pool an FRWR MR needs no LOCAL_INV, so an
 * MR-based I/O posts REG_MR + RDMA WR per MR (iwarp: REG_MR + READ_WITH_INV;
 * fmr: the RDMA WR alone, registration being synchronous).  siw plans as
 * iwarp, but the peer there can READ through any live key, so the core kills
 * every key in its I/O's own chain (core/quirks.c): an FRWR WRITE source
 * posts REG_MR + WRITE + LOCAL_INV, on a fresh pool and in the steady state
 * alike.  A row whose
 * @backend is NULL is an I/O the helper must refuse with -EOPNOTSUPP,
 * holding nothing.
 */
#ifndef _MRCORE_SCENARIOS_H
#define _MRCORE_SCENARIOS_H

#include "profiles.h"
#include "shapes.h"

/**
 * struct mrcore_scenario - one I/O and what the helper must make of it
 * @profile: the device.
 * @shape: the local SG list.
 * @read: RDMA READ into it, else RDMA WRITE from it.
 * @force: backend forced on the pool, or NULL for the cost model.
 * @backend: the backend that must move the I/O, or NULL if
 *	rdma_io_ctx_init() must refuse it (-EOPNOTSUPP).
 * @wrs: WRs on a fresh pool.
 * @mrs: MRs taken from the pool.
 * @bvec: the local memory given as bio_vecs (rdma_io_ctx_init_bvec(), one
 *	bio_vec per entry of @shape), else as a scatterlist.
 * @skip: bytes of the list the I/O skips (its @sg_offset), past the first
 *	entry too: whole entries are skipped, as rdma_rw does.
 * @chained: the scatterlist is chained, in arrays of
 *	%MRCORE_SHAPE_CHAIN_ENTS entries (shapes.h).
 */
struct mrcore_scenario {
	enum mrcore_profile profile;
	enum mrcore_shape shape;
	bool read;
	const char *force;
	const char *backend;
	unsigned int wrs;
	unsigned int mrs;
	bool bvec;
	unsigned int skip;
	bool chained;
};

#define RO MRCORE_PROFILE_ROCE
#define IW MRCORE_PROFILE_IWARP
#define FM MRCORE_PROFILE_FMR
#define SI MRCORE_PROFILE_SIW
#define RD true
#define WR false
#define BV true
#define CH true

static const struct mrcore_scenario mrcore_scenarios[] = {
	/* roce: short lists and contiguous memory need no MR */
	{ RO, SHAPE_1_BYTE, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_1_BYTE, WR, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_1_PAGE, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_1_PAGE, WR, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_UNALIGNED, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_UNALIGNED, WR, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_8_PAGES, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_8_PAGES, WR, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_32_PAGES, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_32_PAGES, WR, NULL, "multiread", 1, 0 },
	/* 2 WRs + 33 SGEs = 65 < 2 WRs + MR + 33 pages = 209 */
	{ RO, SHAPE_33_PAGES, RD, NULL, "multiread", 2, 0 },
	{ RO, SHAPE_33_PAGES, WR, NULL, "multiread", 2, 0 },
	/* 8 WRs + 256 SGEs = 384 < 2 WRs + MR + 256 pages = 432 */
	{ RO, SHAPE_256_PAGES, RD, NULL, "multiread", 8, 0 },
	{ RO, SHAPE_256_PAGES, WR, NULL, "multiread", 8, 0 },
	/* 9 WRs + 257 SGEs = 401 < 2 WRs + MR + 257 pages = 433 */
	{ RO, SHAPE_257_PAGES, RD, NULL, "multiread", 9, 0 },
	{ RO, SHAPE_257_PAGES, WR, NULL, "multiread", 9, 0 },
	{ RO, SHAPE_1M_CONTIG, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_1M_CONTIG, WR, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_4M_CONTIG, RD, NULL, "multiread", 1, 0 },
	{ RO, SHAPE_4M_CONTIG, WR, NULL, "multiread", 1, 0 },

	/* iwarp READ: always a temporary sink MR, never the DMA lkey */
	{ IW, SHAPE_1_BYTE, RD, NULL, "iwarp", 2, 1 },
	{ IW, SHAPE_1_PAGE, RD, NULL, "iwarp", 2, 1 },
	{ IW, SHAPE_UNALIGNED, RD, NULL, "iwarp", 2, 1 },
	{ IW, SHAPE_8_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ IW, SHAPE_32_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ IW, SHAPE_33_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ IW, SHAPE_256_PAGES, RD, NULL, "iwarp", 2, 1 },
	/* 257 pages: two MRs of 256 */
	{ IW, SHAPE_257_PAGES, RD, NULL, "iwarp", 4, 2 },
	{ IW, SHAPE_1M_CONTIG, RD, NULL, "iwarp", 2, 1 },
	/* 1024 contiguous pages: four MRs of 256 */
	{ IW, SHAPE_4M_CONTIG, RD, NULL, "iwarp", 8, 4 },
	/* iwarp WRITE: 6 SGEs per WR; a local source MR from 32 pages on */
	{ IW, SHAPE_1_BYTE, WR, NULL, "multiread", 1, 0 },
	{ IW, SHAPE_1_PAGE, WR, NULL, "multiread", 1, 0 },
	{ IW, SHAPE_UNALIGNED, WR, NULL, "multiread", 1, 0 },
	/* 2 WRs + 8 SGEs = 40 < 2 WRs + MR + 8 pages = 56 (clean pool) */
	{ IW, SHAPE_8_PAGES, WR, NULL, "multiread", 2, 0 },
	/* 6 WRs + 32 SGEs = 128 > 2 WRs + MR + 32 pages = 80 */
	{ IW, SHAPE_32_PAGES, WR, NULL, "frwr", 2, 1 },
	{ IW, SHAPE_33_PAGES, WR, NULL, "frwr", 2, 1 },
	{ IW, SHAPE_256_PAGES, WR, NULL, "frwr", 2, 1 },
	{ IW, SHAPE_257_PAGES, WR, NULL, "frwr", 4, 2 },
	{ IW, SHAPE_1M_CONTIG, WR, NULL, "multiread", 1, 0 },
	{ IW, SHAPE_4M_CONTIG, WR, NULL, "multiread", 1, 0 },

	/* siw READ: as iwarp */
	{ SI, SHAPE_1_BYTE, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_1_PAGE, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_UNALIGNED, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_8_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_32_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_33_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_256_PAGES, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_257_PAGES, RD, NULL, "iwarp", 4, 2 },
	{ SI, SHAPE_1M_CONTIG, RD, NULL, "iwarp", 2, 1 },
	{ SI, SHAPE_4M_CONTIG, RD, NULL, "iwarp", 8, 4 },
	/* siw WRITE: as iwarp, each source MR's key killed in the chain */
	{ SI, SHAPE_1_BYTE, WR, NULL, "multiread", 1, 0 },
	{ SI, SHAPE_1_PAGE, WR, NULL, "multiread", 1, 0 },
	{ SI, SHAPE_UNALIGNED, WR, NULL, "multiread", 1, 0 },
	{ SI, SHAPE_8_PAGES, WR, NULL, "multiread", 2, 0 },
	{ SI, SHAPE_32_PAGES, WR, NULL, "frwr", 3, 1 },
	{ SI, SHAPE_33_PAGES, WR, NULL, "frwr", 3, 1 },
	{ SI, SHAPE_256_PAGES, WR, NULL, "frwr", 3, 1 },
	{ SI, SHAPE_257_PAGES, WR, NULL, "frwr", 6, 2 },
	{ SI, SHAPE_1M_CONTIG, WR, NULL, "multiread", 1, 0 },
	{ SI, SHAPE_4M_CONTIG, WR, NULL, "multiread", 1, 0 },

	/* fmr: synchronous registration, one WR per MR */
	{ FM, SHAPE_1_BYTE, RD, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_1_BYTE, WR, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_1_PAGE, RD, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_1_PAGE, WR, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_UNALIGNED, RD, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_UNALIGNED, WR, NULL, "multiread", 1, 0 },
	/* 1 WR + 8 SGEs = 24 < 1 WR + MR + 8 pages = 40 */
	{ FM, SHAPE_8_PAGES, RD, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_8_PAGES, WR, NULL, "multiread", 1, 0 },
	/* 2 WRs + 32 SGEs = 64 = 1 WR + MR + 32 pages: fewer WRs win */
	{ FM, SHAPE_32_PAGES, RD, NULL, "fmr", 1, 1 },
	{ FM, SHAPE_32_PAGES, WR, NULL, "fmr", 1, 1 },
	{ FM, SHAPE_33_PAGES, RD, NULL, "fmr", 1, 1 },
	{ FM, SHAPE_33_PAGES, WR, NULL, "fmr", 1, 1 },
	{ FM, SHAPE_256_PAGES, RD, NULL, "fmr", 1, 1 },
	{ FM, SHAPE_256_PAGES, WR, NULL, "fmr", 1, 1 },
	{ FM, SHAPE_257_PAGES, RD, NULL, "fmr", 2, 2 },
	{ FM, SHAPE_257_PAGES, WR, NULL, "fmr", 2, 2 },
	{ FM, SHAPE_1M_CONTIG, RD, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_1M_CONTIG, WR, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_4M_CONTIG, RD, NULL, "multiread", 1, 0 },
	{ FM, SHAPE_4M_CONTIG, WR, NULL, "multiread", 1, 0 },

	/* Forced backends: what the cost model would not pick */
	{ RO, SHAPE_1_PAGE, RD, "frwr", "frwr", 2, 1 },
	{ RO, SHAPE_8_PAGES, WR, "frwr", "frwr", 2, 1 },
	/* 1024 contiguous pages: two MRs of 512 */
	{ RO, SHAPE_4M_CONTIG, RD, "frwr", "frwr", 4, 2 },
	{ RO, SHAPE_256_PAGES, RD, "multiread", "multiread", 8, 0 },
	{ RO, SHAPE_257_PAGES, WR, "multiread", "multiread", 9, 0 },
	{ IW, SHAPE_1_PAGE, RD, "iwarp", "iwarp", 2, 1 },
	/* 1024 contiguous pages: four MRs of 256 */
	{ IW, SHAPE_4M_CONTIG, RD, "iwarp", "iwarp", 8, 4 },
	{ IW, SHAPE_256_PAGES, WR, "multiread", "multiread", 43, 0 },
	{ SI, SHAPE_1_PAGE, WR, "frwr", "frwr", 3, 1 },
	{ SI, SHAPE_4M_CONTIG, RD, "iwarp", "iwarp", 8, 4 },
	/* Refused: multiread never sinks an iWARP READ, even of one SGE */
	{ IW, SHAPE_1_PAGE, RD, "multiread", NULL, 0, 0 },
	{ SI, SHAPE_1_BYTE, RD, "multiread", NULL, 0, 0 },
	{ FM, SHAPE_4M_CONTIG, WR, "fmr", "fmr", 4, 4 },
	{ FM, SHAPE_1_BYTE, RD, "fmr", "fmr", 1, 1 },

	/*
	 * bio_vec input: one bio_vec per entry of the shape (1m_contig: one
	 * bio_vec over 256 pages), the same plans as the scatterlist.
	 */
	{ RO, SHAPE_1_PAGE, RD, NULL, "multiread", 1, 0, BV },
	{ RO, SHAPE_UNALIGNED, WR, NULL, "multiread", 1, 0, BV },
	{ RO, SHAPE_33_PAGES, RD, NULL, "multiread", 2, 0, BV },
	{ RO, SHAPE_257_PAGES, WR, NULL, "multiread", 9, 0, BV },
	{ RO, SHAPE_1M_CONTIG, WR, NULL, "multiread", 1, 0, BV },
	{ RO, SHAPE_8_PAGES, WR, "frwr", "frwr", 2, 1, BV },
	{ IW, SHAPE_1_BYTE, RD, NULL, "iwarp", 2, 1, BV },
	{ IW, SHAPE_257_PAGES, RD, NULL, "iwarp", 4, 2, BV },
	{ IW, SHAPE_32_PAGES, WR, NULL, "frwr", 2, 1, BV },
	{ SI, SHAPE_8_PAGES, RD, NULL, "iwarp", 2, 1, BV },
	{ SI, SHAPE_1M_CONTIG, RD, NULL, "iwarp", 2, 1, BV },
	{ SI, SHAPE_256_PAGES, WR, NULL, "frwr", 3, 1, BV },
	{ FM, SHAPE_257_PAGES, WR, NULL, "fmr", 2, 2, BV },

	/*
	 * Offsets past the first entry: whole entries skipped, the rest
	 * planned as if the list began there.
	 */
	/* 8 scattered pages less 3 pages and 100 bytes: 5 SGEs, one WR */
	{ RO, SHAPE_8_PAGES, RD, NULL, "multiread", 1, 0, false, 3 * 4096 + 100 },
	/* exactly at the second entry: 7 SGEs */
	{ RO, SHAPE_8_PAGES, WR, NULL, "multiread", 1, 0, false, 4096 },
	/* one sink MR over what is left, 5 pages, no hole */
	{ IW, SHAPE_8_PAGES, RD, NULL, "iwarp", 2, 1, false, 3 * 4096 + 100 },
	/* 7 pages of 257 left: 2 WRs of 6 + 1 SGEs beat an MR */
	{ SI, SHAPE_257_PAGES, WR, NULL, "multiread", 2, 0, false, 250 * 4096 },
	/* 10 bytes into the last of 33 entries: one SGE */
	{ FM, SHAPE_33_PAGES, RD, NULL, "multiread", 1, 0, false, 32 * 4096 + 10 },
	/* exactly at the second entry: one sink MR over 32 pages */
	{ SI, SHAPE_33_PAGES, RD, NULL, "iwarp", 2, 1, false, 4096 },
	/* the last 96 bytes of the last entry, through a sink MR */
	{ SI, SHAPE_8_PAGES, RD, "iwarp", "iwarp", 2, 1, false, 7 * 4096 + 4000 },
	/* 57 pages less a byte, one source MR, its key killed after */
	{ SI, SHAPE_257_PAGES, WR, "frwr", "frwr", 3, 1, false, 200 * 4096 + 1 },
	/* MRs from inside a later entry: its last byte and 5 pages */
	{ RO, SHAPE_8_PAGES, RD, "frwr", "frwr", 2, 1, false, 2 * 4096 + 4095 },
	{ RO, SHAPE_33_PAGES, WR, "frwr", "frwr", 2, 1, false, 5 * 4096 + 7 },
	/*
	 * A first entry of 3,096 bytes, then whole pages: skipping it must
	 * subtract its own length, not that of the entry after it.
	 */
	{ RO, SHAPE_8_PAGES_OFFSET, RD, "frwr", "frwr", 2, 1 },
	/* past two entries of unequal length: 6 SGEs, one WR */
	{ RO, SHAPE_8_PAGES_OFFSET, RD, NULL, "multiread", 1, 0, false,
	  3096 + 4096 + 10 },
	/* 10 bytes into the second entry: one sink MR over 7 pages */
	{ IW, SHAPE_8_PAGES_OFFSET, RD, NULL, "iwarp", 2, 1, false, 3096 + 10 },
	/* exactly at the second entry, a source MR whose key dies after */
	{ SI, SHAPE_8_PAGES_OFFSET, WR, "frwr", "frwr", 3, 1, false, 3096 },
	/* the last byte of the third entry, then 5 pages, in one MR */
	{ RO, SHAPE_8_PAGES_OFFSET, WR, "frwr", "frwr", 2, 1, false,
	  3096 + 2 * 4096 + 4095 },

	/*
	 * Chained lists, as sg_alloc_table() builds long ones: the same plans
	 * as the flat list, through SGEs, sink MRs, source MRs and page
	 * lists, and across WRs and MRs.
	 */
	{ RO, SHAPE_33_PAGES, RD, NULL, "multiread", 2, 0, false, 0, CH },
	{ RO, SHAPE_257_PAGES, WR, NULL, "multiread", 9, 0, false, 0, CH },
	{ RO, SHAPE_33_PAGES, WR, "frwr", "frwr", 2, 1, false, 5 * 4096 + 7, CH },
	{ IW, SHAPE_256_PAGES, RD, NULL, "iwarp", 2, 1, false, 0, CH },
	{ IW, SHAPE_257_PAGES, RD, NULL, "iwarp", 4, 2, false, 0, CH },
	{ IW, SHAPE_257_PAGES, WR, NULL, "frwr", 4, 2, false, 0, CH },
	{ SI, SHAPE_33_PAGES, RD, NULL, "iwarp", 2, 1, false, 4096, CH },
	{ SI, SHAPE_256_PAGES, WR, NULL, "frwr", 3, 1, false, 0, CH },
	{ SI, SHAPE_257_PAGES, WR, NULL, "multiread", 2, 0, false, 250 * 4096, CH },
	{ FM, SHAPE_257_PAGES, RD, NULL, "fmr", 2, 2, false, 0, CH },
};

#undef RO
#undef IW
#undef FM
#undef SI
#undef RD
#undef WR
#undef BV
#undef CH

#endif /* _MRCORE_SCENARIOS_H */

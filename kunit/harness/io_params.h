/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The end-to-end I/Os of the READ/WRITE helper on rxe and siw: every shape
 * of the scenario table (tests/cases/scenarios.h) as a READ and as a
 * WRITE, as the cost model picks and with each backend forced that the
 * device can use.  Run in one kernel by mrcore_io_{rxe,siw}
 * (io_e2e_kunit.c) and across two by mrcore_io_{rxe,siw}_2host
 * (io_2host_kunit.c).
 */
#ifndef _MRCORE_IO_PARAMS_H
#define _MRCORE_IO_PARAMS_H

#include <kunit/test.h>

#include "cases/shapes.h"

/**
 * struct io_param - one end-to-end I/O
 * @shape: the local memory's shape.
 * @read: READ into it, else WRITE from it.
 * @force: backend forced on the pool, or NULL for the cost model's pick.
 * @bvec: the local memory given as bio_vecs (one per entry).
 * @chained: the local memory's scatterlist chained, in arrays of
 *	%MRCORE_SHAPE_CHAIN_ENTS entries (cases/shapes.h).
 */
struct io_param {
	enum mrcore_shape shape;
	bool read;
	const char *force;
	bool bvec;
	bool chained;
};

/* rxe: every shape as the cost model picks, and frwr and multiread forced. */
static const struct io_param io_params_rxe[] __maybe_unused = {
	{ SHAPE_1_BYTE, true, NULL }, { SHAPE_1_BYTE, false, NULL },
	{ SHAPE_1_PAGE, true, NULL }, { SHAPE_1_PAGE, false, NULL },
	{ SHAPE_UNALIGNED, true, NULL }, { SHAPE_UNALIGNED, false, NULL },
	{ SHAPE_8_PAGES, true, NULL }, { SHAPE_8_PAGES, false, NULL },
	{ SHAPE_32_PAGES, true, NULL }, { SHAPE_32_PAGES, false, NULL },
	{ SHAPE_33_PAGES, true, NULL }, { SHAPE_33_PAGES, false, NULL },
	{ SHAPE_256_PAGES, true, NULL }, { SHAPE_256_PAGES, false, NULL },
	{ SHAPE_257_PAGES, true, NULL }, { SHAPE_257_PAGES, false, NULL },
	{ SHAPE_1M_CONTIG, true, NULL }, { SHAPE_1M_CONTIG, false, NULL },
	{ SHAPE_4M_CONTIG, true, NULL }, { SHAPE_4M_CONTIG, false, NULL },
	{ SHAPE_1_BYTE, true, "frwr" }, { SHAPE_1_BYTE, false, "frwr" },
	{ SHAPE_UNALIGNED, true, "frwr" }, { SHAPE_UNALIGNED, false, "frwr" },
	{ SHAPE_33_PAGES, true, "frwr" }, { SHAPE_33_PAGES, false, "frwr" },
	{ SHAPE_257_PAGES, true, "frwr" }, { SHAPE_257_PAGES, false, "frwr" },
	{ SHAPE_4M_CONTIG, true, "frwr" }, { SHAPE_4M_CONTIG, false, "frwr" },
	{ SHAPE_8_PAGES, true, "multiread" }, { SHAPE_8_PAGES, false, "multiread" },
	{ SHAPE_257_PAGES, true, "multiread" }, { SHAPE_257_PAGES, false, "multiread" },
	{ SHAPE_4M_CONTIG, true, "multiread" }, { SHAPE_4M_CONTIG, false, "multiread" },
	{ SHAPE_1_PAGE, true, NULL, true }, { SHAPE_UNALIGNED, false, NULL, true },
	{ SHAPE_33_PAGES, true, NULL, true }, { SHAPE_1M_CONTIG, false, NULL, true },
	{ SHAPE_8_PAGES, true, "frwr", true }, { SHAPE_257_PAGES, false, "frwr", true },
	{ SHAPE_33_PAGES, true, NULL, false, true },
	{ SHAPE_257_PAGES, false, NULL, false, true },
	{ SHAPE_257_PAGES, true, "frwr", false, true },
	{ SHAPE_33_PAGES, false, "frwr", false, true },
};

/*
 * siw: every shape as picked (every READ through a temporary sink MR);
 * the iwarp backend forced on short READs too; frwr and multiread WRITEs
 * forced (33 pages: 9 WRs of the harness QP's 4 SGEs fit its send queue;
 * 257 pages would not, 65 WRs).
 */
static const struct io_param io_params_siw[] __maybe_unused = {
	{ SHAPE_1_BYTE, true, NULL }, { SHAPE_1_BYTE, false, NULL },
	{ SHAPE_1_PAGE, true, NULL }, { SHAPE_1_PAGE, false, NULL },
	{ SHAPE_UNALIGNED, true, NULL }, { SHAPE_UNALIGNED, false, NULL },
	{ SHAPE_8_PAGES, true, NULL }, { SHAPE_8_PAGES, false, NULL },
	{ SHAPE_32_PAGES, true, NULL }, { SHAPE_32_PAGES, false, NULL },
	{ SHAPE_33_PAGES, true, NULL }, { SHAPE_33_PAGES, false, NULL },
	{ SHAPE_256_PAGES, true, NULL }, { SHAPE_256_PAGES, false, NULL },
	{ SHAPE_257_PAGES, true, NULL }, { SHAPE_257_PAGES, false, NULL },
	{ SHAPE_1M_CONTIG, true, NULL }, { SHAPE_1M_CONTIG, false, NULL },
	{ SHAPE_4M_CONTIG, true, NULL }, { SHAPE_4M_CONTIG, false, NULL },
	{ SHAPE_1_BYTE, true, "iwarp" }, { SHAPE_UNALIGNED, true, "iwarp" },
	{ SHAPE_1M_CONTIG, true, "iwarp" }, { SHAPE_4M_CONTIG, true, "iwarp" },
	{ SHAPE_8_PAGES, false, "frwr" }, { SHAPE_4M_CONTIG, false, "frwr" },
	{ SHAPE_33_PAGES, false, "multiread" },
	{ SHAPE_1_BYTE, true, NULL, true }, { SHAPE_8_PAGES, false, NULL, true },
	{ SHAPE_257_PAGES, true, NULL, true }, { SHAPE_1M_CONTIG, true, NULL, true },
	{ SHAPE_32_PAGES, false, NULL, true },
	{ SHAPE_256_PAGES, true, NULL, false, true },
	{ SHAPE_257_PAGES, true, NULL, false, true },
	{ SHAPE_257_PAGES, false, NULL, false, true },
	{ SHAPE_33_PAGES, false, "multiread", false, true },
};

static inline void io_param_desc(const struct io_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s%s%s%s%s",
		 p->read ? "read" : "write", mrcore_shapes[p->shape].name,
		 p->force ? "_forced_" : "", p->force ? p->force : "",
		 p->bvec ? "_bvec" : "", p->chained ? "_chained" : "");
}

#endif /* _MRCORE_IO_PARAMS_H */

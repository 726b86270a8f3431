/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fault injection cases: an injection point armed (after @skip passes), one
 * operation, and the error the caller must get.  After each, nothing may be
 * left behind and the same operation must work again.  Run by the mirror
 * (mirror/tests/fault_test.cpp, with data moved) and by the KUnit suite
 * mrcore_faults (kunit/suites/fault_kunit.c, on fake devices).
 */
#ifndef _MRCORE_FAULT_CASES_H
#define _MRCORE_FAULT_CASES_H

#include "profiles.h"

enum mrcore_fault_op {
	FAULT_OP_MAP_RKEY,	/* rdma_map_sg_rkey() of @pages pages */
	FAULT_OP_CREATE_MR,	/* rdma_create_mr() */
	FAULT_OP_POOL_CREATE,	/* rdma_io_pool_create() of 4 MRs */
	FAULT_OP_IO_INIT,	/* rdma_io_ctx_init() of @pages scattered pages */
	FAULT_OP_IO_POST,	/* rdma_io_ctx_post() of such an I/O */
};

/**
 * struct mrcore_fault_case - one injected failure
 * @name: what is tested.
 * @point: the injection point (core/fault.c).
 * @skip: passes that succeed before the failure.
 * @profile: the device.
 * @op: the operation.
 * @pages: its size, for map and I/O operations.
 * @read: an I/O is a READ, else a WRITE.
 * @expect: the operation's return: a negative errno, or for FAULT_OP_IO_INIT
 *	a WR count when the I/O falls back instead of failing.
 * @backend: the backend of such a fallback.
 */
struct mrcore_fault_case {
	const char *name;
	const char *point;
	unsigned int skip;
	enum mrcore_profile profile;
	enum mrcore_fault_op op;
	unsigned int pages;
	bool read;
	int expect;
	const char *backend;
};

static const struct mrcore_fault_case mrcore_fault_cases[] = {
	{ "map_rkey, DMA mapping fails", "dma_map", 0, MRCORE_PROFILE_ROCE,
	  FAULT_OP_MAP_RKEY, 4, false, -ENOMEM, NULL },
	{ "map_rkey, short page list", "map_short", 0, MRCORE_PROFILE_ROCE,
	  FAULT_OP_MAP_RKEY, 4, false, -EIO, NULL },
	{ "map_rkey, short page list, iwarp", "map_short", 0,
	  MRCORE_PROFILE_IWARP, FAULT_OP_MAP_RKEY, 4, false, -EIO, NULL },
	{ "create_mr, MR allocation fails", "mr_alloc", 0, MRCORE_PROFILE_ROCE,
	  FAULT_OP_CREATE_MR, 0, false, -ENOMEM, NULL },
	{ "create_mr, FMR allocation fails", "mr_alloc", 0, MRCORE_PROFILE_FMR,
	  FAULT_OP_CREATE_MR, 0, false, -ENOMEM, NULL },
	{ "pool_create, third MR fails", "mr_alloc", 2, MRCORE_PROFILE_ROCE,
	  FAULT_OP_POOL_CREATE, 0, false, -ENOMEM, NULL },
	{ "io_init, DMA mapping fails", "dma_map", 0, MRCORE_PROFILE_ROCE,
	  FAULT_OP_IO_INIT, 8, true, -ENOMEM, NULL },
	{ "io_init, second MR maps short", "map_short", 1, MRCORE_PROFILE_IWARP,
	  FAULT_OP_IO_INIT, 257, true, -EIO, NULL },
	{ "io_init, the one MR maps short", "map_short", 0, MRCORE_PROFILE_IWARP,
	  FAULT_OP_IO_INIT, 8, true, -EIO, NULL },
	{ "io_init, pool empty, iwarp write falls back", "pool_empty", 0,
	  MRCORE_PROFILE_IWARP, FAULT_OP_IO_INIT, 256, false, 43,
	  "multiread" },
	{ "io_init, pool empty, fmr falls back", "pool_empty", 0,
	  MRCORE_PROFILE_FMR, FAULT_OP_IO_INIT, 256, false, 9, "multiread" },
	{ "io_init, pool empty, iwarp read", "pool_empty", 0,
	  MRCORE_PROFILE_IWARP, FAULT_OP_IO_INIT, 8, true, -EAGAIN, NULL },
	{ "io_post, post fails", "post_send", 0, MRCORE_PROFILE_ROCE,
	  FAULT_OP_IO_POST, 256, true, -ENOMEM, NULL },
	{ "io_post, post fails, iwarp", "post_send", 0, MRCORE_PROFILE_IWARP,
	  FAULT_OP_IO_POST, 8, true, -ENOMEM, NULL },
	{ "io_post, post fails, fmr", "post_send", 0, MRCORE_PROFILE_FMR,
	  FAULT_OP_IO_POST, 64, false, -ENOMEM, NULL },
};

#endif /* _MRCORE_FAULT_CASES_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a built-in backend (drivers/) may use of the core besides the vendor
 * header, include/rdma/mrcore_backend.h: the messages, the fault points a
 * test can fail, and the backends' own ops.  Everything else of the core
 * is in mrcore_priv.h, which the backends do not include.
 */
#ifndef _MRCORE_DRV_H
#define _MRCORE_DRV_H

/*
 * Messages for operators name the device (ibdev_*(): driver, parent and
 * device name) and this module, and are rate-limited: each comes from a
 * path an I/O or a peer can make hot.  Warnings say that capacity was lost
 * or a request refused for a reason its caller cannot see; debug messages
 * (dynamic debug) say why an I/O's MRs were replaced.
 */
#define mrcore_warn_ratelimited(ibdev, fmt, ...) \
	ibdev_warn_ratelimited(ibdev, KBUILD_MODNAME ": " fmt, ##__VA_ARGS__)
#define mrcore_dbg_ratelimited(ibdev, fmt, ...) \
	ibdev_dbg_ratelimited(ibdev, KBUILD_MODNAME ": " fmt, ##__VA_ARGS__)

/**
 * enum mrcore_fault_point - where a device failure can be injected
 * @MRCORE_FAULT_POST_SEND: rdma_io_ctx_post()'s ib_post_send().
 * @MRCORE_FAULT_MR_ALLOC: a backend's device MR allocation.
 * @MRCORE_FAULT_MAP_SHORT: ib_map_mr_sg() mapping fewer bytes than asked.
 * @MRCORE_FAULT_DMA_MAP: ib_dma_map_sg().
 * @MRCORE_FAULT_POOL_EMPTY: the MR pool having no free MR.
 * @MRCORE_FAULT_POST_WR: one WR of the chain rdma_io_ctx_post() posts, as
 *	a full send queue refuses it: the WRs before it are posted.
 * @MRCORE_FAULT_NR: number of points.
 */
enum mrcore_fault_point {
	MRCORE_FAULT_POST_SEND,
	MRCORE_FAULT_MR_ALLOC,
	MRCORE_FAULT_MAP_SHORT,
	MRCORE_FAULT_DMA_MAP,
	MRCORE_FAULT_POOL_EMPTY,
	MRCORE_FAULT_POST_WR,
	MRCORE_FAULT_NR,
};

/*
 * Test hooks (fault injection, the force_backend module parameter and
 * debugfs file) exist only in a build with CONFIG_RDMA_MRCORE_TEST_HOOKS
 * (Kbuild).  Without them no point ever fails and no backend is forced but
 * by a pool's own rdma_io_pool_force_backend().
 */
#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
DECLARE_STATIC_KEY_FALSE(mrcore_fault_key);
bool __mrcore_should_fail(enum mrcore_fault_point point);
const char *mrcore_fault_name(enum mrcore_fault_point point);
void mrcore_fault_state(enum mrcore_fault_point point, int *skip, int *times,
			int *hits);

/* Whether any point is armed: a test is injecting failures. */
static inline bool mrcore_fault_armed(void)
{
	return static_branch_unlikely(&mrcore_fault_key);
}

static inline bool mrcore_should_fail(enum mrcore_fault_point point)
{
	return mrcore_fault_armed() && __mrcore_should_fail(point);
}
#else
static inline bool mrcore_fault_armed(void)
{
	return false;
}

static inline bool mrcore_should_fail(enum mrcore_fault_point point)
{
	return false;
}
#endif

extern struct rdma_mr_backend_ops mrcore_frwr_ops;
extern struct rdma_mr_backend_ops mrcore_iwarp_ops;
extern struct rdma_mr_backend_ops mrcore_fmr_ops;
extern struct rdma_mr_backend_ops mrcore_multiread_ops;

#endif /* _MRCORE_DRV_H */

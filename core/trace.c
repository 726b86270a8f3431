// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracepoints' one instantiation.  Exported only with the test hooks,
 * for tests that register probes on them (kunit/suites/trace_kunit.c): tracefs,
 * perf and BPF need no export, and the kernel's tracepoint exports have no
 * namespace form, while every export of the production module is in
 * RDMA_MRCORE.
 */
#include "mrcore_priv.h"

#define CREATE_TRACE_POINTS
#include "mrcore_trace.h"

#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_map);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_unmap);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_invalidate_local);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_invalidate_remote);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_io_init);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_io_post);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_io_done);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_pool_exhausted);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_dma_map);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_dma_unmap);
#endif

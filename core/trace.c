// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracepoints' one instantiation; exported for tests that assert on
 * them (kunit/trace_kunit.c).
 */
#include "mrcore_internal.h"

#define CREATE_TRACE_POINTS
#include "mrcore_trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_map);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_unmap);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_invalidate_local);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_invalidate_remote);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_io_init);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_io_post);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_io_done);
EXPORT_TRACEPOINT_SYMBOL_GPL(mrcore_pool_exhausted);

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place where kernel API differences are handled.
 *
 * The build runs the feature tests of compat/probes/ against the kernel it
 * builds for (compat/Kbuild.include) and writes mrcore_compat_gen.h, one
 * MRCORE_HAVE_<NAME> per feature found.  Code never tests kernel versions;
 * it uses the wrappers below, which test those macros.
 */
#ifndef _MRCORE_COMPAT_H
#define _MRCORE_COMPAT_H

#include <mrcore_compat_gen.h>

/*
 * Symbol namespaces: EXPORT_SYMBOL_NS_GPL() and MODULE_IMPORT_NS() take a
 * bare token up to 6.12 (MRCORE_HAVE_NS_TOKEN), a string literal from 6.13
 * on.  Each namespace is then the string, under the same name, so the code
 * says EXPORT_SYMBOL_NS_GPL(sym, RDMA_MRCORE) and
 * MODULE_IMPORT_NS(RDMA_MRCORE) on every kernel.
 *
 * RDMA_MRCORE: every export of rdma_mrcore.ko and of the ULP adapters.
 * MRCORE_HARNESS: the test harness's exports (kunit/harness/mrcore_harness.h).
 */
#ifndef MRCORE_HAVE_NS_TOKEN
#define RDMA_MRCORE "RDMA_MRCORE"
#define MRCORE_HARNESS "MRCORE_HARNESS"
#endif

#endif /* _MRCORE_COMPAT_H */

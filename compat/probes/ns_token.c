// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_NS_TOKEN: EXPORT_SYMBOL_NS*() and MODULE_IMPORT_NS() take the
 * namespace as a bare token and stringify it (6.1, 6.12).  6.13 switched to
 * a string literal ("NS"); a token there does not compile, while a literal
 * still compiles on older kernels but names the wrong namespace (with the
 * quotes in it), so only the token form can be probed.
 */
#include <linux/export.h>
#include <linux/module.h>

int mrcore_probe_sym;
EXPORT_SYMBOL_NS_GPL(mrcore_probe_sym, MRCORE_PROBE_NS);
MODULE_IMPORT_NS(MRCORE_PROBE_NS);

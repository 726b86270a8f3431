// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_ASSIGN_STR_1ARG: TRACE_EVENT's __assign_str() takes only the
 * field (6.10+); before, it took (field, src).  Expanding the one-argument
 * form is a preprocessor error on the old macro.
 */
#include <linux/kernel.h>
#include <linux/stringify.h>
#include <trace/stages/stage6_event_callback.h>

const char mrcore_probe[] = __stringify(__assign_str(name));

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core/mrcore_trace.h ends with this include, outside its guard, which the
 * mirror's mrcore_internal.h defines: no tracepoint is created here.
 */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core's private declarations, by subject, for the files of core/.
 * The built-in backends (drivers/) include mrcore_internal.h alone, which
 * gives them the kernel, the vendor header and mrcore_drv.h.  In the
 * userspace mirror, its own mrcore_internal.h stands for the kernel's.
 */
#ifndef _MRCORE_PRIV_H
#define _MRCORE_PRIV_H

#include "mrcore_internal.h"
#include "mrcore_drv.h"
/* Before the subjects: their inline DMA helpers fire tracepoints. */
#include "mrcore_trace.h"

#include "mrcore_sg.h"
#include "mrcore_device.h"
#include "mrcore_mr.h"
#include "mrcore_pool.h"
#include "mrcore_dma.h"
#include "mrcore_map.h"
#include "mrcore_io.h"

#endif /* _MRCORE_PRIV_H */

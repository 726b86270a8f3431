/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place the core and the built-in backends get the kernel from,
 * with the vendor header and mrcore_drv.h: all a backend includes.  The
 * core's own files include mrcore_priv.h, which starts with this one.
 *
 * The userspace mirror (mirror/) supplies its own file under the same guard
 * and compiles the same .c files against it, so everything these files use
 * from the kernel must come in through here.
 */
#ifndef _MRCORE_INTERNAL_H
#define _MRCORE_INTERNAL_H

/* Messages without a device name the module; see mrcore_warn_ratelimited(). */
#ifndef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#endif

#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kref.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "mrcore_compat.h"

#include "mrcore_drv.h"

#endif /* _MRCORE_INTERNAL_H */

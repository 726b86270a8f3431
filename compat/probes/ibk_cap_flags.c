// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_IBK_CAP_FLAGS: kernel-only device capabilities live in
 * ib_device_attr.kernel_cap_flags as IBK_* (6.0+), no longer in
 * device_cap_flags as IB_DEVICE_*.  Same on 6.1 and 6.12; a guard for
 * older kernels.
 */
#include <rdma/ib_verbs.h>

bool mrcore_probe(const struct ib_device *dev);
bool mrcore_probe(const struct ib_device *dev)
{
	return (dev->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY) &&
	       (dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS);
}

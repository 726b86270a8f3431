// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_CREATE_CQ_ATTRS: struct ib_device_ops.create_cq takes a
 * struct uverbs_attr_bundle * (6.8+) instead of a struct ib_udata *.  A fake
 * device (KUnit) that implements create_cq needs the right prototype.
 */
#include <rdma/ib_verbs.h>

static int mrcore_probe_create_cq(struct ib_cq *cq,
				  const struct ib_cq_init_attr *attr,
				  struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops mrcore_probe = {
	.create_cq = mrcore_probe_create_cq,
};

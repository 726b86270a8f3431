// SPDX-License-Identifier: GPL-2.0-only
/*
 * The smallest out-of-tree ULP of rdma-mrcore: built against an installed
 * rdma-mrcore (its headers and Module.symvers), not against this source
 * tree.  See Documentation/ulp-guide.rst, "Building against rdma-mrcore".
 *
 * For every RDMA device: allocate a PD, create an rkey MR, say how many
 * MRs a 1 MiB I/O takes on the device, and release both.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/mrcore.h>

static int mrcore_sample_add(struct ib_device *dev)
{
	struct rdma_mr *mr;
	struct ib_pd *pd;

	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	mr = rdma_create_mr(pd, 16, RDMA_MR_ROLE_RKEY);
	if (IS_ERR(mr)) {
		ib_dealloc_pd(pd);
		return PTR_ERR(mr);
	}
	dev_info(&dev->dev, "mrcore_sample: MR of %u pages; a 1 MiB I/O takes %u MRs\n",
		 rdma_mr_max_pages(mr),
		 rdma_io_mr_factor(dev, rdma_start_port(dev), 256));
	rdma_destroy_mr(mr);
	ib_dealloc_pd(pd);
	return 0;
}

static void mrcore_sample_remove(struct ib_device *dev, void *client_data)
{
}

static struct ib_client mrcore_sample_client = {
	.name = "mrcore_sample",
	.add = mrcore_sample_add,
	.remove = mrcore_sample_remove,
};

static int __init mrcore_sample_init(void)
{
	return ib_register_client(&mrcore_sample_client);
}

static void __exit mrcore_sample_exit(void)
{
	ib_unregister_client(&mrcore_sample_client);
}

module_init(mrcore_sample_init);
module_exit(mrcore_sample_exit);

MODULE_DESCRIPTION("rdma-mrcore sample out-of-tree ULP");
MODULE_LICENSE("GPL");
/*
 * The exports are in namespace RDMA_MRCORE.  Kernels up to 6.12 take it as
 * a bare token, as here; from 6.13 on write MODULE_IMPORT_NS("RDMA_MRCORE").
 */
MODULE_IMPORT_NS(RDMA_MRCORE);

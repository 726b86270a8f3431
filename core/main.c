// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma-mrcore module entry points: the built-in backends are registered here.
 */
#include "mrcore_internal.h"

static int __init mrcore_init(void)
{
	return rdma_mr_backend_register(&mrcore_frwr_ops);
}

static void __exit mrcore_exit(void)
{
	rdma_mr_backend_unregister(&mrcore_frwr_ops);
}

module_init(mrcore_init);
module_exit(mrcore_exit);

MODULE_DESCRIPTION("Memory registration and RDMA READ/WRITE for in-kernel RDMA ULPs");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma-mrcore module entry points: the built-in backends and the test knobs
 * (only in a build with CONFIG_RDMA_MRCORE_TEST_HOOKS).
 */
#include "mrcore_priv.h"

#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
char mrcore_force_backend[MRCORE_BACKEND_NAME_LEN];

/* A new name makes every pool resolve its backends again. */
static int mrcore_force_backend_set(const char *val,
				    const struct kernel_param *kp)
{
	int ret = param_set_copystring(val, kp);

	mrcore_registry_changed();
	return ret;
}

static const struct kernel_param_ops mrcore_force_backend_ops = {
	.set = mrcore_force_backend_set,
	.get = param_get_string,
};

static struct kparam_string mrcore_force_backend_kps = {
	.string = mrcore_force_backend,
	.maxlen = sizeof(mrcore_force_backend),
};

module_param_cb(force_backend, &mrcore_force_backend_ops,
		&mrcore_force_backend_kps, 0644);
MODULE_PARM_DESC(force_backend,
		 "Backend every I/O must use (frwr, iwarp, fmr, multiread); empty: the cost model decides. For tests.");
#endif

struct workqueue_struct *mrcore_wq;

static struct rdma_mr_backend_ops *const mrcore_builtin[] = {
	&mrcore_multiread_ops,
	&mrcore_fmr_ops,
	&mrcore_iwarp_ops,
	&mrcore_frwr_ops,
};

static void mrcore_unregister_builtin(unsigned int n)
{
	while (n--)
		rdma_mr_backend_unregister(mrcore_builtin[n]);
}

static int __init mrcore_init(void)
{
	unsigned int i;
	int ret;

	/*
	 * The rkey sets' retire work and the pools' recycle work: an NFS
	 * client's may free memory, and a ULP's teardown that flushes them
	 * may itself run on a reclaim queue (nvme-rdma's error recovery).
	 */
	mrcore_wq = alloc_workqueue("rdma_mrcore", WQ_MEM_RECLAIM, 0);
	if (!mrcore_wq)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(mrcore_builtin); i++) {
		ret = rdma_mr_backend_register(mrcore_builtin[i]);
		if (ret)
			goto unregister;
	}
	ret = mrcore_devices_init(mrcore_debugfs_init());
	if (ret)
		goto remove_debugfs;
	return 0;

remove_debugfs:
	mrcore_debugfs_exit();
unregister:
	mrcore_unregister_builtin(i);
	destroy_workqueue(mrcore_wq);
	return ret;
}

static void __exit mrcore_exit(void)
{
	mrcore_devices_exit();
	mrcore_debugfs_exit();
	mrcore_unregister_builtin(ARRAY_SIZE(mrcore_builtin));
	destroy_workqueue(mrcore_wq);
}

module_init(mrcore_init);
module_exit(mrcore_exit);

MODULE_DESCRIPTION("Memory registration and RDMA READ/WRITE for in-kernel RDMA ULPs");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs: /sys/kernel/debug/rdma_mrcore/.
 *
 *   force_backend   read/write: the backend every I/O must use ("" for the
 *                   cost model's choice); the same buffer as the module
 *                   parameter force_backend.
 */
#include "mrcore_internal.h"

static struct dentry *mrcore_debugfs_dir;

static ssize_t force_backend_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[MRCORE_BACKEND_NAME_LEN + 1];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s\n", mrcore_force_backend);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t force_backend_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[MRCORE_BACKEND_NAME_LEN];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	strscpy(mrcore_force_backend, buf, sizeof(mrcore_force_backend));
	return count;
}

static const struct file_operations force_backend_fops = {
	.owner = THIS_MODULE,
	.read = force_backend_read,
	.write = force_backend_write,
	.llseek = default_llseek,
};

/**
 * mrcore_debugfs_init() - create the module's debugfs files
 *
 * debugfs is optional: failures leave the module working without it.
 *
 * Context: Process context.
 */
void mrcore_debugfs_init(void)
{
	mrcore_debugfs_dir = debugfs_create_dir("rdma_mrcore", NULL);
	debugfs_create_file("force_backend", 0600, mrcore_debugfs_dir, NULL,
			    &force_backend_fops);
}

/**
 * mrcore_debugfs_exit() - remove them
 *
 * Context: Process context.
 */
void mrcore_debugfs_exit(void)
{
	debugfs_remove_recursive(mrcore_debugfs_dir);
}

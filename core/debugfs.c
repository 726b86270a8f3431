// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs: /sys/kernel/debug/rdma_mrcore/.
 *
 *   force_backend   read/write: the backend every I/O must use ("" for the
 *                   cost model's choice); the same buffer as the module
 *                   parameter force_backend.  A test hook.
 *   fault/<point>   read "skip times hits", write "skip times": fault
 *                   injection (core/fault.c); "0 0" disarms.  A test hook.
 *   devices/<dev>/  per device: counters, backends and the cost model's
 *                   weights (core/device.c).
 */
#include "mrcore_priv.h"

static struct dentry *mrcore_debugfs_dir;

#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
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
	mrcore_registry_changed();
	return count;
}

static const struct file_operations force_backend_fops = {
	.owner = THIS_MODULE,
	.read = force_backend_read,
	.write = force_backend_write,
	.llseek = default_llseek,
};

static ssize_t fault_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	enum mrcore_fault_point point =
		(uintptr_t)file_inode(file)->i_private;
	int skip, times, hits, len;
	char buf[48];

	mrcore_fault_state(point, &skip, &times, &hits);
	len = scnprintf(buf, sizeof(buf), "%d %d %d\n", skip, times, hits);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t fault_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	enum mrcore_fault_point point =
		(uintptr_t)file_inode(file)->i_private;
	u32 skip, times;
	char buf[32];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u", &skip, &times) != 2)
		return -EINVAL;
	ret = rdma_mrcore_fault_arm(mrcore_fault_name(point), skip, times);
	return ret ? ret : count;
}

static const struct file_operations fault_fops = {
	.owner = THIS_MODULE,
	.read = fault_read,
	.write = fault_write,
	.llseek = default_llseek,
};

/* The test hooks' files: force_backend and fault/<point>. */
static void mrcore_debugfs_test_hooks(void)
{
	struct dentry *faults;
	uintptr_t i;

	debugfs_create_file("force_backend", 0600, mrcore_debugfs_dir, NULL,
			    &force_backend_fops);
	faults = debugfs_create_dir("fault", mrcore_debugfs_dir);
	for (i = 0; i < MRCORE_FAULT_NR; i++)
		debugfs_create_file(mrcore_fault_name(i), 0600, faults,
				    (void *)i, &fault_fops);
}
#else
static void mrcore_debugfs_test_hooks(void)
{
}
#endif

/**
 * mrcore_debugfs_init() - create the module's debugfs files
 *
 * debugfs is optional: failures leave the module working without it.
 *
 * Context: Process context.
 * Return: the module's directory, for the files of other parts.
 */
struct dentry *mrcore_debugfs_init(void)
{
	mrcore_debugfs_dir = debugfs_create_dir("rdma_mrcore", NULL);
	mrcore_debugfs_test_hooks();
	return mrcore_debugfs_dir;
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

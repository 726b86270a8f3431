// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-device state: counters and the backends chosen, in debugfs.
 *
 * The module is an ib_client: every RDMA device gets a struct mrcore_device
 * when it registers (or when the module loads), with per-CPU counters and
 * /sys/kernel/debug/rdma_mrcore/devices/<device>/{counters,backends}.
 *
 * MRs and pools hold a reference on it, taken at creation.  That matters at
 * device removal: ib_core removes clients newest first, so this module's
 * remove() runs before rdma_cm tells its users (the ULPs) that the device is
 * going, and their pools and MRs still exist then.  remove() therefore only
 * unpublishes the state (debugfs, client data) and drops the device's own
 * reference; it never waits for the ULPs, which would deadlock the removal.
 * The last pool or MR the ULPs destroy frees it.
 *
 * Devices that were never registered with ib_core (the fake devices of the
 * unit tests) have no state: their counters are not kept.
 */
#include "mrcore_priv.h"

static const char *const mrcore_stat_names[MRCORE_STAT_NR] = {
	[MRCORE_STAT_MAPS] = "maps",
	[MRCORE_STAT_UNMAPS] = "unmaps",
	[MRCORE_STAT_DMA_MAPS] = "dma_maps",
	[MRCORE_STAT_DMA_UNMAPS] = "dma_unmaps",
	[MRCORE_STAT_IOS] = "ios",
	[MRCORE_STAT_WRS] = "wrs_posted",
	[MRCORE_STAT_POSTS] = "posts",
	[MRCORE_STAT_POOL_HITS] = "pool_hits",
	[MRCORE_STAT_POOL_MISSES] = "pool_misses",
	[MRCORE_STAT_POOL_FALLBACKS] = "pool_fallbacks",
	[MRCORE_STAT_IO_ALLOCS] = "io_allocs",
	[MRCORE_STAT_MR_RECYCLED] = "mr_recycled",
	[MRCORE_STAT_POOL_SHRUNK] = "pool_shrunk",
	[MRCORE_STAT_POOL_GROWN] = "pool_grown",
	[MRCORE_STAT_MR_INDEX_REFUSED] = "mr_index_refused",
	[MRCORE_STAT_INV_LOCAL] = "invalidate_local",
	[MRCORE_STAT_INV_REMOTE] = "invalidate_remote",
	[MRCORE_STAT_ERR_DMA_MAP] = "err_dma_map",
	[MRCORE_STAT_ERR_MR_ALLOC] = "err_mr_alloc",
	[MRCORE_STAT_ERR_MAP] = "err_map",
	[MRCORE_STAT_ERR_NO_BACKEND] = "err_no_backend",
	[MRCORE_STAT_ERR_POOL_DRY] = "err_pool_dry",
	[MRCORE_STAT_ERR_POST] = "err_post",
	[MRCORE_STAT_ERR_COMPLETION] = "err_completion",
	[MRCORE_STAT_ERR_FLUSH] = "err_flush",
};

static const char *const mrcore_class_names[MRCORE_CLASS_NR] = {
	[MRCORE_CLASS_MAP] = "map",
	[MRCORE_CLASS_READ] = "read",
	[MRCORE_CLASS_WRITE] = "write",
};

const char *const mrcore_why_names[MRCORE_WHY_NR] = {
	[MRCORE_WHY_NONE] = "-",
	[MRCORE_WHY_ONLY] = "only",
	[MRCORE_WHY_CHEAPEST] = "cheapest",
	[MRCORE_WHY_FORCED] = "forced",
	[MRCORE_WHY_POOL_DRY] = "pool dry",
};

/* Protects the client data against a lookup racing with remove(). */
static DEFINE_SPINLOCK(mrcore_devices_lock);
static struct dentry *mrcore_devices_dir;
static atomic_t mrcore_devices_live;

static int mrcore_client_add(struct ib_device *ibdev);
static void mrcore_client_remove(struct ib_device *ibdev, void *data);

static struct ib_client mrcore_client = {
	.name = "rdma_mrcore",
	.add = mrcore_client_add,
	.remove = mrcore_client_remove,
};

/**
 * mrcore_device_get() - the state of a device, referenced
 * @ibdev: the device.
 *
 * Context: Any context.
 * Return: the state, to be released with mrcore_device_put(), or %NULL if
 * the device is not registered with ib_core or is being removed.
 */
struct mrcore_device *mrcore_device_get(struct ib_device *ibdev)
{
	struct mrcore_device *mdev;
	unsigned long flags;

	spin_lock_irqsave(&mrcore_devices_lock, flags);
	mdev = ib_get_client_data(ibdev, &mrcore_client);
	if (mdev)
		kref_get(&mdev->ref);
	spin_unlock_irqrestore(&mrcore_devices_lock, flags);
	return mdev;
}

static void mrcore_device_release(struct kref *ref)
{
	struct mrcore_device *mdev = container_of(ref, struct mrcore_device,
						  ref);

	mrcore_mrindex_destroy(mdev);
	free_percpu(mdev->stats);
	kfree(mdev);
	atomic_dec(&mrcore_devices_live);
}

/**
 * mrcore_device_put() - drop a reference taken by mrcore_device_get()
 * @mdev: the state, or %NULL.
 *
 * Context: Any context.
 */
void mrcore_device_put(struct mrcore_device *mdev)
{
	if (mdev)
		kref_put(&mdev->ref, mrcore_device_release);
}

/**
 * mrcore_device_slot() - the counter slot of a backend on a device
 * @mdev: the device's state, or %NULL.
 * @ops: the backend.
 *
 * Slots are claimed once per backend and device and never change owner, so
 * the lookup reads them without a lock; a backend that finds every slot
 * taken counts in the last one.  Pools look their candidates' slots up once
 * (mrcore_pool_resolve()).
 *
 * Context: Any context.
 * Return: the slot; 0 without state.
 */
u32 mrcore_device_slot(struct mrcore_device *mdev,
		       const struct rdma_mr_backend_ops *ops)
{
	unsigned long flags;
	u32 i, n;

	if (!mdev)
		return 0;
	/* Pairs with the release below: a counted slot has its ops set. */
	n = smp_load_acquire(&mdev->nr_slots);
	for (i = 0; i < n; i++)
		if (mdev->slot_ops[i] == ops)
			return i;

	spin_lock_irqsave(&mdev->lock, flags);
	for (i = 0; i < mdev->nr_slots; i++)
		if (mdev->slot_ops[i] == ops)
			goto unlock;
	if (i == MRCORE_DEVICE_SLOTS) {
		i = MRCORE_DEVICE_SLOTS - 1;
		goto unlock;
	}
	mdev->slot_ops[i] = ops;
	strscpy(mdev->slot_name[i], ops->name, sizeof(mdev->slot_name[i]));
	/* Publish the slot after its ops and name: see the acquire above. */
	smp_store_release(&mdev->nr_slots, i + 1);
unlock:
	spin_unlock_irqrestore(&mdev->lock, flags);
	return i;
}

/**
 * mrcore_device_chose() - count a backend's use for a class of operations
 * @mdev: the device's state, or %NULL.
 * @op_class: what it does.
 * @ops: the backend.
 * @why: why the core chose it.
 *
 * Context: Any context.
 */
void mrcore_device_chose(struct mrcore_device *mdev, enum mrcore_class op_class,
			 const struct rdma_mr_backend_ops *ops,
			 enum mrcore_why why)
{
	if (mdev)
		mrcore_count_use(mdev->stats, mdev->last, op_class,
				 mrcore_device_slot(mdev, ops), why);
}

static void mrcore_device_sum(struct mrcore_device *mdev,
			      struct mrcore_device_stats *sum)
{
	u64 ios;
	int cpu;
	u32 i, c;

	memset(sum, 0, sizeof(*sum));
	/*
	 * Other CPUs add to their counters while this reads them: each read
	 * is marked, so that it is one whole load of the counter (no tear,
	 * no refetch) and the race with this_cpu_add() is the intended one.
	 */
	for_each_possible_cpu(cpu) {
		const struct mrcore_device_stats *s =
			per_cpu_ptr(mdev->stats, cpu);

		for (i = 0; i < MRCORE_STAT_NR; i++)
			sum->v[i] += READ_ONCE(s->v[i]);
		for (i = 0; i < MRCORE_DEVICE_SLOTS; i++) {
			for (c = 0; c < MRCORE_CLASS_NR; c++)
				sum->by_backend[i][c] +=
					READ_ONCE(s->by_backend[i][c]);
			/*
			 * Every I/O is counted once, by its backend, and
			 * so is the mapping it holds (mrcore_count_use()).
			 */
			ios = READ_ONCE(s->by_backend[i][MRCORE_CLASS_READ]) +
			      READ_ONCE(s->by_backend[i][MRCORE_CLASS_WRITE]);
			sum->v[MRCORE_STAT_IOS] += ios;
			sum->v[MRCORE_STAT_DMA_MAPS] += ios;
		}
	}
	/* So is a map-API MR's (mrcore_map_sg(), mrcore_mr_dma_release()). */
	sum->v[MRCORE_STAT_DMA_MAPS] += sum->v[MRCORE_STAT_MAPS];
	sum->v[MRCORE_STAT_DMA_UNMAPS] += sum->v[MRCORE_STAT_UNMAPS];
}

/**
 * mrcore_device_stat() - one counter of a device, summed over the CPUs
 * @mdev: the device's state.
 * @stat: the counter.
 *
 * Context: Any context.
 * Return: its value.
 */
u64 mrcore_device_stat(struct mrcore_device *mdev, enum mrcore_stat stat)
{
	u64 v = 0;
	int cpu;
	u32 i;

	for_each_possible_cpu(cpu) {
		const struct mrcore_device_stats *s =
			per_cpu_ptr(mdev->stats, cpu);

		/* Marked: see mrcore_device_sum(). */
		v += READ_ONCE(s->v[stat]);
		if (stat != MRCORE_STAT_IOS && stat != MRCORE_STAT_DMA_MAPS)
			continue;
		for (i = 0; i < MRCORE_DEVICE_SLOTS; i++)
			v += READ_ONCE(s->by_backend[i][MRCORE_CLASS_READ]) +
			     READ_ONCE(s->by_backend[i][MRCORE_CLASS_WRITE]);
	}
	/* As mrcore_device_sum(). */
	if (stat == MRCORE_STAT_DMA_MAPS)
		v += mrcore_device_stat(mdev, MRCORE_STAT_MAPS);
	else if (stat == MRCORE_STAT_DMA_UNMAPS)
		v += mrcore_device_stat(mdev, MRCORE_STAT_UNMAPS);
	return v;
}

#define MRCORE_DEVICE_TEXT	2048

static ssize_t mrcore_device_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos, bool counters)
{
	struct mrcore_device *mdev = file_inode(file)->i_private;
	struct mrcore_device_stats *sum;
	size_t len = 0;
	ssize_t ret;
	u32 i, c;
	char *buf;

	sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	buf = kzalloc(MRCORE_DEVICE_TEXT, GFP_KERNEL);
	if (!sum || !buf) {
		ret = -ENOMEM;
		goto free;
	}
	mrcore_device_sum(mdev, sum);
	if (counters) {
		for (i = 0; i < MRCORE_STAT_NR; i++)
			len += scnprintf(buf + len, MRCORE_DEVICE_TEXT - len,
					 "%s %llu\n", mrcore_stat_names[i],
					 (unsigned long long)sum->v[i]);
		for (i = 0; i < READ_ONCE(mdev->nr_slots); i++)
			for (c = 0; c < MRCORE_CLASS_NR; c++)
				len += scnprintf(buf + len,
						 MRCORE_DEVICE_TEXT - len,
						 "%s_%s %llu\n",
						 mrcore_class_names[c],
						 mdev->slot_name[i],
						 (unsigned long long)
						 sum->by_backend[i][c]);
	} else {
		for (c = 0; c < MRCORE_CLASS_NR; c++) {
			u32 last = READ_ONCE(mdev->last[c]);
			u32 slot = last & 0xffff;

			len += scnprintf(buf + len, MRCORE_DEVICE_TEXT - len,
					 "%s %s %s\n", mrcore_class_names[c],
					 slot ? mdev->slot_name[slot - 1] : "-",
					 mrcore_why_name(last >> 16));
		}
	}
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
free:
	kfree(buf);
	kfree(sum);
	return ret;
}

static ssize_t counters_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return mrcore_device_read(file, ubuf, count, ppos, true);
}

static ssize_t backends_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return mrcore_device_read(file, ubuf, count, ppos, false);
}

static ssize_t weights_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct mrcore_device *mdev = file_inode(file)->i_private;
	const struct rdma_mr_backend_ops *ops;
	struct rdma_io_weights w;
	char buf[80];
	int len;

	ops = mrcore_backend_get(mdev->ibdev);
	mrcore_io_weights(mdev->ibdev, rdma_start_port(mdev->ibdev), ops, &w);
	if (ops)
		mrcore_backend_put(ops);
	len = scnprintf(buf, sizeof(buf), "wr %u\nmr %u\npage %u\nsge %u\n",
			w.wr, w.mr, w.page, w.sge);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations weights_fops = {
	.owner = THIS_MODULE,
	.read = weights_read,
	.llseek = default_llseek,
};

static const struct file_operations counters_fops = {
	.owner = THIS_MODULE,
	.read = counters_read,
	.llseek = default_llseek,
};

static const struct file_operations backends_fops = {
	.owner = THIS_MODULE,
	.read = backends_read,
	.llseek = default_llseek,
};

static int mrcore_client_add(struct ib_device *ibdev)
{
	struct mrcore_device *mdev;
	unsigned long flags;

	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->stats = alloc_percpu(struct mrcore_device_stats);
	if (!mdev->stats)
		goto free_mdev;
	kref_init(&mdev->ref);
	spin_lock_init(&mdev->lock);
	mdev->ibdev = ibdev;
	if (mrcore_mrindex_create(mdev))
		goto free_stats;
	atomic_inc(&mrcore_devices_live);

	/* debugfs is optional: a device without its files still counts. */
	mdev->dir = debugfs_create_dir(ibdev->name, mrcore_devices_dir);
	debugfs_create_file("counters", 0400, mdev->dir, mdev, &counters_fops);
	debugfs_create_file("backends", 0400, mdev->dir, mdev, &backends_fops);
	debugfs_create_file("weights", 0400, mdev->dir, mdev, &weights_fops);

	spin_lock_irqsave(&mrcore_devices_lock, flags);
	ib_set_client_data(ibdev, &mrcore_client, mdev);
	spin_unlock_irqrestore(&mrcore_devices_lock, flags);
	return 0;

free_stats:
	free_percpu(mdev->stats);
free_mdev:
	kfree(mdev);
	return -ENOMEM;
}

static void mrcore_client_remove(struct ib_device *ibdev, void *data)
{
	struct mrcore_device *mdev = data;
	unsigned long flags;

	spin_lock_irqsave(&mrcore_devices_lock, flags);
	ib_set_client_data(ibdev, &mrcore_client, NULL);
	spin_unlock_irqrestore(&mrcore_devices_lock, flags);
	/* No reader is left once the files are gone. */
	debugfs_remove_recursive(mdev->dir);
	mrcore_device_put(mdev);
}

/**
 * rdma_mrcore_device_counter() - read one counter of a device
 * @ibdev: the device.
 * @name: the counter's name, as in the debugfs file ``counters``.
 * @value: its value, summed over the CPUs, on success.
 *
 * The counters as in-kernel code sees them (tests, a ULP's statistics);
 * users read debugfs.
 *
 * Context: Any context.
 * Return: 0; -ENODEV if the core keeps no state for @ibdev; -ENOENT for an
 * unknown @name.
 */
int rdma_mrcore_device_counter(struct ib_device *ibdev, const char *name,
			       u64 *value)
{
	struct mrcore_device *mdev = mrcore_device_get(ibdev);
	int ret = -ENOENT;
	u32 i;

	if (!mdev)
		return -ENODEV;
	for (i = 0; i < MRCORE_STAT_NR; i++) {
		if (!strcmp(name, mrcore_stat_names[i])) {
			*value = mrcore_device_stat(mdev, i);
			ret = 0;
			break;
		}
	}
	mrcore_device_put(mdev);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_mrcore_device_counter, RDMA_MRCORE);

/* DMA mappings made by the core and not yet released, on every device. */
DEFINE_PER_CPU(long, mrcore_dma_live);

/**
 * mrcore_dma_map_slow() - __mrcore_dma_map() while traced or faults armed
 * @dev: the device.
 * @sg: the scatterlist.
 * @nents: its entries.
 * @dir: the direction.
 *
 * Context: As ib_dma_map_sg().
 * Return: as __mrcore_dma_map().
 */
int mrcore_dma_map_slow(struct ib_device *dev, struct scatterlist *sg,
			u32 nents, enum dma_data_direction dir)
{
	int n = mrcore_fault_armed() ?
		mrcore_dma_map_faulty(dev, sg, nents, dir) :
		ib_dma_map_sg(dev, sg, nents, dir);

	trace_mrcore_dma_map(dev, sg, nents, dir, n);
	return n;
}

/**
 * mrcore_dma_unmap_traced() - ib_dma_unmap_sg() with its tracepoint
 * @dev: the device.
 * @sg: the scatterlist.
 * @nents: the entries given to the mapping.
 * @dir: the direction.
 *
 * Context: As ib_dma_unmap_sg().
 */
void mrcore_dma_unmap_traced(struct ib_device *dev, struct scatterlist *sg,
			     u32 nents, enum dma_data_direction dir)
{
	trace_mrcore_dma_unmap(dev, sg, nents, dir);
	ib_dma_unmap_sg(dev, sg, nents, dir);
}

DEFINE_PER_CPU(struct mrcore_device_stats, mrcore_nodev_stats);
u32 mrcore_nodev_last[MRCORE_CLASS_NR];

/**
 * rdma_mrcore_dma_maps_live() - DMA mappings the core holds
 *
 * For tests: the scatterlists the core DMA-mapped (map API and I/O
 * contexts) and has not unmapped, on every device, including devices that
 * were never registered and keep no counters.  Summed over the CPUs without
 * a lock: read it when no mapping is being made or released.
 *
 * Context: Any context.
 * Return: the number of live mappings.
 */
long rdma_mrcore_dma_maps_live(void)
{
	long n = 0;
	int cpu;

	/* Marked: other CPUs may map and unmap meanwhile (see above). */
	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(mrcore_dma_live, cpu));
	return n;
}
EXPORT_SYMBOL_NS_GPL(rdma_mrcore_dma_maps_live, RDMA_MRCORE);

/**
 * rdma_mrcore_devices_live() - how many device states exist
 *
 * For tests: after a device's removal, once its users destroyed their pools
 * and MRs, its state is freed and this count drops.
 *
 * Context: Any context.
 * Return: the number of struct mrcore_device not yet freed.
 */
int rdma_mrcore_devices_live(void)
{
	return atomic_read(&mrcore_devices_live);
}
EXPORT_SYMBOL_NS_GPL(rdma_mrcore_devices_live, RDMA_MRCORE);

/**
 * mrcore_devices_init() - register the ib_client
 * @root: the module's debugfs directory.
 *
 * Context: Process context.
 * Return: 0, or ib_register_client()'s error.
 */
int mrcore_devices_init(struct dentry *root)
{
	mrcore_devices_dir = debugfs_create_dir("devices", root);
	return ib_register_client(&mrcore_client);
}

/**
 * mrcore_devices_exit() - unregister it; every device's state goes
 *
 * Context: Process context.
 */
void mrcore_devices_exit(void)
{
	ib_unregister_client(&mrcore_client);
}

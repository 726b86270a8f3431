// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device MR indices the core gave back recently, on drivers that draw them
 * at random.
 *
 * A key is a device MR's index (its upper 24 bits, the driver's) and a key
 * byte (the lower 8, the consumer's).  The core rotates the byte and
 * replaces the device MR before the byte comes round (MRCORE_KEY_USES), so
 * a key value can come back only with an index the driver hands out again.
 * rxe allocates indices cyclically over 2^19 values: one comes back no
 * sooner than after 2^19 other MRs.  siw draws every new MR's index at
 * random from 2^24 values (siw_mem.c, siw_mr_add_mem(): xa_alloc_cyclic()
 * from a random start) with the key byte at 0, and the core replaces the
 * device MR at every unmap of a local key there (rdma_unmap_mr()): over
 * 65,536 unmaps about 128 indices come back, each with the key it had.
 *
 * On such a driver the device remembers the indices of the last
 * %MRCORE_KEY_WINDOW device MRs the core deregistered after they had handed
 * out a key, and a new device MR whose index is among them is deregistered
 * unused and another one allocated (mrcore_mr_dev_alloc()).  Each
 * remembered index stands for at least one key, and every key the core
 * hands out comes from a device MR it allocated that way: no key value
 * recurs within %MRCORE_KEY_WINDOW keys of the device.  The price on siw:
 * 768 KiB per device, and one allocation in 256 made twice.
 *
 * A ring in release order forgets the oldest index; a hash table with
 * linear probing, whose entries are ring slots, says whether an index is
 * in the ring.  Deleting shifts the entries behind back, so no probe
 * sequence is ever broken and no tombstones accumulate.
 */
#include "mrcore_priv.h"

#define MRCORE_MRINDEX_HASH_BITS	(ilog2(MRCORE_KEY_WINDOW) + 1)
#define MRCORE_MRINDEX_HASH_SIZE	BIT(MRCORE_MRINDEX_HASH_BITS)

/**
 * struct mrcore_mrindex - the indices of recently deregistered device MRs
 * @lock: serializes @ring, @table, @next and @filled.
 * @next: the ring slot the next index takes.
 * @filled: slots of @ring in use, up to %MRCORE_KEY_WINDOW.
 * @ring: indices in the order their device MRs were deregistered.
 * @table: the hash table: a ring slot plus one, or 0 for an empty entry;
 *	at most one entry per index (its newest slot), half full at most.
 */
struct mrcore_mrindex {
	spinlock_t lock;	/* see above: @ring, @table, @next, @filled */
	u32 next;
	u32 filled;
	u32 ring[MRCORE_KEY_WINDOW];
	u32 table[MRCORE_MRINDEX_HASH_SIZE];
};

static u32 mrcore_mrindex_home(u32 index)
{
	return hash_32(index, MRCORE_MRINDEX_HASH_BITS);
}

/* The entry of @index, or the empty entry where it would go. */
static u32 mrcore_mrindex_find(const struct mrcore_mrindex *f, u32 index)
{
	u32 h = mrcore_mrindex_home(index);

	while (f->table[h] && f->ring[f->table[h] - 1] != index)
		h = (h + 1) % MRCORE_MRINDEX_HASH_SIZE;
	return h;
}

/* Drop the entry of ring slot @slot, if it is its index's newest. */
static void mrcore_mrindex_forget(struct mrcore_mrindex *f, u32 slot)
{
	u32 h = mrcore_mrindex_find(f, f->ring[slot]);
	u32 k;

	if (f->table[h] != slot + 1)
		return;
	/*
	 * Move back each entry behind the hole whose probe sequence passes
	 * over it (its home is not between the hole and itself), so that
	 * every lookup still reaches its entry before an empty one.
	 */
	for (k = (h + 1) % MRCORE_MRINDEX_HASH_SIZE; f->table[k];
	     k = (k + 1) % MRCORE_MRINDEX_HASH_SIZE) {
		u32 home = mrcore_mrindex_home(f->ring[f->table[k] - 1]);
		u32 dist_home = (k - home) % MRCORE_MRINDEX_HASH_SIZE;
		u32 dist_hole = (k - h) % MRCORE_MRINDEX_HASH_SIZE;

		if (dist_home >= dist_hole) {
			f->table[h] = f->table[k];
			h = k;
		}
	}
	f->table[h] = 0;
}

/* The index of @mr's device MR: its key without the consumer's byte. */
static bool mrcore_mrindex_of(const struct rdma_mr *mr, u32 *index)
{
	if (!mr->mdev || !mr->mdev->mrindex || !mr->ibmr)
		return false;
	*index = mr->ibmr->rkey >> 8;
	return true;
}

/**
 * mrcore_mrindex_recent() - whether an MR's new device MR has an index the
 *	core gave back too recently
 * @mr: an MR whose device MR was just allocated and has handed out no key.
 *
 * Context: Any context.
 * Return: true if the device remembers recent indices and @mr's is among
 * those of the last %MRCORE_KEY_WINDOW device MRs deregistered after
 * handing out a key.
 */
bool mrcore_mrindex_recent(const struct rdma_mr *mr)
{
	struct mrcore_mrindex *f;
	u32 index;
	bool found;

	if (!mrcore_mrindex_of(mr, &index))
		return false;
	f = mr->mdev->mrindex;
	spin_lock(&f->lock);
	found = f->table[mrcore_mrindex_find(f, index)];
	spin_unlock(&f->lock);
	return found;
}

/**
 * mrcore_mrindex_released() - remember the index of a device MR about to
 *	be deregistered
 * @mr: an MR whose device MR has handed out a key.
 *
 * The oldest index is forgotten once %MRCORE_KEY_WINDOW are remembered.
 *
 * Context: Any context.
 */
void mrcore_mrindex_released(const struct rdma_mr *mr)
{
	struct mrcore_mrindex *f;
	u32 index, slot;

	if (!mrcore_mrindex_of(mr, &index))
		return;
	f = mr->mdev->mrindex;
	spin_lock(&f->lock);
	slot = f->next;
	if (f->filled == MRCORE_KEY_WINDOW)
		mrcore_mrindex_forget(f, slot);
	else
		f->filled++;
	f->ring[slot] = index;
	f->table[mrcore_mrindex_find(f, index)] = slot + 1;
	f->next = (slot + 1) % MRCORE_KEY_WINDOW;
	spin_unlock(&f->lock);
}

/**
 * mrcore_mrindex_create() - start remembering a device's released indices
 * @mdev: a device's new state.
 *
 * Only on a driver that draws MR indices at random (core/quirks.c); on the
 * others @mdev->mrindex stays %NULL and nothing is remembered.
 *
 * Context: Process context; may sleep.
 * Return: 0, or -ENOMEM.
 */
int mrcore_mrindex_create(struct mrcore_device *mdev)
{
	struct mrcore_mrindex *f;

	if (!mrcore_dev_random_mr_index(mdev->ibdev))
		return 0;
	f = kvzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	spin_lock_init(&f->lock);
	mdev->mrindex = f;
	return 0;
}

/**
 * mrcore_mrindex_destroy() - free what mrcore_mrindex_create() allocated
 * @mdev: the device's state.
 *
 * Context: Process context.
 */
void mrcore_mrindex_destroy(struct mrcore_device *mdev)
{
	kvfree(mdev->mrindex);
	mdev->mrindex = NULL;
}

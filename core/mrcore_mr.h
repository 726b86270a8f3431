/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An MR inside the core: the access a mapping asks for (core/access.c),
 * mapping and unmapping (core/map.c), and the life of its device MR and
 * keys, which no key value outlives (core/mrindex.c).
 */
#ifndef _MRCORE_MR_H
#define _MRCORE_MR_H

/**
 * struct mrcore_access - what a mapping asks of the HCA
 * @ib_access: IB access flags for the registration.
 * @dir: DMA direction for mapping the memory.
 */
struct mrcore_access {
	int ib_access;
	enum dma_data_direction dir;
};

int mrcore_local_access(struct ib_device *dev, unsigned int local_ops,
			struct mrcore_access *out);
int mrcore_remote_access(unsigned int remote_ops, struct mrcore_access *out);
bool mrcore_access_is_remote(int ib_access);

int mrcore_mr_map_run(struct rdma_mr *mr, int access,
		      struct ib_send_wr **post_wr);

/**
 * __mrcore_mr_set_run() - tell an MR which run of bytes it is to map
 * @mr: an MR that is not mapped.
 * @sg: the run's first DMA entry.
 * @offset: bytes of @sg before the run.
 * @nents: DMA entries the run touches.
 * @last: its last entry.
 * @last_end: bytes of @last in the run, from the entry's start.
 * @length: bytes in the run.
 * @npages: pages the run spans.
 *
 * The fields a backend's @map reads; mrcore_mr_map_run() maps them.  An
 * I/O of one run passes its summary (no chunk), the others a chunk
 * (mrcore_mr_set_run()).
 *
 * Context: Any context; the caller serializes calls on one MR.
 */
static __always_inline void __mrcore_mr_set_run(struct rdma_mr *mr,
						struct scatterlist *sg,
						u32 offset, int nents,
						struct scatterlist *last,
						u32 last_end, u64 length,
						u32 npages)
{
	mr->sg = sg;
	mr->sg_offset = offset;
	mr->sg_last = last;
	mr->sg_last_end = last_end;
	mr->dma_nents = nents;
	mr->length = length;
	mr->npages = npages;
}

/* __mrcore_mr_set_run() of a run mrcore_sg_next_chunk() measured. */
static __always_inline void mrcore_mr_set_run(struct rdma_mr *mr,
					      const struct mrcore_chunk *c)
{
	__mrcore_mr_set_run(mr, c->sg, c->offset, c->nents, c->last,
			    c->last_end, c->length, c->npages);
}

int mrcore_mr_recycle(struct rdma_mr *mr);

/*
 * Keys one device MR hands out before the core replaces it: the variable
 * byte of a key has 256 values, so no key value of an MR comes back within
 * 256 of its mappings, and with a new device MR (a new index from the
 * driver) not at all.  The price: one deregistration and one allocation per
 * 256 mappings of an MR.
 */
#define MRCORE_KEY_USES		256

/*
 * Keys of a device within which no key value comes back: on drivers that
 * hand out an MR index again soon (siw draws them at random), the core
 * refuses a new device MR with the index of one of the last this many it
 * deregistered (core/mrindex.c).
 */
#define MRCORE_KEY_WINDOW	65536
/* New device MRs refused in a row before giving up (1 in 256 on siw). */
#define MRCORE_MRINDEX_TRIES	8

struct mrcore_device;
struct mrcore_mrindex;
int mrcore_mrindex_create(struct mrcore_device *mdev);
void mrcore_mrindex_destroy(struct mrcore_device *mdev);
bool mrcore_mrindex_recent(const struct rdma_mr *mr);
void mrcore_mrindex_released(const struct rdma_mr *mr);
int mrcore_mr_dev_alloc(struct rdma_mr *mr);
void mrcore_mr_dev_release(struct rdma_mr *mr);

#endif /* _MRCORE_MR_H */

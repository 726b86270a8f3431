/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations shared between the files of the core and its built-in
 * backends.  Included through mrcore_internal.h, in the kernel and in the
 * userspace mirror alike.
 */
#ifndef _MRCORE_PRIV_H
#define _MRCORE_PRIV_H

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

/**
 * struct mrcore_sg_shape - a DMA-mapped scatterlist as an MR sees it
 * @npages: pages the mapping spans.
 * @length: bytes mapped.
 */
struct mrcore_sg_shape {
	u32 npages;
	u64 length;
};

int mrcore_sg_shape(struct scatterlist *sg, int dma_nents,
		    struct mrcore_sg_shape *shape);

const struct rdma_mr_backend_ops *mrcore_backend_get(struct ib_device *dev);
void mrcore_backend_put(const struct rdma_mr_backend_ops *ops);

extern struct rdma_mr_backend_ops mrcore_frwr_ops;

#endif /* _MRCORE_PRIV_H */

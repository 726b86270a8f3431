/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What ib_core's rw.c and mr_pool.c (extracted at build time from the
 * kernel's source tarball, never committed) need beyond the mirror's kernel.
 * Force-included after mrcore_internal.h, for those two files and glue.c
 * only.  The struct fields they touch (ib_qp.rdma_mrs, ib_mr.need_inval, ...)
 * are in mrcore_internal.h, so every object sees one layout; the rest is
 * here.  Nothing here runs on the paths measured except the two sg_table
 * wrappers, which are what ib_verbs.h's are: a call to the DMA mapping.
 */
#ifndef MRCORE_VS_RW_SHIM_H
#define MRCORE_VS_RW_SHIM_H

#include <limits.h>
#include <stdlib.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define EXPORT_SYMBOL(sym)	MIRROR_DECL(export_##sym)
#define module_param_named(name, value, type, perm) MIRROR_DECL(param_##name)
#define pr_err(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define BUG()			abort()
#define SZ_4K			0x00001000
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))

/* The scatterlist as a table, and its DMA mapping (ib_verbs.h's wrappers). */
struct sg_table {
	struct scatterlist *sgl;
	unsigned int nents;
	unsigned int orig_nents;
};

static inline int ib_dma_map_sgtable_attrs(struct ib_device *dev,
					   struct sg_table *sgt,
					   enum dma_data_direction dir,
					   unsigned long attrs)
{
	int nents = ib_dma_map_sg(dev, sgt->sgl, sgt->orig_nents, dir);

	if (nents <= 0)
		return -ENOMEM;
	sgt->nents = nents;
	return 0;
}

static inline void ib_dma_unmap_sgtable_attrs(struct ib_device *dev,
					      struct sg_table *sgt,
					      enum dma_data_direction dir,
					      unsigned long attrs)
{
	ib_dma_unmap_sg(dev, sgt->sgl, sgt->orig_nents, dir);
}

/* Integrity (signature) MRs: compiled, never used by the benchmark. */
#define IB_MR_TYPE_INTEGRITY	((enum ib_mr_type)1)
#define IB_WR_REG_MR_INTEGRITY	((enum ib_wr_opcode)0x21)

enum ib_signature_type {
	IB_SIG_TYPE_NONE,
	IB_SIG_TYPE_T10_DIF,
};

struct ib_sig_domain {
	enum ib_signature_type sig_type;
};

struct ib_sig_attrs {
	u8 check_mask;
	struct ib_sig_domain mem;
	struct ib_sig_domain wire;
	int meta_length;
};

static inline struct ib_mr *ib_alloc_mr_integrity(struct ib_pd *pd,
						  u32 max_num_data_sg,
						  u32 max_num_meta_sg)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline int ib_map_mr_sg_pi(struct ib_mr *mr, struct scatterlist *data_sg,
				  int data_sg_nents,
				  unsigned int *data_sg_offset,
				  struct scatterlist *meta_sg, int meta_sg_nents,
				  unsigned int *meta_sg_offset,
				  unsigned int page_size)
{
	return -EOPNOTSUPP;
}

/* QP creation's attributes, as rdma_rw_init_qp() and _init_mrs() read them. */
enum ib_qp_create_flags {
	IB_QP_CREATE_INTEGRITY_EN = 1 << 6,
};

struct ib_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
	u32 max_rdma_ctxs;
};

struct ib_qp_init_attr {
	struct ib_qp_cap cap;
	u32 create_flags;
	u32 port_num;
};

#endif /* MRCORE_VS_RW_SHIM_H */

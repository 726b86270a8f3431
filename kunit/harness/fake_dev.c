// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fake RDMA devices for the KUnit suites of mrcore_fake_kunit.ko.
 *
 * Their limits come from the profile table the userspace mirror's simulated
 * HCA is made from too (tests/cases/profiles.h, defined here for the
 * module); a profile with FMR callbacks gets fake ones.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#define MRCORE_PROFILES_DEFINE
#include "fake_dev.h"
#include "mrcore_compat.h"
#include "mrcore_trace.h"

static struct fake_dev *to_fake(struct ib_device *dev)
{
	return container_of(dev, struct fake_dev, ibdev);
}

static struct ib_mr *fake_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				   u32 max_num_sg)
{
	struct fake_dev *fd = to_fake(pd->device);
	struct fake_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG || max_num_sg > FAKE_MAX_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(struct_size(mr, pages, max_num_sg), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	fd->allocs++;
	mr->max_num_sg = max_num_sg;
	mr->ibmr.lkey = (fd->allocs << 8) | 0x5a;
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

static int fake_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	to_fake(ibmr->device)->frees++;
	kfree(container_of(ibmr, struct fake_mr, ibmr));
	return 0;
}

static int fake_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct fake_mr *mr = container_of(ibmr, struct fake_mr, ibmr);

	if (mr->npages == mr->max_num_sg)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

static int fake_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset)
{
	struct fake_dev *fd = to_fake(ibmr->device);

	fd->map_calls++;
	fd->last_map_nents = sg_nents;
	container_of(ibmr, struct fake_mr, ibmr)->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, fake_set_page);
}

static const struct ib_device_ops fake_ops = {
	.alloc_mr = fake_alloc_mr,
	.dereg_mr = fake_dereg_mr,
	.map_mr_sg = fake_map_mr_sg,
};

static void *fake_fmr_alloc(struct ib_pd *pd, u32 max_pages)
{
	struct fake_dev *fd = to_fake(pd->device);
	struct fake_fmr *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return ERR_PTR(-ENOMEM);
	f->dev = fd;
	fd->allocs++;
	return f;
}

static int fake_fmr_map(void *fmr, const u64 *pages, u32 npages, u64 iova,
			u64 length, int access, u32 *key)
{
	struct fake_fmr *f = fmr;

	if (f->mapped) {
		f->dev->fmr_remap_unflushed++;
		return -EBUSY;
	}
	if (!npages || (iova & PAGE_MASK) != pages[0])
		return -EINVAL;
	f->mapped = true;
	f->maps++;
	f->key = (f->key & ~0xffu) | ((f->key + 1) & 0xff);
	f->dev->fmr_maps++;
	*key = f->key;
	return 0;
}

static int fake_fmr_unmap(void **fmrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct fake_fmr *f = fmrs[i];

		f->mapped = false;
		f->dev->fmr_unmapped++;
	}
	if (n)
		((struct fake_fmr *)fmrs[0])->dev->fmr_unmap_calls++;
	return 0;
}

static void fake_fmr_free(void *fmr)
{
	struct fake_fmr *f = fmr;

	f->dev->frees++;
	kfree(f);
}

static const struct rdma_fmr_ops fake_fmr_ops = {
	.alloc = fake_fmr_alloc,
	.map = fake_fmr_map,
	.unmap = fake_fmr_unmap,
	.free = fake_fmr_free,
};

static void fake_dev_free(void *data)
{
	struct fake_dev *fd = data;

	rdma_fmr_unregister(&fd->ibdev);
	/* The port data is ours, not ib_core's: detach it before release. */
	fd->ibdev.port_data = NULL;
	ib_dealloc_device(&fd->ibdev);
}

/*
 * The core's DMA mappings for a fake device, seen through its tracepoints:
 * the device uses virtual DMA, so neither it nor the DMA API's debugging
 * would see a direction.
 */
static void fake_dma_map(void *data, const struct ib_device *dev,
			 const struct scatterlist *sg, u32 nents,
			 enum dma_data_direction dir, int mapped)
{
	struct fake_dev *fd = data;

	if (dev != &fd->ibdev || mapped <= 0)
		return;
	fd->dma_maps++;
	fd->dma_last_dir = dir;
	fd->dma_last_sg = sg;
}

static void fake_dma_unmap(void *data, const struct ib_device *dev,
			   const struct scatterlist *sg, u32 nents,
			   enum dma_data_direction dir)
{
	struct fake_dev *fd = data;

	if (dev != &fd->ibdev)
		return;
	fd->dma_unmaps++;
	fd->dma_unmap_mismatch += dir != fd->dma_last_dir ||
				  sg != fd->dma_last_sg;
}

static void fake_dma_detach(void *data)
{
	unregister_trace_mrcore_dma_map(fake_dma_map, data);
	unregister_trace_mrcore_dma_unmap(fake_dma_unmap, data);
	tracepoint_synchronize_unregister();
}

/**
 * fake_dev_create() - a fake device of a profile, freed with the test
 * @test: the test.
 * @profile: the row of mrcore_profiles: limits, transport, driver id (siw's
 *	is the one the core's quirk table knows), FMR callbacks.
 *
 * Context: Process context (a KUnit test).
 * Return: the device; the test fails if it cannot be made.
 */
struct fake_dev *fake_dev_create(struct kunit *test,
				 enum mrcore_profile profile)
{
	const struct mrcore_profile_limits *p = &mrcore_profiles[profile];
	struct ib_device_attr *attrs;
	struct fake_dev *fd;
	int ret;

	fd = (struct fake_dev *)_ib_alloc_device(sizeof(*fd));
	KUNIT_ASSERT_NOT_NULL(test, fd);
	ib_set_device_ops(&fd->ibdev, &fake_ops);
	fd->ibdev.phys_port_cnt = 1;
	fd->ibdev.port_data = fd->ports;
	fd->ports[1].immutable.core_cap_flags =
		p->iwarp ? RDMA_CORE_PORT_IWARP :
			   RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	fd->pd.device = &fd->ibdev;
	fd->qp.device = &fd->ibdev;
	fd->qp.pd = &fd->pd;
	/* Set below as ib_create_qp() would for the device's maximum. */
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, fake_dev_free, fd));
	/* Detached before the device is freed (actions run in reverse). */
	ret = register_trace_mrcore_dma_map(fake_dma_map, fd);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = register_trace_mrcore_dma_unmap(fake_dma_unmap, fd);
	if (ret)
		unregister_trace_mrcore_dma_map(fake_dma_map, fd);
	KUNIT_ASSERT_EQ(test, 0, ret);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, fake_dma_detach, fd));

	fd->ibdev.ops.driver_id = p->driver_id;
	attrs = &fd->ibdev.attrs;
	if (p->mem_mgt_extensions)
		attrs->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attrs->max_send_sge = p->max_send_sge;
	attrs->max_sge_rd = p->max_sge_rd;
	attrs->max_mr = 524287;	/* rxe's RXE_MAX_MR */
	attrs->max_fast_reg_page_list_len = p->max_fast_reg_page_list_len;
	fd->qp.max_write_sge = p->max_send_sge;
	fd->qp.max_read_sge = min(p->max_send_sge, p->max_sge_rd);
	if (p->fmr_max_pages)
		KUNIT_ASSERT_EQ(test, 0,
				rdma_fmr_register(&fd->ibdev, &fake_fmr_ops,
						  p->fmr_max_pages));
	return fd;
}

static void fake_arena_free(void *data)
{
	struct page *page = data;

	__free_pages(page, compound_order(page));
}

/**
 * fake_arena_alloc() - page-aligned, physically contiguous test memory
 * @test: the test; the memory is freed with it.
 * @pages: pages wanted.
 *
 * Context: Process context (a KUnit test).
 * Return: the memory, zeroed; the test fails if it cannot be had.
 */
u8 *fake_arena_alloc(struct kunit *test, unsigned int pages)
{
	struct page *page;

	page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_COMP,
			   get_order(pages * PAGE_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, fake_arena_free, page));
	return page_address(page);
}

MODULE_DESCRIPTION("rdma-mrcore KUnit: fake devices, map cases, scenarios, FMR");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);

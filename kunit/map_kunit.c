// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the map API on a fake device, one case per row of map_cases.h and
 * transport.
 *
 * The fake device is a real struct ib_device from ib_alloc_device(), never
 * registered, with virtual DMA and three verbs (alloc_mr, map_mr_sg,
 * dereg_mr) that record what the core asked of them.  Each case checks the
 * answer, the WR chain the core built, the page list it handed the device,
 * and that every device MR it allocated was deregistered.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "map_cases.h"

#define FAKE_MAX_PAGES	64

struct fake_mr {
	struct ib_mr ibmr;
	unsigned int npages;
	u64 pages[FAKE_MAX_PAGES];
};

struct fake_dev {
	struct ib_device ibdev;	/* first: ib_alloc_device() requires it */
	struct ib_port_data ports[2];
	unsigned int allocs;
	unsigned int deregs;
	unsigned int map_calls;
	int last_map_nents;
};

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
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	fd->allocs++;
	mr->ibmr.lkey = (fd->allocs << 8) | 0x5a;
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

static int fake_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	to_fake(ibmr->device)->deregs++;
	kfree(container_of(ibmr, struct fake_mr, ibmr));
	return 0;
}

static int fake_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct fake_mr *mr = container_of(ibmr, struct fake_mr, ibmr);

	if (mr->npages == FAKE_MAX_PAGES)
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

static void fake_dev_free(void *data)
{
	struct fake_dev *fd = data;

	/* The port data is ours, not ib_core's: detach it before release. */
	fd->ibdev.port_data = NULL;
	ib_dealloc_device(&fd->ibdev);
}

static struct fake_dev *fake_dev_create(struct kunit *test, bool iwarp)
{
	struct fake_dev *fd;

	fd = (struct fake_dev *)_ib_alloc_device(sizeof(*fd));
	KUNIT_ASSERT_NOT_NULL(test, fd);
	ib_set_device_ops(&fd->ibdev, &fake_ops);
	fd->ibdev.phys_port_cnt = 1;
	fd->ibdev.port_data = fd->ports;
	fd->ports[1].immutable.core_cap_flags = iwarp ? RDMA_CORE_PORT_IWARP :
						       RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	fd->ibdev.attrs.device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	fd->ibdev.attrs.max_fast_reg_page_list_len = FAKE_MAX_PAGES;
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, fake_dev_free, fd));
	return fd;
}

struct map_param {
	const struct mrcore_map_case *row;
	bool iwarp;
};

/* Rows x {RoCE, iWARP}; rows that need memory no kernel test may touch
 * (an address at the top of the address space) run in the mirror only.
 */
static const void *map_param_gen(const void *prev, char *desc)
{
	static struct map_param params[2 * ARRAY_SIZE(mrcore_map_cases)];
	const struct map_param *p = prev;
	size_t i = p ? p - params + 1 : 0;

	for (; i < ARRAY_SIZE(params); i++) {
		const struct mrcore_map_case *row =
			&mrcore_map_cases[i % ARRAY_SIZE(mrcore_map_cases)];

		if (row->mirror_only)
			continue;
		params[i].row = row;
		params[i].iwarp = i >= ARRAY_SIZE(mrcore_map_cases);
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %s",
			 params[i].iwarp ? "iwarp" : "roce", row->name);
		return &params[i];
	}
	return NULL;
}

static void free_pages_action(void *data)
{
	free_pages_exact(data, MRCORE_CASE_ARENA_PAGES * PAGE_SIZE);
}

static void map_case_test(struct kunit *test)
{
	const struct map_param *param = test->param_value;
	const struct mrcore_map_case *row = param->row;
	struct ib_send_wr caller = { .opcode = IB_WR_SEND };
	struct ib_send_wr *chain = &caller;
	struct scatterlist *sgl;
	struct fake_dev *fd;
	struct rdma_mr *mr;
	struct ib_pd *pd;
	u8 *arena;
	u64 iova = 0;
	u32 key = 0;
	unsigned int i;
	int ret;

	fd = fake_dev_create(test, param->iwarp);
	pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	pd->device = &fd->ibdev;

	arena = alloc_pages_exact(MRCORE_CASE_ARENA_PAGES * PAGE_SIZE,
				  GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, free_pages_action, arena));

	sgl = kunit_kcalloc(test, max(row->nents, 1u), sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, max(row->nents, 1u));
	for (i = 0; i < row->nents; i++)
		sg_set_buf(&sgl[i], arena + row->e[i].page * PAGE_SIZE +
			   row->e[i].offset, row->e[i].length);

	mr = rdma_create_mr(pd, row->max_pages, row->mr_role);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_EQ(test, fd->allocs, 1u);

	if (row->use_rkey_entry)
		ret = rdma_map_sg_rkey(&key, &iova, mr, sgl, row->nents,
				       row->ops, &chain);
	else
		ret = rdma_map_sg_lkey(&key, mr, sgl, row->nents, row->ops,
				       &chain);
	KUNIT_ASSERT_EQ(test, ret, row->expect);

	if (ret) {
		/* Refused before the device was touched; nothing chained. */
		KUNIT_EXPECT_EQ(test, fd->map_calls, 0u);
		KUNIT_EXPECT_PTR_EQ(test, chain, &caller);
		KUNIT_EXPECT_EQ(test, rdma_mr_length(mr), 0ull);
	} else {
		struct fake_mr *fmr = container_of(mr->ibmr, struct fake_mr,
						   ibmr);
		struct ib_reg_wr *reg = container_of(chain, struct ib_reg_wr,
						     wr);
		struct ib_send_wr *inv = NULL;
		u64 first = (uintptr_t)arena + row->e[0].page * PAGE_SIZE +
			    row->e[0].offset;

		KUNIT_EXPECT_EQ(test, fd->map_calls, 1u);
		KUNIT_EXPECT_EQ(test, fd->last_map_nents, (int)row->nents);
		KUNIT_EXPECT_EQ(test, fmr->npages, row->expect_pages);
		KUNIT_EXPECT_EQ(test, fmr->pages[0], first & PAGE_MASK);
		KUNIT_EXPECT_EQ(test, rdma_mr_length(mr),
				(u64)row->expect_length);
		KUNIT_ASSERT_EQ(test, chain->opcode, IB_WR_REG_MR);
		KUNIT_EXPECT_PTR_EQ(test, chain->next, &caller);
		KUNIT_EXPECT_FALSE(test, chain->send_flags & IB_SEND_SIGNALED);
		KUNIT_EXPECT_EQ(test, reg->key, key);
		/* The key rotated away from the one the device handed out. */
		KUNIT_EXPECT_NE(test, key & 0xff, 0x5au);
		if (row->use_rkey_entry) {
			KUNIT_EXPECT_EQ(test, iova, first);
			KUNIT_EXPECT_EQ(test, !!(reg->access & IB_ACCESS_REMOTE_READ),
					!!(row->ops & RDMA_MR_REMOTE_READ));
			KUNIT_EXPECT_EQ(test, !!(reg->access & IB_ACCESS_REMOTE_WRITE),
					!!(row->ops & RDMA_MR_REMOTE_WRITE));
		} else {
			bool sink = row->ops & RDMA_MR_LOCAL_READ_SINK;

			KUNIT_EXPECT_FALSE(test, reg->access & IB_ACCESS_REMOTE_READ);
			KUNIT_EXPECT_EQ(test, !!(reg->access & IB_ACCESS_REMOTE_WRITE),
					sink && param->iwarp);
		}

		if (reg->access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)) {
			KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), -EBUSY);
			KUNIT_ASSERT_EQ(test, rdma_invalidate_mr(mr, &inv), 0);
			KUNIT_ASSERT_NOT_NULL(test, inv);
			KUNIT_EXPECT_EQ(test, inv->opcode, IB_WR_LOCAL_INV);
			KUNIT_EXPECT_EQ(test, inv->ex.invalidate_rkey, key);
		}
		KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), 0);
	}
	rdma_destroy_mr(mr);
	KUNIT_EXPECT_EQ(test, fd->deregs, fd->allocs);
}

static struct kunit_case mrcore_map_test_cases[] = {
	KUNIT_CASE_PARAM(map_case_test, map_param_gen),
	{}
};

static struct kunit_suite mrcore_map_suite = {
	.name = "mrcore_map",
	.test_cases = mrcore_map_test_cases,
};

kunit_test_suite(mrcore_map_suite);

MODULE_DESCRIPTION("rdma-mrcore KUnit: the map API on a fake device");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite mrcore_bad_input: every row of bad_input_cases.h on a fake
 * RoCE device.  Each call must return its documented errno and leave no
 * device MR behind (all the device MRs alive afterwards are the pool's).
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "fake_dev.h"
#include "cases/bad_input_cases.h"

static void bad_case_desc(const struct mrcore_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, mrcore_bad_cases, bad_case_desc);

static void bad_pool_release(void *pool)
{
	rdma_io_pool_destroy(pool);
}

static void bad_input_test(struct kunit *test)
{
	const struct mrcore_bad_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_create(test, MRCORE_PROFILE_ROCE);
	struct mrcore_bad_env env = {
		.pd = &fd->pd,
		.qp = &fd->qp,
	};
	int ret;

	env.arena = fake_arena_alloc(test, 16);
	env.sg = kunit_kcalloc(test, 4, sizeof(*env.sg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env.sg);
	env.pool = rdma_io_pool_create(&fd->qp, 1, 1, 16);
	KUNIT_ASSERT_FALSE(test, IS_ERR(env.pool));
	ret = kunit_add_action_or_reset(test, bad_pool_release, env.pool);
	KUNIT_ASSERT_EQ(test, ret, 0);

	KUNIT_EXPECT_EQ(test, c->run(&env), c->expect);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(env.pool),
			rdma_io_pool_size(env.pool));
	KUNIT_EXPECT_EQ(test, fd->allocs - fd->frees,
			rdma_io_pool_size(env.pool));
}

static struct kunit_case mrcore_bad_input_cases[] = {
	KUNIT_CASE_PARAM(bad_input_test, bad_gen_params),
	{}
};

static struct kunit_suite mrcore_bad_input_suite = {
	.name = "mrcore_bad_input",
	.test_cases = mrcore_bad_input_cases,
};

kunit_test_suite(mrcore_bad_input_suite);

// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of tests/cases/fault_cases.h: the caller gets the documented error,
// nothing is left behind, and the same operation then works, data verified.
#include "io_fixture.h"

#include "cases/fault_cases.h"

namespace mirror {
namespace {

class FaultTest : public IoTest,
		  public ::testing::WithParamInterface<mrcore_fault_case> {
protected:
	void SetUp() override
	{
		SetUpIo(ProfileOf(GetParam().profile), 1, 600);
		ExposeRemote(600 * PAGE_SIZE);
	}

	void TearDown() override
	{
		rdma_mrcore_fault_arm(GetParam().point, 0, 0);
		IoTest::TearDown();
	}

	void Arm()
	{
		ASSERT_EQ(rdma_mrcore_fault_arm(GetParam().point, GetParam().skip,
						1), 0);
	}

	int MapRkey(rdma_mr *mr, Sg *sg, u32 *rkey, u64 *iova)
	{
		ib_send_wr *chain = nullptr;
		int ret = rdma_map_sg_rkey(rkey, iova, mr, sg->get(), sg->n(),
					   RDMA_MR_REMOTE_READ, &chain);
		if (!ret && chain)
			Post(local_.qp, chain);
		return ret;
	}

	int InitIo(rdma_io_ctx *ctx, Sg *sg)
	{
		const mrcore_fault_case &c = GetParam();

		for (unsigned int i = 0; i < c.pages; i++)
			sg->add(arena_, (2 * i) % MRCORE_SHAPE_ARENA_PAGES +
					(2 * i >= MRCORE_SHAPE_ARENA_PAGES), 0,
				PAGE_SIZE);
		return rdma_io_ctx_init(ctx, pool_, sg->get(), sg->n(), 0,
					remote_.addr(0), rkey(),
					c.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	}

	// One complete I/O, data verified.
	void IoWorks()
	{
		const mrcore_fault_case &c = GetParam();
		rdma_io_ctx ctx;
		Sg sg;

		Prepare(c.read, 12);
		ASSERT_GT(InitIo(&ctx, &sg), 0);
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(sg, c.read));
		ib_wc ok{};
		rdma_io_ctx_destroy(&ctx, &ok);
	}

	// rdma_map_sg_rkey() fails with nothing mapped (@maps DMA mappings
	// live before), then maps, and the peer READs through the key.
	void MapRkeyCase(long maps)
	{
		const mrcore_fault_case &c = GetParam();
		rdma_mr *mr = rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_RKEY);
		ASSERT_FALSE(IS_ERR(mr));
		Sg sg;
		sg.add(arena_, 0, 0, c.pages * PAGE_SIZE);
		u32 key;
		u64 iova;
		Arm();
		EXPECT_EQ(MapRkey(mr, &sg, &key, &iova), c.expect);
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(rdma_mr_length(mr), 0u);
		ASSERT_EQ(MapRkey(mr, &sg, &key, &iova), 0);
		Buffer got(c.pages);
		got.poison(1);
		ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, key, got.at(0),
				   got.size()), IB_WC_SUCCESS);
		EXPECT_TRUE(Moved(arena_.span(0, got.size()), got.bytes()));
		ib_send_wr *inv = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &inv), 0);
		Post(local_.qp, inv);
		ASSERT_EQ(rdma_unmap_mr(mr), 0);
		rdma_destroy_mr(mr);
	}

	// rdma_create_mr(), or rdma_io_pool_create() (@pool), fails with no
	// MR left (@mrs live before), then works.
	void CreateCase(long mrs, bool pool)
	{
		auto create = [&]() -> void * {
			if (pool)
				return rdma_io_pool_create(local_.qp, 1, 4, 512);
			return rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_LKEY);
		};

		Arm();
		EXPECT_EQ(PTR_ERR(create()), GetParam().expect);
		EXPECT_EQ(sim::counters().mrs_live, mrs);
		void *made = create();
		ASSERT_FALSE(IS_ERR(made));
		if (pool)
			rdma_io_pool_destroy(static_cast<rdma_io_pool *>(made));
		else
			rdma_destroy_mr(static_cast<rdma_mr *>(made));
	}

	// rdma_io_ctx_init() fails, or falls back to the case's backend and
	// moves the data; nothing is left (@maps DMA mappings live before).
	void IoInitCase(long maps)
	{
		const mrcore_fault_case &c = GetParam();
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(c.read, 11);
		Arm();
		int ret = InitIo(&ctx, &sg);
		ASSERT_EQ(ret, c.expect);
		if (ret > 0) {
			// The fallback the fault led to moves the data too.
			EXPECT_STREQ(rdma_io_ctx_backend(&ctx), c.backend);
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(sg, c.read));
			ib_wc ok{};
			rdma_io_ctx_destroy(&ctx, &ok);
		} else {
			EXPECT_TRUE(Untouched(arena_));
			EXPECT_TRUE(Untouched(remote_));
		}
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(rdma_io_pool_drain(pool_), pool_->nr_total);
		EXPECT_TRUE(PoolConsistent());
	}

	// rdma_io_ctx_post() is refused: nothing completes, nothing moves,
	// nothing is left (@maps DMA mappings live before).
	void IoPostCase(long maps)
	{
		const mrcore_fault_case &c = GetParam();
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(c.read, 11);
		ASSERT_GT(InitIo(&ctx, &sg), 0);
		Arm();
		ib_cqe cqe{};
		EXPECT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), c.expect);
		sim::drain();
		EXPECT_TRUE(sim::completions(local_.qp).empty());
		EXPECT_TRUE(Untouched(arena_)) << "a refused post moved data";
		EXPECT_TRUE(Untouched(remote_)) << "a refused post moved data";
		rdma_io_ctx_destroy(&ctx, nullptr);
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(rdma_io_pool_drain(pool_), pool_->nr_total);
		EXPECT_TRUE(PoolConsistent());
	}
};

TEST_P(FaultTest, ErrorThenNothingLeftThenItWorks)
{
	const mrcore_fault_case &c = GetParam();
	long maps = sim::counters().dma_maps_live;
	long mrs = sim::counters().mrs_live;

	switch (c.op) {
	case FAULT_OP_MAP_RKEY:
		ASSERT_NO_FATAL_FAILURE(MapRkeyCase(maps));
		break;
	case FAULT_OP_CREATE_MR:
		ASSERT_NO_FATAL_FAILURE(CreateCase(mrs, false));
		break;
	case FAULT_OP_POOL_CREATE:
		ASSERT_NO_FATAL_FAILURE(CreateCase(mrs, true));
		break;
	case FAULT_OP_IO_INIT:
		ASSERT_NO_FATAL_FAILURE(IoInitCase(maps));
		IoWorks();
		break;
	case FAULT_OP_IO_POST:
		ASSERT_NO_FATAL_FAILURE(IoPostCase(maps));
		IoWorks();
		break;
	}
	EXPECT_EQ(rdma_mrcore_fault_hits(c.point), 1);
}

INSTANTIATE_TEST_SUITE_P(Table, FaultTest, ::testing::ValuesIn(mrcore_fault_cases),
			 [](const auto &info) {
				 std::string s = info.param.name;
				 for (char &ch : s)
					 if (!isalnum(static_cast<unsigned char>(ch)))
						 ch = '_';
				 return s;
			 });

// Replacing the device MR of an I/O that never completed can fail too: the
// pool shrinks, nothing leaks.
TEST_F(IoTest, FailedRecycleShrinksThePool)
{
	// iwarp WRITE: one source MR beats 43 WRs of 6 SGEs.
	SetUpIo(sim::kIwarp, 2, 256);
	ExposeRemote(256 * PAGE_SIZE);
	ASSERT_EQ(pool_->nr_total, 2u);
	rdma_io_ctx ctx;
	Sg sg;
	for (unsigned int i = 0; i < 256; i++)
		sg.add(arena_, 2 * i, 0, PAGE_SIZE);
	ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey(), DMA_TO_DEVICE), 2);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	rdma_io_ctx_destroy(&ctx, nullptr);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 1u);
	EXPECT_EQ(pool_->nr_total, 1u);
	EXPECT_EQ(rdma_mrcore_fault_hits("mr_alloc"), 1);
	rdma_mrcore_fault_arm("mr_alloc", 0, 0);
}

TEST_F(IoTest, FaultKnobsThroughDebugfs)
{
	SetUpIo(sim::kRoce);
	const file_operations *fops = mirror_debugfs_fops("rdma_mrcore/fault/dma_map");
	ASSERT_NE(fops, nullptr);
	inode ino{mirror_debugfs_data("rdma_mrcore/fault/dma_map")};
	file f{&ino};
	loff_t pos = 0;
	const char arm[] = "1 2";
	ASSERT_EQ(fops->write(&f, arm, sizeof(arm) - 1, &pos), 3);
	char buf[32] = {};
	pos = 0;
	ASSERT_GT(fops->read(&f, buf, sizeof(buf), &pos), 0);
	EXPECT_STREQ(buf, "1 2 0\n");
	EXPECT_EQ(fops->write(&f, "x", 1, &pos), -EINVAL);
	ASSERT_EQ(rdma_mrcore_fault_arm("dma_map", 0, 0), 0);
	EXPECT_EQ(rdma_mrcore_fault_arm("no_such_point", 0, 1), -EINVAL);
}

} // namespace
} // namespace mirror

// SPDX-License-Identifier: GPL-2.0-only
//
// rdma_io_ctx_init_bvec(): an iterator over bio_vecs moves exactly its
// bytes -- from the middle of a bio_vec, across multi-page ones, ending
// inside one -- on every profile, as a READ and as a WRITE; iterators that
// do not fit their array are refused with nothing held.
#include "io_fixture.h"

namespace mirror {
namespace {

class BvecTest : public IoTest,
		 public ::testing::WithParamInterface<const sim::Profile *> {
protected:
	// Room for an iWARP READ that needs an MR per hole.
	void SetUp() override { SetUpIo(*GetParam(), 4, 64); }

	// A bio_vec over @len bytes of the arena from byte @off.
	bio_vec Bv(size_t off, u32 len)
	{
		u8 *p = arena_.at(off);

		return {.bv_page = virt_to_page(p), .bv_len = len,
			.bv_offset = u32(offset_in_page(p))};
	}
};

// Three bio_vecs: 3000 bytes inside page 0, three contiguous pages from
// page 2, one page at page 6; and one whose offset is past its first page.
TEST_P(BvecTest, IteratorMovesExactlyItsBytes)
{
	struct Case {
		const char *name;
		bvec_iter iter;
		// What the iterator covers, as (arena offset, length).
		std::vector<std::pair<size_t, u32>> bytes;
	};
	const std::vector<Case> cases = {
		{"all of them", {.bi_size = 3000 + 3 * PAGE_SIZE + PAGE_SIZE},
		 {{100, 3000}, {2 * PAGE_SIZE, 3 * PAGE_SIZE}, {6 * PAGE_SIZE, PAGE_SIZE}}},
		{"from inside the multi-page one to inside the last",
		 {.bi_size = 3 * PAGE_SIZE - 5000 + 1000, .bi_idx = 1,
		  .bi_bvec_done = 5000},
		 {{2 * PAGE_SIZE + 5000, 3 * PAGE_SIZE - 5000},
		  {6 * PAGE_SIZE, 1000}}},
		{"one byte of the first", {.bi_size = 1, .bi_bvec_done = 2999},
		 {{100 + 2999, 1}}},
		{"the one whose offset is past its page",
		 {.bi_size = 2 * PAGE_SIZE - 10, .bi_idx = 3},
		 {{8 * PAGE_SIZE + PAGE_SIZE + 10, 2 * PAGE_SIZE - 10}}},
	};
	// The fourth: bv_page is page 8, bv_offset one page and 10 bytes in.
	bio_vec fourth = Bv(8 * PAGE_SIZE, 2 * PAGE_SIZE - 10);
	fourth.bv_offset = PAGE_SIZE + 10;
	const std::vector<bio_vec> bvecs = {
		Bv(100, 3000), Bv(2 * PAGE_SIZE, 3 * PAGE_SIZE),
		Bv(6 * PAGE_SIZE, PAGE_SIZE), fourth,
	};

	ExposeRemote(16 * PAGE_SIZE);
	unsigned int seed = 0;
	for (const Case &c : cases)
		for (bool read : {true, false}) {
			SCOPED_TRACE(std::string(c.name) + (read ? " READ" : " WRITE"));
			Sg expect;
			for (auto [off, len] : c.bytes)
				expect.add(arena_.at(off), len);
			Prepare(read, ++seed);
			rdma_io_ctx ctx;
			int wrs = rdma_io_ctx_init_bvec(&ctx, pool_, bvecs.data(),
							u32(bvecs.size()), c.iter,
							remote_.addr(0), rkey(),
							read ? DMA_FROM_DEVICE :
							       DMA_TO_DEVICE);
			ASSERT_GT(wrs, 0);
			EXPECT_EQ(ctx.length, c.iter.bi_size);
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(expect, read));
			ib_wc ok = Wc(IB_WC_SUCCESS);
			rdma_io_ctx_destroy_bvec(&ctx, &ok);
			EXPECT_EQ(sim::counters().dma_maps_live, 0);
		}
}

TEST_P(BvecTest, IteratorsThatDoNotFitAreRefusedWithNothingHeld)
{
	const std::vector<bio_vec> bvecs = {
		Bv(0, PAGE_SIZE), Bv(2 * PAGE_SIZE, 0), Bv(4 * PAGE_SIZE, PAGE_SIZE),
	};
	struct Case {
		const char *name;
		const bio_vec *bv;
		u32 nr;
		bvec_iter iter;
	};
	const Case cases[] = {
		{"NULL bio_vecs", nullptr, 3, {.bi_size = 1}},
		{"no bio_vecs", bvecs.data(), 0, {.bi_size = 1}},
		{"no bytes", bvecs.data(), 3, {}},
		{"starts past the array", bvecs.data(), 3, {.bi_size = 1, .bi_idx = 3}},
		{"starts at the end of its bio_vec", bvecs.data(), 1,
		 {.bi_size = 1, .bi_bvec_done = PAGE_SIZE}},
		{"runs past the array", bvecs.data(), 1, {.bi_size = PAGE_SIZE + 1}},
		{"covers an empty bio_vec", bvecs.data(), 3,
		 {.bi_size = 2 * PAGE_SIZE}},
	};

	ExposeRemote(16 * PAGE_SIZE);
	Prepare(true, 1);
	for (const Case &c : cases) {
		SCOPED_TRACE(c.name);
		rdma_io_ctx ctx;
		EXPECT_EQ(rdma_io_ctx_init_bvec(&ctx, pool_, c.bv, c.nr, c.iter,
						remote_.addr(0), rkey(),
						DMA_FROM_DEVICE), -EINVAL);
		EXPECT_EQ(sim::counters().dma_maps_live, 0);
		EXPECT_EQ(pool_->nr_free, pool_->nr_total);
	}
	EXPECT_TRUE(Untouched(arena_));
	EXPECT_TRUE(Untouched(remote_));
}

// The scatterlist of an I/O of several segments comes from a block of the
// pool's, as its WRs do: after the first such I/O, one allocates nothing.
// More in flight than the pool's max_ctxs, or more segments than its
// max_pages, allocate their own, counted as io_allocs; a refused I/O gives
// its block back.
TEST_P(BvecTest, SegmentsTakeTheirScatterlistFromThePool)
{
	const auto live = [] { return sim::counters().kmalloc_live; };
	const auto io_allocs = [] {
		return std::stoul(DeviceFile("local", "counters")["io_allocs"]);
	};
	// Three pages, a page apart, from page @first.
	const auto three = [this](size_t first) {
		return std::vector<bio_vec>{Bv(first * PAGE_SIZE, PAGE_SIZE),
					    Bv((first + 2) * PAGE_SIZE, PAGE_SIZE),
					    Bv((first + 4) * PAGE_SIZE, PAGE_SIZE)};
	};
	const bvec_iter all = {.bi_size = 3 * PAGE_SIZE};
	ib_wc ok = Wc(IB_WC_SUCCESS);

	ExposeRemote(80 * PAGE_SIZE);
	const std::vector<bio_vec> bv = three(0);
	Sg expect;
	for (size_t page : {0, 2, 4})
		expect.add(arena_, page, 0, PAGE_SIZE);
	long base = 0;
	for (unsigned int round = 0; round < 3; round++) {
		SCOPED_TRACE(round);
		rdma_io_ctx ctx;
		Prepare(false, round + 1);
		ASSERT_GT(rdma_io_ctx_init_bvec(&ctx, pool_, bv.data(), 3, all,
						remote_.addr(0), rkey(),
						DMA_TO_DEVICE), 0);
		EXPECT_TRUE(ctx.sg_pooled);
		// The first I/O resolved the pool's backends and made blocks.
		if (!round)
			base = live();
		EXPECT_EQ(live(), base);
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(expect, false));
		rdma_io_ctx_destroy_bvec(&ctx, &ok);
		EXPECT_EQ(live(), base);
	}
	EXPECT_EQ(io_allocs(), 0u);

	// A refused I/O (no such direction) gives its block back.
	rdma_io_ctx bad;
	EXPECT_EQ(rdma_io_ctx_init_bvec(&bad, pool_, bv.data(), 3, all,
					remote_.addr(0), rkey(),
					DMA_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(live(), base);

	// Five in flight on a pool of four: the fifth's list is its own.
	std::vector<bio_vec> bvs[5];
	rdma_io_ctx c[5];
	for (unsigned int i = 0; i < 5; i++) {
		bvs[i] = three(8 * (i + 1));
		ASSERT_GT(rdma_io_ctx_init_bvec(&c[i], pool_, bvs[i].data(), 3,
						all, remote_.addr(0), rkey(),
						DMA_TO_DEVICE), 0);
		EXPECT_EQ(c[i].sg_pooled, i < 4) << i;
	}
	EXPECT_GE(io_allocs(), 1u);
	for (rdma_io_ctx &ctx : c)
		rdma_io_ctx_destroy_bvec(&ctx, nullptr);

	// 65 segments on a pool made for 64 pages: its own list.
	std::vector<bio_vec> many;
	for (unsigned int i = 0; i < 65; i++)
		many.push_back(Bv((64 + i) * PAGE_SIZE, PAGE_SIZE));
	const unsigned long before = io_allocs();
	rdma_io_ctx ctx;
	ASSERT_GT(rdma_io_ctx_init_bvec(&ctx, pool_, many.data(), 65,
					{.bi_size = 65 * PAGE_SIZE},
					remote_.addr(0), rkey(), DMA_TO_DEVICE),
		  0);
	EXPECT_FALSE(ctx.sg_pooled);
	EXPECT_GE(io_allocs(), before + 1);
	rdma_io_ctx_destroy_bvec(&ctx, nullptr);

	// The first three of those 65: more bio_vecs left in the array than
	// a block holds, but a block's worth of segments, so a block, not a
	// list of 65 of its own.
	const unsigned long before_three = io_allocs();
	const long live_three = live();
	Sg nine;
	for (size_t page : {64, 65, 66})
		nine.add(arena_, page, 0, PAGE_SIZE);
	Prepare(false, 9);
	rdma_io_ctx three_of_many;
	ASSERT_GT(rdma_io_ctx_init_bvec(&three_of_many, pool_, many.data(), 65,
					{.bi_size = 3 * PAGE_SIZE},
					remote_.addr(0), rkey(), DMA_TO_DEVICE),
		  0);
	EXPECT_TRUE(three_of_many.sg_pooled);
	EXPECT_EQ(io_allocs(), before_three);
	EXPECT_EQ(three_of_many.length, 3 * PAGE_SIZE);
	ASSERT_EQ(RunIo(&three_of_many), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(nine, false));
	EXPECT_EQ(live(), live_three);
	rdma_io_ctx_destroy_bvec(&three_of_many, &ok);
	EXPECT_EQ(live(), live_three);
}

INSTANTIATE_TEST_SUITE_P(Profiles, BvecTest,
			 ::testing::Values(&sim::kRoce, &sim::kIwarp, &sim::kSiw),
			 [](const auto &info) { return std::string(info.param->name); });

} // namespace
} // namespace mirror

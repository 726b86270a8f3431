// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of tests/cases/map_cases.h on every device profile.
#include "fixture.h"
#include "shims.h"

#include "cases/map_cases.h"

namespace mirror {
namespace {

struct CaseParam {
	const sim::Profile *profile;
	const mrcore_map_case *row;
};

class MapCaseTest : public MirrorTest,
		    public ::testing::WithParamInterface<CaseParam> {
protected:
	void SetUp() override { SetUpNodes(*GetParam().profile); }

	// The row's entries in order against the start of @far: what a
	// transfer of the whole mapping moves, to the far side or from it.
	static std::vector<Move> EntryMoves(const mrcore_map_case &row,
					    Buffer &arena, Buffer &far, bool to_far)
	{
		std::vector<Move> v;
		u64 off = 0;

		for (unsigned int i = 0; i < row.nents; i++) {
			const mrcore_case_entry &e = row.e[i];
			std::span<const u8> mine = arena.span(e.page * PAGE_SIZE +
							      e.offset, e.length);
			std::span<const u8> theirs = far.span(off, e.length);

			v.push_back(to_far ? Move{mine, theirs} : Move{theirs, mine});
			off += e.length;
		}
		return v;
	}

	// The local HCA uses an lkey mapping at @iova for an RDMA @op of
	// @len bytes with the peer's @far; returns the completion status.
	ib_wc_status LocalRdma(ib_wr_opcode op, u64 iova, u32 lkey, Buffer &far,
			       u32 far_rkey, u32 len)
	{
		return Rdma(local_.qp, op, iova, lkey, far.addr(0), far_rkey, len);
	}

	// An rkey mapping of @row at @iova: the whole mapping is reachable
	// with @key, byte for byte, in the order of the entries, for the ops
	// granted; then the key is invalidated.
	void ExpectRemoteUse(const mrcore_map_case &row, rdma_mr *mr,
			     Buffer &arena, Buffer &far, u32 key, u64 iova)
	{
		const mrcore_case_entry &first = row.e[0];

		EXPECT_EQ(iova, arena.addr(first.page * PAGE_SIZE + first.offset));
		if (row.ops & RDMA_MR_REMOTE_READ) {
			far.poison(1);
			ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, key, far.at(0),
					   row.expect_length), IB_WC_SUCCESS);
			EXPECT_TRUE(Moved(EntryMoves(row, arena, far, true)))
				<< "the peer's READ";
		}
		if (row.ops & RDMA_MR_REMOTE_WRITE) {
			arena.poison(2);
			far.fill(2);
			ASSERT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova, key, far.at(0),
					   row.expect_length), IB_WC_SUCCESS);
			EXPECT_TRUE(Moved(EntryMoves(row, arena, far, false)))
				<< "the peer's WRITE";
		}
		ib_send_wr *inv = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &inv), 0);
		Post(local_.qp, inv);
	}

	// An lkey mapping of @row: @key works locally over the whole
	// mapping, in the order of the entries, as a WRITE source and as a
	// READ sink, as the ops grant.
	void ExpectLocalUse(const mrcore_map_case &row, rdma_mr *mr,
			    Buffer &arena, Buffer &far, u32 key)
	{
		sim::Mr *far_mr = peer_.hca->expose(peer_.pd, far.at(0), far.size(),
						    IB_ACCESS_REMOTE_READ |
						    IB_ACCESS_REMOTE_WRITE |
						    IB_ACCESS_LOCAL_WRITE);
		if (row.ops & RDMA_MR_LOCAL_WRITE_SRC) {
			far.poison(3);
			EXPECT_EQ(LocalRdma(IB_WR_RDMA_WRITE, mr->iova, key, far,
					    far_mr->ibmr.rkey, row.expect_length),
				  IB_WC_SUCCESS);
			EXPECT_TRUE(Moved(EntryMoves(row, arena, far, true)))
				<< "WRITE from the lkey";
		}
		if (row.ops & RDMA_MR_LOCAL_READ_SINK) {
			arena.poison(4);
			far.fill(4);
			EXPECT_EQ(LocalRdma(IB_WR_RDMA_READ, mr->iova, key, far,
					    far_mr->ibmr.rkey, row.expect_length),
				  IB_WC_SUCCESS);
			EXPECT_TRUE(Moved(EntryMoves(row, arena, far, false)))
				<< "READ into the lkey";
		}
		peer_.hca->dereg_mr(far_mr);
	}
};

TEST_P(MapCaseTest, AnswersAsTheTableSays)
{
	const mrcore_map_case &row = *GetParam().row;
	Buffer arena(MRCORE_CASE_ARENA_PAGES);
	Sg sg;

	for (unsigned int i = 0; i < row.nents; i++) {
		const mrcore_case_entry &e = row.e[i];
		void *p = row.wrap_address && i == 0 ?
				  reinterpret_cast<void *>(U64_MAX - PAGE_SIZE + 1) :
				  arena.at(e.page * PAGE_SIZE + e.offset);
		sg.add(p, e.length);
	}
	// Zero entries must be refused for the count, not for a NULL list.
	scatterlist unused{};
	scatterlist *list = row.nents ? sg.get() : &unused;

	rdma_mr *mr = rdma_create_mr(local_.pd, row.max_pages, row.mr_role);
	ASSERT_FALSE(IS_ERR(mr));

	ib_send_wr caller{};
	ib_send_wr *chain = &caller;
	u32 key = 0;
	u64 iova = 0;
	int ret = row.use_rkey_entry ?
		rdma_map_sg_rkey(&key, &iova, mr, list, row.nents, row.ops, &chain) :
		rdma_map_sg_lkey(&key, mr, list, row.nents, row.ops, &chain);
	ASSERT_EQ(ret, row.expect);

	if (ret) {
		// Nothing mapped, nothing chained, the MR still usable.
		EXPECT_EQ(chain, &caller);
		EXPECT_EQ(sim::counters().dma_maps_live, 0);
		EXPECT_EQ(rdma_mr_length(mr), 0u);
		rdma_destroy_mr(mr);
		return;
	}

	EXPECT_EQ(mr->npages, row.expect_pages);
	EXPECT_EQ(rdma_mr_length(mr), row.expect_length);
	// Mapped for what the device does to the memory (the table's rule).
	EXPECT_EQ(sim::dma_dir_of(list), mrcore_map_case_dir(row.ops))
		<< "DMA direction (0 bidirectional, 1 to the device, 2 from it)";
	ASSERT_NE(chain, &caller);
	EXPECT_EQ(chain->opcode, IB_WR_REG_MR);
	EXPECT_EQ(chain->next, &caller);
	EXPECT_FALSE(chain->send_flags & IB_SEND_SIGNALED);
	chain->next = nullptr;	// the caller's WR is a placeholder here
	Post(local_.qp, chain);
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	Buffer far(MRCORE_CASE_ARENA_PAGES);
	if (row.use_rkey_entry)
		ASSERT_NO_FATAL_FAILURE(ExpectRemoteUse(row, mr, arena, far, key, iova));
	else
		ASSERT_NO_FATAL_FAILURE(ExpectLocalUse(row, mr, arena, far, key));
	if (!row.use_rkey_entry && mrcore_access_is_remote(mr->access)) {
		ASSERT_EQ(rdma_unmap_mr(mr), -EBUSY);
		ib_send_wr *inv = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &inv), 0);
		Post(local_.qp, inv);
	}
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

std::vector<CaseParam> AllCases()
{
	std::vector<CaseParam> v;

	for (const sim::Profile *p : {&sim::kRoce, &sim::kIwarp, &sim::kSiw})
		for (const mrcore_map_case &row : mrcore_map_cases)
			v.push_back({p, &row});
	return v;
}

std::string CaseName(const ::testing::TestParamInfo<CaseParam> &info)
{
	std::string s = std::string(info.param.profile->name) + "_" +
			info.param.row->name;

	for (char &c : s)
		if (!isalnum(static_cast<unsigned char>(c)))
			c = '_';
	return s;
}

INSTANTIATE_TEST_SUITE_P(Table, MapCaseTest, ::testing::ValuesIn(AllCases()),
			 CaseName);

} // namespace
} // namespace mirror

// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of kunit/map_cases.h on every device profile.
#include "fixture.h"

#include "../../kunit/map_cases.h"

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
	ASSERT_NE(chain, &caller);
	EXPECT_EQ(chain->opcode, IB_WR_REG_MR);
	EXPECT_EQ(chain->next, &caller);
	EXPECT_FALSE(chain->send_flags & IB_SEND_SIGNALED);
	chain->next = nullptr;	// the caller's WR is a placeholder here
	Post(local_.qp, chain);
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	if (row.use_rkey_entry) {
		// The whole mapping is reachable with the key, byte for byte.
		const mrcore_case_entry &first = row.e[0];
		EXPECT_EQ(iova, arena.addr(first.page * PAGE_SIZE + first.offset));
		if (row.ops & RDMA_MR_REMOTE_READ) {
			std::vector<u8> got(row.expect_length), want;
			for (unsigned int i = 0; i < row.nents; i++) {
				const mrcore_case_entry &e = row.e[i];
				u8 *p = arena.at(e.page * PAGE_SIZE + e.offset);
				want.insert(want.end(), p, p + e.length);
			}
			ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, key, got.data(),
					   row.expect_length), IB_WC_SUCCESS);
			EXPECT_EQ(got, want);
		}
		ib_send_wr *inv = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &inv), 0);
		Post(local_.qp, inv);
	} else if (mrcore_access_is_remote(mr->access)) {
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

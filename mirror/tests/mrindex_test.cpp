// SPDX-License-Identifier: GPL-2.0-only
//
// core/mrindex.c, the device's memory of the MR indices the core gave back,
// against a model: an index is recent exactly while it is among the last
// MRCORE_KEY_WINDOW released.  Indices are drawn from a small range so that
// the hash table's probe runs are long, the same index is released again
// while it is still remembered, and deletions shift whole clusters back.
#include <deque>
#include <random>
#include <unordered_map>

#include "fixture.h"

namespace mirror {
namespace {

class MrIndexTest : public MirrorTest {
protected:
	// An MR of the local (siw) device whose device MR has index @index.
	bool Recent(u32 index)
	{
		ibmr_.rkey = index << 8 | 0x5a;
		return mrcore_mrindex_recent(&mr_);
	}

	void Release(u32 index)
	{
		ibmr_.rkey = index << 8 | 0xa5;
		mrcore_mrindex_released(&mr_);
		model_.push_back(index);
		counts_[index]++;
		if (model_.size() > MRCORE_KEY_WINDOW) {
			if (!--counts_[model_.front()])
				counts_.erase(model_.front());
			model_.pop_front();
		}
	}

	bool ModelRecent(u32 index) const { return counts_.contains(index); }

	void Attach()
	{
		mr_.mdev = static_cast<mrcore_device *>(local_.hca->dev()->client_data);
		ASSERT_NE(mr_.mdev, nullptr);
		mr_.ibmr = &ibmr_;
	}

	ib_mr ibmr_{};
	rdma_mr mr_{};
	std::deque<u32> model_;
	std::unordered_map<u32, u32> counts_;
};

TEST_F(MrIndexTest, AgreesWithTheLastWindowReleased)
{
	SetUpNodes(sim::kSiw);
	Attach();
	std::mt19937 rng(47);
	// 3.5 windows over 100,000 indices: about half the window's entries
	// are repeats, and the table runs at its fullest.
	std::uniform_int_distribution<u32> pick(1, 100000);
	u32 mismatches = 0, recent = 0;

	for (u32 i = 0; i < 7 * MRCORE_KEY_WINDOW / 2; i++) {
		u32 probe = pick(rng);
		bool got = Recent(probe);

		recent += got;
		if (got != ModelRecent(probe) && mismatches++ < 5)
			ADD_FAILURE() << "step " << i << ": index " << probe
				      << (got ? " recent" : " not recent")
				      << ", the model says otherwise";
		Release(pick(rng));
	}
	EXPECT_EQ(mismatches, 0u);
	// The probes found both answers many times over.
	EXPECT_GT(recent, MRCORE_KEY_WINDOW / 4);
	EXPECT_LT(recent, 3 * MRCORE_KEY_WINDOW);
}

// rxe hands out indices cyclically: the core remembers nothing there.
TEST_F(MrIndexTest, NothingRememberedOnACyclicDriver)
{
	SetUpNodes(sim::kRoce);
	Attach();
	Release(7);
	EXPECT_FALSE(Recent(7));
}

} // namespace
} // namespace mirror

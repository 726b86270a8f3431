// SPDX-License-Identifier: GPL-2.0-only
//
// Fixture for the READ/WRITE helper: a pool on the local QP, an arena for
// local SG lists, and a remote buffer the peer exposes.
#ifndef MRCORE_MIRROR_IO_FIXTURE_H
#define MRCORE_MIRROR_IO_FIXTURE_H

#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "fixture.h"

#include "cases/scenarios.h"

namespace mirror {

inline const sim::Profile &ProfileOf(mrcore_profile p)
{
	return mrcore_profiles[p];
}

// A work completion of @st, as rdma_io_ctx_destroy() is given one.
inline ib_wc Wc(ib_wc_status st)
{
	ib_wc wc{};

	wc.status = st;
	return wc;
}

class IoTest : public MirrorTest {
protected:
	void SetUpIo(const sim::Profile &profile, u32 max_ctxs = 1,
		     u32 max_pages = MRCORE_SHAPE_ARENA_PAGES + 1)
	{
		SetUpNodes(profile);
		if (profile.fmr_max_pages) {
			ASSERT_EQ(rdma_fmr_register(local_.hca->dev(), &sim::kFmrOps,
						    profile.fmr_max_pages), 0);
			fmr_ = true;
		}
		pool_ = rdma_io_pool_create(local_.qp, 1, max_ctxs, max_pages);
		ASSERT_FALSE(IS_ERR(pool_));
	}

	// A new pool, after a test changed what the device can do: a pool
	// reads the device's capabilities once, as the kernel's never change.
	void ReplacePool(u32 max_ctxs, u32 max_pages)
	{
		rdma_io_pool_destroy(pool_);
		pool_ = rdma_io_pool_create(local_.qp, 1, max_ctxs, max_pages);
		ASSERT_FALSE(IS_ERR(pool_));
	}

	// The pool's free lists say what their MRs are, once its quarantine
	// has drained: a clean MR is FREE and a stale one STALE (a lazily
	// kept local key, which its next registration kills), and the counts
	// agree.  An MR given back in any other state (say, MAPPED after a
	// failed build) would be registered over a key the pool forgot.
	::testing::AssertionResult PoolConsistent()
	{
		u32 clean = 0, stale = 0;
		const auto walk = [](list_head *head, rdma_mr_state want,
				     u32 *n) -> ::testing::AssertionResult {
			for (list_head *p = head->next; p != head;
			     p = p->next, ++*n) {
				const rdma_mr *mr = list_entry(p, rdma_mr,
							       pool_entry);

				if (mr->state != want)
					return ::testing::AssertionFailure()
					       << "free MR " << *n << " in state "
					       << mr->state << ", listed as "
					       << want;
			}
			return ::testing::AssertionSuccess();
		};

		rdma_io_pool_drain(pool_);
		if (auto r = walk(&pool_->clean, RDMA_MR_FREE, &clean); !r)
			return r;
		if (auto r = walk(&pool_->stale, RDMA_MR_STALE, &stale); !r)
			return r;
		if (clean != pool_->nr_clean || clean + stale != pool_->nr_free)
			return ::testing::AssertionFailure()
			       << clean << " clean and " << stale
			       << " stale MRs listed, counted " << pool_->nr_clean
			       << " and " << pool_->nr_free;
		return ::testing::AssertionSuccess();
	}

	void TearDown() override
	{
		if (pool_ && !IS_ERR(pool_)) {
			EXPECT_TRUE(PoolConsistent());
			rdma_io_pool_destroy(pool_);
		}
		if (remote_mr_)
			peer_.hca->dereg_mr(remote_mr_);
		if (fmr_)
			rdma_fmr_unregister(local_.hca->dev());
		MirrorTest::TearDown();
	}

	// An I/O over @pages scattered pages of the arena (a page between
	// each) from page @first, READ from (or WRITTEN to) the remote buffer
	// at @remote_page.
	int Init(rdma_io_ctx *ctx, Sg *sg, unsigned int pages, bool read,
		 unsigned int first = 0, unsigned int remote_page = 0)
	{
		for (unsigned int i = 0; i < pages; i++)
			sg->add(arena_, first + 2 * i, 0, PAGE_SIZE);
		return rdma_io_ctx_init(ctx, pool_, sg->get(), sg->n(), 0,
					remote_.addr(remote_page * PAGE_SIZE),
					rkey(),
					read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	}

	// The entries of @sg as bio_vecs, one each, as a block layer user
	// would hold the same memory.
	static std::vector<bio_vec> Bvecs(const Sg &sg)
	{
		std::vector<bio_vec> v;

		for (const scatterlist &s : sg.entries())
			v.push_back({.bv_page = virt_to_page(s.buf),
				     .bv_len = s.length,
				     .bv_offset = u32(offset_in_page(s.buf))});
		return v;
	}

	// rdma_io_ctx_init() over @sg, or rdma_io_ctx_init_bvec() over its
	// bio_vecs (@bvecs keeps them for the I/O's life) with an iterator
	// over all of them; to be destroyed with Destroy(@bvec).
	// @chained: over @sg's chained list instead.
	int InitIo(rdma_io_ctx *ctx, Sg &sg, bool read, bool bvec,
		   std::vector<bio_vec> *bvecs, u32 skip = 0,
		   bool chained = false)
	{
		dma_data_direction dir = read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
		u64 len = 0;

		if (!bvec)
			return rdma_io_ctx_init(ctx, pool_,
						chained ? sg.chained() : sg.get(),
						sg.n(), skip, remote_.addr(0),
						rkey(), dir);
		*bvecs = Bvecs(sg);
		for (const bio_vec &b : *bvecs)
			len += b.bv_len;
		return rdma_io_ctx_init_bvec(ctx, pool_, bvecs->data(),
					     u32(bvecs->size()),
					     {.bi_size = u32(len)},
					     remote_.addr(0), rkey(), dir);
	}

	static void Destroy(rdma_io_ctx *ctx, const ib_wc *wc, bool bvec)
	{
		if (bvec)
			rdma_io_ctx_destroy_bvec(ctx, wc);
		else
			rdma_io_ctx_destroy(ctx, wc);
	}

	// The local SG list of a shape, over the arena.
	void BuildShape(const mrcore_shape_desc &d, Sg *sg)
	{
		for (unsigned int i = 0; i < d.nents; i++)
			sg->add(arena_, i * d.stride, i ? 0 : d.offset,
				mrcore_shape_entry_len(&d, i));
	}

	// Pages a shape's entries span, each on its own pages.
	static u32 ShapePages(const mrcore_shape_desc &d)
	{
		u32 first = (d.offset % PAGE_SIZE + mrcore_shape_entry_len(&d, 0) +
			     PAGE_SIZE - 1) / PAGE_SIZE;
		u32 rest = (d.length + PAGE_SIZE - 1) / PAGE_SIZE;

		return first + (d.nents - 1) * rest;
	}

	u64 ShapeBytes(const mrcore_shape_desc &d) const
	{
		return mrcore_shape_bytes(&d);
	}

	// A new round of data: the I/O's source filled, its sink poisoned.
	void Prepare(bool read, unsigned int seed)
	{
		(read ? remote_ : arena_).fill(seed);
		(read ? arena_ : remote_).poison(seed);
	}

	// The I/O over @sg moved its bytes, in the right direction, and
	// nothing else changed on either side.
	::testing::AssertionResult Landed(const Sg &sg, bool read, u32 sg_offset = 0)
	{
		::testing::AssertionResult r = Moved(IoMoves(sg, sg_offset,
							    remote_.at(0), read));
		return r ? Untouched(read ? remote_ : arena_) : r;
	}

	void ExposeRemote(u64 len)
	{
		remote_mr_ = peer_.hca->expose(peer_.pd, remote_.at(0), len,
					       IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_WRITE |
					       IB_ACCESS_LOCAL_WRITE);
	}

	u32 rkey() const { return remote_mr_->ibmr.rkey; }

	// Post one I/O and let the devices run it to completion; return the
	// status of its last WR's completion.  A successful I/O completes
	// once per signaled WR: its last, and on siw each RDMA WRITE (the
	// core's own, core/io.c); a flushed one once per WR.
	ib_wc_status RunIo(rdma_io_ctx *ctx, size_t completions = 1)
	{
		ib_cqe cqe{};
		auto &cq = sim::completions(local_.qp);
		size_t before = cq.size();

		EXPECT_EQ(rdma_io_ctx_post(ctx, &cqe, nullptr), 0);
		if (completions == 1) {
			const ib_send_wr *wr = ctx->first;

			completions = 0;
			for (u32 n = 0; wr && n < ctx->nr_wrs; wr = wr->next, n++)
				completions += !!(wr->send_flags & IB_SEND_SIGNALED);
		}
		sim::drain();
		EXPECT_EQ(cq.size(), before + completions);
		if (cq.size() != before + completions)
			return IB_WC_GENERAL_ERR_FOR_TESTS;
		EXPECT_EQ(cq.back().cqe, &cqe);
		return cq.back().status;
	}

	Buffer arena_{MRCORE_SHAPE_ARENA_PAGES + 1};
	Buffer remote_{MRCORE_SHAPE_ARENA_PAGES + 1};
	sim::Mr *remote_mr_ = nullptr;
	rdma_io_pool *pool_ = nullptr;
	bool fmr_ = false;
};

// The text of a device's debugfs file, "name value" lines as a map.
inline std::map<std::string, std::string> DeviceFile(const char *dev, const char *file)
{
	std::string path = std::string("rdma_mrcore/devices/") + dev + "/" + file;
	const file_operations *fops = mirror_debugfs_fops(path.c_str());
	std::map<std::string, std::string> m;
	char buf[4096] = {};
	loff_t pos = 0;

	if (!fops)
		return m;
	inode ino{mirror_debugfs_data(path.c_str())};
	struct file f{&ino};
	ssize_t n = fops->read(&f, buf, sizeof(buf) - 1, &pos);
	std::istringstream in(std::string(buf, n > 0 ? size_t(n) : 0));
	for (std::string line; std::getline(in, line);) {
		size_t sp = line.find(' ');
		m[line.substr(0, sp)] = line.substr(sp + 1);
	}
	return m;
}

} // namespace mirror

#endif // MRCORE_MIRROR_IO_FIXTURE_H

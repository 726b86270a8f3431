// SPDX-License-Identifier: GPL-2.0-only
//
// One random I/O through the helper on the simulated HCA, checked byte for
// byte: shared by the io_chain fuzzer (input bytes drive it) and the soak
// (a PRNG drives it).
#ifndef MRCORE_MIRROR_RANDOM_IO_H
#define MRCORE_MIRROR_RANDOM_IO_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "hca.h"

namespace mirror {

inline void Check(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "random I/O: %s\n", what);
		std::abort();
	}
}

// Bytes in, numbers out; zeros once the bytes run out.
struct Source {
	virtual ~Source() = default;
	virtual uint32_t u(unsigned int bytes) = 0;
};

struct ByteSource : Source {
	const uint8_t *p;
	size_t n;
	ByteSource(const uint8_t *data, size_t size) : p(data), n(size) {}
	uint32_t u(unsigned int bytes) override
	{
		uint32_t v = 0;
		for (unsigned int i = 0; i < bytes && n; i++, p++, n--)
			v = v << 8 | *p;
		return v;
	}
};

// A device pair with a pool on the local QP and a remote buffer.
class IoEnv {
public:
	static constexpr unsigned int kArenaPages = 96;

	IoEnv(const sim::Profile &p, unsigned int max_ctxs)
		: profile_(p), local_(p, "local"), peer_(sim::kRoce, "peer"),
		  arena_(static_cast<u8 *>(std::aligned_alloc(PAGE_SIZE, kBytes))),
		  remote_(kBytes), before_(kBytes), pattern_(Pattern())
	{
		lpd_ = local_.alloc_pd();
		ppd_ = peer_.alloc_pd();
		lqp_ = local_.create_qp(lpd_);
		pqp_ = peer_.create_qp(ppd_);
		sim::connect(lqp_, pqp_);
		if (p.fmr_max_pages)
			Check(!rdma_fmr_register(local_.dev(), &sim::kFmrOps,
						 p.fmr_max_pages), "fmr register");
		pool_ = rdma_io_pool_create(lqp_, 1, max_ctxs, 64);
		Check(!IS_ERR(pool_), "pool create");
		rmr_ = peer_.expose(ppd_, remote_.data(), kBytes,
				    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
				    IB_ACCESS_LOCAL_WRITE);
	}

	~IoEnv()
	{
		peer_.dereg_mr(rmr_);
		rdma_io_pool_destroy(pool_);
		if (profile_.fmr_max_pages)
			rdma_fmr_unregister(local_.dev());
		std::free(arena_);
	}

	// Returns 1 for an I/O that moved its bytes, 0 for a refusal (errno
	// from init or post), and aborts on any wrong byte.
	int RandomIo(Source &in, bool allow_force)
	{
		static const char *forced[] = {nullptr, "frwr", "iwarp", "fmr",
					       "multiread"};
		bool read = in.u(1) & 1;
		const char *force = allow_force ? forced[in.u(1) % 5] : nullptr;
		unsigned int nents = 1 + in.u(1) % 40;
		std::vector<scatterlist> sg;
		u64 pos = in.u(1) % 64;
		u64 end = 0;

		rdma_io_pool_force_backend(pool_, force);
		for (unsigned int i = 0; i < nents; i++) {
			uint32_t mode = in.u(1);
			uint32_t len = 1 + in.u(2) % (2 * PAGE_SIZE);

			if (mode & 1)
				pos = PAGE_ALIGN(pos);
			if (mode & 2)
				pos += PAGE_SIZE * (mode >> 5);
			if (mode & 4)
				len = PAGE_ALIGN(pos + 1) - pos;
			if (pos + len > kBytes)
				break;
			scatterlist s{};
			s.buf = arena_ + pos;
			s.length = len;
			sg.push_back(s);
			pos += len;
			end = pos;
		}
		if (sg.empty())
			return 0;
		sg.back().end = true;
		// Fresh, different bytes on both sides, up to the last one used.
		seed_ = (seed_ + 1) % 128;
		std::memcpy(remote_.data(), &pattern_[seed_], end);
		std::memcpy(arena_, &pattern_[seed_ + 128], end);
		std::memcpy(before_.data(), arena_, end);
		uint32_t offset = in.u(1) % sg[0].length;

		rdma_io_ctx ctx;
		int wrs = rdma_io_ctx_init(&ctx, pool_, sg.data(), sg.size(),
					   offset, uintptr_t(remote_.data()),
					   rmr_->ibmr.rkey,
					   read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
		if (wrs <= 0) {
			Check(wrs == -EOPNOTSUPP || wrs == -EAGAIN ||
			      wrs == -ENOMEM || wrs == -EIO, "init errno");
			Check(!std::memcmp(before_.data(), arena_, end),
			      "a refused I/O changed memory");
			return 0;
		}
		ib_cqe cqe{};
		auto &cq = sim::completions(lqp_);
		size_t n0 = cq.size();
		if (rdma_io_ctx_post(&ctx, &cqe, nullptr)) {
			// Refused before it reached the device (an injected
			// fault): the QP is intact, the MRs are quarantined.
			Check(cq.size() == n0, "a refused post completed");
			rdma_io_ctx_destroy(&ctx, nullptr);
			return 0;
		}
		sim::drain();
		Check(cq.size() == n0 + 1 && cq.back().status == IB_WC_SUCCESS,
		      "completion");
		u64 off = 0;
		for (size_t i = 0; i < sg.size(); i++) {
			u32 skip = i ? 0 : offset;
			Check(!std::memcmp(static_cast<u8 *>(sg[i].buf) + skip,
					   remote_.data() + off,
					   sg[i].length - skip), "data");
			off += sg[i].length - skip;
		}
		Check(off == ctx.length, "length");
		ib_wc wc{};
		rdma_io_ctx_destroy(&ctx, &wc);
		cq.clear();
		return 1;
	}

	rdma_io_pool *pool() { return pool_; }

	// Bytes that differ between shifts, computed once per process.
	static const std::vector<u8> &Pattern()
	{
		static const std::vector<u8> p = [] {
			std::vector<u8> v(kBytes + 256);

			for (size_t i = 0; i < v.size(); i++)
				v[i] = u8(i * 31 + i / 251);
			return v;
		}();
		return p;
	}

private:
	static constexpr size_t kBytes = kArenaPages * PAGE_SIZE;

	const sim::Profile &profile_;
	sim::Hca local_, peer_;
	ib_pd *lpd_, *ppd_;
	ib_qp *lqp_ = nullptr, *pqp_ = nullptr;
	rdma_io_pool *pool_ = nullptr;
	sim::Mr *rmr_ = nullptr;
	u8 *arena_;
	std::vector<u8> remote_, before_;
	const std::vector<u8> &pattern_;
	unsigned int seed_ = 0;
};

inline void CheckNothingLeft()
{
	const sim::Counters &c = sim::counters();

	Check(!c.kmalloc_live && !c.mrs_live && !c.dma_maps_live &&
	      !c.module_refs && !c.dma_api_errors && !c.warnings &&
	      !c.fmr_remap_unflushed, "leak or misuse at teardown");
}

} // namespace mirror

#endif // MRCORE_MIRROR_RANDOM_IO_H

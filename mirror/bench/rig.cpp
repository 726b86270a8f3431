// SPDX-License-Identifier: GPL-2.0-only
//
// The benchmark rows and the rig that runs one of them.
#include "rig.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <rdma/mrcore_backend.h>

namespace bench {
namespace {

// The shapes of tests/cases/shapes.h the rows use, and 64 KiB contiguous, which
// the scenario table has no use for.
constexpr mrcore_shape_desc kShape64kContig = {"64k_contig", 1, 0, 64u << 10,
					       16};

std::vector<mrcore_shape_desc> bench_shapes()
{
	return {mrcore_shapes[SHAPE_1_PAGE],   mrcore_shapes[SHAPE_8_PAGES],
		mrcore_shapes[SHAPE_32_PAGES], mrcore_shapes[SHAPE_256_PAGES],
		kShape64kContig,	       mrcore_shapes[SHAPE_1M_CONTIG]};
}

// Each backend on the device profile that uses it.  iwarp only READs (its
// point is the READ sink); an iWARP device WRITEs through frwr, so that row
// is here too.
struct Lane {
	const char *backend;
	const sim::Profile *profile;
	bool read, write;
};

constexpr Lane kLanes[] = {
	{"frwr", &sim::kRoce, true, true},
	{"iwarp", &sim::kIwarp, true, false},
	{"frwr", &sim::kIwarp, false, true},
	{"fmr", &sim::kFmr, true, true},
	{"multiread", &sim::kRoce, true, true},
};

// Pages the largest I/O of the rows spans: the pool's max_pages.
u32 max_pages_of_rows()
{
	u32 most = 1;

	for (const mrcore_shape_desc &s : bench_shapes()) {
		u32 pages = 0;

		for (unsigned int i = 0; i < s.nents; i++)
			pages += DIV_ROUND_UP((i ? 0 : s.offset) + s.length,
					      PAGE_SIZE);
		most = std::max(most, pages);
	}
	return most;
}

// Page-aligned, zeroed memory.
u8 *alloc_pages(size_t bytes)
{
	void *p = std::aligned_alloc(PAGE_SIZE, bytes);

	if (!p)
		throw std::runtime_error("out of memory");
	std::memset(p, 0, bytes);
	return static_cast<u8 *>(p);
}

} // namespace

std::string Row::name() const
{
	return std::string(backend) + "@" + profile->name + "/" +
	       (read ? "read" : "write") + "/" + shape.name;
}

const std::vector<Row> &rows()
{
	static const std::vector<Row> all = [] {
		std::vector<Row> v;

		for (const Lane &l : kLanes)
			for (bool read : {true, false}) {
				if (read ? !l.read : !l.write)
					continue;
				for (const mrcore_shape_desc &s : bench_shapes())
					v.push_back({l.backend, l.profile, s, read});
			}
		return v;
	}();
	return all;
}

const Row *find_row(const std::string &name)
{
	for (const Row &r : rows())
		if (r.name() == name)
			return &r;
	return nullptr;
}

void Rig::FreeDeleter::operator()(u8 *p) const
{
	std::free(p);
}

Rig::Rig(const Row &row)
	: row_(row), dir_(row.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE)
{
	sim::set_dma_page_tracking(false);
	sim::set_alloc_poison(false);
	const mrcore_shape_desc &s = row.shape;

	try {
		if (mirror_module_init())
			throw std::runtime_error("module init failed");
		module_loaded_ = true;
		for (Node *n : {&local_, &peer_}) {
			n->hca = std::make_unique<sim::Hca>(
				*row.profile, n == &local_ ? "local" : "peer");
			n->pd = n->hca->alloc_pd();
			n->qp = n->hca->create_qp(n->pd);
		}
		sim::connect(local_.qp, peer_.qp);
		if (row.profile->fmr_max_pages) {
			if (rdma_fmr_register(local_.hca->dev(), &sim::kFmrOps,
					      row.profile->fmr_max_pages))
				throw std::runtime_error("FMR registration failed");
			fmr_registered_ = true;
		}

		// The local memory of the shape (a page after the last
		// entry's page keeps an unaligned entry inside) and as much
		// remote memory as the I/O moves, exposed to the peer.
		arena_bytes_ = (u64(s.nents - 1) * s.stride + 1) * PAGE_SIZE +
			       PAGE_ALIGN(s.offset + s.length);
		arena_ = Memory(alloc_pages(arena_bytes_));
		remote_ = Memory(alloc_pages(PAGE_ALIGN(row.bytes())));
		sg_.resize(s.nents);
		sg_init_table(sg_.data(), s.nents);
		for (unsigned int i = 0; i < s.nents; i++)
			sg_set_buf(&sg_[i], arena_.get() + i * s.stride * PAGE_SIZE +
				   (i ? 0 : s.offset), s.length);
		remote_mr_ = peer_.hca->expose(peer_.pd, remote_.get(), row.bytes(),
					       IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_WRITE |
					       IB_ACCESS_LOCAL_WRITE);
		remote_addr_ = reinterpret_cast<uintptr_t>(remote_.get());
		rkey_ = remote_mr_->ibmr.rkey;

		pool_ = rdma_io_pool_create(local_.qp, 1, kQueueDepth,
					    max_pages_of_rows());
		if (IS_ERR(pool_)) {
			pool_ = nullptr;
			throw std::runtime_error("pool creation failed");
		}
		if (rdma_io_pool_force_backend(pool_, row.backend))
			throw std::runtime_error("cannot force the backend");
		wc_ok_.wr_cqe = &cqe_;
		wc_ok_.status = IB_WC_SUCCESS;

		check_one_io();
		Tally warm;
		for (u32 i = 0; i < rdma_io_pool_size(pool_); i++)
			if (io(&warm))
				throw std::runtime_error("warm-up I/O failed");
	} catch (...) {
		teardown();
		throw;
	}
}

Rig::~Rig()
{
	teardown();
}

void Rig::teardown()
{
	if (pool_)
		rdma_io_pool_destroy(pool_);
	pool_ = nullptr;
	if (remote_mr_)
		peer_.hca->dereg_mr(remote_mr_);
	remote_mr_ = nullptr;
	if (fmr_registered_)
		rdma_fmr_unregister(local_.hca->dev());
	fmr_registered_ = false;
	if (module_loaded_)
		mirror_module_exit();
	module_loaded_ = false;
	local_ = {};
	peer_ = {};
}

// One I/O of the row posted on the simulated HCA, its data checked.
void Rig::check_one_io()
{
	const mrcore_shape_desc &s = row_.shape;
	const size_t len = row_.bytes();
	std::vector<u8> want(len), got(len);

	for (size_t i = 0; i < arena_bytes_; i++)
		arena_[i] = u8(i * 7 + 1);
	for (size_t i = 0; i < len; i++)
		remote_[i] = u8(i * 13 + 5);

	auto gather = [&](u8 *out) {
		for (unsigned int i = 0; i < s.nents; i++)
			std::memcpy(out + size_t(i) * s.length, sg_[i].buf,
				    s.length);
	};
	if (row_.read)
		std::memcpy(want.data(), remote_.get(), len);
	else
		gather(want.data());

	rdma_io_ctx ctx;
	int wrs = rdma_io_ctx_init(&ctx, pool_, sg_.data(), u32(sg_.size()), 0,
				   remote_addr_, rkey_, dir_);
	if (wrs < 0)
		throw std::runtime_error("rdma_io_ctx_init: " + std::to_string(wrs));
	if (std::string chosen = rdma_io_ctx_backend(&ctx); chosen != row_.backend) {
		rdma_io_ctx_destroy(&ctx, nullptr);
		throw std::runtime_error("backend " + chosen + " moved the I/O");
	}
	auto &cq = sim::completions(local_.qp);
	size_t before = cq.size();
	int ret = rdma_io_ctx_post(&ctx, &cqe_, nullptr);
	sim::drain();
	bool ok = !ret && cq.size() == before + 1 && cq.back().cqe == &cqe_ &&
		  cq.back().status == IB_WC_SUCCESS;
	ib_wc wc = wc_ok_;

	rdma_io_ctx_destroy(&ctx, ok ? &wc : nullptr);
	if (!ok)
		throw std::runtime_error("the checked I/O did not complete");
	if (row_.read)
		gather(got.data());
	else
		std::memcpy(got.data(), remote_.get(), len);
	if (got != want)
		throw std::runtime_error("the checked I/O moved the wrong data");
}

std::string leak_report()
{
	const sim::Counters c = sim::counters();
	std::string r;

	sim::counters() = sim::Counters{};
	if (c.kmalloc_live)
		r += " kmalloc_live=" + std::to_string(c.kmalloc_live);
	if (c.mrs_live)
		r += " mrs_live=" + std::to_string(c.mrs_live);
	if (c.dma_maps_live)
		r += " dma_maps_live=" + std::to_string(c.dma_maps_live);
	if (c.module_refs)
		r += " module_refs=" + std::to_string(c.module_refs);
	if (c.warnings)
		r += " warnings=" + std::to_string(c.warnings);
	if (c.dma_api_errors)
		r += " dma_api_errors=" + std::to_string(c.dma_api_errors);
	if (c.fmr_remap_unflushed)
		r += " fmr_remap_unflushed=" + std::to_string(c.fmr_remap_unflushed);
	return r;
}

} // namespace bench

// SPDX-License-Identifier: GPL-2.0-only
//
// What the mirror's two benchmark rigs share (common.h).
#include "common.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace bench {
namespace {

constexpr mrcore_shape_desc kShape64kContig = {"64k_contig", 1, 0, 64u << 10,
					       16, 0};

// Page-aligned, zeroed memory.
Memory alloc_pages(size_t bytes)
{
	void *p = std::aligned_alloc(PAGE_SIZE, bytes);

	if (!p)
		throw std::runtime_error("out of memory");
	std::memset(p, 0, bytes);
	return Memory(static_cast<u8 *>(p));
}

} // namespace

std::vector<mrcore_shape_desc> shapes()
{
	return {mrcore_shapes[SHAPE_1_PAGE],   mrcore_shapes[SHAPE_8_PAGES],
		mrcore_shapes[SHAPE_32_PAGES], mrcore_shapes[SHAPE_256_PAGES],
		kShape64kContig,	       mrcore_shapes[SHAPE_1M_CONTIG]};
}

std::string row_name(const char *prefix, const sim::Profile &profile,
		     bool read, const mrcore_shape_desc &shape)
{
	return std::string(prefix) + "@" + profile.name + "/" +
	       (read ? "read" : "write") + "/" + shape.name;
}

ModuleLoad::ModuleLoad()
{
	if (mirror_module_init())
		throw std::runtime_error("module init failed");
}

ModuleLoad::~ModuleLoad()
{
	mirror_module_exit();
}

Pair::Pair(const sim::Profile &profile)
{
	for (Node *n : {&local, &peer}) {
		n->hca = std::make_unique<sim::Hca>(
			profile, n == &local ? "local" : "peer");
		n->pd = n->hca->alloc_pd();
		n->qp = n->hca->create_qp(n->pd);
	}
	sim::connect(local.qp, peer.qp);
}

// The local end goes first, as it was created.
Pair::~Pair()
{
	local = {};
	peer = {};
}

Buffers::Buffers(Node &peer, const mrcore_shape_desc &shape)
	: shape_(shape), peer_hca_(peer.hca.get())
{
	const mrcore_shape_desc &s = shape;

	// A page after the last entry's page keeps an unaligned entry inside.
	arena_bytes = (u64(s.nents - 1) * s.stride + 1) * PAGE_SIZE +
		      PAGE_ALIGN(s.offset + s.length);
	arena = alloc_pages(arena_bytes);
	remote = alloc_pages(PAGE_ALIGN(bytes()));
	sg.resize(s.nents);
	sg_init_table(sg.data(), s.nents);
	for (unsigned int i = 0; i < s.nents; i++)
		sg_set_buf(&sg[i], arena.get() + i * s.stride * PAGE_SIZE +
			   (i ? 0 : s.offset), s.length);
	remote_mr_ = peer_hca_->expose(peer.pd, remote.get(), bytes(),
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_LOCAL_WRITE);
}

Buffers::~Buffers()
{
	if (remote_mr_)
		peer_hca_->dereg_mr(remote_mr_);
}

// The remote memory, or the local SG entries one after the other.
void Buffers::copy(bool from_remote, std::span<u8> out) const
{
	if (from_remote) {
		std::memcpy(out.data(), remote.get(), bytes());
		return;
	}
	for (unsigned int i = 0; i < shape_.nents; i++)
		std::memcpy(out.data() + size_t(i) * shape_.length, sg[i].buf,
			    shape_.length);
}

void Buffers::copy_source(bool read, std::span<u8> out) const
{
	copy(read, out);
}

void Buffers::copy_sink(bool read, std::span<u8> out) const
{
	copy(!read, out);
}

Pool make_pool(ib_qp *qp, u32 port, u32 max_ios, u32 max_pages)
{
	rdma_io_pool *pool = rdma_io_pool_create(qp, port, max_ios, max_pages);

	if (IS_ERR(pool))
		throw std::runtime_error("pool creation failed");
	return Pool(pool);
}

std::string leak_report()
{
	const sim::Counters c = sim::counters();
	const std::pair<const char *, long> counts[] = {
		{"kmalloc_live", c.kmalloc_live},
		{"mrs_live", c.mrs_live},
		{"dma_maps_live", c.dma_maps_live},
		{"module_refs", c.module_refs},
		{"warnings", c.warnings},
		{"dma_api_errors", c.dma_api_errors},
		{"fmr_remap_unflushed", c.fmr_remap_unflushed},
	};
	std::string r;

	sim::counters() = sim::Counters{};
	for (const auto &[name, n] : counts)
		if (n)
			r += std::string(" ") + name + "=" + std::to_string(n);
	return r;
}

void throw_error(const char *what, int ret)
{
	throw std::runtime_error(what + std::to_string(ret));
}

int count_usage(const char *prog)
{
	std::fprintf(stderr, "usage: %s --list | ROW N\n", prog);
	return 2;
}

} // namespace bench

// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: the SG -> page-list planner (core/sg.c).
//
// The input describes a DMA-mapped scatterlist (entry addresses and lengths
// chosen near page boundaries, contiguous or not) and a page budget per MR.
// Checked: mrcore_sg_shape() and mrcore_sg_next_chunk() agree with a
// brute-force model page by page; the runs cover every byte once, in order,
// each within the budget, and each run's page list (as a backend would
// build it with rdma_mr_sg_pages()) has exactly the run's page count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <vector>

#include "hca.h"

namespace {

struct Reader {
	const uint8_t *p;
	size_t n;
	uint32_t u(unsigned int bytes)
	{
		uint32_t v = 0;
		for (unsigned int i = 0; i < bytes && n; i++, p++, n--)
			v = v << 8 | *p;
		return v;
	}
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Reader r{data, size};
	uint32_t max_pages = 1 + r.u(1) % 64;
	unsigned int nents = 1 + r.u(1) % 24;
	std::vector<scatterlist> sg(nents);
	uint64_t addr = 0x100000 + u64(r.u(2)) * PAGE_SIZE;

	for (unsigned int i = 0; i < nents; i++) {
		uint32_t mode = r.u(1);
		uint32_t len = 1 + r.u(2) % (3 * PAGE_SIZE);

		switch (mode % 4) {
		case 0:		// contiguous with the previous entry
			break;
		case 1:		// next page boundary
			addr = PAGE_ALIGN(addr);
			break;
		case 2:		// a gap of whole pages
			addr = PAGE_ALIGN(addr) + (mode % 5) * PAGE_SIZE;
			break;
		default:	// anywhere
			addr += r.u(2);
			break;
		}
		if (mode & 0x80)
			len = PAGE_SIZE * (1 + mode % 3) - (addr & ~PAGE_MASK);
		sg[i].dma_address = addr;
		sg[i].dma_length = len;
		sg[i].end = i == nents - 1;
		addr += len;
	}
	uint32_t offset = r.u(2) % sg[0].dma_length;

	struct mrcore_sg_shape shape;
	if (mrcore_sg_shape(sg.data(), offset, nents, &shape))
		std::abort();	// these lists have no empty entries, no wrap

	// Model: the set of pages the bytes touch, and the holes.
	std::set<u64> pages;
	u64 length = 0, holes = 0, prev_end = 0;
	for (unsigned int i = 0; i < nents; i++) {
		u64 s = sg[i].dma_address + (i ? 0 : offset);
		u64 e = sg[i].dma_address + sg[i].dma_length;
		if (i && s != prev_end && ((prev_end | s) & ~PAGE_MASK))
			holes++;
		for (u64 pg = s & PAGE_MASK; pg < e; pg += PAGE_SIZE)
			pages.insert(pg);
		length += e - s;
		prev_end = e;
	}
	if (shape.length != length || shape.holes != holes)
		std::abort();
	// Entries on distinct pages count every page; shared pages only
	// when contiguous, so the shape may only exceed the distinct set.
	if (shape.npages < pages.size())
		std::abort();

	// The runs: every byte once, in order, within the budget.
	mrcore_sg_iter it;
	mrcore_chunk c;
	u64 covered = 0;
	unsigned int runs = 0;
	mrcore_sg_iter_init(&it, sg.data(), offset, nents);
	while (mrcore_sg_next_chunk(&it, max_pages, &c)) {
		if (!c.nents || !c.length || c.npages > max_pages ||
		    ++runs > length)
			std::abort();
		rdma_mr mr{};
		mr.sg = c.sg;
		mr.sg_offset = c.offset;
		mr.dma_nents = c.nents;
		mr.length = c.length;
		std::vector<u64> list(max_pages);
		int n = rdma_mr_sg_pages(&mr, list.data(), max_pages);
		if (n != int(c.npages))
			std::abort();
		for (int i = 0; i < n; i++)
			if (list[i] & ~PAGE_MASK || !pages.count(list[i]))
				std::abort();
		covered += c.length;
	}
	if (covered != length || it.left)
		std::abort();
	return 0;
}

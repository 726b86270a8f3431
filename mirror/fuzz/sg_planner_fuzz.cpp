// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: the SG -> page-list planner (core/sg.c).
//
// The input describes a DMA-mapped scatterlist (entry addresses and lengths
// chosen near page boundaries, contiguous or not) and a page budget per MR.
// Checked exactly against an independent model (sg_model.h): the shape
// (length, page count, holes, and the number of runs it counts by
// arithmetic) of mrcore_sg_summarize(); every run of
// mrcore_sg_next_chunk() (first entry and offset, entries, bytes, end in
// its last entry, page count within the budget), and its page list as a
// backend builds it with rdma_mr_sg_pages(), page for page in order with
// no page twice; and the number of runs.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hca.h"
#include "sg_model.h"

namespace {

[[noreturn]] void Fail(const char *what)
{
	std::fprintf(stderr, "sg_planner: %s\n", what);
	std::abort();
}

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

	// What the planner must answer, from the model.
	std::vector<mirror::model::Entry> entries;
	for (const scatterlist &s : sg)
		entries.push_back({.addr = s.dma_address, .len = s.dma_length});
	const mirror::model::Plan want = mirror::model::Model(entries, offset,
							      max_pages);

	struct mrcore_sg_summary shape;
	if (mrcore_sg_summarize(sg.data(), offset, nents, max_pages, &shape))
		Fail("shape refused a list without empty entries or wrap");
	if (shape.length != want.length)
		Fail("shape: length");
	if (shape.holes != want.holes)
		Fail("shape: holes");
	if (shape.runs != want.runs.size())
		Fail("the summary counts another number of runs");
	if (shape.npages != want.npages)
		Fail("shape: page count");

	// The runs, one by one: where each starts, what it covers, its exact
	// page list (count, order, no page twice), and no run more or less.
	mrcore_sg_iter it;
	mrcore_chunk c;
	size_t k = 0;
	mrcore_sg_iter_init(&it, sg.data(), offset, nents);
	while (mrcore_sg_next_chunk(&it, max_pages, &c)) {
		if (k == want.runs.size())
			Fail("more runs than the model");
		const mirror::model::Run &run = want.runs[k++];
		if (size_t(c.sg - sg.data()) != run.first || c.offset != run.offset)
			Fail("run starts elsewhere");
		if (size_t(c.nents) != run.nents || c.length != run.length ||
		    c.last_end != run.last_end)
			Fail("run covers other bytes");
		if (c.npages != run.pages.size() || c.npages > max_pages)
			Fail("run page count");
		rdma_mr mr{};
		mr.sg = c.sg;
		mr.sg_offset = c.offset;
		mr.dma_nents = c.nents;
		mr.length = c.length;
		std::vector<u64> list(max_pages);
		int n = rdma_mr_sg_pages(&mr, list.data(), max_pages);
		if (n < 0)
			Fail("page list refused");
		list.resize(n);
		if (list != run.pages)
			Fail("page list differs from the model");
		// The generator's addresses only grow: pages strictly increase.
		for (size_t i = 1; i < list.size(); i++)
			if (list[i] <= list[i - 1])
				Fail("page list out of order or repeated");
	}
	if (k != want.runs.size())
		Fail("fewer runs than the model");
	if (it.left)
		Fail("iterator not at the end");
	return 0;
}

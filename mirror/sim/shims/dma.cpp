// SPDX-License-Identifier: GPL-2.0-only
//
// The DMA mapping API: a DMA address is the host address.  What
// ib_dma_map_sg() mapped is recorded, list by list and page by page, so
// that an unmap that does not match its map (what CONFIG_DMA_API_DEBUG
// checks) and a device access to memory no longer mapped (what an IOMMU
// would fault on; the HCA asks page_mapped()) count as DMA-API errors.
#include <cstdio>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hca.h"
#include "shims.h"

namespace {

bool page_tracking = true;

struct DmaMap {
	int nents;
	dma_data_direction dir;
	std::vector<u64> pages{};	// empty without page tracking
};

std::unordered_map<const scatterlist *, DmaMap> &dma_maps()
{
	static std::unordered_map<const scatterlist *, DmaMap> m;
	return m;
}

// Live mappings holding each page.
std::unordered_map<u64, int> &mapped_pages()
{
	static std::unordered_map<u64, int> m;
	return m;
}

} // namespace

void sim::set_dma_page_tracking(bool on)
{
	page_tracking = on;
}

bool sim::page_mapped(u64 page)
{
	return !page_tracking || mapped_pages().count(page);
}

// lib/scatterlist.c's: the entry after @sg, through a chain link; NULL
// after the last.
extern "C" struct scatterlist *sg_next(struct scatterlist *sg)
{
	if (sg_is_last(sg))
		return nullptr;
	sg++;
	if (sg_is_chain(sg))
		sg = sg_chain_ptr(sg);
	return sg;
}

extern "C" int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sgl,
			     int nents, enum dma_data_direction dir)
{
	struct scatterlist *sg;
	int i;

	if (nents <= 0)
		return 0;
	if (dma_maps().count(sgl)) {
		std::fprintf(stderr, "sim: DMA-API: %p mapped twice\n",
			     static_cast<void *>(sgl));
		sim::counters().dma_api_errors++;
	}
	DmaMap map = {.nents = nents, .dir = dir};

	for_each_sg(sgl, sg, nents, i) {
		u64 addr = sim::dma_addr(sg->buf);

		sg->dma_address = addr;
		sg->dma_length = sg->length;
		for (u64 p = addr & PAGE_MASK;
		     page_tracking && p < addr + sg->length; p += PAGE_SIZE)
			map.pages.push_back(p);
	}
	for (u64 p : map.pages)
		mapped_pages()[p]++;
	dma_maps()[sgl] = std::move(map);
	sim::counters().dma_maps_live++;
	return nents;
}

extern "C" void ib_dma_unmap_sg(struct ib_device *dev, struct scatterlist *sgl,
				int nents, enum dma_data_direction dir)
{
	auto it = dma_maps().find(sgl);

	// Same list, same count, same direction as the map.
	if (it == dma_maps().end() || it->second.nents != nents ||
	    it->second.dir != dir) {
		std::fprintf(stderr, "sim: DMA-API: bad unmap of %p\n",
			     static_cast<void *>(sgl));
		sim::counters().dma_api_errors++;
		return;
	}
	for (u64 p : it->second.pages)
		if (!--mapped_pages()[p])
			mapped_pages().erase(p);
	dma_maps().erase(it);
	sim::counters().dma_maps_live--;
}

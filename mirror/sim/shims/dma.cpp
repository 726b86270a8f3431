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

// Live mappings holding each page: in all, and those that let the device
// read it (DMA_TO_DEVICE, DMA_BIDIRECTIONAL) or write it (DMA_FROM_DEVICE,
// DMA_BIDIRECTIONAL), for what an IOMMU would refuse.
struct PageMaps {
	int all = 0;
	int reads = 0;
	int writes = 0;
};

std::unordered_map<u64, PageMaps> &mapped_pages()
{
	static std::unordered_map<u64, PageMaps> m;
	return m;
}

bool dev_reads(dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL;
}

bool dev_writes(dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
}

} // namespace

int sim::dma_dir_of(const scatterlist *sg)
{
	auto it = dma_maps().find(sg);

	return it == dma_maps().end() ? -1 : it->second.dir;
}

void sim::set_dma_page_tracking(bool on)
{
	page_tracking = on;
}

bool sim::page_mapped(u64 page)
{
	return !page_tracking || mapped_pages().count(page);
}

bool sim::page_dma_allows(u64 page, bool device_writes)
{
	auto it = mapped_pages().find(page);

	if (!page_tracking || it == mapped_pages().end())
		return true;
	return device_writes ? it->second.writes : it->second.reads;
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
	for (u64 p : map.pages) {
		PageMaps &pm = mapped_pages()[p];

		pm.all++;
		pm.reads += dev_reads(dir);
		pm.writes += dev_writes(dir);
	}
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
	for (u64 p : it->second.pages) {
		PageMaps &pm = mapped_pages()[p];

		pm.reads -= dev_reads(dir);
		pm.writes -= dev_writes(dir);
		if (!--pm.all)
			mapped_pages().erase(p);
	}
	dma_maps().erase(it);
	sim::counters().dma_maps_live--;
}

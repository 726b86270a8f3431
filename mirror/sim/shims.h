// SPDX-License-Identifier: GPL-2.0-only
//
// What the kernel shims (shims/*.cpp) and the simulated HCA (hca.cpp) share,
// and nothing a test needs: ib_core's list of devices, which the HCAs join
// and leave, and the DMA mappings the HCAs check every access against.
#ifndef MRCORE_MIRROR_SIM_SHIMS_H
#define MRCORE_MIRROR_SIM_SHIMS_H

#include <cstdint>

#include "mrcore_internal.h"

namespace sim {

// A DMA address is the host address: no IOMMU, no bounce buffers.  The
// two conversions, the one place integers and pointers are cast.
inline u64 dma_addr(const void *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

inline u8 *host_ptr(u64 addr)
{
	return reinterpret_cast<u8 *>(static_cast<uintptr_t>(addr));
}

// A device comes or goes: the registered client, if any, sees add() or
// remove(), as with ib_register_device() and ib_unregister_device().
void device_added(ib_device &dev);
void device_removed(ib_device &dev);

// Whether the caller is inside memalloc_noio_save() and its restore.
bool noio_scope();

// Whether the page at @page (page-aligned) is DMA-mapped now; always true
// when page tracking is off (set_dma_page_tracking()).
bool page_mapped(u64 page);

// Whether the device may write (@device_writes) or read the page at @page:
// some live mapping of it has that direction (DMA_FROM_DEVICE or
// DMA_TO_DEVICE, or DMA_BIDIRECTIONAL).  True for a page no mapping holds
// (memory the test gave the device without the core) and without page
// tracking.
bool page_dma_allows(u64 page, bool device_writes);

// The direction of the live mapping of the list @sg, or -1 if none.
int dma_dir_of(const scatterlist *sg);

} // namespace sim

#endif // MRCORE_MIRROR_SIM_SHIMS_H

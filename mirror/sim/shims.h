// SPDX-License-Identifier: GPL-2.0-only
//
// What the kernel shims (shims/*.cpp) and the simulated HCA (hca.cpp) share,
// and nothing a test needs: ib_core's list of devices, which the HCAs join
// and leave, and the DMA mappings the HCAs check every access against.
#ifndef MRCORE_MIRROR_SIM_SHIMS_H
#define MRCORE_MIRROR_SIM_SHIMS_H

#include "mrcore_internal.h"

namespace sim {

// A device comes or goes: the registered client, if any, sees add() or
// remove(), as with ib_register_device() and ib_unregister_device().
void device_added(ib_device &dev);
void device_removed(ib_device &dev);

// Whether the page at @page (page-aligned) is DMA-mapped now; always true
// when page tracking is off (set_dma_page_tracking()).
bool page_mapped(u64 page);

} // namespace sim

#endif // MRCORE_MIRROR_SIM_SHIMS_H

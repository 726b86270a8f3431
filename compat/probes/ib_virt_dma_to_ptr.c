// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_IB_VIRT_DMA_TO_PTR: ib_virt_dma_to_ptr() and
 * ib_virt_dma_to_page() turn the "DMA" address of an ib_uses_virt_dma()
 * device (rxe, siw) back into a kernel pointer / page (6.4+).
 */
#include <rdma/ib_verbs.h>

void *mrcore_probe(u64 dma_addr);
void *mrcore_probe(u64 dma_addr)
{
	struct page *page = ib_virt_dma_to_page(dma_addr);

	return page ? ib_virt_dma_to_ptr(dma_addr) : NULL;
}

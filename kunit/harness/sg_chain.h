/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Chained scatterlists for the suites: the rows of the case tables marked
 * chained (tests/cases/shapes.h: arrays of MRCORE_SHAPE_CHAIN_ENTS slots).
 */
#ifndef _MRCORE_SG_CHAIN_H
#define _MRCORE_SG_CHAIN_H

#include <linux/scatterlist.h>

#include "cases/shapes.h"

/**
 * mrcore_sg_copy_chained() - the entries of a flat list as a chained one
 * @dst: mrcore_shape_chain_slots(@nents) zeroed slots, in one allocation.
 * @src: @nents entries.
 * @nents: how many.
 *
 * The same pages, offsets and lengths; the last slot of each array of
 * @dst but the final one is a link to the next slot, the next array, as
 * sg_chain() makes it.
 */
static inline void mrcore_sg_copy_chained(struct scatterlist *dst,
					  struct scatterlist *src,
					  unsigned int nents)
{
	unsigned int slots = mrcore_shape_chain_slots(nents);
	unsigned int i, slot = 0;

	sg_init_table(dst, slots);
	for (i = 0; i < nents; i++, slot++) {
		if (mrcore_shape_chain_link(slot, nents - i)) {
			sg_chain(&dst[slot + 1 - MRCORE_SHAPE_CHAIN_ENTS],
				 MRCORE_SHAPE_CHAIN_ENTS, &dst[slot + 1]);
			slot++;
		}
		sg_set_page(&dst[slot], sg_page(src + i), src[i].length,
			    src[i].offset);
	}
}

#endif /* _MRCORE_SG_CHAIN_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SG list shapes of the READ/WRITE helper's tests: the scenario table
 * (scenarios.h), the mirror, and the end-to-end suites on siw and rxe.
 */
#ifndef _MRCORE_SHAPES_H
#define _MRCORE_SHAPES_H

enum mrcore_shape {
	SHAPE_1_BYTE,
	SHAPE_1_PAGE,
	SHAPE_UNALIGNED,
	SHAPE_8_PAGES,
	SHAPE_32_PAGES,
	SHAPE_33_PAGES,
	SHAPE_256_PAGES,
	SHAPE_257_PAGES,
	SHAPE_1M_CONTIG,
	SHAPE_4M_CONTIG,
	SHAPE_8_PAGES_OFFSET,
	SHAPE_COUNT,
};

/**
 * struct mrcore_shape_desc - an SG list: @nents entries of @length bytes,
 * each starting @stride pages after the previous one, the first @offset
 * bytes into its page.  A stride of 2 leaves a page between entries, so no
 * two entries are contiguous ("scattered").
 * @name: as used in test names.
 * @nents: entries.
 * @offset: offset of the first entry into its page.
 * @length: bytes per entry.
 * @stride: pages from one entry's page to the next one's.
 * @first_length: bytes of the first entry, if not @length: an entry of
 *	another length, for offsets that skip it (the end-to-end suites'
 *	memory, a page per entry, has it as PAGE_SIZE - @offset).
 */
struct mrcore_shape_desc {
	const char *name;
	unsigned int nents;
	unsigned int offset;
	unsigned int length;
	unsigned int stride;
	unsigned int first_length;
};

/* Not every file that describes its own shapes uses the table. */
static const struct mrcore_shape_desc mrcore_shapes[SHAPE_COUNT] __maybe_unused = {
	[SHAPE_1_BYTE] = { "1_byte", 1, 0, 1, 1, 0 },
	[SHAPE_1_PAGE] = { "1_page", 1, 0, 4096, 1, 0 },
	[SHAPE_UNALIGNED] = { "unaligned", 1, 1000, 6000, 2, 0 },
	[SHAPE_8_PAGES] = { "8_pages", 8, 0, 4096, 2, 0 },
	[SHAPE_32_PAGES] = { "32_pages", 32, 0, 4096, 2, 0 },
	[SHAPE_33_PAGES] = { "33_pages", 33, 0, 4096, 2, 0 },
	[SHAPE_256_PAGES] = { "256_pages", 256, 0, 4096, 2, 0 },
	[SHAPE_257_PAGES] = { "257_pages", 257, 0, 4096, 2, 0 },
	[SHAPE_1M_CONTIG] = { "1m_contig", 1, 0, 1u << 20, 256, 0 },
	[SHAPE_4M_CONTIG] = { "4m_contig", 1, 0, 4u << 20, 1024, 0 },
	/* the first entry from byte 1000 to the end of its page, 3,096 bytes */
	[SHAPE_8_PAGES_OFFSET] = { "8_pages_offset", 8, 1000, 4096, 2, 3096 },
};

/* Bytes of entry @i of @d. */
static inline unsigned int
mrcore_shape_entry_len(const struct mrcore_shape_desc *d, unsigned int i)
{
	return !i && d->first_length ? d->first_length : d->length;
}

/* Bytes of the whole list of @d. */
static inline unsigned long long
mrcore_shape_bytes(const struct mrcore_shape_desc *d)
{
	return (unsigned long long)(d->nents - 1) * d->length +
	       mrcore_shape_entry_len(d, 0);
}

/*
 * A chained list's arrays: this many entries each, the last of each but
 * the final one a link to the next, as sg_alloc_table() and
 * sg_alloc_table_chained() build lists longer than one array.  Walks of
 * the list must follow the links; a list of up to this many entries has
 * none.
 */
#define MRCORE_SHAPE_CHAIN_ENTS	8

/*
 * Whether slot @slot of a chained list is a link, with @left entries still
 * to place: the last slot of an array, unless one entry is left, which
 * takes it and ends the list.
 */
static inline bool mrcore_shape_chain_link(unsigned int slot, unsigned int left)
{
	return slot % MRCORE_SHAPE_CHAIN_ENTS == MRCORE_SHAPE_CHAIN_ENTS - 1 &&
	       left > 1;
}

/* Slots, entries and links, of a chained list of @nents entries. */
static inline unsigned int mrcore_shape_chain_slots(unsigned int nents)
{
	unsigned int slot = 0;

	for (; nents; slot++)
		if (!mrcore_shape_chain_link(slot, nents))
			nents--;
	return slot;
}

/* Pages an arena needs to hold any shape. */
#define MRCORE_SHAPE_ARENA_PAGES	1024

#endif /* _MRCORE_SHAPES_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Walking a DMA-mapped scatterlist: the one-pass summary, the inline steps
 * of the walks every I/O pays for, and the cut of a list into the runs of
 * pages one MR maps (core/sg.c).
 */
#ifndef _MRCORE_SG_H
#define _MRCORE_SG_H

/**
 * struct mrcore_sg_summary - a DMA-mapped scatterlist, measured in one pass
 * @length: bytes.
 * @npages: pages the bytes span.
 * @holes: places where a page list would need a hole; 0 fits one MR.
 * @runs: runs of pages one MR maps each, as mrcore_sg_next_chunk() cuts
 *	them for the MR size asked for; 0 if none was asked for.
 * @last: the last DMA entry.
 * @last_len: its length.
 */
struct mrcore_sg_summary {
	u64 length;
	u32 npages;
	u32 holes;
	u32 runs;
	struct scatterlist *last;
	u32 last_len;
};

/**
 * mrcore_sg_step() - the DMA entry after one that is not the last walked
 * @s: the entry; the caller counts its DMA entries and knows more follow.
 *
 * What sg_next() returns then, through a chain link.  sg_next() is out of
 * line (lib/scatterlist.c) and tests for the end of the list, which a walk
 * that counts its entries has no use for: the walks every I/O pays for
 * step inline.
 *
 * Context: Any context.
 * Return: the next entry.
 */
static inline struct scatterlist *mrcore_sg_step(struct scatterlist *s)
{
	if (unlikely(sg_is_chain(s + 1))) {
		/*
		 * A branch, not a conditional move: a chain link is rare,
		 * and a move would be paid on every entry of every list.
		 */
		barrier();
		return sg_chain_ptr(s + 1);
	}
	return s + 1;
}

/**
 * mrcore_sg_entry() - the bytes of one DMA entry, checked
 * @s: the entry.
 * @skip: bytes of it to skip (the I/O's offset, on the first entry).
 * @start: where its bytes start, on success.
 * @len: how many there are, on success.
 *
 * The checks every pass over a list makes of each entry, with one answer.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for an empty entry or a @skip at or past its end;
 * -EOVERFLOW if its bytes wrap or end in the address space's last page.
 */
static inline int mrcore_sg_entry(struct scatterlist *s, u32 skip,
				  u64 *start, u32 *len)
{
	u32 n = sg_dma_len(s);
	u64 end;

	if (unlikely(skip >= n))
		return -EINVAL;
	*start = sg_dma_address(s) + skip;
	*len = n - skip;
	/* Wraps exactly when *start > U64_MAX - PAGE_SIZE - *len. */
	if (unlikely(check_add_overflow(*start, *len + (u64)PAGE_SIZE, &end)))
		return -EOVERFLOW;
	return 0;
}

int mrcore_sg_summarize(struct scatterlist *sg, u32 offset, int dma_nents,
			u32 mr_pages, struct mrcore_sg_summary *sum);
int mrcore_sg_summarize_any(struct scatterlist *sg, u32 offset, int dma_nents,
			    u32 mr_pages, struct mrcore_sg_summary *sum);

/**
 * mrcore_sg_whole_pages() - measure a DMA-mapped list of whole pages
 * @sg: the scatterlist, already DMA-mapped.
 * @offset: bytes of the first entry to skip.
 * @dma_nents: number of DMA entries.
 * @last: its last entry, for a list of whole pages.
 *
 * The common list: every entry whole pages from a page boundary, so none
 * shares a page or leaves a hole.  No entry can wrap while every start
 * stays below the top U32_MAX bytes and a page of the address space.
 * The checks of each entry fold into one word, tested once after the
 * loop: its start, and its length less a page, which is a multiple of the
 * page size for a length of whole pages and has its top bits set for an
 * entry shorter than a page (an empty one too): either lands in the
 * in-page bits or above the wrap limit.  Inline: the first pass over every
 * list the core maps, in the summary of the I/O path and in the map of
 * the map API and the rkey set.
 *
 * Context: Any context.
 * Return: the length of such a list, @offset bytes of the first entry left
 * out; or 0 for any other list, errors included, which the caller measures
 * entry by entry (mrcore_sg_summarize_any()).
 */
static inline u64 mrcore_sg_whole_pages(struct scatterlist *sg, u32 offset,
					int dma_nents,
					struct scatterlist **last)
{
	struct scatterlist *s = sg;
	u32 n = sg_dma_len(sg);
	u64 length, acc;
	int i;

	if (unlikely(offset >= n))
		return 0;
	length = n - offset;
	acc = (sg_dma_address(sg) + offset) | (length - PAGE_SIZE);
	/* Counted down: the count is all the loop needs. */
	for (i = dma_nents - 1; i > 0; i--) {
		s = mrcore_sg_step(s);
		n = sg_dma_len(s);
		acc |= sg_dma_address(s) | ((u64)n - PAGE_SIZE);
		length += n;
	}
	if (unlikely((acc & ~PAGE_MASK) || length > U32_MAX ||
		     acc > U64_MAX - PAGE_SIZE - U32_MAX))
		return 0;
	*last = s;
	return length;
}

/**
 * struct mrcore_sg_iter - a position in a DMA-mapped scatterlist
 * @sg: the current entry.
 * @offset: bytes of it already consumed.
 * @left: entries left, the current one included.
 */
struct mrcore_sg_iter {
	struct scatterlist *sg;
	u32 offset;
	int left;
};

/**
 * struct mrcore_chunk - a run of bytes one MR maps
 * @sg: its first entry.
 * @offset: bytes of @sg before the run.
 * @nents: entries it touches.
 * @length: bytes.
 * @npages: pages.
 * @last: its last entry.
 * @last_end: bytes of @last it covers, from that entry's start.
 */
struct mrcore_chunk {
	struct scatterlist *sg;
	u32 offset;
	int nents;
	u64 length;
	u32 npages;
	struct scatterlist *last;
	u32 last_end;
};

/**
 * mrcore_sg_iter_init() - start walking a DMA-mapped scatterlist
 * @it: the iterator.
 * @sg: the scatterlist.
 * @offset: bytes of the first entry to skip.
 * @dma_nents: number of DMA entries.
 *
 * Inline: every registered I/O starts one, and most cut a single run.
 *
 * Context: Any context.
 */
static inline void mrcore_sg_iter_init(struct mrcore_sg_iter *it,
				       struct scatterlist *sg, u32 offset,
				       int dma_nents)
{
	it->sg = sg;
	it->offset = offset;
	it->left = dma_nents;
}

bool mrcore_sg_next_chunk(struct mrcore_sg_iter *it, u32 max_pages,
			  struct mrcore_chunk *c);

#endif /* _MRCORE_SG_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * DMA-mapped scatterlists as MRs see them: validation, the runs of bytes one
 * MR can map, and page lists.
 *
 * One MR maps a list of pages plus an offset into the first one and a length.
 * Two neighbouring entries fit in one MR when both sit on a page boundary
 * where they meet, or when the second continues exactly where the first
 * ended; anything else is a hole the page list cannot describe.
 */
#include "mrcore_priv.h"

/*
 * The first page an entry [@start, ...) adds to a page list: the page after
 * the one it shares with its predecessor if it continues it exactly
 * (@joins, in the same run), else the page @start is in.
 */
static inline u64 mrcore_sg_first_page(u64 start, bool joins)
{
	return joins ? PAGE_ALIGN(start) : start & PAGE_MASK;
}

/*
 * Whether a page list cannot go on from an entry that ended at @prev_end
 * to one at @start: neither continues the other, nor do both meet on a
 * page boundary.
 */
static inline bool mrcore_sg_hole(u64 prev_end, u64 start)
{
	return start != prev_end && ((prev_end | start) & ~PAGE_MASK);
}

/*
 * The MR cut rule, written once: the run in progress (*@in_run, of
 * *@run_pages pages of @max_pages), or a new one, takes the entry
 * [@start, @end) (@joins: it continues its predecessor exactly).  Returns
 * @end if all of it fits; else where the full page list cuts it, the run
 * then closed (a cut at or before @start takes nothing of the entry).
 * mrcore_sg_next_chunk() cuts the list with it as it builds, and the
 * summary counts runs with it (mrcore_sg_runs()), so that the runs an I/O
 * is priced for are those it is built with.
 */
static inline u64 mrcore_sg_cut(u64 start, u64 end, bool joins,
				u32 max_pages, bool *in_run, u32 *run_pages)
{
	u64 first = mrcore_sg_first_page(start, *in_run && joins);
	u64 pages = (PAGE_ALIGN(end) - first) >> PAGE_SHIFT;
	u64 room;

	if (!*in_run) {
		*in_run = true;
		*run_pages = 0;
	}
	room = max_pages - *run_pages;
	if (pages <= room) {
		*run_pages += pages;
		return end;
	}
	*in_run = false;
	return first + (room << PAGE_SHIFT);
}

/*
 * Count the MR runs an entry [@start, @end) opens, continuing the run in
 * progress (*@in_run, *@run_pages of @max_pages used): mrcore_sg_cut() until
 * the rest of the entry fits.
 */
static u32 mrcore_sg_runs(u64 start, u64 end, bool joins, u32 max_pages,
			  bool *in_run, u32 *run_pages)
{
	u32 opened = 0;

	for (;;) {
		u64 cut;

		opened += !*in_run;
		cut = mrcore_sg_cut(start, end, joins, max_pages, in_run,
				    run_pages);
		if (cut == end)
			return opened;
		/* The next run starts at the cut. */
		start = max(start, cut);
		joins = false;
	}
}

/*
 * The pages the entry @start..@end adds after one that ended at @prev_end
 * (@first: none before it).  *@joins: it continues that one, and shares
 * its last page; *@hole: mrcore_sg_hole() from that one to it.
 */
static inline u64 mrcore_sg_entry_pages(u64 prev_end, u64 start, u64 end,
					bool first, bool *joins, bool *hole)
{
	*joins = false;
	*hole = false;
	/* Whole pages after whole pages: no hole, none shared. */
	if (likely(!((prev_end | start | end) & ~PAGE_MASK)))
		return (end - start) >> PAGE_SHIFT;
	*joins = !first && start == prev_end;
	*hole = !first && mrcore_sg_hole(prev_end, start);
	return (PAGE_ALIGN(end) - mrcore_sg_first_page(start, *joins)) >>
	       PAGE_SHIFT;
}

/**
 * mrcore_sg_summarize_any() - mrcore_sg_summarize() entry by entry
 * @sg: as mrcore_sg_summarize().
 * @offset: as mrcore_sg_summarize().
 * @dma_nents: as mrcore_sg_summarize().
 * @mr_pages: as mrcore_sg_summarize().
 * @sum: as mrcore_sg_summarize().
 *
 * Any list: what a walk of the common list (mrcore_sg_whole_pages())
 * leaves, errors included.
 *
 * Context: Any context.
 * Return: as mrcore_sg_summarize().
 */
noinline int mrcore_sg_summarize_any(struct scatterlist *sg, u32 offset,
				     int dma_nents, u32 mr_pages,
				     struct mrcore_sg_summary *sum)
{
	struct scatterlist *s, *s_last = sg;
	u32 holes = 0, runs = 0, run_pages = 0;
	bool in_run = false;
	u64 prev_end = 0;
	u64 length = 0;
	u64 npages = 0;
	u32 skip = offset;
	int i;

	for_each_sg(sg, s, dma_nents, i) {
		bool joins, hole;
		u64 start, end, pages;
		u32 len;
		int ret;

		ret = mrcore_sg_entry(s, skip, &start, &len);
		if (ret)
			return ret;
		end = start + len;
		pages = mrcore_sg_entry_pages(prev_end, start, end, i == 0,
					      &joins, &hole);
		if (hole) {
			holes++;
			in_run = false;	/* a hole ends an MR's run */
		}
		length += len;
		npages += pages;
		/* Within a run, a joining entry joins it too: same pages. */
		if (in_run && pages <= mr_pages - run_pages)
			run_pages += pages;
		else if (mr_pages)
			runs += mrcore_sg_runs(start, end, joins, mr_pages,
					       &in_run, &run_pages);
		prev_end = end;
		s_last = s;
		skip = 0;
	}
	if (unlikely(length > U32_MAX))
		return -EOVERFLOW;

	sum->length = length;
	sum->npages = npages;
	sum->holes = holes;
	sum->runs = runs;
	sum->last = s_last;
	sum->last_len = prev_end - sg_dma_address(s_last);
	return 0;
}

/**
 * mrcore_sg_summarize() - check a DMA-mapped scatterlist and measure it
 * @sg: the scatterlist, already DMA-mapped.
 * @offset: bytes of the first entry to skip.
 * @dma_nents: number of DMA entries.
 * @mr_pages: pages one MR maps, to count the MRs a registered plan needs;
 *	0 if no MR is to be counted.
 * @sum: what was measured, on success.
 *
 * The one pass over the list that plans need: everything they price is
 * arithmetic on @sum.  Empty entries are refused rather than skipped: they
 * are always a caller bug.  Holes are counted (@sum->holes); the map API
 * refuses them, the I/O path starts a new MR at each.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for an empty entry or an @offset at or past the end of
 * the first entry; -EOVERFLOW if an entry wraps the address space or the
 * total exceeds U32_MAX bytes (the largest length the peer can be told
 * about).
 */
int mrcore_sg_summarize(struct scatterlist *sg, u32 offset, int dma_nents,
			u32 mr_pages, struct mrcore_sg_summary *sum)
{
	struct scatterlist *last;
	u64 length = mrcore_sg_whole_pages(sg, offset, dma_nents, &last);
	u32 npages = length >> PAGE_SHIFT;

	if (unlikely(!length))
		return mrcore_sg_summarize_any(sg, offset, dma_nents, mr_pages,
					       sum);
	sum->length = length;
	sum->npages = npages;
	sum->holes = 0;
	sum->runs = mr_pages ? DIV_ROUND_UP(npages, mr_pages) : 0;
	sum->last = last;
	sum->last_len = sg_dma_len(last);
	return 0;
}

/**
 * mrcore_sg_next_chunk() - the next run of bytes one MR can map
 * @it: the iterator, advanced past the run.
 * @max_pages: pages one MR holds.
 * @c: the run: first entry, offset into it, entries touched, bytes, pages,
 *	and the end of the run in its last entry.
 *
 * A run ends at a hole, at the end of the list, or where the MR's page list
 * is full, inside an entry if need be; the next run starts there.  The run
 * is the core's decision, not the device's: @c->last_end says how much of
 * the last entry it covers, and backends show the device exactly those
 * bytes (drivers fill page lists differently: siw merges contiguous pages
 * into one entry, ib_sg_to_pages() stops one page short of a full list).
 *
 * Context: Any context.
 * Return: true if @c holds a run, false at the end of the list.
 */
bool mrcore_sg_next_chunk(struct mrcore_sg_iter *it, u32 max_pages,
			  struct mrcore_chunk *c)
{
	u32 run_pages = 0;
	bool in_run = false;
	u64 prev_end = 0;

	if (!it->left)
		return false;

	c->sg = it->sg;
	c->offset = it->offset;
	c->nents = 0;
	c->length = 0;
	c->npages = 0;

	while (it->left) {
		u64 start = sg_dma_address(it->sg) + it->offset;
		u64 end = sg_dma_address(it->sg) + sg_dma_len(it->sg);
		u64 cut;

		if (c->nents && mrcore_sg_hole(prev_end, start))
			break;
		cut = mrcore_sg_cut(start, end, c->nents && start == prev_end,
				    max_pages, &in_run, &run_pages);
		if (cut < end) {
			/* The page list is full, maybe inside this entry. */
			if (cut > start) {
				c->nents++;
				c->length += cut - start;
				c->npages = max_pages;
				c->last = it->sg;
				c->last_end = cut - sg_dma_address(it->sg);
				it->offset += cut - start;
			}
			break;
		}

		c->nents++;
		c->length += end - start;
		c->npages = run_pages;
		c->last = it->sg;
		c->last_end = sg_dma_len(it->sg);
		prev_end = end;
		it->left--;
		it->offset = 0;
		if (it->left)
			it->sg = mrcore_sg_step(it->sg);
	}
	return true;
}

/**
 * rdma_mr_sg_pages() - the page list of an MR's mapping
 * @mr: an MR the core is mapping (in the backend's @map callback).
 * @pages: where the page addresses go.
 * @max: room in @pages.
 *
 * For backends that register synchronously from a page list.
 *
 * Context: Any context.
 * Return: the number of pages, or -E2BIG if they exceed @max.
 */
int rdma_mr_sg_pages(const struct rdma_mr *mr, u64 *pages, u32 max)
{
	struct scatterlist *s;
	u64 left = mr->length;
	u64 prev_end = 0;
	u32 n = 0;
	int i;

	for_each_sg(mr->sg, s, mr->dma_nents, i) {
		u64 start = sg_dma_address(s) + (i ? 0 : mr->sg_offset);
		u64 end = min_t(u64, sg_dma_address(s) + sg_dma_len(s),
				start + left);
		u64 page = mrcore_sg_first_page(start, i && start == prev_end);

		for (; page < end; page += PAGE_SIZE) {
			if (n == max)
				return -E2BIG;
			pages[n++] = page;
		}
		left -= end - start;
		prev_end = end;
		if (!left)
			break;
	}
	return n;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_sg_pages, RDMA_MRCORE);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The READ/WRITE helper on bio_vec input, as the block layer and the NFS
 * server hold their data.
 *
 * Each segment of the iterator becomes one scatterlist entry (a bio_vec
 * spans physically contiguous pages, which one entry describes and the DMA
 * API maps whole), and the I/O then takes the scatterlist path, so every
 * strategy and backend serves bvec input alike.  A one-segment I/O keeps
 * its entry in the context; longer ones take the list from a block of the
 * pool's, as the I/O's WRs are (core/io.c).
 *
 * The seam for the two-step IOVA DMA API (dma_iova_try_alloc() and
 * dma_iova_link(), in kernels after 6.12, which this module does not
 * build for): mrcore_bvec_walk() is the one place that turns segments
 * into mappable entries.  With that API the segments would be linked into
 * one IOVA range here instead, and the context would hold one contiguous
 * DMA range, which the plans already price as one entry.
 */
#include "mrcore_priv.h"

/*
 * Walk the segments of @iter over @bvecs[0..@nr_bvec), each once, and set
 * the @n-th in @sgl[@n] (with @sgl %NULL, only count them); the walk
 * itself checks the iterator against the array.  Returns the number of
 * segments, or -EINVAL for an iterator that starts or runs past the
 * array, starts at or past the end of its bio_vec, or covers an empty one.
 */
static int mrcore_bvec_walk(const struct bio_vec *bvecs, u32 nr_bvec,
			    struct bvec_iter iter, struct scatterlist *sgl)
{
	u32 idx = iter.bi_idx, done = iter.bi_bvec_done, left = iter.bi_size;
	int n = 0;

	while (left) {
		const struct bio_vec *bv;
		u32 offset, len;

		if (idx >= nr_bvec)
			return -EINVAL;
		bv = &bvecs[idx];
		if (done >= bv->bv_len)
			return -EINVAL;
		offset = bv->bv_offset + done;
		len = min(bv->bv_len - done, left);
		if (sgl)
			sg_set_page(&sgl[n],
				    nth_page(bv->bv_page, offset >> PAGE_SHIFT),
				    len, offset_in_page(offset));
		n++;
		left -= len;
		idx++;
		done = 0;
	}
	return n;
}

/*
 * Entries the scatterlist of @iter needs at most, so that the walk that
 * checks the iterator fills it too: one if the iterator ends in its first
 * bio_vec; else every bio_vec the array has left, unless they could be
 * more than a pool block holds, where the walk counts them first so that
 * an allocation of the I/O's own is no larger than it needs.  Returns the
 * walk's error, if that ran.
 */
static int mrcore_bvec_room(const struct bio_vec *bvecs, u32 nr_bvec,
			    struct bvec_iter iter, u32 block)
{
	const struct bio_vec *first = &bvecs[iter.bi_idx];
	u32 left = nr_bvec - iter.bi_idx;

	if (first->bv_len > iter.bi_bvec_done &&
	    first->bv_len - iter.bi_bvec_done >= iter.bi_size)
		return 1;
	if (left <= block)
		return left;
	return mrcore_bvec_walk(bvecs, nr_bvec, iter, NULL);
}

/*
 * The scatterlist of an I/O of @n segments: the context's own entry, a
 * block of the pool's, or, for an I/O larger than the pool's max_pages or
 * one that finds every block held, an allocation of its own (counted as
 * io_allocs, as in core/io.c).
 */
static struct scatterlist *mrcore_bvec_sgl(struct rdma_io_ctx *ctx,
					   struct rdma_io_pool *pool, u32 n)
{
	struct scatterlist *sgl = NULL;

	if (n == 1)
		return &ctx->inline_sg;
	if (n <= pool->mem_sg)
		sgl = mrcore_stash_get(&pool->sg_mem);
	ctx->sg_pooled = sgl;
	if (sgl)
		return sgl;
	sgl = kmalloc_array(n, sizeof(*sgl), GFP_KERNEL);
	if (sgl)
		mrcore_pool_stat_add(pool, MRCORE_STAT_IO_ALLOCS, 1);
	return sgl;
}

static void mrcore_bvec_sgl_free(const struct rdma_io_ctx *ctx,
				 struct rdma_io_pool *pool,
				 struct scatterlist *sgl)
{
	if (sgl == &ctx->inline_sg)
		return;
	if (ctx->sg_pooled)
		mrcore_stash_put(&pool->sg_mem, sgl);
	else
		kfree(sgl);
}

/**
 * rdma_io_ctx_init_bvec() - plan and build one RDMA READ or WRITE of bio_vecs
 * @ctx: the context, owned by the caller until rdma_io_ctx_destroy_bvec().
 * @pool: the MR pool of the QP the I/O is posted on.
 * @bvecs: the local memory.
 * @nr_bvec: entries in @bvecs.
 * @iter: the bytes of @bvecs the I/O moves: from @iter.bi_idx and
 *	@iter.bi_bvec_done on, @iter.bi_size of them (@iter.bi_sector is
 *	ignored).
 * @remote_addr: the peer's address.
 * @rkey: the peer's key.
 * @dir: %DMA_FROM_DEVICE to READ into @bvecs, %DMA_TO_DEVICE to WRITE them.
 *
 * rdma_io_ctx_init() for memory held as bio_vecs: the same plans, backends,
 * errors and WRs.  Each segment is DMA-mapped as it stands (one entry per
 * bio_vec); none is merged with its neighbour.
 *
 * Context: Process context; may sleep.
 * Return: as rdma_io_ctx_init(); -EINVAL also for a zero @nr_bvec or
 * @iter.bi_size, or an @iter that does not fit @bvecs (past its end,
 * at or past the end of its first bio_vec, or over an empty one).
 */
int rdma_io_ctx_init_bvec(struct rdma_io_ctx *ctx, struct rdma_io_pool *pool,
			  const struct bio_vec *bvecs, u32 nr_bvec,
			  struct bvec_iter iter, u64 remote_addr, u32 rkey,
			  enum dma_data_direction dir)
{
	struct scatterlist *sgl;
	int room, n, ret;

	if (!ctx || !pool || !bvecs || iter.bi_idx >= nr_bvec || !iter.bi_size)
		return -EINVAL;
	room = mrcore_bvec_room(bvecs, nr_bvec, iter, pool->mem_sg);
	if (room < 0)
		return room;

	sgl = mrcore_bvec_sgl(ctx, pool, room);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, room);
	n = mrcore_bvec_walk(bvecs, nr_bvec, iter, sgl);
	if (n < 0) {
		ret = n;
		goto out_free;
	}
	if (n < room) {
		sg_unmark_end(&sgl[room - 1]);
		sg_mark_end(&sgl[n - 1]);
	}

	ret = rdma_io_ctx_init(ctx, pool, sgl, n, 0, remote_addr, rkey, dir);
	if (ret >= 0)
		return ret;
out_free:
	mrcore_bvec_sgl_free(ctx, pool, sgl);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_init_bvec, RDMA_MRCORE);

/**
 * rdma_io_ctx_destroy_bvec() - release everything a bio_vec I/O holds
 * @ctx: a context initialized by rdma_io_ctx_init_bvec().
 * @wc: as for rdma_io_ctx_destroy().
 *
 * rdma_io_ctx_destroy(), and the scatterlist the bio_vecs were described
 * with.  A context of rdma_io_ctx_init_bvec() must be destroyed here.
 *
 * Context: As rdma_io_ctx_destroy().
 */
void rdma_io_ctx_destroy_bvec(struct rdma_io_ctx *ctx, const struct ib_wc *wc)
{
	struct rdma_io_pool *pool = ctx->pool;
	struct scatterlist *sgl = ctx->map_sg;

	rdma_io_ctx_destroy(ctx, wc);
	mrcore_bvec_sgl_free(ctx, pool, sgl);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_destroy_bvec, RDMA_MRCORE);

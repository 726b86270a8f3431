// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost model: what a plan costs, with which weights per device, and
 * the thresholds a pool derives from them once, when it is made.
 *
 * A plan is priced by its WRs, MRs, page-list pages and SGEs, each with a
 * weight of its device's transport (rdma_io_cost()); the WRs of a plan
 * through MRs are counted by mrcore_mr_io_wrs(), the rule the send queue's
 * sizing uses too.  core/io.c prices the candidates of an I/O with these,
 * core/pool.c derives the shortcuts of its backend sets from them; neither
 * is called from here.
 */
#include "mrcore_priv.h"

/**
 * rdma_io_cost() - the cost model
 * @w: the device's weights (struct rdma_io_pool_info).
 * @wrs: WRs the I/O posts, registrations and invalidations included.
 * @mrs: MRs it takes from the pool.
 * @pages: pages the HCA fetches from page lists.
 * @sges: SGEs the HCA fetches.
 *
 * Every plan is priced by this one formula (mrcore_cost(), which the
 * core's planner inlines) so that plans are comparable; the lowest price
 * wins, fewer WRs break a tie.
 *
 * Context: Any context.
 * Return: the price.
 */
u32 rdma_io_cost(const struct rdma_io_weights *w, u32 wrs, u32 mrs, u32 pages,
		 u32 sges)
{
	return mrcore_cost(w, wrs, mrs, pages, sges);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_cost, RDMA_MRCORE);

/*
 * The weights, per transport, in units of one SGE fetched by the HCA.  A WR
 * is posted, fetched, parsed and travels as a request of its own: 16.  On
 * RoCE (rxe), registering an MR cost more than it saved in WRs: at 256
 * pages, REG_MR + WRITE through one MR ran at 0.88x the rate of 8 WRs of 32
 * SGEs (make bench), which a linear model fits with an MR worth 144.  On
 * iWARP (siw), every WR is dear (a TCP send each): one MR instead of 43
 * WRITE WRs ran 14.7x faster at 256 pages and 3 WRs instead of 6 won at 32
 * pages, which an MR worth 16 reproduces.  Documentation/design.rst gives
 * the figures.  A driver whose MR pages cost more than its transport's
 * says so in core/quirks.c.
 */
static const struct rdma_io_weights mrcore_weights_ib = {
	.wr = 16, .mr = 144, .page = 1, .sge = 1,
};

static const struct rdma_io_weights mrcore_weights_iwarp = {
	.wr = 16, .mr = 16, .page = 1, .sge = 1,
};

/**
 * mrcore_io_weights() - the cost model's weights for a device
 * @dev: the device.
 * @port_num: the port.
 * @mr_backend: the backend of the device's MRs, which may adjust them; or
 *	%NULL.
 * @w: the weights.
 *
 * Context: Any context.
 */
void mrcore_io_weights(struct ib_device *dev, u32 port_num,
		       const struct rdma_mr_backend_ops *mr_backend,
		       struct rdma_io_weights *w)
{
	u32 page = mrcore_dev_mr_page_weight(dev);

	*w = rdma_protocol_iwarp(dev, port_num) ? mrcore_weights_iwarp :
						  mrcore_weights_ib;
	if (page)
		w->page = page;
	if (mr_backend && mr_backend->io_weights)
		mr_backend->io_weights(dev, w);
}

/*
 * The cheapest plan with an MR costs at least one MR, one page and the WRs
 * of one run (its READ or WRITE, plus a registration unless synchronous):
 * that price, and those WRs in @wrs.
 */
static u32 mrcore_mr_floor(const struct rdma_io_weights *w,
			   const struct rdma_mr_backend_ops *mrs, u32 *wrs)
{
	*wrs = mrcore_mr_io_wrs(mrs && (mrs->io_flags & RDMA_IO_SYNC_MAP) ?
				MRCORE_KEY_SYNC : MRCORE_KEY_KEPT, 1, 0);
	return mrcore_cost(w, *wrs, 1, 1, 0);
}

/**
 * mrcore_sges_beat_mrs() - SGEs one WR takes before an MR could be cheaper
 * @w: the pool's weights.
 * @mrs: the pool's MR backend, or %NULL.
 *
 * Context: Any context.
 * Return: a one-WR plan without MRs of this many SGEs or fewer is never
 * dearer than a plan with an MR.
 */
u32 mrcore_sges_beat_mrs(const struct rdma_io_weights *w,
			 const struct rdma_mr_backend_ops *mrs)
{
	u32 wrs, floor = mrcore_mr_floor(w, mrs, &wrs);
	u32 one = mrcore_cost(w, 1, 0, 0, 0);

	return w->sge ? (floor - one) / w->sge : U32_MAX;
}

/* Past this many entries an I/O's plans are priced anyway. */
#define MRCORE_SGES_MAX_SCAN 1024

/**
 * mrcore_sges_max() - entries that go as WRs of SGEs without being priced
 * @w: the pool's weights.
 * @mrs: the pool's MR backend, or %NULL.
 * @per_wr: SGEs one WR takes.
 * @one_wr: mrcore_sges_beat_mrs() of the pool.
 *
 * While the WRs of SGEs cost less than the cheapest plan with an MR could
 * (mrcore_mr_floor()), or as much in fewer WRs, no such plan can win,
 * whatever the pages.  The price grows with the entries, so the first that
 * loses ends the scan.
 *
 * Context: Any context.
 * Return: that many entries, at most %MRCORE_SGES_MAX_SCAN.
 */
u32 mrcore_sges_max(const struct rdma_io_weights *w,
		    const struct rdma_mr_backend_ops *mrs, u32 per_wr,
		    u32 one_wr)
{
	u32 floor_wrs, floor = mrcore_mr_floor(w, mrs, &floor_wrs);
	u32 n = one_wr;

	/* The SGEs of one WR reach the floor first. */
	if (one_wr < per_wr)
		return one_wr;
	while (n < MRCORE_SGES_MAX_SCAN) {
		u32 wrs = DIV_ROUND_UP(n + 1, per_wr);
		u32 cost = mrcore_cost(w, wrs, 0, 0, n + 1);

		if (cost > floor || (cost == floor && wrs >= floor_wrs))
			break;
		n++;
	}
	return n;
}

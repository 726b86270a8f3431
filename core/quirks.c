// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device quirks: what a driver does that its attributes do not say.
 *
 * One table, keyed by the driver (ib_device_ops.driver_id), so that it
 * works for every device, registered with ib_core or not.  Each entry says
 * what the driver does and where; the core asks through the predicates
 * below and nowhere else looks at which driver it runs on.
 */
#include "mrcore_priv.h"

/**
 * struct mrcore_quirk - what one driver does that the verbs do not let a
 *	caller see
 * @driver_id: the driver.
 * @unchecked_remote_read: it answers a peer's RDMA READ through any valid
 *	key of the QP's PD that covers the bytes, whatever access the key
 *	grants: every live key, local-only ones and the PD's DMA lkey
 *	included, can be read by the peer.
 * @unsignaled_zcopy: it sends the payload of an unsignaled WR from the
 *	pages themselves, which the transport may read again after the
 *	completion of a later WR has given them back to the caller.
 * @random_mr_index: it draws a new MR's index at random, so one it gave
 *	out before may come back at the next allocation.
 * @mr_page_weight: what one page of a registered MR costs it, in the cost
 *	model's units (struct rdma_io_weights), if not its transport's.
 */
struct mrcore_quirk {
	enum rdma_driver_id driver_id;
	bool unchecked_remote_read;
	bool unsignaled_zcopy;
	bool random_mr_index;
	u32 mr_page_weight;
};

static const struct mrcore_quirk mrcore_quirks[] = {
	/*
	 * siw (6.12, drivers/infiniband/sw/siw/siw_qp_tx.c): the READ
	 * response is built after siw_check_sgl_tx(pd, wqe, 0), so
	 * siw_check_mem() requires no access right: an lkey-only MR, an rkey
	 * that grants only WRITE, the PD's DMA lkey all read.  The core's
	 * answer: on such a device no local key outlives its mapping or its
	 * I/O (rdma_unmap_mr(), core/io_post.c).
	 */
	/*
	 * siw (6.12, siw_qp_tx.c: siw_qp_prepare_tx()): the payload of an
	 * unsignaled WR of at least a page is handed to TCP zero-copy
	 * (MSG_SPLICE_PAGES), and TCP keeps the pages to send them again
	 * until they are acknowledged; a signaled WR's payload is copied.
	 * The completion of an I/O's last WR tells the ULP its source may be
	 * reused while a segment of an earlier WRITE of the I/O may still be
	 * retransmitted from it: with a lost segment, the peer gets the new
	 * bytes (seen under netem by make kunit-2host: whole FPDUs of the
	 * bytes written after the completion; siw sends no MPA CRC by
	 * default, so nothing notices).  The core's answer: on such a device
	 * every RDMA WRITE of an I/O is signaled (core/io.c).
	 */
	/*
	 * siw (6.12, siw_mem.c: siw_mr_add_mem()): a new MR's index is the
	 * first free one from a random start among 2^24, its key byte 0.
	 * With a device MR replaced at every unmap (above), about 128 keys
	 * in 65,536 would come back.  The core's answer: it remembers the
	 * indices it gave back (core/mrindex.c).
	 */
	{ .driver_id = RDMA_DRIVER_SIW, .unchecked_remote_read = true,
	  .unsignaled_zcopy = true, .random_mr_index = true },
	/*
	 * rxe (6.12, rxe_mr.c): an MR's pages cost it more than the same
	 * pages as SGEs on the PD's DMA lkey.  Registering walks the list
	 * into the MR's page table through a callback per page
	 * (rxe_set_page()), and every packet that touches the MR checks its
	 * range and translates its address page by page
	 * (rxe_mr_copy_xarray()), where a DMA address is the page itself
	 * (rxe_mr_copy_dma()).  make nfsrdma-ab measured it: svcrdma's QP
	 * has 5 send SGEs, and with the transport's page weight of 1 the
	 * converted server moved 1 MiB through one MR of 256 pages, at half
	 * the price of stock's 52 WRs of SGEs, and ran 1 to 2 % slower.  A
	 * page worth 4 prices the MR above the 52 WRs, and the 8 WRs of 32
	 * SGEs of a full-sized QP stay cheaper still.
	 */
	/*
	 * rxe (6.12, rxe_comp.c: check_psn(), check_ack()): a plain ACK older
	 * than a READ whose response is half received is taken for the
	 * READ's end, and the READ completes with IB_WC_SUCCESS and its full
	 * length with only the packets before the ACK placed (a WARNING in
	 * rxe_completer), on a wire that loses, duplicates or reorders.  No
	 * flag here: the completion is all the core sees, and it is a
	 * success, so the core has no answer; the fix belongs in rxe
	 * (kunit/kernel-patches/0001-*, which the test kernel carries), and
	 * make kunit-2host-stock-rxe shows the defect on the driver as
	 * shipped.  Documentation/operating.rst says what an operator sees.
	 */
	{ .driver_id = RDMA_DRIVER_RXE, .mr_page_weight = 4 },
};

static const struct mrcore_quirk *mrcore_quirk_of(const struct ib_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mrcore_quirks); i++)
		if (mrcore_quirks[i].driver_id == dev->ops.driver_id)
			return &mrcore_quirks[i];
	return NULL;
}

/**
 * mrcore_dev_unchecked_remote_read() - whether the peer can READ through
 *	any live key
 * @dev: the device.
 *
 * On such a device a key is remotely readable for as long as it is valid,
 * whatever it was registered for, so the core kills local keys with their
 * mapping or I/O instead of lazily.
 *
 * Context: Any context.
 * Return: true if @dev answers a peer's RDMA READ without checking that
 * the key grants remote READ (siw).
 */
bool mrcore_dev_unchecked_remote_read(const struct ib_device *dev)
{
	const struct mrcore_quirk *q = mrcore_quirk_of(dev);

	return q && q->unchecked_remote_read;
}

/**
 * mrcore_dev_unsignaled_zcopy() - whether an unsignaled WR's payload is
 *	sent from its pages after its completion
 * @dev: the device.
 *
 * On such a device the core signals every RDMA WRITE of an I/O, so each
 * one's payload is copied before it completes and the ULP may reuse the
 * source once the I/O completed.
 *
 * Context: Any context.
 * Return: true if @dev may retransmit an unsignaled WR's payload from the
 * caller's pages after a later WR completed (siw).
 */
bool mrcore_dev_unsignaled_zcopy(const struct ib_device *dev)
{
	const struct mrcore_quirk *q = mrcore_quirk_of(dev);

	return q && q->unsignaled_zcopy;
}

/**
 * mrcore_dev_random_mr_index() - whether the driver may hand out a
 *	recently freed MR index again at once
 * @dev: the device.
 *
 * On such a device the core remembers the indices of the device MRs it
 * deregistered and refuses a new one with a recent index, so that no key
 * value recurs within %MRCORE_KEY_WINDOW keys.
 *
 * Context: Any context.
 * Return: true if @dev draws MR indices at random (siw).
 */
bool mrcore_dev_random_mr_index(const struct ib_device *dev)
{
	const struct mrcore_quirk *q = mrcore_quirk_of(dev);

	return q && q->random_mr_index;
}

/**
 * mrcore_dev_mr_page_weight() - what one page of a registered MR costs
 *	the device, if not what its transport's pages cost
 * @dev: the device.
 *
 * Context: Any context.
 * Return: the weight of a page in the cost model's units, or 0 to keep
 * the transport's (core/io.c).
 */
u32 mrcore_dev_mr_page_weight(const struct ib_device *dev)
{
	const struct mrcore_quirk *q = mrcore_quirk_of(dev);

	return q ? q->mr_page_weight : 0;
}

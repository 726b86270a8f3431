// SPDX-License-Identifier: GPL-2.0-only
/*
 * `make bench`: rdma-mrcore's READ/WRITE helper side by side with ib_core's
 * RDMA R/W API (rdma_rw_ctx_*()) on the kernel's soft RDMA drivers, siw
 * (iWARP) and rxe (RoCEv2), on the same QPs and the same scatterlists.
 *
 * For each device, direction, SG shape, queue depth and QP count ("a row"),
 * the two implementations run in turn, run by run (mrcore, rdma_rw, rdma_rw,
 * mrcore, ...), each run for a fixed time: every QP keeps its queue depth of
 * I/Os in flight, refilled whenever a quarter of it has completed; each I/O
 * is initialized, its WR chain posted with one post (rdma_io_ctx_post(); for
 * rdma_rw its chain with ib_post_send(), as rdma_rw_ctx_post() does) and
 * destroyed when its completion arrives.  A run's rate is counted over one window for
 * all its QPs, from completion to completion, while every queue is at least
 * three quarters full, so neither the ramp-up nor the drain is measured
 * (run.c); the row gives the median of its runs.  Then a loop of
 * init + wrs + destroy without posting gives the CPU cost of each
 * implementation alone.
 *
 * Before its rows, each implementation moves one I/O of each shape and
 * direction, and the data is compared byte for byte; so is the data of
 * every measured run, on every slot of every QP of the row, at its depth
 * (bench_data_set(), bench_data_check()).
 *
 * With aa=1 (an A/A run) both slots run rdma_rw, the first named
 * "rdma_rw.aa": every difference between the two columns is then the
 * bench's own noise, the yardstick for the ratios of a normal run.
 *
 * One line per row and implementation goes to the kernel log, prefixed
 * "mrcore_bench: row: " and holding a JSON object; scripts/bench.sh turns
 * them into build/bench/results.json.
 *
 * This file: the parameters, the rows, the walk over devices and shapes and
 * the data check; bench.h lists the other files.
 */

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <rdma/mrcore_backend.h>

#include "bench.h"

unsigned int bench_row_ms = 600;
module_param_named(row_ms, bench_row_ms, uint, 0444);
MODULE_PARM_DESC(row_ms, "duration of one run of one implementation, ms (default 600)");

unsigned int bench_rounds = 3;
module_param_named(rounds, bench_rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "runs per implementation and row; the row gives their median (default 3)");

unsigned int bench_cpu_ms = 20;
module_param_named(cpu_ms, bench_cpu_ms, uint, 0444);
MODULE_PARM_DESC(cpu_ms, "duration of one init+destroy loop, ms (default 20)");

char *bench_filter = "*";
module_param_named(filter, bench_filter, charp, 0444);
MODULE_PARM_DESC(filter, "glob on device/dir/shape/qdN/qpsN, e.g. \"siw/read/*\" (default *)");

bool bench_aa;
module_param_named(aa, bench_aa, bool, 0444);
MODULE_PARM_DESC(aa, "A/A run: both slots run rdma_rw, the first printed as rdma_rw.aa; the ratios show the bench's own noise (default off)");

unsigned int bench_rows, bench_failed;

static const struct bench_shape bench_shapes[] = {
	{ "1_page", 1, false },
	{ "8_pages", 8, false },
	{ "32_pages", 32, false },
	{ "256_pages", 256, false },
	{ "64k_contig", 16, true },
	{ "1m_contig", 256, true },
};

static const unsigned int bench_qds[] = { 1, 16, 64 };
static const unsigned int bench_qps[] = { 1, 4 };

static const enum dma_data_direction bench_dirs[] = {
	DMA_FROM_DEVICE, DMA_TO_DEVICE,
};

/* ---- data check ------------------------------------------------------- */

static u8 bench_pattern(u32 seed, size_t i)
{
	return mrcore_e2e_pattern(seed, i);
}

/*
 * One I/O of @impl from QP 0's first slot, with distinct data at both ends;
 * then every byte that arrived is compared with its source.
 */
static int bench_verify(struct bench_dev *d, enum bench_impl impl,
			enum dma_data_direction dir, u32 seed, u64 *mrs)
{
	struct bench_qp *q = &d->qps[0];
	struct bench_mem *m = &q->slots[0].mem;
	u8 *owner = page_address(q->owner_page);
	struct bench_result r = {};
	bool read = dir == DMA_FROM_DEVICE;
	size_t i, bad = 0;
	u64 mops;
	int ret;

	for (i = 0; i < m->len; i++) {
		owner[i] = read ? bench_pattern(seed, i) : 0;
		*bench_mem_byte(m, i) = read ? 0 : bench_pattern(seed, i);
	}
	ret = bench_run(d, 1, impl, dir, 1, (u64)bench_row_ms * NSEC_PER_MSEC,
			1, &r, &mops);
	if (ret)
		return ret;
	if (r.ios != 1)
		return -EIO;
	*mrs = r.mrs;
	for (i = 0; i < m->len; i++) {
		u8 got = read ? *bench_mem_byte(m, i) : owner[i];

		if (got != bench_pattern(seed, i) && !bad++)
			pr_err("mrcore_bench: %s %s %s: byte %zu is 0x%02x, want 0x%02x\n",
			       d->target->name, bench_slot_name(impl),
			       bench_dir_name(dir), i, got,
			       bench_pattern(seed, i));
	}
	return bad ? -EILSEQ : 0;
}

/*
 * The data of a measured run.  Before it, the bytes that move get a
 * pattern of the run's own (@seed) and the bytes they land on its
 * complement, so that every byte not moved differs: a READ's source is
 * the peer's memory of each QP, a WRITE's the memory of each slot, all
 * holding the same bytes (the slots of a QP WRITE to one place at the
 * peer).  After it, every byte that landed is compared with its source:
 * on every slot and every QP of the row, after thousands of I/Os whose
 * device MRs were replaced as their keys ran out (the row's mr_recycled).
 */
struct bench_data {
	u8 *want;
	u8 *poison;
	size_t len;
};

/* @n bytes of @m from byte @i on, all in one page. */
static u8 *bench_mem_run(struct bench_mem *m, size_t i, size_t *n)
{
	u8 *p = bench_mem_byte(m, i);

	*n = min_t(size_t, m->len - i, PAGE_SIZE - offset_in_page(p));
	return p;
}

static void bench_mem_copy(struct bench_mem *m, const u8 *from)
{
	size_t i, n;

	for (i = 0; i < m->len; i += n) {
		u8 *p = bench_mem_run(m, i, &n);

		memcpy(p, from + i, n);
	}
}

/* The first byte of @m that is not @want's, or @m->len. */
static size_t bench_mem_diff(struct bench_mem *m, const u8 *want)
{
	size_t i, j, n;

	for (i = 0; i < m->len; i += n) {
		const u8 *p = bench_mem_run(m, i, &n);

		if (memcmp(p, want + i, n))
			for (j = 0; j < n; j++)
				if (p[j] != want[i + j])
					return i + j;
	}
	return m->len;
}

/**
 * bench_data_set() - the bytes of a measured run, before it
 * @d: the device.
 * @dir: the direction.
 * @qd: slots of each QP in the run.
 * @qps: QPs in the run.
 * @seed: the run's pattern.
 *
 * Return: the reference bytes for bench_data_check(), freed by it, or
 * %NULL without memory (no check then).
 */
struct bench_data *bench_data_set(struct bench_dev *d,
				  enum dma_data_direction dir, unsigned int qd,
				  unsigned int qps, u32 seed)
{
	size_t len = d->qps[0].slots[0].mem.len, i;
	bool read = dir == DMA_FROM_DEVICE;
	struct bench_data *data;
	unsigned int qi, j;

	data = kzalloc(sizeof(*data), GFP_KERNEL);
	if (!data)
		return NULL;
	data->len = len;
	data->want = kvmalloc(len, GFP_KERNEL);
	data->poison = kvmalloc(len, GFP_KERNEL);
	if (!data->want || !data->poison) {
		bench_data_free(data);
		return NULL;
	}
	for (i = 0; i < len; i++) {
		data->want[i] = bench_pattern(seed, i);
		data->poison[i] = ~data->want[i];
	}
	for (qi = 0; qi < qps; qi++) {
		struct bench_qp *q = &d->qps[qi];

		memcpy(page_address(q->owner_page),
		       read ? data->want : data->poison, len);
		for (j = 0; j < qd; j++)
			bench_mem_copy(&q->slots[j].mem,
				       read ? data->poison : data->want);
	}
	return data;
}

/* What bench_data_set() returned, or %NULL. */
void bench_data_free(struct bench_data *data)
{
	if (!data)
		return;
	kvfree(data->want);
	kvfree(data->poison);
	kfree(data);
}

/**
 * bench_data_check() - compare what a measured run moved with its source
 * @d: the device.
 * @dir: the direction.
 * @qd: slots of each QP in the run.
 * @qps: QPs in the run.
 * @data: what bench_data_set() returned; freed.
 *
 * Return: 0, or -EILSEQ (the first wrong byte said in the log).
 */
int bench_data_check(struct bench_dev *d, enum dma_data_direction dir,
		     unsigned int qd, unsigned int qps, struct bench_data *data)
{
	bool read = dir == DMA_FROM_DEVICE;
	unsigned int qi, j;
	size_t at;
	int ret = 0;

	for (qi = 0; qi < qps && !ret; qi++) {
		struct bench_qp *q = &d->qps[qi];
		const u8 *owner = page_address(q->owner_page);

		if (!read) {
			at = data->len;
			if (memcmp(owner, data->want, data->len))
				for (at = 0; owner[at] == data->want[at]; at++)
					;
			if (at < data->len) {
				pr_err("mrcore_bench: %s QP %u: WRITE byte %zu at the peer is 0x%02x, want 0x%02x\n",
				       d->target->name, qi, at, owner[at],
				       data->want[at]);
				ret = -EILSEQ;
			}
			continue;
		}
		for (j = 0; j < qd && !ret; j++) {
			struct bench_mem *m = &q->slots[j].mem;

			at = bench_mem_diff(m, data->want);
			if (at < data->len) {
				pr_err("mrcore_bench: %s QP %u slot %u: READ byte %zu is 0x%02x, want 0x%02x\n",
				       d->target->name, qi, j, at,
				       *bench_mem_byte(m, at), data->want[at]);
				ret = -EILSEQ;
			}
		}
	}
	bench_data_free(data);
	return ret;
}

/* ---- shapes ----------------------------------------------------------- */

static void bench_free_mem(struct bench_dev *d)
{
	unsigned int i, j;

	for (i = 0; i < d->nr_qps; i++)
		for (j = 0; j < BENCH_MAX_QD; j++)
			bench_mem_free(&d->qps[i].slots[j].mem);
}

/* Every slot of every QP gets memory of the shape. */
static int bench_alloc_mem(struct bench_dev *d, const struct bench_shape *sh)
{
	unsigned int i, j;
	int ret;

	for (i = 0; i < d->nr_qps; i++) {
		for (j = 0; j < BENCH_MAX_QD; j++) {
			ret = bench_mem_alloc(&d->qps[i].slots[j].mem, sh);
			if (ret) {
				pr_err("mrcore_bench: %s %s: no memory for the slots: %d\n",
				       d->target->name, sh->name, ret);
				bench_free_mem(d);
				return ret;
			}
		}
	}
	return 0;
}

/* Does the filter select any row of the shape on the device? */
static bool bench_shape_selected(struct bench_dev *d,
				 const struct bench_shape *sh)
{
	unsigned int di, qi, pi;
	bool any = false;

	for (di = 0; di < ARRAY_SIZE(bench_dirs); di++)
		for (qi = 0; qi < ARRAY_SIZE(bench_qds); qi++)
			for (pi = 0; pi < ARRAY_SIZE(bench_qps); pi++)
				any |= bench_selected(d, bench_dirs[di], sh,
						      bench_qds[qi],
						      bench_qps[pi]);
	return any;
}

/* Long enough for the replacements' run on the slowest shape of a device. */
#define BENCH_RECYCLE_NS	(600ULL * NSEC_PER_SEC)

/*
 * The data after device MR replacements: once per device and direction, on
 * the first shape whose I/O takes MRs, rdma-mrcore runs at depth 16 on
 * QP 0 until every MR of the pool could have handed out its
 * %BENCH_KEY_USES keys and been replaced, then every slot's data is
 * checked (bench_data_check()).  The check fails if no device MR was
 * replaced: it would not have checked what it says.  One line,
 * "mrcore_bench: recycled: {...}", says what ran.
 */
static int bench_verify_recycled(struct bench_dev *d,
				 const struct bench_shape *sh,
				 enum dma_data_direction dir, unsigned int di)
{
	const u64 max_ios = (u64)BENCH_MAX_QD * (BENCH_KEY_USES + 1);
	const unsigned int qd = 16;
	struct bench_result r = {};
	struct bench_data *data;
	u64 before = 0, after = 0, mops;
	struct ib_device *dev = d->qps[0].pair->active.device;
	int ret;

	d->recycle_checked[di] = true;
	data = bench_data_set(d, dir, qd, 1, 71 + di);
	if (!data)
		return -ENOMEM;
	rdma_mrcore_device_counter(dev, "mr_recycled", &before);
	ret = bench_run(d, 1, BENCH_MRCORE, dir, qd, BENCH_RECYCLE_NS, max_ios,
			&r, &mops);
	rdma_mrcore_device_counter(dev, "mr_recycled", &after);
	if (ret)
		bench_data_free(data);
	else
		ret = bench_data_check(d, dir, qd, 1, data);
	if (!ret && after == before)
		ret = -ENODATA;
	pr_info("mrcore_bench: recycled: {\"device\": \"%s\", \"dir\": \"%s\", \"shape\": \"%s\", \"qd\": %u, \"ios\": %llu, \"mrs\": %llu, \"mr_recycled\": %llu, \"error\": %d}\n",
		d->target->name, bench_dir_name(dir), sh->name, qd, r.ios,
		r.mrs, after - before, ret);
	return ret;
}

/* The data check of each implementation, then the rows of one direction. */
static void bench_shape_dir(struct bench_dev *d, const struct bench_shape *sh,
			    unsigned int di)
{
	enum dma_data_direction dir = bench_dirs[di];
	bool verified[BENCH_NR_IMPLS];
	unsigned int k, qi, pi;
	u64 mrs = 0;
	int ret;

	for (k = 0; k < BENCH_NR_IMPLS; k++) {
		ret = bench_verify(d, k, dir, 7 + di + 2 * k, &mrs);
		verified[k] = !ret;
		if (ret)
			pr_err("mrcore_bench: %s %s %s %s: data check failed: %d\n",
			       d->target->name, bench_slot_name(k),
			       bench_dir_name(dir), sh->name, ret);
		if (ret || k != BENCH_MRCORE || bench_aa || !mrs ||
		    d->recycle_checked[di])
			continue;
		ret = bench_verify_recycled(d, sh, dir, di);
		verified[k] = !ret;
		if (ret)
			pr_err("mrcore_bench: %s %s %s %s: data check after device MR replacements failed: %d\n",
			       d->target->name, bench_slot_name(k),
			       bench_dir_name(dir), sh->name, ret);
	}
	for (pi = 0; pi < ARRAY_SIZE(bench_qps); pi++) {
		for (qi = 0; qi < ARRAY_SIZE(bench_qds); qi++) {
			if (bench_qps[pi] > d->nr_qps ||
			    !bench_selected(d, dir, sh, bench_qds[qi],
					    bench_qps[pi]))
				continue;
			bench_row(d, dir, sh, bench_qds[qi], bench_qps[pi],
				  verified);
		}
	}
}

/* Every row of one shape on one device. */
static int bench_shape(struct bench_dev *d, const struct bench_shape *sh)
{
	unsigned int di;
	int ret;

	if (!bench_shape_selected(d, sh))
		return 0;
	ret = bench_alloc_mem(d, sh);
	if (ret) {
		bench_failed++;
		return ret;
	}
	for (di = 0; di < ARRAY_SIZE(bench_dirs); di++)
		bench_shape_dir(d, sh, di);
	bench_free_mem(d);
	return 0;
}

/* ---- devices ---------------------------------------------------------- */

/*
 * The price of a device MR replacement (bench_mr_cycle()), as a JSON line
 * beside the rows: "mrcore_bench: mr_cycle: {...}".  per_io_ns is what one
 * MR of an I/O adds to its CPU figure.
 */
static void bench_mr_cycle_line(struct bench_dev *d)
{
	u64 alloc, dereg;
	int ret;

	ret = bench_mr_cycle(&d->qps[0], BENCH_MAX_PAGES, &alloc, &dereg);
	if (ret) {
		pr_err("mrcore_bench: %s: device MR alloc/dereg: %d\n",
		       d->target->name, ret);
		bench_failed++;
		return;
	}
	pr_info("mrcore_bench: mr_cycle: {\"device\": \"%s\", \"pages\": %u, \"alloc_ns\": %llu, \"dereg_ns\": %llu, \"key_uses\": %u, \"per_io_ns\": %llu}\n",
		d->target->name, BENCH_MAX_PAGES, alloc, dereg,
		BENCH_KEY_USES,
		div_u64(alloc + dereg + BENCH_KEY_USES / 2, BENCH_KEY_USES));
}

static void bench_device(const struct mrcore_e2e_target *t)
{
	struct bench_dev *d;
	unsigned int i;
	int ret;

	if (!mrcore_e2e_device_present(t, NULL, 0)) {
		pr_err("mrcore_bench: no %s device\n", t->name);
		bench_failed++;
		return;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		bench_failed++;
		return;
	}
	d->target = t;
	d->win_t = kvmalloc_array(BENCH_WINDOW_MAX_IOS + 1, sizeof(*d->win_t),
				  GFP_KERNEL);
	if (!d->win_t) {
		kfree(d);
		bench_failed++;
		return;
	}
	for (i = 0; i < BENCH_MAX_QPS; i++) {
		ret = bench_qp_create(&d->qps[i], t);
		if (ret) {
			pr_err("mrcore_bench: %s: QP pair %u: %d\n", t->name, i,
			       ret);
			bench_failed++;
			break;
		}
		d->nr_qps++;
	}
	if (d->nr_qps) {
		struct bench_qp *q = &d->qps[0];

		pr_info("mrcore_bench: device %s (%s): %u QPs, send queue %u, max_send_sge %u, max_sge_rd %u, rdma-mrcore pool %u MRs\n",
			t->name, dev_name(&q->pair->active.device->dev),
			d->nr_qps, q->sq_size,
			q->pair->active.device->attrs.max_send_sge,
			q->pair->active.device->attrs.max_sge_rd,
			rdma_io_pool_size(q->pool));
		bench_mr_cycle_line(d);
		for (i = 0; i < ARRAY_SIZE(bench_shapes); i++)
			if (bench_shape(d, &bench_shapes[i]))
				break;
	}
	for (i = 0; i < d->nr_qps; i++)
		bench_qp_destroy(&d->qps[i]);
	kvfree(d->win_t);
	kfree(d);
}

static int __init mrcore_bench_init(void)
{
	static const struct mrcore_e2e_target *targets[] = {
		&mrcore_e2e_siw, &mrcore_e2e_rxe,
	};
	unsigned int i;

	bench_rounds = clamp(bench_rounds, 1u, (unsigned int)BENCH_MAX_ROUNDS);
	bench_row_ms = max(bench_row_ms, 1u);
	bench_cpu_ms = max(bench_cpu_ms, 1u);
	pr_info("mrcore_bench: start: row_ms %u, rounds %u, cpu_ms %u, filter %s%s\n",
		bench_row_ms, bench_rounds, bench_cpu_ms, bench_filter,
		bench_aa ? ", A/A: rdma_rw on both slots" : "");
	for (i = 0; i < ARRAY_SIZE(targets); i++)
		bench_device(targets[i]);
	pr_info("mrcore_bench: done: %u rows, %u failed\n", bench_rows,
		bench_failed);
	return 0;
}

static void __exit mrcore_bench_exit(void)
{
}

module_init(mrcore_bench_init);
module_exit(mrcore_bench_exit);

MODULE_DESCRIPTION("rdma-mrcore benchmark: the READ/WRITE helper against ib_core's RDMA R/W API on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);

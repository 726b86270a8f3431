// SPDX-License-Identifier: GPL-2.0-only
/*
 * One row of `make bench`: its runs, interleaved between the two
 * implementations, its CPU loops, their medians, and one line per
 * implementation in the kernel log, prefixed "mrcore_bench: row: " and
 * holding a JSON object (scripts/bench-report.py reads it).
 */

#include <linux/delay.h>
#include <linux/glob.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <rdma/mrcore_backend.h>

#include "bench.h"

/* ---- medians ---------------------------------------------------------- */

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

u64 bench_median(u64 *v, unsigned int n)
{
	if (!n)
		return 0;
	sort(v, n, sizeof(*v), bench_cmp_u64, NULL);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the line --------------------------------------------------------- */

/* @num / @den with three decimals, as "X.YYY". */
static int bench_fixed3(char *buf, size_t len, u64 num, u64 den)
{
	u64 m = den ? div64_u64(num * 1000, den) : 0;
	u32 rem;
	u64 q = div_u64_rem(m, 1000, &rem);

	return scnprintf(buf, len, "%llu.%03u", q, rem);
}

static void bench_print(struct bench_dev *d, enum dma_data_direction dir,
			const struct bench_shape *sh, unsigned int qd,
			unsigned int qps, enum bench_impl impl,
			struct bench_result *r)
{
	u64 sorted[BENCH_MAX_ROUNDS], mops;
	u64 bytes = (u64)sh->npages * PAGE_SIZE;
	char wrs[24], mrs[24], posts[24], waits[24], ops[24], mbs[24];
	char list[200];
	char *line;
	unsigned int i;
	int n = 0;

	line = kmalloc(BENCH_LINE, GFP_KERNEL);
	if (!line)
		return;
	/* The runs are printed in the order they ran: a first run off shows. */
	memcpy(sorted, r->ops, r->nr_runs * sizeof(*sorted));
	mops = bench_median(sorted, r->nr_runs);
	bench_fixed3(wrs, sizeof(wrs), r->wrs, r->ios);
	bench_fixed3(mrs, sizeof(mrs), r->mrs, r->ios);
	bench_fixed3(posts, sizeof(posts), r->posts, r->ios);
	bench_fixed3(waits, sizeof(waits), r->waits, r->ios);
	bench_fixed3(ops, sizeof(ops), mops, 1000);
	/* MB/s = ops/s * bytes / 10^6; mops is in thousandths of ops/s. */
	bench_fixed3(mbs, sizeof(mbs), mops * bytes, 1000ULL * 1000000);
	list[0] = '\0';
	for (i = 0; i < r->nr_runs; i++) {
		u32 rem;
		u64 q = div_u64_rem(r->ops[i], 1000, &rem);

		n += scnprintf(list + n, sizeof(list) - n, "%s%llu.%u",
			       i ? "," : "", q, rem / 100);
	}
	scnprintf(line, BENCH_LINE,
		  "{\"device\": \"%s\", \"ibdev\": \"%s\", \"transport\": \"%s\", \"dir\": \"%s\", \"shape\": \"%s\", \"bytes\": %llu, \"qd\": %u, \"qps\": %u, \"impl\": \"%s\", \"backend\": \"%s%s\", \"wrs_per_io\": %s, \"mrs_per_io\": %s, \"posts_per_io\": %s, \"waits_per_io\": %s, \"ops_per_s\": %s, \"mb_per_s\": %s, \"cpu_ns_per_io\": %llu, \"cpu_wrs_per_io\": %u, \"cpu_mrs_per_io\": %u, \"runs_ops_per_s\": [%s], \"ios\": %llu, \"verified\": %s, \"runs_checked\": %u, \"mr_recycled\": %llu, \"error\": %d}",
		  d->target->name,
		  dev_name(&d->qps[0].pair->active.device->dev),
		  d->target->driver_id == RDMA_DRIVER_SIW ? "iWARP" : "RoCEv2",
		  bench_dir_name(dir), sh->name, bytes, qd, qps,
		  bench_slot_name(impl), r->backend ? r->backend : "-",
		  r->mixed ? "+" : "", wrs, mrs, posts, waits, ops, mbs,
		  bench_median(r->cpu_ns, r->nr_cpu), r->cpu_chain.wrs,
		  r->cpu_chain.mrs, list, r->ios,
		  r->verified ? "true" : "false", r->checked, r->recycled,
		  r->err);
	pr_info("mrcore_bench: row: %s\n", line);
	kfree(line);
}

/* ---- one row ---------------------------------------------------------- */

bool bench_selected(struct bench_dev *d, enum dma_data_direction dir,
		    const struct bench_shape *sh, unsigned int qd,
		    unsigned int qps)
{
	char name[96];

	snprintf(name, sizeof(name), "%s/%s/%s/qd%u/qps%u", d->target->name,
		 dir == DMA_FROM_DEVICE ? "read" : "write", sh->name, qd, qps);
	return glob_match(bench_filter, name);
}

/*
 * One short run of each first, not counted: siw's TCP connection has been
 * idle (slow start) and the pools and caches cold, which would weigh on
 * whichever implementation came first.
 */
static void bench_warm(struct bench_dev *d, enum dma_data_direction dir,
		       unsigned int qd, unsigned int qps,
		       struct bench_result *res)
{
	unsigned int k;
	int ret;

	for (k = 0; k < BENCH_NR_IMPLS; k++) {
		struct bench_result warm = {};
		u64 mops;

		ret = bench_run(d, qps, k, dir, qd,
				(u64)bench_row_ms * NSEC_PER_MSEC / 4, 0,
				&warm, &mops);
		if (ret)
			res[k].err = ret;
	}
}

static u64 bench_recycled(struct bench_dev *d)
{
	u64 v = 0;

	rdma_mrcore_device_counter(d->qps[0].pair->active.device,
				   "mr_recycled", &v);
	return v;
}

/*
 * A throughput run of @impl, its data set before and compared after on
 * every slot (bench_data_set()), and the device MRs replaced meanwhile.
 */
static int bench_measure_run(struct bench_dev *d, enum dma_data_direction dir,
			     unsigned int qd, unsigned int qps,
			     enum bench_impl impl, struct bench_result *r,
			     u64 *v)
{
	static u32 seed = 1000;
	struct bench_data *data;
	u64 recycled;
	int ret;

	data = bench_data_set(d, dir, qd, qps, ++seed);
	if (!data)
		return -ENOMEM;
	recycled = bench_recycled(d);
	ret = bench_run(d, qps, impl, dir, qd,
			(u64)bench_row_ms * NSEC_PER_MSEC, 0, r, v);
	r->recycled += bench_recycled(d) - recycled;
	if (ret) {
		bench_data_free(data);
		return ret;
	}
	ret = bench_data_check(d, dir, qd, qps, data);
	if (!ret)
		r->checked++;
	return ret;
}

/*
 * One measured run of @impl (@cpu false: its ops/s) or one CPU loop on QP 0
 * (@cpu true: ns per I/O), into its result; none after its first error.
 */
static void bench_measure(struct bench_dev *d, enum dma_data_direction dir,
			  unsigned int qd, unsigned int qps,
			  enum bench_impl impl, bool cpu,
			  struct bench_result *r)
{
	u64 v;
	int ret;

	if (r->err)
		return;
	if (cpu)
		ret = bench_cpu(&d->qps[0], impl, dir, &v, &r->cpu_chain);
	else
		ret = bench_measure_run(d, dir, qd, qps, impl, r, &v);
	if (ret)
		r->err = ret;
	else if (cpu)
		r->cpu_ns[r->nr_cpu++] = v;
	else
		r->ops[r->nr_runs++] = v;
}

/* mrcore, rdma_rw, rdma_rw, mrcore, ...: drift hits both alike. */
static void bench_interleave(struct bench_dev *d, enum dma_data_direction dir,
			     unsigned int qd, unsigned int qps, bool cpu,
			     struct bench_result *res)
{
	unsigned int round, k;

	for (round = 0; round < bench_rounds; round++) {
		for (k = 0; k < BENCH_NR_IMPLS; k++) {
			enum bench_impl impl = (round & 1) ?
					       BENCH_NR_IMPLS - 1 - k : k;

			bench_measure(d, dir, qd, qps, impl, cpu, &res[impl]);
		}
	}
}

void bench_row(struct bench_dev *d, enum dma_data_direction dir,
	       const struct bench_shape *sh, unsigned int qd,
	       unsigned int qps, const bool verified[BENCH_NR_IMPLS])
{
	struct bench_result *res;
	unsigned int k;

	res = kcalloc(BENCH_NR_IMPLS, sizeof(*res), GFP_KERNEL);
	if (!res) {
		bench_failed++;
		return;
	}
	for (k = 0; k < BENCH_NR_IMPLS; k++)
		res[k].verified = verified[k];
	bench_warm(d, dir, qd, qps, res);
	bench_interleave(d, dir, qd, qps, false, res);
	/*
	 * The peer may still be absorbing the last WRITEs (siw acknowledges
	 * nothing): let it settle, so the first loop does not share the CPUs.
	 */
	msleep(BENCH_SETTLE_MS);
	bench_interleave(d, dir, qd, qps, true, res);
	for (k = 0; k < BENCH_NR_IMPLS; k++) {
		bench_print(d, dir, sh, qd, qps, k, &res[k]);
		bench_rows++;
		if (res[k].err || !res[k].verified)
			bench_failed++;
	}
	kfree(res);
}

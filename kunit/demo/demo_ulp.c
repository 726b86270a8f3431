// SPDX-License-Identifier: GPL-2.0-only
/*
 * `make demo`, the ULP adapters: on each device kind, an NFS-style WRITE
 * RPC (the server pulls the read chunk), an NFS-style READ RPC (the server
 * pushes the write chunk and a reply chunk) and an iSER-style SCSI READ
 * and WRITE, each over its own connection through mrcore_ulp.ko's
 * exchanges; the data is compared byte for byte.  One row per exchange,
 * in the format of demo.c; the adapters build their own WR chains, so the
 * WRs column is "-", and the MRs column counts the keys the client
 * (initiator) advertised, one MR each.
 */

#include <linux/ktime.h>
#include <linux/sizes.h>

#include "demo_ulp.h"
#include "ulp_xchg.h"

/**
 * struct demo_ulp_row - one exchange
 * @kind: NFS-style or iSER-style.
 * @read: a READ RPC / SCSI READ (data to the client), else a WRITE.
 * @len: data bytes.
 * @op: the operation column.
 */
struct demo_ulp_row {
	enum mrcore_xchg_kind kind;
	bool read;
	size_t len;
	const char *op;
};

static const struct demo_ulp_row demo_ulp_rows[] = {
	{ MRCORE_XCHG_NFS, false, SZ_256K, "NFS WRITE RPC (read chunk pulled)" },
	{ MRCORE_XCHG_NFS, true, SZ_256K, "NFS READ RPC (write + reply chunk pushed)" },
	{ MRCORE_XCHG_ISER, true, SZ_128K, "iSER SCSI READ (data-in WRITE)" },
	{ MRCORE_XCHG_ISER, false, SZ_128K, "iSER SCSI WRITE (data-out READ)" },
};

#define DEMO_ULP_REPLY	(8 * 1024)
#define DEMO_ULP_SEED	0x8001

/* Run one exchange; *@verified when every byte arrived. */
static int demo_ulp_one(const struct mrcore_e2e_target *t,
			const struct demo_ulp_row *r, char *dev, size_t dev_len,
			unsigned int *keys, bool *verified)
{
	struct mrcore_e2e_buf a = {}, b = {}, ra = {}, rb = {};
	struct mrcore_xchg *x;
	int ret;

	ret = mrcore_e2e_buf_alloc(&a, r->len, 0);
	if (ret)
		return ret;
	ret = mrcore_e2e_buf_alloc(&b, r->len, 0);
	if (ret)
		goto free_a;
	ret = mrcore_e2e_buf_alloc(&ra, DEMO_ULP_REPLY, 0);
	if (ret)
		goto free_b;
	ret = mrcore_e2e_buf_alloc(&rb, DEMO_ULP_REPLY, 0);
	if (ret)
		goto free_ra;
	ret = mrcore_xchg_create(t, r->kind, &x);
	if (ret)
		goto free_rb;
	strscpy(dev, dev_name(&x->pair->active.device->dev), dev_len);

	/* @a is the client's (initiator's) memory, @b the server's. */
	mrcore_e2e_buf_fill(r->read ? &b : &a, DEMO_ULP_SEED);
	mrcore_e2e_buf_memset(r->read ? &a : &b, 0);
	mrcore_e2e_buf_fill(&rb, DEMO_ULP_SEED + 1);
	mrcore_e2e_buf_memset(&ra, 0);
	if (r->kind == MRCORE_XCHG_ISER)
		ret = mrcore_xchg_iser(x, r->read, &a, &b, false);
	else if (r->read)
		ret = mrcore_xchg_nfs_read(x, &b, &a, &rb, &ra, true);
	else
		ret = mrcore_xchg_nfs_write(x, &a, &b, true);
	*keys = x->nr_keys;
	*verified = !ret &&
		    mrcore_e2e_buf_check(r->read ? &a : &b, DEMO_ULP_SEED) < 0;
	if (r->kind == MRCORE_XCHG_NFS && r->read)
		*verified = *verified &&
			    mrcore_e2e_buf_check(&ra, DEMO_ULP_SEED + 1) < 0;
	mrcore_xchg_destroy(x);
free_rb:
	mrcore_e2e_buf_free(&rb);
free_ra:
	mrcore_e2e_buf_free(&ra);
free_b:
	mrcore_e2e_buf_free(&b);
free_a:
	mrcore_e2e_buf_free(&a);
	return ret;
}

/**
 * demo_ulp_run() - the adapters' rows for one device kind
 * @t: the device kind.
 * @transport: its transport column.
 *
 * Return: the number of exchanges that failed or were not verified.
 */
unsigned int demo_ulp_run(const struct mrcore_e2e_target *t,
			  const char *transport)
{
	unsigned int i, failed = 0;

	for (i = 0; i < ARRAY_SIZE(demo_ulp_rows); i++) {
		const struct demo_ulp_row *r = &demo_ulp_rows[i];
		char dev[IB_DEVICE_NAME_MAX] = "";
		unsigned int keys = 0;
		bool verified = false;
		ktime_t start = ktime_get();
		int ret;

		ret = demo_ulp_one(t, r, dev, sizeof(dev), &keys, &verified);
		pr_info("mrcore_demo: row: %s|%s|%s|%s adapter|%zu|-|%u|%lld|%s\n",
			dev[0] ? dev : t->name, transport, r->op,
			r->kind == MRCORE_XCHG_NFS ? "nfs" : "iser", r->len,
			keys, ktime_us_delta(ktime_get(), start),
			ret ? "error" : verified ? "yes" : "NO");
		if (ret)
			pr_err("mrcore_demo: %s %s: error %d\n", t->name, r->op,
			       ret);
		failed += ret || !verified;
	}
	return failed;
}

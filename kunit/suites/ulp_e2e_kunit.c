// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end KUnit suites of the ULP adapters on the kernel's soft RDMA
 * drivers: mrcore_nfs_siw, mrcore_nfs_rxe (NFS-style client and server,
 * mrcore_nfs.ko) and mrcore_iser_siw, mrcore_iser_rxe (iSER-style
 * initiator and target, mrcore_iser.ko).
 *
 * Each case runs one exchange over a fresh connection (ulp_xchg.c: real
 * SENDs and RECVs, data through the adapters), compares the moved bytes
 * with their source, and then has the server/target use one of the keys
 * the client/initiator advertised: it must fail, break the connection and
 * leave the memory untouched, whether the key was invalidated by the
 * peer's SEND_WITH_INV or locally by the adapter.
 *
 * How the drivers refuse a dead key (measured; as in e2e_kunit.c): rxe
 * completes the access with a remote access error; siw answers with a
 * TERMINATE, so the READ is flushed and a WRITE (never acknowledged on
 * iWARP) completes before or after the TERMINATE arrives.  In every case
 * the server's QP must end in the error state and the client's memory keep
 * its bytes.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "ulp_xchg.h"

#define ULP_QP_ERR_TIMEOUT_MS	5000
#define ULP_PROBE_BYTES		4096
#define ULP_REPLY_BYTES		(8 * 1024)

static void ulp_buf_release(void *buf)
{
	mrcore_e2e_buf_free(buf);
}

static struct mrcore_e2e_buf *ulp_buf(struct kunit *test, size_t len)
{
	struct mrcore_e2e_buf *buf;
	int ret;

	buf = kunit_kzalloc(test, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ret = mrcore_e2e_buf_alloc(buf, len, 0);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, ulp_buf_release, buf);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return buf;
}

static void ulp_xchg_release(void *x)
{
	mrcore_xchg_destroy(x);
}

/* Created after the buffers, so torn down (QPs drained) before them. */
static struct mrcore_xchg *ulp_xchg(struct kunit *test,
				    enum mrcore_xchg_kind kind)
{
	const struct mrcore_e2e_target *t = test->priv;
	struct mrcore_xchg *x = NULL;
	int ret;

	ret = mrcore_xchg_create(t, kind, &x);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "connecting over %s failed", t->name);
	ret = kunit_add_action_or_reset(test, ulp_xchg_release, x);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return x;
}

static bool ulp_on_siw(struct kunit *test)
{
	return test->priv == &mrcore_e2e_siw;
}

static unsigned int ulp_remote_invalidated(const struct mrcore_xchg *x)
{
	unsigned int i, n = 0;

	for (i = 0; i < x->nr_keys; i++)
		n += x->keys[i].remote_inv;
	return n;
}

/*
 * The server/target uses @key after the exchange: the access fails and
 * the connection breaks.  The caller checks the client's memory.
 */
static void ulp_expect_dead(struct kunit *test, struct mrcore_xchg *x,
			    const struct mrcore_xchg_key *key,
			    struct mrcore_e2e_buf *probe)
{
	int status;

	if (key->writable)
		mrcore_e2e_buf_fill(probe, 0x7777);
	else
		mrcore_e2e_buf_poison(probe);
	status = mrcore_xchg_probe(x, key, probe);
	kunit_info(test, "%s with the old key %#x (killed by %s): %d (%s)\n",
		   key->writable ? "WRITE" : "READ", key->handle,
		   key->remote_inv ? "the server's SEND_WITH_INV" : "the client",
		   status,
		   status >= 0 ? ib_wc_status_msg(status) : "errno");
	KUNIT_EXPECT_GE(test, status, 0);
	if (!ulp_on_siw(test))
		KUNIT_EXPECT_EQ(test, status, IB_WC_REM_ACCESS_ERR);
	else if (!key->writable)
		/* siw flushes the READ when the TERMINATE arrives. */
		KUNIT_EXPECT_NE(test, status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE_MSG(test,
			      mrcore_e2e_qp_failed(&x->pair->passive,
						   ULP_QP_ERR_TIMEOUT_MS),
			      "the server's QP survived the dead key (state %d)",
			      mrcore_e2e_qp_state(&x->pair->passive));
	if (!key->writable)
		mrcore_e2e_expect_data(test, probe, 0, probe->len,
				       MRCORE_E2E_POISONED,
				       "sink of a READ with a dead key");
}

/*
 * ---- Partial posts ----
 *
 * The post_wr fault point cuts one of the exchange's chains: the driver
 * takes the first WR and refuses the next, as a send queue with room for
 * one would.  The adapter says -EINPROGRESS (the client's invalidations:
 * it drains and retires by itself); the exchange drains the send queue and
 * releases what the adapter holds, as the adapters' kernel-doc asks, and
 * fails.  Then nothing may be left: no DMA mapping of the core's, no MR
 * outside its owner (the adapters' destroys warn otherwise), and no key of
 * the exchange live: a peer on another connection of the key's PD
 * (mrcore_e2e_try_key()) is refused a WRITE and a READ through each key
 * the client advertised and each key of the server's or target's own I/Os
 * (on siw a READ sink's grants REMOTE_WRITE), and the client's memory
 * keeps its bytes.
 */

/**
 * struct ulp_cut - one exchange cut by the post_wr fault
 * @desc: test description.
 * @post: the post whose chain is cut, after its first WR.
 * @read: a READ RPC or SCSI READ (the server/target WRITEs), else a WRITE.
 */
struct ulp_cut {
	const char *desc;
	enum mrcore_xchg_post post;
	bool read;
};

static void ulp_cut_desc(const struct ulp_cut *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

static void ulp_expect_keys_dead(struct kunit *test, struct mrcore_xchg *x,
				 struct ib_pd *pd,
				 const struct mrcore_xchg_key *keys,
				 unsigned int n, struct mrcore_e2e_buf *mem,
				 struct mrcore_e2e_buf *ref_mem, u32 seed,
				 const char *whose)
{
	static const enum ib_wr_opcode ops[] = { IB_WR_RDMA_WRITE,
						 IB_WR_RDMA_READ };
	/* Each try's control: the same op and length through a reference key. */
	const struct mrcore_e2e_ref ref = { .buf = ref_mem, .at = 0 };
	unsigned int i, o;

	for (i = 0; i < n; i++) {
		for (o = 0; o < ARRAY_SIZE(ops); o++) {
			int r = mrcore_e2e_try_key(x->pair, pd, ops[o],
						   keys[i].handle,
						   keys[i].addr, &ref);

			KUNIT_EXPECT_EQ_MSG(test, r, 1,
					    "%s key %#x at %#llx: the peer's %s was %s",
					    whose, keys[i].handle, keys[i].addr,
					    ops[o] == IB_WR_RDMA_WRITE ? "WRITE" :
									 "READ",
					    r ? "not made, or its control failed" :
						"served");
			if (mem)
				mrcore_e2e_expect_data(test, mem, 0, mem->len,
						       seed,
						       "client memory after a dead key's use");
		}
	}
}

/*
 * A new exchange of @kind whose chain @c->post is cut after its first WR;
 * *@maps0: the core's DMA mappings live before it runs (for
 * ulp_expect_cut()).
 */
static struct mrcore_xchg *ulp_xchg_cut(struct kunit *test,
					enum mrcore_xchg_kind kind,
					const struct ulp_cut *c, long *maps0)
{
	struct mrcore_xchg *x = ulp_xchg(test, kind);

	x->cut_post = c->post;
	x->cut_after = 1;
	*maps0 = rdma_mrcore_dma_maps_live();
	return x;
}

/*
 * The cut exchange @x (ulp_xchg_cut()) failed with @ret and left nothing:
 * no DMA mapping, no live key; @cmem, the client's memory, holds @seed's
 * bytes after every try of a key.
 */
static void ulp_expect_cut(struct kunit *test, struct mrcore_xchg *x, int ret,
			   long maps0, struct mrcore_e2e_buf *cmem, u32 seed)
{
	KUNIT_EXPECT_EQ_MSG(test, x->cut_hits, 1, "the fault cut no chain");
	if (x->cut_post != MRCORE_XCHG_POST_INV)
		KUNIT_EXPECT_EQ(test, x->cut_ret, -EINPROGRESS);
	KUNIT_EXPECT_NE_MSG(test, ret, 0, "the cut exchange succeeded");
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "a DMA mapping outlived the cut exchange");
	kunit_info(test, "cut: %d; %u client keys, %u server keys to try\n",
		   ret, x->nr_keys, x->nr_srv_keys);
	KUNIT_EXPECT_GT(test, x->nr_keys, 0u);
	/* The client's memory gets new bytes; no old key may reach them. */
	mrcore_e2e_buf_fill(cmem, seed);
	ulp_expect_keys_dead(test, x, x->pair->active.pd, x->keys, x->nr_keys,
			     cmem, cmem, seed, "client");
	/*
	 * The server's own memory is the exchange's, not known here: the
	 * control of a server key reaches the client's memory, from the
	 * same connection to the server's PD, op and length.
	 */
	ulp_expect_keys_dead(test, x, x->pair->passive.pd, x->srv_keys,
			     x->nr_srv_keys, NULL, cmem, 0, "server");
}

#define ULP_SEED_CUT	0x8001

/* ---- NFS-style ---- */

/**
 * struct nfs_case - one NFS-style exchange
 * @desc: test description.
 * @read_rpc: a READ RPC (write chunk and reply chunk pushed), else a WRITE
 *	RPC (read chunk pulled).
 * @remote_inv: the server replies with SEND_WITH_INV.
 * @probe_remote: probe the key the server invalidated (else the client's
 *	last one, which it invalidated locally).
 */
struct nfs_case {
	const char *desc;
	bool read_rpc;
	bool remote_inv;
	bool probe_remote;
};

static const struct nfs_case nfs_cases[] = {
	{ "WRITE RPC 1 MiB pulled, SEND_WITH_INV: the invalidated read segment is dead",
	  false, true, true },
	{ "WRITE RPC 1 MiB pulled, SEND_WITH_INV: the locally invalidated read segment is dead",
	  false, true, false },
	{ "WRITE RPC 1 MiB pulled, SEND: a read segment is dead",
	  false, false, false },
	{ "READ RPC 1 MiB + reply chunk pushed, SEND_WITH_INV: the invalidated segment is dead",
	  true, true, true },
	{ "READ RPC 1 MiB + reply chunk pushed, SEND_WITH_INV: the reply chunk is dead",
	  true, true, false },
	{ "READ RPC 1 MiB + reply chunk pushed, SEND: the reply chunk is dead",
	  true, false, false },
};

KUNIT_ARRAY_PARAM_DESC(nfs, nfs_cases, desc);

#define NFS_DATA_BYTES	SZ_1M
#define NFS_SEED_DATA	0x6001
#define NFS_SEED_REPLY	0x6002

/*
 * The key the case probes: the one the server invalidated, or the client's
 * last one, which it invalidated itself.
 */
static const struct mrcore_xchg_key *
nfs_probed_key(struct kunit *test, const struct mrcore_xchg *x,
	       const struct nfs_case *c)
{
	const struct mrcore_xchg_key *key = &x->keys[x->nr_keys - 1];
	unsigned int i;

	if (c->probe_remote) {
		for (i = 0; i < x->nr_keys; i++)
			if (x->keys[i].remote_inv)
				key = &x->keys[i];
		KUNIT_ASSERT_TRUE(test, key->remote_inv);
	} else {
		KUNIT_ASSERT_FALSE(test, key->remote_inv);
	}
	return key;
}

static void nfs_exchange(struct kunit *test)
{
	const struct nfs_case *c = test->param_value;
	struct mrcore_e2e_buf *cdata, *sdata, *creply = NULL, *sreply = NULL;
	struct mrcore_e2e_buf *probe;
	struct mrcore_xchg *x;
	unsigned int segs;
	int ret;

	cdata = ulp_buf(test, NFS_DATA_BYTES);
	sdata = ulp_buf(test, NFS_DATA_BYTES);
	probe = ulp_buf(test, ULP_PROBE_BYTES);
	if (c->read_rpc) {
		creply = ulp_buf(test, ULP_REPLY_BYTES);
		sreply = ulp_buf(test, ULP_REPLY_BYTES);
	}
	x = ulp_xchg(test, MRCORE_XCHG_NFS);

	if (c->read_rpc) {
		/* The client's sinks stay poisoned until the RPC. */
		mrcore_e2e_buf_fill(sdata, NFS_SEED_DATA);
		mrcore_e2e_buf_fill(sreply, NFS_SEED_REPLY);
		ret = mrcore_xchg_nfs_read(x, sdata, cdata, sreply, creply,
					   c->remote_inv);
	} else {
		mrcore_e2e_buf_fill(cdata, NFS_SEED_DATA);
		ret = mrcore_xchg_nfs_write(x, cdata, sdata, c->remote_inv);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "the RPC failed");

	/*
	 * The data: pulled into the server, or pushed into the client; the
	 * source unchanged.
	 */
	mrcore_e2e_expect_data(test, cdata, 0, cdata->len, NFS_SEED_DATA,
			       "client data");
	mrcore_e2e_expect_data(test, sdata, 0, sdata->len, NFS_SEED_DATA,
			       "server data");
	if (c->read_rpc) {
		mrcore_e2e_expect_data(test, creply, 0, creply->len,
				       NFS_SEED_REPLY, "client reply chunk");
		mrcore_e2e_expect_data(test, sreply, 0, sreply->len,
				       NFS_SEED_REPLY, "server reply");
	}

	/* 1 MiB in segments of the client's MR size, plus the reply chunk. */
	segs = NFS_DATA_BYTES / (MRCORE_XCHG_NFS_SEG_PAGES * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, x->nr_keys, segs + (c->read_rpc ? 1 : 0));
	KUNIT_EXPECT_EQ(test, ulp_remote_invalidated(x), c->remote_inv ? 1u : 0u);

	ulp_expect_dead(test, x, nfs_probed_key(test, x, c), probe);
	/* The client's memory still holds what the exchange left there. */
	mrcore_e2e_expect_data(test, cdata, 0, cdata->len, NFS_SEED_DATA,
			       "client data after the dead key");
	if (c->read_rpc)
		mrcore_e2e_expect_data(test, creply, 0, creply->len,
				       NFS_SEED_REPLY,
				       "client reply chunk after the dead key");
}

/*
 * The client gives up on a request whose keys are live (the server has the
 * call): the adapter kills them by deregistering the MRs and the request
 * completes with -EIO.  The server's READ with the old key must fail; the
 * client still has every MR (replaced), so a full RPC works afterwards.
 */
static void nfs_abandoned_keys_die(struct kunit *test)
{
	struct mrcore_e2e_buf *cdata, *sdata, *probe;
	struct mrcore_xchg_key key;
	struct mrcore_xchg *x;
	unsigned int i;

	cdata = ulp_buf(test, NFS_DATA_BYTES);
	sdata = ulp_buf(test, NFS_DATA_BYTES);
	probe = ulp_buf(test, ULP_PROBE_BYTES);
	x = ulp_xchg(test, MRCORE_XCHG_NFS);
	mrcore_e2e_buf_fill(cdata, NFS_SEED_DATA);

	/* Four times two segments: every MR of the client is retired once. */
	for (i = 0; i < MRCORE_NFS_MAX_SEGS / 2; i++)
		KUNIT_ASSERT_EQ(test, mrcore_xchg_nfs_abandon(x, cdata), -EIO);
	key = x->keys[0];
	KUNIT_ASSERT_EQ(test, mrcore_xchg_nfs_write(x, cdata, sdata, false), 0);
	mrcore_e2e_expect_data(test, sdata, 0, sdata->len, NFS_SEED_DATA,
			       "server data of the RPC after the abandoned ones");
	ulp_expect_dead(test, x, &key, probe);
}

static const struct ulp_cut nfs_cuts[] = {
	{ "write_rpc_call", MRCORE_XCHG_POST_CALL, false },
	{ "write_rpc_pull", MRCORE_XCHG_POST_DATA, false },
	{ "read_rpc_push_and_reply", MRCORE_XCHG_POST_REPLY, true },
	{ "write_rpc_invalidations", MRCORE_XCHG_POST_INV, false },
};

KUNIT_ARRAY_PARAM(nfs_cut, nfs_cuts, ulp_cut_desc);

/* An NFS-style RPC with one of its chains posted in part. */
static void nfs_partial_post(struct kunit *test)
{
	const struct ulp_cut *c = test->param_value;
	struct mrcore_e2e_buf *cdata, *sdata, *creply, *sreply;
	struct mrcore_xchg *x;
	long maps0;
	int ret;

	cdata = ulp_buf(test, NFS_DATA_BYTES);
	sdata = ulp_buf(test, NFS_DATA_BYTES);
	creply = ulp_buf(test, ULP_REPLY_BYTES);
	sreply = ulp_buf(test, ULP_REPLY_BYTES);
	x = ulp_xchg_cut(test, MRCORE_XCHG_NFS, c, &maps0);
	if (c->read) {
		mrcore_e2e_buf_fill(sdata, NFS_SEED_DATA);
		mrcore_e2e_buf_fill(sreply, NFS_SEED_REPLY);
		ret = mrcore_xchg_nfs_read(x, sdata, cdata, sreply, creply,
					   false);
	} else {
		mrcore_e2e_buf_fill(cdata, NFS_SEED_DATA);
		/* No remote invalidation: every key dies by the client. */
		ret = mrcore_xchg_nfs_write(x, cdata, sdata, false);
	}
	/* The reply chunk too gets new bytes, which no old key may reach. */
	mrcore_e2e_buf_fill(creply, ULP_SEED_CUT + 1);
	ulp_expect_cut(test, x, ret, maps0, cdata, ULP_SEED_CUT);
	mrcore_e2e_expect_data(test, creply, 0, creply->len, ULP_SEED_CUT + 1,
			       "client reply chunk after the dead keys' use");
}

static void nfs_rpc_unused(struct mrcore_nfs_rpc *rpc, int status)
{
}

/* Arguments the adapter refuses, before anything is registered or posted. */
static void nfs_bad_input(struct kunit *test)
{
	struct mrcore_e2e_buf *buf = ulp_buf(test, PAGE_SIZE);
	struct mrcore_nfs_chunk chunk = {}, used;
	struct ib_send_wr wr = {};
	struct mrcore_xchg *x = ulp_xchg(test, MRCORE_XCHG_NFS);
	struct mrcore_nfs_req *req = &x->nfs_req;
	struct mrcore_nfs_rpc *rpc = &x->nfs_rpc;

	KUNIT_EXPECT_EQ(test, PTR_ERR(mrcore_nfs_clnt_create(NULL, 1, 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(mrcore_nfs_clnt_create(x->pair->active.qp, 0,
						       1)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(mrcore_nfs_svc_create(x->pair->passive.qp, 1,
						      1, 0)), -EINVAL);

	mrcore_nfs_req_init(req, x->nfs_clnt, &wr, NULL);
	KUNIT_EXPECT_EQ(test, mrcore_nfs_req_register(req, 7, buf->pages, 0,
						      PAGE_SIZE, &chunk),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrcore_nfs_req_register(req,
						      MRCORE_NFS_READ_CHUNK,
						      buf->pages, 0, 0, &chunk),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrcore_nfs_req_register(req,
						      MRCORE_NFS_READ_CHUNK,
						      NULL, 0, PAGE_SIZE,
						      &chunk), -EINVAL);
	KUNIT_EXPECT_EQ(test, req->rk.nr_mrs, 0u);

	mrcore_nfs_rpc_init(rpc, x->nfs_svc);
	/* An empty chunk; then a chunk smaller than the payload. */
	KUNIT_EXPECT_EQ(test, mrcore_nfs_svc_pull(rpc, &chunk, buf->pages, 0,
						  nfs_rpc_unused), -EINVAL);
	chunk.nsegs = 1;
	chunk.segs[0] = (struct mrcore_nfs_segment){ 1, 100, 0 };
	KUNIT_EXPECT_EQ(test, mrcore_nfs_svc_push(rpc, &chunk, buf->pages, 0,
						  101, &used), -EMSGSIZE);
	chunk.nsegs = MRCORE_NFS_MAX_SEGS + 1;
	KUNIT_EXPECT_EQ(test, mrcore_nfs_svc_push(rpc, &chunk, buf->pages, 0,
						  1, &used), -EINVAL);
	KUNIT_EXPECT_EQ(test, rpc->nr_io, 0u);
}

/* One array per suite: KUnit keeps per-case state in them. */
static struct kunit_case nfs_siw_cases[] = {
	KUNIT_CASE_PARAM(nfs_exchange, nfs_gen_params),
	KUNIT_CASE(nfs_abandoned_keys_die),
	KUNIT_CASE_PARAM(nfs_partial_post, nfs_cut_gen_params),
	KUNIT_CASE(nfs_bad_input),
	{}
};

static struct kunit_case nfs_rxe_cases[] = {
	KUNIT_CASE_PARAM(nfs_exchange, nfs_gen_params),
	KUNIT_CASE(nfs_abandoned_keys_die),
	KUNIT_CASE_PARAM(nfs_partial_post, nfs_cut_gen_params),
	KUNIT_CASE(nfs_bad_input),
	{}
};

/* ---- iSER-style ---- */

/**
 * struct iser_case - one SCSI command
 * @desc: test description.
 * @scsi_read: a READ (data-in), else a WRITE (data-out).
 * @len: bytes.
 * @remote_inv: the target's response is a SEND_WITH_INV of the STag.
 */
struct iser_case {
	const char *desc;
	bool scsi_read;
	size_t len;
	bool remote_inv;
};

static const struct iser_case iser_cases[] = {
	{ "SCSI READ 4 KiB, SEND_WITH_INV", true, SZ_4K, true },
	{ "SCSI READ 4 KiB, SEND", true, SZ_4K, false },
	{ "SCSI WRITE 4 KiB, SEND_WITH_INV", false, SZ_4K, true },
	{ "SCSI WRITE 4 KiB, SEND", false, SZ_4K, false },
	{ "SCSI READ 128 KiB, SEND_WITH_INV", true, SZ_128K, true },
	{ "SCSI READ 128 KiB, SEND", true, SZ_128K, false },
	{ "SCSI WRITE 128 KiB, SEND_WITH_INV", false, SZ_128K, true },
	{ "SCSI WRITE 128 KiB, SEND", false, SZ_128K, false },
	{ "SCSI READ 1 MiB, SEND_WITH_INV", true, SZ_1M, true },
	{ "SCSI READ 1 MiB, SEND", true, SZ_1M, false },
	{ "SCSI WRITE 1 MiB, SEND_WITH_INV", false, SZ_1M, true },
	{ "SCSI WRITE 1 MiB, SEND", false, SZ_1M, false },
};

KUNIT_ARRAY_PARAM_DESC(iser, iser_cases, desc);

#define ISER_SEED	0x7001

static void iser_exchange(struct kunit *test)
{
	const struct iser_case *c = test->param_value;
	struct mrcore_e2e_buf *ini, *tgt, *probe;
	struct mrcore_xchg *x;
	int ret;

	ini = ulp_buf(test, c->len);
	tgt = ulp_buf(test, c->len);
	probe = ulp_buf(test, min_t(size_t, c->len, ULP_PROBE_BYTES));
	x = ulp_xchg(test, MRCORE_XCHG_ISER);

	/* The sink stays poisoned until the command. */
	mrcore_e2e_buf_fill(c->scsi_read ? tgt : ini, ISER_SEED);
	ret = mrcore_xchg_iser(x, c->scsi_read, ini, tgt, c->remote_inv);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "the command failed");
	mrcore_e2e_expect_data(test, ini, 0, ini->len, ISER_SEED,
			       "initiator buffer");
	mrcore_e2e_expect_data(test, tgt, 0, tgt->len, ISER_SEED,
			       "target buffer");

	KUNIT_ASSERT_EQ(test, x->nr_keys, 1u);
	KUNIT_EXPECT_EQ(test, x->keys[0].remote_inv, c->remote_inv);
	ulp_expect_dead(test, x, &x->keys[0], probe);
	mrcore_e2e_expect_data(test, ini, 0, ini->len, ISER_SEED,
			       "initiator buffer after the dead STag");
}

/*
 * The initiator gives up on a task whose STag is live: the adapter kills it
 * by deregistration and the task completes with -EIO; the target's WRITE
 * with the old STag must fail and leave the buffer untouched.  Run twice,
 * so the second task uses the MR that replaced the first one's.
 */
static void iser_abandoned_stag_dies(struct kunit *test)
{
	struct mrcore_e2e_buf *ini, *probe;
	struct mrcore_xchg_key key;
	struct mrcore_xchg *x;

	ini = ulp_buf(test, SZ_128K);
	probe = ulp_buf(test, ULP_PROBE_BYTES);
	x = ulp_xchg(test, MRCORE_XCHG_ISER);
	mrcore_e2e_buf_fill(ini, ISER_SEED);

	KUNIT_ASSERT_EQ(test, mrcore_xchg_iser_abandon(x, true, ini), -EIO);
	KUNIT_ASSERT_EQ(test, mrcore_xchg_iser_abandon(x, true, ini), -EIO);
	key = x->keys[0];
	ulp_expect_dead(test, x, &key, probe);
	mrcore_e2e_expect_data(test, ini, 0, ini->len, ISER_SEED,
			       "initiator buffer after the abandoned tasks");
}

static const struct ulp_cut iser_cuts[] = {
	{ "write_command", MRCORE_XCHG_POST_CALL, false },
	{ "write_data_out", MRCORE_XCHG_POST_DATA, false },
	{ "read_data_in_and_response", MRCORE_XCHG_POST_REPLY, true },
};

KUNIT_ARRAY_PARAM(iser_cut, iser_cuts, ulp_cut_desc);

/* An iSER-style command with one of its chains posted in part. */
static void iser_partial_post(struct kunit *test)
{
	const struct ulp_cut *c = test->param_value;
	struct mrcore_e2e_buf *ini, *tgt;
	struct mrcore_xchg *x;
	long maps0;
	int ret;

	ini = ulp_buf(test, SZ_128K);
	tgt = ulp_buf(test, SZ_128K);
	x = ulp_xchg_cut(test, MRCORE_XCHG_ISER, c, &maps0);
	mrcore_e2e_buf_fill(c->read ? tgt : ini, ISER_SEED);
	ret = mrcore_xchg_iser(x, c->read, ini, tgt, false);
	ulp_expect_cut(test, x, ret, maps0, ini, ULP_SEED_CUT);
}

static void iser_task_unused(struct mrcore_iser_task *task, int status)
{
}

static void iser_cmd_unused(struct mrcore_iser_cmd *cmd, int status)
{
}

/* Arguments the adapter refuses, before anything is registered or posted. */
static void iser_bad_input(struct kunit *test)
{
	struct mrcore_e2e_buf *buf = ulp_buf(test, PAGE_SIZE);
	struct mrcore_xchg *x = ulp_xchg(test, MRCORE_XCHG_ISER);
	struct ib_send_wr wr = {};
	u32 stag;
	u64 va;

	KUNIT_EXPECT_EQ(test, PTR_ERR(mrcore_iser_conn_create(NULL, 1, 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(mrcore_iser_target_create(x->pair->passive.qp,
							  1, 0, 1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrcore_iser_task_reg(&x->iser_task, x->iser_conn,
						   5, buf->sg, buf->nents, &wr,
						   &stag, &va, iser_task_unused),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrcore_iser_task_reg(&x->iser_task, x->iser_conn,
						   MRCORE_ISER_DATA_IN, buf->sg,
						   0, &wr, &stag, &va,
						   iser_task_unused), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrcore_iser_task_send(NULL), -EINVAL);
	mrcore_iser_cmd_init(&x->iser_cmd, x->iser_target, 1, 0);
	KUNIT_EXPECT_EQ(test, mrcore_iser_cmd_data_in(&x->iser_cmd, NULL, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrcore_iser_cmd_data_out(&x->iser_cmd, NULL, 1,
						       iser_cmd_unused),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, x->iser_cmd.io_live);
}

static struct kunit_case iser_siw_cases[] = {
	KUNIT_CASE_PARAM(iser_exchange, iser_gen_params),
	KUNIT_CASE(iser_abandoned_stag_dies),
	KUNIT_CASE_PARAM(iser_partial_post, iser_cut_gen_params),
	KUNIT_CASE(iser_bad_input),
	{}
};

static struct kunit_case iser_rxe_cases[] = {
	KUNIT_CASE_PARAM(iser_exchange, iser_gen_params),
	KUNIT_CASE(iser_abandoned_stag_dies),
	KUNIT_CASE_PARAM(iser_partial_post, iser_cut_gen_params),
	KUNIT_CASE(iser_bad_input),
	{}
};

static struct kunit_suite nfs_siw_suite = {
	.name = "mrcore_nfs_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = nfs_siw_cases,
};

static struct kunit_suite nfs_rxe_suite = {
	.name = "mrcore_nfs_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = nfs_rxe_cases,
};

static struct kunit_suite iser_siw_suite = {
	.name = "mrcore_iser_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = iser_siw_cases,
};

static struct kunit_suite iser_rxe_suite = {
	.name = "mrcore_iser_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = iser_rxe_cases,
};

kunit_test_suites(&nfs_siw_suite, &nfs_rxe_suite, &iser_siw_suite,
		  &iser_rxe_suite);

MODULE_DESCRIPTION("rdma-mrcore end-to-end KUnit suites of the NFS-style and iSER-style adapters on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the attackers of the real ULPs' security steps share
 * (key_attack_core.h): the attacker's connections, the watched command,
 * one access, a sample, a run of them, and the PD attacked.
 *
 * Per sample (&struct ka_plan), with three connections made beforehand
 * (the command's window is short):
 *
 *  1. live: once a command of the wanted kind advertised its key, the
 *     access the key is for.  It must be served: the positive control
 *     that the attacker reaches the end's memory through this PD at all.
 *     Whether the command was still in flight when the access was
 *     answered is recorded; a sample whose command was not is taken
 *     again, its verdicts proving nothing about a live key.
 *  2. rights (if the plan says so): the access the key does not need,
 *     while the command is still in flight.  A READ goes before step 1
 *     (it changes nothing, and a WRITE's verdict on iWARP waits for a
 *     TERMINATE that may outlast the command); a WRITE goes after a
 *     served step 1, writing back the bytes that READ took.  It too must
 *     be answered with the command in flight, or the sample is taken
 *     again.
 *  3. dead: as soon as the end completed the command, the access of step
 *     1 again with the same key.  It must be refused, and a READ must
 *     bring no byte back.
 *
 * An access that cannot be posted or gets no answer is an error, never a
 * refusal.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "key_attack_core.h"

/* Resource ids tried when looking for a PD by its owner. */
#define KA_MAX_PD_ID	65536

/* Every attacker's parameters (the module's own, wherever defined). */
char *ka_kind = "siw";
module_param_named(kind, ka_kind, charp, 0444);
MODULE_PARM_DESC(kind, "device kind of the attacked end's connection: siw or rxe");

unsigned int ka_samples = 4;
module_param_named(samples, ka_samples, uint, 0444);
MODULE_PARM_DESC(samples, "samples of each kind (a WRITE, a READ)");

/**
 * ka_target() - the harness's device kind the parameters name
 *
 * Context: Any context.
 * Return: the kind, or %NULL if the parameters are not valid (another
 * kind than "siw" or "rxe", no samples).
 */
const struct mrcore_e2e_target *ka_target(void)
{
	if (!ka_samples)
		return NULL;
	if (!strcmp(ka_kind, "siw"))
		return &mrcore_e2e_siw;
	if (!strcmp(ka_kind, "rxe"))
		return &mrcore_e2e_rxe;
	return NULL;
}

/**
 * ka_attacker_open() - ready an attacker: its watch and its base pair
 * @a: the attacker, zeroed but for @a->end and @a->describe.
 * @target: the device kind of the end attacked.
 *
 * Context: Process context; sleeps until connected (seconds at most).
 * Return: 0, or mrcore_e2e_pair_create()'s error.
 */
int ka_attacker_open(struct ka_attacker *a,
		     const struct mrcore_e2e_target *target)
{
	int ret;

	spin_lock_init(&a->watch.lock);
	init_waitqueue_head(&a->watch.wq);
	ret = mrcore_e2e_pair_create(target, &a->base);
	if (ret) {
		pr_err("no %s connection: %d\n", target->name, ret);
		a->base = NULL;
	}
	return ret;
}

/**
 * ka_attacker_close() - drop the PD's reference, destroy the base pair
 * @a: an attacker ka_attacker_open() readied, or one it failed to.
 *
 * Context: Process context; sleeps.
 */
void ka_attacker_close(struct ka_attacker *a)
{
	if (a->pd)
		rdma_restrack_put(&a->pd->res);
	a->pd = NULL;
	if (a->base)
		mrcore_e2e_pair_destroy(a->base);
	a->base = NULL;
}

/**
 * ka_pd_of_owner() - the PD a module allocated on a device
 * @dev: the device.
 * @owner: the module's name (ib_alloc_pd() records the caller's
 *	KBUILD_MODNAME).
 *
 * For a ULP whose two ends are modules of their own; in one kernel the
 * end attacked must be the only PD of @owner on @dev.
 *
 * Context: Process context.
 * Return: the PD, with a resource reference that keeps it from going
 * while attacked (rdma_restrack_put(&pd->res)); %NULL if there is none.
 */
struct ib_pd *ka_pd_of_owner(struct ib_device *dev, const char *owner)
{
	struct rdma_restrack_entry *res;
	u32 id;

	for (id = 0; id < KA_MAX_PD_ID; id++) {
		res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_PD, id);
		if (IS_ERR(res))
			continue;
		if (res->kern_name && !strcmp(res->kern_name, owner))
			return container_of(res, struct ib_pd, res);
		rdma_restrack_put(res);
	}
	return NULL;
}

/**
 * ka_pd_of_key() - the PD of the MR a live rkey belongs to
 * @own: a PD of the attacker's, on the device to search (its base pair's
 *	active end's, the device its connections are bound to).
 * @key: an rkey that an end advertised and has not invalidated yet.
 *
 * For a ULP whose two ends are one module (both PDs then have one owner's
 * name).  ib_alloc_mr() tracks every kernel MR in the device's resource
 * tracker, with its PD, whoever allocated it (rdma_mrcore allocates the
 * converted ends' MRs, on their PDs); a fast registration sets the MR's
 * rkey (ib_update_fast_reg_key()) before the key is advertised, and two
 * MRs of a device never share an index, so while the key is live it is
 * the rkey of one MR only: its own.  The tracker numbers MRs cyclically
 * (xa_alloc_cyclic()): an MR allocated now has a larger id than every MR
 * alive, which bounds the search; it goes down from there, as the key's MR
 * came with its connection, after most of the device's others.
 *
 * Context: Process context; sleeps.
 * Return: the PD, with a resource reference (rdma_restrack_put(&pd->res));
 * %NULL if no MR of the device has @key; or ib_alloc_mr()'s error.
 */
struct ib_pd *ka_pd_of_key(struct ib_pd *own, u32 key)
{
	struct rdma_restrack_entry *res;
	struct ib_pd *pd = NULL;
	struct ib_mr *mr;
	u32 id;

	mr = ib_alloc_mr(own, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	id = mr->res.id;
	ib_dereg_mr(mr);
	while (!pd && id--) {
		res = rdma_restrack_get_byid(own->device, RDMA_RESTRACK_MR, id);
		if (IS_ERR(res))
			continue;
		mr = container_of(res, struct ib_mr, res);
		/* The MR holds its PD: the PD's entry cannot be going. */
		if (mr->rkey == key && mr->pd &&
		    rdma_restrack_get(&mr->pd->res))
			pd = mr->pd;
		rdma_restrack_put(res);
		cond_resched();
	}
	return pd;
}

/**
 * ka_watch_set() - move the watch to a phase
 * @w: the watch.
 * @phase: the new phase.
 * @want: the kind of command wanted (%KA_ARMED), else 0.
 *
 * Context: Any context.
 */
void ka_watch_set(struct ka_watch *w, enum ka_phase phase, u8 want)
{
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	w->phase = phase;
	w->want = want;
	spin_unlock_irqrestore(&w->lock, flags);
}

static enum ka_phase ka_watch_phase(struct ka_watch *w)
{
	return READ_ONCE(w->phase);
}

/**
 * ka_watch_arrive() - a command carrying a key reached the other end
 * @w: the watch.
 * @kind: the ULP's kind of the command.
 * @k: its key.
 *
 * If the watch is armed for @kind and the key covers an access, the
 * command becomes the watched one.
 *
 * Context: Any context (a kprobe).
 */
void ka_watch_arrive(struct ka_watch *w, u8 kind, const struct ka_key *k)
{
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (w->phase == KA_ARMED && kind == w->want && k->len >= KA_BYTES) {
		w->key = *k;
		w->phase = KA_LIVE;
		wake_up(&w->wq);
	}
	spin_unlock_irqrestore(&w->lock, flags);
}

/**
 * ka_watch_done() - the end that advertised a command's key completed it
 * @w: the watch.
 * @id: the command's &struct ka_key id.
 *
 * Context: Any context (a kprobe).
 */
void ka_watch_done(struct ka_watch *w, u64 id)
{
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (w->phase == KA_LIVE && w->key.id == id) {
		w->phase = KA_DONE;
		wake_up(&w->wq);
	}
	spin_unlock_irqrestore(&w->lock, flags);
}

/**
 * ka_learn() - arm the watch and wait for a command of a plan's kind
 * @a: the attacker.
 * @plan: the kind wanted, and the hook to run while waiting.
 * @k: receives the command's key.
 *
 * The watch is left %KA_LIVE (or %KA_DONE if the command ended already);
 * the caller moves it back to %KA_IDLE.
 *
 * Context: Process context; sleeps up to %KA_WAIT_MS.
 * Return: 0, -ETIMEDOUT if no such command came, or @plan's hook's error.
 */
int ka_learn(struct ka_attacker *a, const struct ka_plan *plan,
	     struct ka_key *k)
{
	struct ka_watch *w = &a->watch;
	unsigned long end = jiffies + msecs_to_jiffies(KA_WAIT_MS);
	unsigned long step = msecs_to_jiffies(plan->armed ? KA_POLL_MS :
					      KA_WAIT_MS);
	unsigned long flags;
	int ret;

	ka_watch_set(w, KA_ARMED, plan->want);
	for (;;) {
		if (plan->armed) {
			ret = plan->armed(plan->data);
			if (ret)
				return ret;
		}
		if (wait_event_timeout(w->wq, ka_watch_phase(w) != KA_ARMED,
				       step))
			break;
		if (time_after_eq(jiffies, end)) {
			pr_err("no %s %s in %u ms (is fio running?)\n",
			       a->end, plan->what, KA_WAIT_MS);
			return -ETIMEDOUT;
		}
	}
	spin_lock_irqsave(&w->lock, flags);
	*k = w->key;
	spin_unlock_irqrestore(&w->lock, flags);
	return 0;
}

/**
 * struct ka_conn - one attacker connection, good for one refused access
 * @pair: active end on the attacked PD, passive end the attacker.
 * @w: the access's completion; freed after @pair (a flush may come until
 *	its QPs are drained).
 */
struct ka_conn {
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait *w;
};

static int ka_conn_open(const struct ka_attacker *a, struct ka_conn *conn)
{
	int ret;

	conn->w = kzalloc(sizeof(*conn->w), GFP_KERNEL);
	if (!conn->w)
		return -ENOMEM;
	ret = mrcore_e2e_pair_create_on_pd(a->base, a->pd, &conn->pair);
	if (ret) {
		kfree(conn->w);
		conn->w = NULL;
		conn->pair = NULL;
	}
	return ret;
}

static void ka_conn_close(struct ka_conn *conn)
{
	if (conn->pair)
		mrcore_e2e_pair_destroy(conn->pair);
	kfree(conn->w);
	conn->pair = NULL;
	conn->w = NULL;
}

static const char *ka_op(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ ? "READ" : "WRITE";
}

static const char *ka_word(int r)
{
	return r == KA_SERVED ? "served" : r == KA_REFUSED ? "refused" :
	       "error";
}

/*
 * One access of KA_BYTES at @k's address with its key, from @buf (a
 * WRITE) or into it (a READ, which must find it poisoned).  With @w, sets
 * *@in_flight to whether the end had not yet completed the command when
 * the access was answered.  Return: KA_SERVED, KA_REFUSED, or a negative
 * errno if the attacker could not make the access (not a refusal).
 */
static int ka_access(struct ka_conn *conn, enum ib_wr_opcode op,
		     const struct ka_key *k, struct mrcore_e2e_buf *buf,
		     struct ka_watch *w, bool *in_flight)
{
	struct mrcore_e2e_side *atk = &conn->pair->passive;
	struct mrcore_e2e_diff diff;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	bool served;
	int st;

	/* A connection that is down already cannot attack. */
	if (mrcore_e2e_qp_state(atk) != IB_QPS_RTS)
		return -ENOTCONN;
	if (ib_dma_map_sg(atk->device, buf->sg, buf->nents,
			  DMA_BIDIRECTIONAL) != buf->nents)
		return -ENOMEM;
	sge.addr = sg_dma_address(buf->sg);
	sge.length = KA_BYTES;
	sge.lkey = atk->pd->local_dma_lkey;
	mrcore_e2e_wait_init(conn->w);
	mrcore_e2e_rdma_wr(&wr, op, &sge, k->addr, k->key, conn->w);
	st = mrcore_e2e_post(atk, &wr.wr, conn->w, KA_WAIT_MS);
	/* Now: a siw WRITE's verdict below waits for a TERMINATE. */
	if (w)
		*in_flight = ka_watch_phase(w) == KA_LIVE;
	ib_dma_unmap_sg(atk->device, buf->sg, buf->nents, DMA_BIDIRECTIONAL);
	if (st < 0) {
		pr_err("%s of key %#x could not be made: %d\n", ka_op(op),
		       k->key, st);
		return st;
	}
	/*
	 * Any other status is the peer's answer to a WR posted on a live
	 * connection: an access error (rxe), or on iWARP the TERMINATE that
	 * breaks the connection and flushes the WR (siw).
	 */
	if (st != IB_WC_SUCCESS)
		pr_info("%s of key %#x: %s\n", ka_op(op), k->key,
			ib_wc_status_msg(st));
	served = st == IB_WC_SUCCESS;
	if (op == IB_WR_RDMA_READ &&
	    !mrcore_e2e_buf_verify(buf, 0, KA_BYTES, MRCORE_E2E_POISONED,
				   &diff))
		served = true;	/* bytes came back, whatever the status */
	if (served && op == IB_WR_RDMA_WRITE &&
	    rdma_protocol_iwarp(atk->device, atk->cm_id->port_num) &&
	    mrcore_e2e_qp_failed(atk, KA_TERMINATE_MS))
		served = false;
	return served ? KA_SERVED : KA_REFUSED;
}

/**
 * struct ka_sample - one sample's command and verdicts
 * @plan: what it watches and tries.
 * @key: the watched command's key.
 * @live: the live access's verdict (&enum ka_verdict, or an errno).
 * @rights: the rights check's.
 * @dead: the access's after the completion.
 * @in_flight: the command was in flight when @live was answered.
 * @rights_made: the rights check was made (@rights is its verdict).
 * @rights_in_flight: the command was in flight when @rights was answered.
 */
struct ka_sample {
	const struct ka_plan *plan;
	struct ka_key key;
	int live, rights, dead;
	bool in_flight, rights_made, rights_in_flight;
};

/* The fill of @buf before an access: a READ's sink must be poisoned. */
static void ka_ready(struct mrcore_e2e_buf *buf, enum ib_wr_opcode op,
		     u32 seed)
{
	if (op == IB_WR_RDMA_READ)
		mrcore_e2e_buf_poison(buf);
	else
		mrcore_e2e_buf_fill(buf, seed);
}

/* The rights check, on its own connection (conn[2]). */
static void ka_rights(struct ka_attacker *a, struct ka_sample *s,
		      struct ka_conn *conn, struct mrcore_e2e_buf *buf)
{
	enum ib_wr_opcode op = s->plan->rights_op;

	if (op == IB_WR_RDMA_READ)
		mrcore_e2e_buf_poison(buf);
	s->rights = ka_access(&conn[2], op, &s->key, buf, &a->watch,
			      &s->rights_in_flight);
	s->rights_made = true;
}

/* The sample's accesses, once its command is live, into @s. */
static int ka_attack(struct ka_attacker *a, struct ka_sample *s,
		     struct ka_conn *conn, struct mrcore_e2e_buf *buf,
		     u32 seed, char *tag)
{
	const struct ka_plan *p = s->plan;
	bool write = p->rights_op == IB_WR_RDMA_WRITE;

	if (p->rights && !write)
		ka_rights(a, s, conn, buf);
	ka_ready(buf, p->op, seed);
	s->live = ka_access(&conn[0], p->op, &s->key, buf, &a->watch,
			    &s->in_flight);
	if (p->rights && write && s->live == KA_SERVED)
		ka_rights(a, s, conn, buf);
	if (!wait_event_timeout(a->watch.wq,
				ka_watch_phase(&a->watch) == KA_DONE,
				msecs_to_jiffies(KA_WAIT_MS))) {
		pr_err("the %s did not complete its %s %s in %u ms\n",
		       a->end, p->what, tag, KA_WAIT_MS);
		return -ETIMEDOUT;
	}
	ka_ready(buf, p->op, seed ^ 0xdead);
	s->dead = ka_access(&conn[1], p->op, &s->key, buf, NULL, NULL);
	return 0;
}

/*
 * One sample (see the file comment) into @s, its line printed.  Return: 0
 * when its accesses were made (their verdicts in @s), or a negative errno.
 */
static int ka_sample(struct ka_attacker *a, struct ka_sample *s, u32 seed)
{
	const struct ka_plan *p = s->plan;
	struct ka_conn conn[3] = {};	/* live, dead, rights */
	struct mrcore_e2e_buf buf;
	char tag[48];
	int ret, i;

	s->live = -ENODATA;
	s->rights = -ENODATA;
	s->dead = -ENODATA;
	s->in_flight = false;
	s->rights_made = false;
	s->rights_in_flight = false;
	ret = mrcore_e2e_buf_alloc(&buf, KA_BYTES, 0);
	if (ret)
		return ret;
	/* Connected beforehand: the command's window is short. */
	for (i = 0; i < (p->rights ? 3 : 2) && !ret; i++)
		ret = ka_conn_open(a, &conn[i]);
	if (!ret)
		ret = ka_learn(a, p, &s->key);
	if (!ret) {
		a->describe(&s->key, tag, sizeof(tag));
		ret = ka_attack(a, s, conn, &buf, seed, tag);
	}
	if (!ret)
		pr_info("sample %s=%s key=%#x addr=%#llx len=%u %s access=%s live=%s in_flight=%d %s=%s rights_in_flight=%d dead=%s\n",
			a->end, p->what, s->key.key, s->key.addr, s->key.len, tag,
			ka_op(p->op), ka_word(s->live), s->in_flight,
			p->rights_name,
			s->rights_made ? ka_word(s->rights) : "-",
			s->rights_in_flight, ka_word(s->dead));
	ka_watch_set(&a->watch, KA_IDLE, 0);
	for (i = 2; i >= 0; i--)
		ka_conn_close(&conn[i]);
	mrcore_e2e_buf_free(&buf);
	return ret;
}

/*
 * Count a sample whose accesses were made.  Return: 0 when counted, 1 when
 * its command completed before the live access or the rights check was
 * answered (take another), or the errno of an access that could not be
 * made.
 */
static int ka_settle(struct ka_tally *t, const struct ka_sample *s)
{
	const struct ka_plan *p = s->plan;
	bool write = p->rights_op == IB_WR_RDMA_WRITE;

	if (s->live < 0)
		return s->live;
	if (s->dead < 0)
		return s->dead;
	if (s->rights_made && s->rights < 0)
		return s->rights;
	if (!s->in_flight || (s->rights_made && !s->rights_in_flight)) {
		t->retaken++;
		return 1;
	}
	t->taken++;
	t->live_served += s->live == KA_SERVED;
	t->live_in_flight++;
	t->dead_refused += s->dead == KA_REFUSED;
	if (p->rights && write) {
		t->write_tries++;
		t->write_served += s->rights == KA_SERVED;
	} else if (p->rights) {
		t->read_tries++;
		t->read_served += s->rights == KA_SERVED;
	}
	return 0;
}

/**
 * ka_run() - an attacker's samples, alternately of each plan
 * @a: the attacker, its PD set.
 * @plans: the two kinds of sample.
 * @seed: the pattern of the first WRITE; each try takes the next one.
 *
 * The module's parameter samples says how many of each kind are counted.
 * A sample whose command completed before its live access or its rights
 * check was answered is taken again, up to twice as many times in all.  @a->tally has what
 * was counted, however the run ended.
 *
 * Context: Process context; sleeps (each sample up to 2 * %KA_WAIT_MS).
 * Return: 0, -EXDEV if the PD is not on the base pair's device, -EAGAIN
 * after too many samples taken again, or the first error of a sample.
 */
int ka_run(struct ka_attacker *a, const struct ka_plan plans[2], u32 seed)
{
	unsigned int i, tries = 0, samples = ka_samples;
	struct ka_sample s;
	int ret = 0;

	/* mrcore_e2e_pair_create_on_pd() binds to the base pair's device. */
	if (a->pd->device != a->base->active.device) {
		pr_err("the PD is on %s, the attacker's connections on %s\n",
		       dev_name(&a->pd->device->dev),
		       dev_name(&a->base->active.device->dev));
		return -EXDEV;
	}
	for (i = 0; i < 2 * samples && !ret; tries++) {
		s.plan = &plans[i % 2];
		ret = ka_sample(a, &s, seed + tries);
		if (!ret)
			ret = ka_settle(&a->tally, &s);
		if (ret == 1)
			ret = tries < 4 * samples ? 0 : -EAGAIN;
		else if (!ret)
			i++;
	}
	return ret;
}

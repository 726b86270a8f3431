/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the attackers of the real ULPs' security steps share
 * (nvme_key_attack.ko for make nvmeof, nfs_key_attack.ko for make
 * nfsrdma): everything that does not depend on the ULP.
 *
 * An attacker is a set of e2e harness connections whose active end is a
 * QP on the PD of the ULP's end that advertises keys (the NVMe host, the
 * NFS client) and whose passive end, on a PD of its own, makes RDMA READs
 * and WRITEs with those keys.  The ULP's module learns each key as its
 * command or RPC reaches the other end, and sees its own end complete it
 * (kprobes, the only part that knows the ULP); this file watches one such
 * command at a time, makes a sample's accesses, prints and counts them.
 *
 * The source lives in ulp-ports/lib/; scripts/ulp-ports.sh copies it into
 * every port's build directory, and each attacker module links its own
 * copy (its messages then carry that module's name).
 */
#ifndef _KEY_ATTACK_CORE_H
#define _KEY_ATTACK_CORE_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "mrcore_harness.h"

/* Bytes of each access: within every command's data (fio's bs >= 4k). */
#define KA_BYTES	512
/* Waiting for fio to issue a command of the wanted kind, and for its end. */
#define KA_WAIT_MS	60000
/* An iWARP WRITE is never acknowledged: a refusal is the TERMINATE. */
#define KA_TERMINATE_MS	3000
/* How often a plan's armed hook runs while waiting for its command. */
#define KA_POLL_MS	10

/* An access's answer (a negative errno when it could not be made). */
enum ka_verdict { KA_SERVED, KA_REFUSED };

/*
 * The watched command: none wanted, one of a kind wanted, learnt and in
 * flight, completed by the end that advertised its key.
 */
enum ka_phase { KA_IDLE, KA_ARMED, KA_LIVE, KA_DONE };

/**
 * struct ka_key - a key as the end it was advertised to received it
 * @key: the rkey.
 * @addr: the address it names.
 * @len: the bytes it covers there.
 * @id: the ULP's name of the command or RPC that carried it, by which
 *	its completion is matched (ka_watch_done()).
 */
struct ka_key {
	u32 key;
	u64 addr;
	u32 len;
	u64 id;
};

/**
 * struct ka_watch - the one command being watched; the kprobes move it on
 * @lock: protects @phase, @want and @key (taken in the kprobes).
 * @phase: where the watched command is (&enum ka_phase).
 * @want: the ULP's kind of command wanted while %KA_ARMED.
 * @key: the watched command's key, from %KA_LIVE on.
 * @wq: woken at each change of @phase by a kprobe.
 */
struct ka_watch {
	spinlock_t lock;	/* protects phase, want, key */
	enum ka_phase phase;
	u8 want;
	struct ka_key key;
	wait_queue_head_t wq;
};

/**
 * struct ka_plan - one of the two kinds of sample a run alternates
 * @want: the ULP's kind of command to watch (ka_watch_arrive()'s @kind).
 * @what: how the messages name it ("WRITE").
 * @op: the access its key is for: %IB_WR_RDMA_READ of the data the end
 *	sends, %IB_WR_RDMA_WRITE into the buffer it receives into.
 * @rights: also try @rights_op while the command is in flight, on a
 *	connection of its own: a READ before @op, a WRITE once @op was served.
 * @rights_op: the access the key does not need; a WRITE writes back the
 *	bytes @op read, a READ must find the buffer poisoned if refused.
 * @rights_name: how the sample line names that check ("rights_write").
 * @armed: if set, called in process context every %KA_POLL_MS while
 *	waiting for the command (something that keeps it in flight once it
 *	comes); a negative errno ends the sample.
 * @data: @armed's argument.
 */
struct ka_plan {
	u8 want;
	const char *what;
	enum ib_wr_opcode op;
	bool rights;
	enum ib_wr_opcode rights_op;
	const char *rights_name;
	int (*armed)(void *data);
	void *data;
};

/**
 * struct ka_tally - what a run's samples showed
 * @taken: samples counted: the command was in flight when the live access
 *	was answered.
 * @live_served: of those, the live accesses served.
 * @live_in_flight: of those, the ones answered with the command in flight
 *	(all of them; the sample line shows each).
 * @dead_refused: of those, the accesses after the completion refused.
 * @retaken: samples not counted, the command having completed before the
 *	live access or the rights check was answered.
 * @write_tries: samples counted whose plan checks rights with a remote
 *	WRITE (made once the live access was served).
 * @write_served: the ones served.
 * @read_tries: samples counted whose plan checks rights with a remote
 *	READ.
 * @read_served: the ones served.
 */
struct ka_tally {
	unsigned int taken, live_served, live_in_flight, dead_refused, retaken;
	unsigned int write_tries, write_served, read_tries, read_served;
};

/**
 * struct ka_attacker - an attacker on the PD of a ULP's end
 * @end: how the messages name that end ("host").
 * @base: a harness pair of the device kind; the attacker's connections
 *	take its kind and queue sizes, its active end's device is the one
 *	they are bound to.
 * @pd: the PD attacked, with a resource reference (dropped by
 *	ka_attacker_close()); set by the ULP's module.
 * @watch: the watched command.
 * @tally: what the samples showed.
 * @describe: writes the ULP's name of a watched command (its queue and
 *	command identifier, its XID) into @buf, for the messages.
 */
struct ka_attacker {
	const char *end;
	struct mrcore_e2e_pair *base;
	struct ib_pd *pd;
	struct ka_watch watch;
	struct ka_tally tally;
	void (*describe)(const struct ka_key *k, char *buf, size_t len);
};

/* The parameters kind and samples of every attacker module. */
extern char *ka_kind;
extern unsigned int ka_samples;

const struct mrcore_e2e_target *ka_target(void);
int ka_attacker_open(struct ka_attacker *a,
		     const struct mrcore_e2e_target *target);
void ka_attacker_close(struct ka_attacker *a);
struct ib_pd *ka_pd_of_owner(struct ib_device *dev, const char *owner);
struct ib_pd *ka_pd_of_key(struct ib_pd *own, u32 key);

void ka_watch_set(struct ka_watch *w, enum ka_phase phase, u8 want);
void ka_watch_arrive(struct ka_watch *w, u8 kind, const struct ka_key *k);
void ka_watch_done(struct ka_watch *w, u64 id);
int ka_learn(struct ka_attacker *a, const struct ka_plan *plan,
	     struct ka_key *k);

int ka_run(struct ka_attacker *a, const struct ka_plan plans[2], u32 seed);

#endif /* _KEY_ATTACK_CORE_H */

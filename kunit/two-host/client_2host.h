/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The initiator's side of make kunit-2host (mrcore_2host.ko): connections to
 * the peer guest's server (peer_2host.h) and its requests, for the *_2host
 * suites.  Every helper taking a &struct kunit asserts on failure and
 * releases what it made with the test.
 */
#ifndef _MRCORE_CLIENT_2HOST_H
#define _MRCORE_CLIENT_2HOST_H

#include <kunit/test.h>

#include "e2e_suite.h"
#include "mrcore_harness.h"
#include "peer_2host.h"

/* The peer's two device kinds, seen from the initiator. */
extern const struct mrcore_e2e_target mrcore_2host_rxe;
extern const struct mrcore_e2e_target mrcore_2host_siw;

/* The init of a *_2host suite on one of them (mrcore_e2e_suite_init()). */
static inline int mrcore_2host_rxe_suite_init(struct kunit *test)
{
	return mrcore_e2e_suite_init(test, &mrcore_2host_rxe);
}

static inline int mrcore_2host_siw_suite_init(struct kunit *test)
{
	return mrcore_e2e_suite_init(test, &mrcore_2host_siw);
}

/* Requests and I/Os over the wire: TCG guests on shared cores. */
#define PEER_CALL_TIMEOUT_MS	60000

/**
 * struct peer_link - a connection to the peer
 * @pair: the RC connection; only its active end is in this kernel.
 * @side: &@pair->active.
 * @req: the request's buffer.
 * @resp: the answer's buffer.
 * @req_dma: @req's DMA address.
 * @resp_dma: @resp's DMA address.
 * @tag: the last request's tag.
 * @conn: the peer's number for this connection (HELLO).
 */
struct peer_link {
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_side *side;
	struct mrcore_peer_msg *req;
	struct mrcore_peer_msg *resp;
	u64 req_dma;
	u64 resp_dma;
	u32 tag;
	u32 conn;
};

/**
 * struct peer_x - memory the peer exposed
 * @id: its handle on the peer.
 * @key: the key it handed out.
 * @addr: the address of its first data byte for @key.
 * @len: its data bytes.
 */
struct peer_x {
	u32 id;
	u32 key;
	u64 addr;
	u64 len;
};

int peer_link_open(const struct mrcore_e2e_target *t,
		   const struct peer_link *share_pd, struct peer_link **lp);
void peer_link_close(struct peer_link *l);
int peer_call(struct peer_link *l, struct mrcore_peer_req *r);

struct peer_link *peer_link(struct kunit *test,
			    const struct mrcore_e2e_target *t);
struct peer_link *peer_link_shared(struct kunit *test, struct peer_link *base);
void peer_expose(struct kunit *test, struct peer_link *l, u64 len,
		 unsigned int offset, unsigned int ops, unsigned int flags,
		 u32 seed, struct peer_x *x);
void peer_fill(struct kunit *test, struct peer_link *l, u32 id, u64 start,
	       u64 len, u32 seed, unsigned int flags);
bool peer_verify(struct kunit *test, struct peer_link *l, u32 id, u64 start,
		 u64 len, u32 seed, bool wait, const char *what);
void peer_invalidate(struct kunit *test, struct peer_link *l, u32 id,
		     unsigned int flags);
void peer_remap(struct kunit *test, struct peer_link *l, u32 id,
		unsigned int ops, struct peer_x *x);
int peer_net(struct peer_link *l, enum mrcore_peer_net what);

/* The wire of this guest (1); its siw route to the peer (2) goes with it. */
#define MRCORE_2HOST_IP		"/usr/local/sbin/ip"
#define MRCORE_2HOST_LINK_DOWN	MRCORE_2HOST_IP " link set eth0 down"
#define MRCORE_2HOST_LINK_UP	MRCORE_2HOST_IP " link set eth0 up && " \
	"for i in 1 2 3 4 5 6 7 8 9 10; do " MRCORE_2HOST_IP \
	" route replace 198.18.0.2/32 via 203.0.113.2 dev eth0 && exit 0; " \
	"sleep 1; done; exit 1"
/* siw's retry budget is TCP's: tcp_retries2 3 gives up after about 3 s. */
#define MRCORE_2HOST_TCP_RETRIES_SHORT \
	"echo 3 >/proc/sys/net/ipv4/tcp_retries2"
#define MRCORE_2HOST_TCP_RETRIES_DEFAULT \
	"echo 15 >/proc/sys/net/ipv4/tcp_retries2"

int mrcore_2host_sh(const char *cmd);
int mrcore_2host_rxe_counter(const char *dev, const char *name, u64 *v);
int mrcore_2host_tcp_retrans(u64 *v);

int peer_access(struct kunit *test, struct peer_link *l, u32 conn, bool read,
		u64 addr, u32 key, u64 len, u32 seed, bool *qp_failed,
		u64 *bad);

#endif /* _MRCORE_CLIENT_2HOST_H */

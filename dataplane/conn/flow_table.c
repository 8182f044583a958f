/* SPDX-License-Identifier: BSD-3-Clause */
/* The flow table: a record from either leg's tuple (conn/flow_table.h). */
#include <stdbool.h>
#include <stdint.h>

#include <rte_hash.h>

#include "conn/conn.h"
#include "worker_t.h"

struct sy_conn *
sy_flow_lookup(struct sy_worker *w, const struct sy_flow_key *k)
{
	void *data;

	if (rte_hash_lookup_data(w->tcp.flows, k, &data) < 0)
		return NULL;
	return data;
}

static void
cache_drop(struct sy_conn_tables *t, hash_sig_t sig, const struct sy_conn *c)
{
	uint64_t *pair = sy_flow_cache_pair(t, sig);
	uint64_t e = (uint64_t)(uintptr_t)c | sy_flow_cache_tag(sig);

	if (pair[0] == e)
		pair[0] = 0;
	if (pair[1] == e)
		pair[1] = 0;
}

/* A key of c's into hash h (its hash sig) and the client-leg cache, or out
 * of both: an IPv4 or IPv6 client leg's (the burst fast path looks IPv6
 * client keys up in the cache too, conn/flow_table.h). */
static int
key_add(struct sy_conn_tables *t, struct rte_hash *h, const void *k, hash_sig_t sig,
	struct sy_conn *c)
{
	int rc = rte_hash_add_key_with_hash_data(h, k, sig, c);

	if (rc < 0)
		return rc;
	sy_flow_cache_put(sy_flow_cache_pair(t, sig), sig, c);
	return 0;
}

static void
key_del(struct sy_conn_tables *t, struct rte_hash *h, const void *k, hash_sig_t sig,
	const struct sy_conn *c)
{
	cache_drop(t, sig, c);
	(void)rte_hash_del_key_with_hash(h, k, sig);
}

int
sy_flow_add(struct sy_worker *w, const struct sy_flow_key *k, struct sy_conn *c)
{
	return key_add(&w->tcp, w->tcp.flows, k, sy_flow_hash(k), c);
}

void
sy_flow_del(struct sy_worker *w, const struct sy_flow_key *k, const struct sy_conn *c)
{
	key_del(&w->tcp, w->tcp.flows, k, sy_flow_hash(k), c);
}

struct sy_conn *
sy_flow_lookup6(struct sy_worker *w, const struct sy_flow_key6 *k)
{
	return w->tcp.flows6 == NULL ? NULL : sy_flow6_find(&w->tcp, k, sy_flow_hash6(k));
}

static void
conn_key6(const struct sy_worker *w, const struct sy_conn *c, struct sy_flow_key6 *k)
{
	const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

	sy_flow_key_v6(k, a->client, a->vip, c->client_port, c->vip_port);
}

int
sy_flow_add6(struct sy_worker *w, struct sy_conn *c, const uint8_t client[16],
	     const uint8_t vip[16])
{
	struct sy_flow_key6 k;

	sy_flow_key_v6(&k, client, vip, c->client_port, c->vip_port);
	return key_add(&w->tcp, w->tcp.flows6, &k, sy_flow_hash6(&k), c);
}

void
sy_flow_del6(struct sy_worker *w, const struct sy_conn *c)
{
	struct sy_flow_key6 k;

	conn_key6(w, c, &k);
	key_del(&w->tcp, w->tcp.flows6, &k, sy_flow_hash6(&k), c);
}

/* An IPv6 backend leg's key: its tuple as the backend's segments carry it. */
static void
backend_key6(const struct sy_worker *w, const struct sy_conn *c, struct sy_flow_key6 *k)
{
	const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

	sy_flow_key_v6(k, a->backend, a->snat, c->backend_port, c->snat_port);
}

void
sy_flow_backend_add(struct sy_worker *w, struct sy_conn *c)
{
	if (sy_conn_backend_v6(c)) {
		struct sy_flow_key6 k;

		backend_key6(w, c, &k);
		/* The backend-leg hash has room for a key a record (conn.c):
		 * not expected to fail; if it did, the backend's segments would
		 * find nothing and the connect would time out, counted. Not in
		 * the client-leg cache: the fast path finds the leg in its SNAT
		 * slot, as an IPv4 one (snat.h). */
		if (rte_hash_add_key_with_hash_data(w->tcp.flows6_b, &k, sy_flow_hash6(&k), c) == 0)
			*sy_snat_slot_k(&w->tcp, sy_conn_v6_of(&w->tcp, c)->snat_k, c->snat_port) =
				sy_snat_slot_value(c);
	} else {
		*sy_snat_slot(&w->tcp, c->snat_ip, c->snat_port) = sy_snat_slot_value(c);
	}
	c->flags |= SY_CF_BACKEND_KEY;
}

void
sy_flow_backend_del(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_conn **slot;

	if (sy_conn_backend_v6(c)) {
		struct sy_flow_key6 k;

		backend_key6(w, c, &k);
		(void)rte_hash_del_key_with_hash(w->tcp.flows6_b, &k, sy_flow_hash6(&k));
		slot = sy_snat_slot_k(&w->tcp, sy_conn_v6_of(&w->tcp, c)->snat_k, c->snat_port);
	} else {
		slot = sy_snat_slot(&w->tcp, c->snat_ip, c->snat_port);
	}
	if (sy_snat_slot_conn(*slot) == c)
		*slot = NULL;
	c->flags &= (uint8_t)~SY_CF_BACKEND_KEY;
}

struct sy_conn *
sy_flow_find(struct sy_worker *w, uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
	     bool *from_client)
{
	struct sy_flow_key k;
	struct sy_conn *c;

	/* A backend leg first: no hashing. A client segment whose port
	 * happens to be in the SNAT range fails the full tuple compare. */
	c = sy_flow_backend_lookup(&w->tcp, saddr, daddr, sport, dport);
	if (c != NULL) {
		*from_client = false;
		return c;
	}
	sy_flow_key_v4(&k, saddr, daddr, sport, dport);
	*from_client = true;
	return sy_flow_lookup(w, &k);
}

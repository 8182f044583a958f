/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etcd v3's JSON, as its gRPC gateway speaks it (/v3/kv/range, /v3/kv/txn,
 * /v3/watch, /v3/lease/...): the protobuf messages in proto3's JSON form,
 * where bytes (keys, values) are base64 and 64-bit integers (revisions,
 * lease ids) are strings, and fields at their zero value are left out (a
 * PUT event has no "type", a failed txn no "succeeded").
 *
 * Pure functions: building request bodies, decoding responses into plain
 * jansson values the rest of control/etcd/ reads. A decoded key-value is
 *
 *     {"key": "...", "value": "..." or null (not UTF-8), "create_revision": N,
 *      "mod_revision": N, "lease": N}
 *
 * No I/O here (http.c); unit-tested (tests/unit/test_etcd.c).
 */
#ifndef SY_ETCD_CODEC_H
#define SY_ETCD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* base64 (RFC 4648, with padding). encode: malloc'd NUL-terminated text.
 * decode: malloc'd bytes, NUL-terminated for convenience, *outlen without
 * it; NULL when the input is not base64. */
char *sy_b64_encode(const void *data, size_t len);
void *sy_b64_decode(const char *text, size_t *outlen);

/* A JSON string holding base64 of s (new reference). */
json_t *sy_etcd_b64(const char *s);
/* An int64 field: the gateway writes strings, accepts both; 0 if absent. */
int64_t sy_etcd_int(const json_t *v);

/* Request bodies (new references). range_end NULL: just the key. */
json_t *sy_etcd_range_req(const char *key, const char *range_end, int64_t revision);
/* The same, at most limit keys (0: all) in key order: a page of a range too
 * large to read in one answer within a timeout. */
json_t *sy_etcd_range_page_req(const char *key, const char *range_end, int64_t revision,
			       int64_t limit);
/* One operation of a txn's success or failure list. lease 0: none. */
json_t *sy_etcd_op_put(const char *key, const char *value, int64_t lease);
json_t *sy_etcd_op_delete(const char *key);
json_t *sy_etcd_op_range(const char *key);
/* A txn; compare may be NULL (always succeeds). Steals the arrays. */
json_t *sy_etcd_txn_req(json_t *compare, json_t *success, json_t *failure);
/* compare: the key does not exist (its create_revision is 0). */
json_t *sy_etcd_cmp_absent(const char *key);
json_t *sy_etcd_watch_req(const char *key, const char *range_end, int64_t start_revision);
json_t *sy_etcd_lease_grant_req(int64_t ttl);
json_t *sy_etcd_lease_id_req(int64_t id); /* keepalive and revoke */

/* A gateway error ({"error": "...", "code": N}) as text, or NULL. */
const char *sy_etcd_error(const json_t *resp);
/* One kv of a response, decoded (above); NULL when it has no key. */
json_t *sy_etcd_decode_kv(const json_t *kv);
/* /v3/kv/range: the kvs decoded (new array) and header.revision. NULL when
 * resp is not a range response. */
json_t *sy_etcd_decode_range(const json_t *resp, int64_t *revision);
/* A range response that stopped at its limit: more keys follow. */
bool sy_etcd_range_more(const json_t *resp);

/* One message of the /v3/watch stream. */
struct sy_etcd_watch_msg {
	int64_t revision;         /* header.revision */
	int64_t compact_revision; /* > 0: the start revision was compacted */
	bool created, canceled;
	json_t *events;           /* [{"type": "PUT"|"DELETE", kv decoded...}], new */
};
/* 0, or -1 when msg is not a watch message (an error body). */
int sy_etcd_decode_watch(const json_t *msg, struct sy_etcd_watch_msg *out);

/* /v3/kv/txn: succeeded, header.revision and, per operation, the
 * create_revision the key has after it (a put: its prev_kv's, or the txn's
 * revision for a new key; a delete: 0). revs has room for n; returns how
 * many responses there were, -1 when resp is not a txn response. */
int sy_etcd_decode_txn(const json_t *resp, bool *succeeded, int64_t *revision, int64_t *revs,
		       size_t n);

#endif

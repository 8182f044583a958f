/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etcd/codec.h"

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
sy_b64_encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (out == NULL)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		*o++ = b64_alphabet[v >> 18];
		*o++ = b64_alphabet[(v >> 12) & 63];
		*o++ = b64_alphabet[(v >> 6) & 63];
		*o++ = b64_alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);

		*o++ = b64_alphabet[v >> 18];
		*o++ = b64_alphabet[(v >> 12) & 63];
		*o++ = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int
b64_value(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

void *
sy_b64_decode(const char *text, size_t *outlen)
{
	size_t len = strlen(text), i, k = 0;
	unsigned char *out;

	if (len % 4 != 0)
		return NULL;
	out = malloc(len / 4 * 3 + 1);
	if (out == NULL)
		return NULL;
	for (i = 0; i < len; i += 4) {
		int a = b64_value(text[i]), b = b64_value(text[i + 1]);
		int c = text[i + 2] == '=' ? 0 : b64_value(text[i + 2]);
		int d = text[i + 3] == '=' ? 0 : b64_value(text[i + 3]);
		bool last = i + 4 == len;

		/* Padding only at the very end, and "x=y=" is not base64. */
		if (a < 0 || b < 0 || c < 0 || d < 0 ||
		    ((text[i + 2] == '=' || text[i + 3] == '=') && !last) ||
		    (text[i + 2] == '=' && text[i + 3] != '=')) {
			free(out);
			return NULL;
		}
		uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;

		out[k++] = (unsigned char)(v >> 16);
		if (text[i + 2] != '=')
			out[k++] = (unsigned char)(v >> 8);
		if (text[i + 3] != '=')
			out[k++] = (unsigned char)v;
	}
	out[k] = '\0';
	*outlen = k;
	return out;
}

json_t *
sy_etcd_b64(const char *s)
{
	char *e = sy_b64_encode(s, strlen(s));
	json_t *j = e ? json_string(e) : NULL;

	free(e);
	return j;
}

int64_t
sy_etcd_int(const json_t *v)
{
	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	if (json_is_string(v))
		return strtoll(json_string_value(v), NULL, 10);
	return 0;
}

static json_t *
int_str(int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return json_string(buf);
}

json_t *
sy_etcd_range_page_req(const char *key, const char *range_end, int64_t revision, int64_t limit)
{
	json_t *r = json_pack("{s:o}", "key", sy_etcd_b64(key));

	if (range_end != NULL)
		json_object_set_new(r, "range_end", sy_etcd_b64(range_end));
	if (revision > 0)
		json_object_set_new(r, "revision", int_str(revision));
	if (limit > 0)
		json_object_set_new(r, "limit", int_str(limit));
	return r;
}

json_t *
sy_etcd_range_req(const char *key, const char *range_end, int64_t revision)
{
	return sy_etcd_range_page_req(key, range_end, revision, 0);
}

json_t *
sy_etcd_op_put(const char *key, const char *value, int64_t lease)
{
	json_t *put = json_pack("{s:o, s:o, s:b}", "key", sy_etcd_b64(key), "value",
				sy_etcd_b64(value), "prev_kv", 1);

	if (lease != 0)
		json_object_set_new(put, "lease", int_str(lease));
	return json_pack("{s:o}", "request_put", put);
}

json_t *
sy_etcd_op_delete(const char *key)
{
	return json_pack("{s:{s:o}}", "request_delete_range", "key", sy_etcd_b64(key));
}

json_t *
sy_etcd_op_range(const char *key)
{
	return json_pack("{s:{s:o}}", "request_range", "key", sy_etcd_b64(key));
}

json_t *
sy_etcd_txn_req(json_t *compare, json_t *success, json_t *failure)
{
	json_t *t = json_object();

	if (compare != NULL)
		json_object_set_new(t, "compare", compare);
	json_object_set_new(t, "success", success ? success : json_array());
	if (failure != NULL)
		json_object_set_new(t, "failure", failure);
	return t;
}

json_t *
sy_etcd_cmp_absent(const char *key)
{
	return json_pack("{s:o, s:s, s:s, s:s}", "key", sy_etcd_b64(key), "target", "CREATE",
			 "result", "EQUAL", "create_revision", "0");
}

json_t *
sy_etcd_watch_req(const char *key, const char *range_end, int64_t start_revision)
{
	json_t *c = json_pack("{s:o, s:o, s:o, s:b}", "key", sy_etcd_b64(key), "range_end",
			      sy_etcd_b64(range_end), "start_revision", int_str(start_revision),
			      "progress_notify", 1);

	return json_pack("{s:o}", "create_request", c);
}

json_t *
sy_etcd_lease_grant_req(int64_t ttl)
{
	return json_pack("{s:o}", "TTL", int_str(ttl));
}

json_t *
sy_etcd_lease_id_req(int64_t id)
{
	return json_pack("{s:o}", "ID", int_str(id));
}

const char *
sy_etcd_error(const json_t *resp)
{
	const json_t *e = json_object_get(resp, "error");

	if (json_is_string(e))
		return json_string_value(e);
	if (json_is_object(e)) /* the watch stream wraps errors: {"error": {"message": ...}} */
		return json_string_value(json_object_get(e, "message"));
	return NULL;
}

json_t *
sy_etcd_decode_kv(const json_t *kv)
{
	const char *k = json_string_value(json_object_get(kv, "key"));
	const char *v = json_string_value(json_object_get(kv, "value"));
	size_t klen, vlen = 0;
	char *key = k ? sy_b64_decode(k, &klen) : NULL;
	char *val = v ? sy_b64_decode(v, &vlen) : NULL;
	json_t *out = NULL, *jv;

	if (key == NULL || strlen(key) != klen)
		goto done;
	/* A value that is not UTF-8 text cannot be an object's JSON: null,
	 * and the reader says so. An empty value (a delete's kv) is "". */
	jv = v == NULL ? json_string("") : val ? json_stringn(val, vlen) : NULL;
	out = json_pack("{s:s, s:o, s:I, s:I, s:I}", "key", key, "value", jv ? jv : json_null(),
			"create_revision", (json_int_t)sy_etcd_int(json_object_get(kv, "create_revision")),
			"mod_revision", (json_int_t)sy_etcd_int(json_object_get(kv, "mod_revision")),
			"lease", (json_int_t)sy_etcd_int(json_object_get(kv, "lease")));
done:
	free(key);
	free(val);
	return out;
}

json_t *
sy_etcd_decode_range(const json_t *resp, int64_t *revision)
{
	const json_t *hdr = json_object_get(resp, "header"), *kv;
	json_t *out;
	size_t i;

	if (!json_is_object(hdr) || sy_etcd_error(resp) != NULL)
		return NULL;
	*revision = sy_etcd_int(json_object_get(hdr, "revision"));
	out = json_array();
	json_array_foreach(json_object_get(resp, "kvs"), i, kv) {
		json_t *d = sy_etcd_decode_kv(kv);

		if (d != NULL)
			json_array_append_new(out, d);
	}
	return out;
}

bool
sy_etcd_range_more(const json_t *resp)
{
	return json_is_true(json_object_get(resp, "more"));
}

int
sy_etcd_decode_watch(const json_t *msg, struct sy_etcd_watch_msg *out)
{
	const json_t *res = json_object_get(msg, "result"), *ev;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(res))
		return -1;
	out->revision = sy_etcd_int(json_object_get(json_object_get(res, "header"), "revision"));
	out->compact_revision = sy_etcd_int(json_object_get(res, "compact_revision"));
	out->created = json_is_true(json_object_get(res, "created"));
	out->canceled = json_is_true(json_object_get(res, "canceled"));
	out->events = json_array();
	json_array_foreach(json_object_get(res, "events"), i, ev) {
		const char *type = json_string_value(json_object_get(ev, "type"));
		json_t *kv = sy_etcd_decode_kv(json_object_get(ev, "kv"));

		if (kv == NULL)
			continue;
		/* PUT is the enum's zero: proto3 JSON leaves it out. */
		json_object_set_new(kv, "type",
				    json_string(type && strcmp(type, "DELETE") == 0 ? "DELETE" : "PUT"));
		json_array_append_new(out->events, kv);
	}
	return 0;
}

int
sy_etcd_decode_txn(const json_t *resp, bool *succeeded, int64_t *revision, int64_t *revs,
		   size_t n)
{
	const json_t *hdr = json_object_get(resp, "header"), *r;
	size_t i;

	if (!json_is_object(hdr) || sy_etcd_error(resp) != NULL)
		return -1;
	*succeeded = json_is_true(json_object_get(resp, "succeeded"));
	*revision = sy_etcd_int(json_object_get(hdr, "revision"));
	json_array_foreach(json_object_get(resp, "responses"), i, r) {
		const json_t *put = json_object_get(r, "response_put");
		const json_t *prev = json_object_get(put, "prev_kv");

		if (i >= n)
			break;
		if (put == NULL)
			revs[i] = 0;
		else if (prev != NULL)
			revs[i] = sy_etcd_int(json_object_get(prev, "create_revision"));
		else
			revs[i] = *revision; /* created by this txn */
	}
	return (int)json_array_size(json_object_get(resp, "responses"));
}

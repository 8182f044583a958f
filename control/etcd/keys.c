/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "etcd/keys.h"
#include "kinds/kinds.h"

void
sy_etcd_kind_segment(const struct sy_kind *kind, char *out, size_t len)
{
	size_t i;

	snprintf(out, len, "%s%s%s", kind->kind, kind->group[0] ? "." : "", kind->group);
	for (i = 0; out[i] != '\0'; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
}

static int
fits(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int
sy_etcd_object_key(const char *prefix, const struct sy_kind *kind, const char *ns,
		   const char *name, char *out, size_t len)
{
	char seg[128];

	sy_etcd_kind_segment(kind, seg, sizeof(seg));
	if (kind->cluster_scoped)
		return fits(snprintf(out, len, "%sobjects/%s/%s", prefix, seg, name), len);
	return fits(snprintf(out, len, "%sobjects/%s/%s/%s", prefix, seg, ns, name), len);
}

int
sy_etcd_status_key(const char *prefix, const char *router, const struct sy_kind *kind,
		   const char *ns, const char *name, char *out, size_t len)
{
	char seg[128];

	sy_etcd_kind_segment(kind, seg, sizeof(seg));
	if (kind->cluster_scoped)
		return fits(snprintf(out, len, "%sstatus/%s/%s/%s", prefix, router, seg, name), len);
	return fits(snprintf(out, len, "%sstatus/%s/%s/%s/%s", prefix, router, seg, ns, name),
		    len);
}

static int
bad(char *err, size_t errlen, const char *key, const char *why)
{
	snprintf(err, errlen, "key %s: %s", key, why);
	return -1;
}

int
sy_etcd_parse_object_key(const char *prefix, const char *key, const struct sy_kind **kind,
			 char *ns, size_t nslen, char *name, size_t namelen, char *err,
			 size_t errlen)
{
	const struct sy_kind *const *k;
	size_t plen = strlen(prefix);
	const char *p, *slash, *rest;
	char seg[128];

	if (strncmp(key, prefix, plen) != 0 || strncmp(key + plen, "objects/", 8) != 0)
		return bad(err, errlen, key, "not under <prefix>objects/");
	p = key + plen + 8;
	slash = strchr(p, '/');
	if (slash == NULL)
		return bad(err, errlen, key, "no name after the kind");
	*kind = NULL;
	for (k = sy_kinds; *k != NULL; k++) {
		sy_etcd_kind_segment(*k, seg, sizeof(seg));
		if (strlen(seg) == (size_t)(slash - p) && memcmp(seg, p, (size_t)(slash - p)) == 0)
			*kind = *k;
	}
	if (*kind == NULL)
		return bad(err, errlen, key, "unknown kind segment (like route.route.openshift.io "
			   "or service)");
	rest = slash + 1;
	if ((*kind)->cluster_scoped) {
		if (strchr(rest, '/') != NULL || *rest == '\0')
			return bad(err, errlen, key, "a cluster-scoped kind's key is <kind>/<name>");
		ns[0] = '\0';
		return snprintf(name, namelen, "%s", rest) < (int)namelen ? 0
			: bad(err, errlen, key, "name too long");
	}
	slash = strchr(rest, '/');
	if (slash == NULL || slash == rest || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
		return bad(err, errlen, key, "a namespaced kind's key is <kind>/<namespace>/<name>");
	if ((size_t)(slash - rest) >= nslen)
		return bad(err, errlen, key, "namespace too long");
	memcpy(ns, rest, (size_t)(slash - rest));
	ns[slash - rest] = '\0';
	return snprintf(name, namelen, "%s", slash + 1) < (int)namelen ? 0
		: bad(err, errlen, key, "name too long");
}

int
sy_etcd_parse_status_key(const char *prefix, const char *router, const char *key,
			 const struct sy_kind **kind, char *ns, size_t nslen, char *name,
			 size_t namelen, char *err, size_t errlen)
{
	size_t plen = strlen(prefix), rlen = strlen(router);
	char obj[768];

	if (strncmp(key, prefix, plen) != 0 || strncmp(key + plen, "status/", 7) != 0 ||
	    strncmp(key + plen + 7, router, rlen) != 0 || key[plen + 7 + rlen] != '/')
		return bad(err, errlen, key, "not under <prefix>status/<router>/");
	/* The same tail as the object's key. */
	if (fits(snprintf(obj, sizeof(obj), "%sobjects/%s", prefix, key + plen + 7 + rlen + 1),
		 sizeof(obj)) < 0)
		return bad(err, errlen, key, "too long");
	return sy_etcd_parse_object_key(prefix, obj, kind, ns, nslen, name, namelen, err, errlen);
}

void
sy_etcd_range_end(const char *p, char *out, size_t len)
{
	size_t n = strlen(p);

	snprintf(out, len, "%s", p);
	/* Prefixes here are printable and end with '/': no 0xff carry. */
	if (n > 0 && n < len)
		out[n - 1] = (char)(out[n - 1] + 1);
}

int
sy_etcd_watch_range(const char *prefix, char *key, size_t keylen, char *end, size_t endlen)
{
	char objects[256];

	if (fits(snprintf(objects, sizeof(objects), "%sobjects/", prefix), sizeof(objects)) < 0 ||
	    fits(snprintf(key, keylen, "%sleader/scheduler", prefix), keylen) < 0 ||
	    strlen(objects) + 1 > endlen)
		return -1;
	sy_etcd_range_end(objects, end, endlen);
	return 0;
}

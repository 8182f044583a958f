/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "region_heap.h"

#include "store/pack.h"
#include "store/tree_heap.h"

/*
 * Raw-content dictionary: what the objects of each kind and their statuses
 * typically say. zstd finds matches anywhere in it and codes recent ones
 * cheapest, so the commonest objects (OpenShift Routes and their statuses)
 * come last. Every kind the router serves routes for has its sample here:
 * at a million routes of six kinds, those missing (Ingress, HTTPProxy,
 * HTTPRoute and its status) packed to 145-210 bytes instead of 115-135,
 * and an HTTPRoute's status to 196 instead of 58 (31 B a route of the mix;
 * perf/README.md, "routes"). Packs live only in memory, so the dictionary
 * may change from one build to the next.
 */
static const char dictionary[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"tls\",\"namespace\":"
	"\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":\"\"},\"type\":"
	"\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\","
	"\"tls.key\":\"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t\"}}"
	"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\","
	"\"labels\":{\"router\":\"shard\"},\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":\"\"}}"
	"{\"apiVersion\":\"contour.heptio.com/v1alpha1\",\"kind\":\"Route\",\"metadata\":{\"name\":"
	"\"web\",\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":"
	"\"\"},\"spec\":{\"host\":\"web.example.com\",\"routes\":[{\"pathPrefix\":\"/\","
	"\"upstreams\":[{\"serviceName\":\"web\",\"servicePort\":80,\"weight\":100}]}]}}"
	"{\"currentStatus\":\"valid\",\"lastProcessTime\":\"2026-01-01T00:00:00Z\",\"errors\":[]}"
	"{\"apiVersion\":\"zalando.org/v1\",\"kind\":\"RouteGroup\",\"metadata\":{\"name\":\"web\","
	"\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":\"\"},"
	"\"spec\":{\"hosts\":[\"web.example.com\"],\"backends\":[{\"name\":\"web\",\"type\":"
	"\"service\",\"serviceName\":\"web\",\"servicePort\":80}],\"defaultBackends\":[{"
	"\"backendName\":\"web\"}],\"routes\":[{\"pathSubtree\":\"/\"}]}}"
	"{\"valid\":true,\"errors\":[]}"
	"{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\",\"metadata\":{"
	"\"name\":\"web\",\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\","
	"\"uid\":\"\"},\"spec\":{\"virtualhost\":{\"fqdn\":\"web.example.com\",\"tls\":{"
	"\"secretName\":\"tls\"}},\"routes\":[{\"match\":\"/\",\"services\":[{\"name\":\"web\","
	"\"port\":80,\"weight\":100}]}]}}"
	"{\"currentStatus\":\"valid\",\"description\":\"valid IngressRoute\"}"
	"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\",\"namespace\":"
	"\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":\"\"},\"spec\":{"
	"\"ports\":[{\"name\":\"http\",\"port\":80,\"targetPort\":8080,\"protocol\":\"TCP\"}]}}"
	"{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"web\",\"namespace\":"
	"\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":\"\"},\"subsets\":[{"
	"\"addresses\":[{\"ip\":\"10.128.0.10\"},{\"ip\":\"10.128.0.11\"}],\"ports\":[{\"name\":"
	"\"http\",\"port\":8080,\"protocol\":\"TCP\"}]}]}"
	"{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"Ingress\",\"metadata\":{\"name\""
	":\"web\",\"namespace\":\"default\",\"annotations\":{},\"creationTimestamp\":\"2026-"
	"01-01T00:00:00Z\",\"uid\":\"\"},\"spec\":{\"ingressClassName\":\"switchyard\",\"tls\""
	":[{\"hosts\":[\"web.example.com\"],\"secretName\":\"tls\"}],\"rules\":[{\"host\":\"we"
	"b.example.com\",\"http\":{\"paths\":[{\"path\":\"/\",\"pathType\":\"Prefix\",\"backend"
	"\":{\"service\":{\"name\":\"web\",\"port\":{\"number\":80}}}}]}}]}}"
	"{\"loadBalancer\":{\"ingress\":[]}}"
	"{\"apiVersion\":\"projectcontour.io/v1\",\"kind\":\"HTTPProxy\",\"metadata\":{\"nam"
	"e\":\"web\",\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z"
	"\",\"uid\":\"\"},\"spec\":{\"virtualhost\":{\"fqdn\":\"web.example.com\",\"tls\":{\"secr"
	"etName\":\"tls\"}},\"includes\":[{\"name\":\"web\",\"namespace\":\"default\"}],\"route"
	"s\":[{\"conditions\":[{\"prefix\":\"/\"}],\"services\":[{\"name\":\"web\",\"port\":80,\""
	"weight\":100}]}]}}"
	"{\"currentStatus\":\"valid\",\"description\":\"Valid HTTPProxy\",\"conditions\":[{"
	"\"type\":\"Valid\",\"status\":\"True\",\"reason\":\"Valid\",\"message\":\"Valid HTTPPro"
	"xy\"}]}"
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"HTTPRoute\",\"metadat"
	"a\":{\"name\":\"web\",\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T0"
	"0:00:00Z\",\"uid\":\"\",\"generation\":1},\"spec\":{\"parentRefs\":[{\"name\":\"gatewa"
	"y\",\"namespace\":\"default\"}],\"hostnames\":[\"web.example.com\"],\"rules\":[{\"ma"
	"tches\":[{\"path\":{\"type\":\"PathPrefix\",\"value\":\"/\"}}],\"backendRefs\":[{\"nam"
	"e\":\"web\",\"port\":80,\"weight\":1}]}]}}"
	"{\"parents\":[{\"parentRef\":{\"group\":\"gateway.networking.k8s.io\",\"kind\":\"Ga"
	"teway\",\"namespace\":\"default\",\"name\":\"gateway\"},\"controllerName\":\"switchy"
	"ard.io/gateway-controller\",\"conditions\":[{\"type\":\"Accepted\",\"status\":\"Tr"
	"ue\",\"reason\":\"Accepted\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00"
	":00:00Z\",\"observedGeneration\":1},{\"type\":\"ResolvedRefs\",\"status\":\"True\","
	"\"reason\":\"ResolvedRefs\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00"
	":00:00Z\",\"observedGeneration\":1}]}]}"
	"{\"ingress\":[{\"host\":\"web.apps.example.com\",\"routerName\":\"default\","
	"\"wildcardPolicy\":\"None\",\"conditions\":[{\"type\":\"Admitted\",\"status\":\"False\","
	"\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"HostAlreadyClaimed\","
	"\"message\":\"route web already exposes web.apps.example.com and is older\"}]}]}"
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"web\","
	"\"namespace\":\"default\",\"labels\":{\"app\":\"web\"},\"annotations\":{},"
	"\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":\"\"},\"spec\":{\"host\":"
	"\"web.apps.example.com\",\"path\":\"/\",\"to\":{\"kind\":\"Service\",\"name\":\"web\","
	"\"weight\":100},\"alternateBackends\":[{\"kind\":\"Service\",\"name\":\"web\",\"weight\":"
	"100}],\"port\":{\"targetPort\":\"http\"},\"tls\":{\"termination\":\"edge\","
	"\"insecureEdgeTerminationPolicy\":\"Redirect\"},\"wildcardPolicy\":\"None\"}}"
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"web\","
	"\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"uid\":"
	"\"00000000-0000-4000-8000-000000000000\"},\"spec\":{\"host\":\"web.apps.example.com\","
	"\"to\":{\"kind\":\"Service\",\"name\":\"web\"},\"port\":{\"targetPort\":\"http\"}}}"
	"{\"ingress\":[{\"host\":\"web.apps.example.com\",\"routerName\":\"default\","
	"\"wildcardPolicy\":\"None\",\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\","
	"\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}]}";

/* Control thread only: one of each, made at first use, kept for the process. */
static struct {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	ZSTD_CDict *cdict;
	ZSTD_DDict *ddict;
	char *buf; /* scratch for dumps and decompression */
	size_t cap;
} z;

static int
init(void)
{
	if (z.cdict != NULL)
		return 0;
	z.cctx = ZSTD_createCCtx();
	z.dctx = ZSTD_createDCtx();
	/* Level 3: zstd's default; at a few hundred bytes it costs a few µs. */
	z.cdict = ZSTD_createCDict(dictionary, sizeof(dictionary) - 1, 3);
	z.ddict = ZSTD_createDDict(dictionary, sizeof(dictionary) - 1);
	if (z.cctx == NULL || z.dctx == NULL || z.cdict == NULL || z.ddict == NULL)
		return -ENOMEM;
	/* The frame names no dictionary and carries no checksum: 6 bytes
	 * saved per object, and only this process ever reads it. */
	ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_dictIDFlag, 0);
	ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_checksumFlag, 0);
	return 0;
}

static int
reserve(size_t n)
{
	char *grown;

	if (n <= z.cap)
		return 0;
	grown = realloc(z.buf, n);
	if (grown == NULL)
		return -ENOMEM;
	z.buf = grown;
	z.cap = n;
	return 0;
}

/* One frame of j into z.buf + off; its length, or 0 on failure. */
/*
 * Packs live as long as their objects, a million of them beside the short
 * trees every apply and compile makes and frees: in glibc's heap they kept
 * its bins full of small holes, and every malloc paid for it (a one-route
 * change at 300,000 routes: 0.31 ms, 0.09 ms with packs apart). So they,
 * and the objects' records (store.c), come from the store's own heap
 * (region_heap.h).
 */
struct sy_region_heap sy_store_heap;

static uint8_t *
packed_alloc(size_t n)
{
	return sy_region_alloc(&sy_store_heap, n);
}

static void
packed_release(struct sy_packed *p)
{
	sy_region_free(&sy_store_heap, p->bytes, (size_t)p->obj_len + p->status_len);
}

size_t
sy_store_heap_bytes(void)
{
	return sy_region_bytes(&sy_store_heap);
}

static size_t
compress_text_into(const char *text, size_t len, size_t off)
{
	size_t bound = ZSTD_compressBound(len), n;

	if (reserve(off + bound) < 0)
		return 0;
	ZSTD_CCtx_refCDict(z.cctx, z.cdict);
	n = ZSTD_compress2(z.cctx, z.buf + off, bound, text, len);
	return ZSTD_isError(n) ? 0 : n;
}

static size_t
compress_into(const json_t *j, size_t off)
{
	char *text = json_dumps(j, JSON_COMPACT);
	size_t n = text ? compress_text_into(text, strlen(text), off) : 0;

	free(text);
	return n;
}

int
sy_pack_object_text(const char *text, size_t len, struct sy_packed *p)
{
	size_t olen;
	uint8_t *out;

	if (init() < 0 || (olen = compress_text_into(text, len, 0)) == 0 ||
	    (out = packed_alloc(olen)) == NULL)
		return -ENOMEM;
	memcpy(out, z.buf, olen);
	packed_release(p);
	p->bytes = out;
	p->obj_len = (uint32_t)olen;
	p->status_len = 0;
	return 0;
}

int
sy_pack(const json_t *obj, const json_t *status, struct sy_packed *p)
{
	size_t olen = p->obj_len, slen = 0;
	uint8_t *out;

	if (init() < 0)
		return -ENOMEM;
	if (olen > 0) {
		/* Only the status may have changed. A full compile reads and
		 * cools every object; most statuses come back the same, and
		 * the same text compresses to the same frame: then nothing is
		 * reallocated (at a million routes, a tenth of a compile went
		 * to reallocating packs that did not change). */
		if (status != NULL && (slen = compress_into(status, 0)) == 0)
			return -ENOMEM;
		if (slen == p->status_len && memcmp(z.buf, p->bytes + olen, slen) == 0)
			return 0;
		if ((out = packed_alloc(olen + slen)) == NULL)
			return -ENOMEM;
		memcpy(out, p->bytes, olen);
		memcpy(out + olen, z.buf, slen);
		packed_release(p);
		p->bytes = out;
		p->status_len = (uint32_t)slen;
		return 0;
	}
	if ((olen = compress_into(obj, 0)) == 0)
		return -ENOMEM;
	if (status != NULL && (slen = compress_into(status, olen)) == 0)
		return -ENOMEM;
	out = packed_alloc(olen + slen);
	if (out == NULL)
		return -ENOMEM;
	memcpy(out, z.buf, olen + slen);
	packed_release(p);
	p->bytes = out;
	p->obj_len = (uint32_t)olen;
	p->status_len = (uint32_t)slen;
	return 0;
}

/* A frame's JSON text into z.buf: its length, or 0. */
static size_t
decompress(const uint8_t *frame, size_t len)
{
	unsigned long long size;
	size_t n;

	if (frame == NULL || len == 0 || init() < 0)
		return 0;
	size = ZSTD_getFrameContentSize(frame, len);
	if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ||
	    reserve((size_t)size + 1) < 0)
		return 0;
	n = ZSTD_decompress_usingDDict(z.dctx, z.buf, z.cap, frame, len, z.ddict);
	return ZSTD_isError(n) ? 0 : n;
}

static json_t *
unpack(const uint8_t *frame, size_t len, enum sy_tree_class class)
{
	size_t n = decompress(frame, len);
	json_error_t jerr;
	json_t *j;

	if (n == 0)
		return NULL;
	/* A warmed object's tree lives until the next cool: cut from the
	 * tree heap, not glibc's (tree_heap.h says why). */
	sy_tree_heap_enter(class);
	j = json_loadb(z.buf, n, 0, &jerr);
	sy_tree_heap_leave();
	return j;
}

json_t *
sy_unpack_object(const struct sy_packed *p)
{
	return unpack(p->bytes, p->obj_len, SY_TREE_OBJECT);
}

const char *
sy_unpack_object_text(const struct sy_packed *p, size_t *len)
{
	*len = decompress(p->bytes, p->obj_len);
	return *len ? z.buf : NULL;
}

json_t *
sy_unpack_status(const struct sy_packed *p)
{
	return p->bytes ? unpack(p->bytes + p->obj_len, p->status_len, SY_TREE_STATUS) : NULL;
}

void
sy_packed_free(struct sy_packed *p)
{
	packed_release(p);
	memset(p, 0, sizeof(*p));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generation: the compiled, immutable route table the workers read
 * (docs/architecture.md section 3). Built by the control thread
 * (control/gen/compile.c, control/gen/gen_build.c), published through struct
 * sy_gen_slot, never modified after publication.
 *
 * Generations share structure: a vhost (with its rules and pools) is one
 * immutable block, and the vhost table is a directory of fixed-size chunks.
 * A change builds a new generation that copies the directory and only the
 * chunks and vhosts it touches; the rest is shared with the previous one,
 * which on retirement frees only what its successor replaced.
 *
 * It holds only what a lookup and a bind need, plus the names `routerctl
 * resolve` prints (object and service names), kept as flat strings.
 */
#ifndef SY_GENERATION_H
#define SY_GENERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_addr.h"
#include "sy_source_allow.h"

enum sy_tls_mode {
	SY_TLS_NONE,
	SY_TLS_EDGE,
	SY_TLS_REENCRYPT,
	SY_TLS_PASSTHROUGH,
};

/* How a vhost's connections are carried (docs/architecture.md 4.5). */
enum sy_carry_mode {
	SY_MODE_SPLICE, /* routing needs Host / SNI only */
	SY_MODE_PROXY,  /* needs per-request decisions or termination */
};

enum sy_path_match {
	SY_PATH_PREFIX,  /* segment-aware prefix; "/" matches everything */
	SY_PATH_EXACT,
	SY_PATH_STRING_PREFIX, /* plain string prefix ("/foo" also matches "/foobar") */
};

struct sy_endpoint {
	struct sy_addr addr;
	uint16_t port;
	uint16_t service;  /* index into the pool's services */
	uint32_t weight;   /* effective weight of this endpoint in the pool */
	/* Reached over TLS: it came from an https:// URL. The proxy connects
	 * with the pool's tls_ctx and checks the certificate for the pool's
	 * tls_names[i] (the URL's host: a name, or an IPv4 address matched
	 * against the certificate's IP addresses). */
	bool tls;
	/* Active health (control/health.h): 1 while the endpoint's checks say
	 * it is down. The one field written after publish: by the control
	 * thread, with relaxed atomic stores, in every copy of the endpoint in
	 * the live generation; workers read it at each pick (lb/lb.c). Always 0
	 * in a pool without a health check. */
	uint8_t hc_down;
	/* Its traffic counters on the workers (sy_backend_stats.h), the same
	 * in every copy and while it stays; 0: none. Set by the control thread
	 * before the generation is published (control/observe/
	 * backend_stats.c). */
	uint16_t stat_slot;
};
_Static_assert(sizeof(struct sy_endpoint) == 32, "two endpoints a cache line");

/*
 * A backend written into the route as URLs instead of a Service (Skipper
 * network and lb backends), kept as written for resolve. Each URL names an
 * IPv4 address or a host name the control thread resolved when the pool
 * was built (control/gen/backend_url.h); http:// and https:// both.
 */
enum sy_url_backend_type {
	SY_URL_BACKEND_NETWORK, /* one URL */
	SY_URL_BACKEND_LB,      /* endpoint URLs, balanced by `algorithm` */
};

struct sy_url_backend {
	enum sy_url_backend_type type;
	uint32_t n_urls;
	const char *const *urls;
	const char *algorithm; /* LB: Skipper's name, e.g. "roundRobin"; NULL for NETWORK */
};

/* The protocol a Service port's endpoints speak (Contour's
 * upstream-protocol annotations; dataplane/proxy/px_h2_backend.h). */
enum sy_be_proto {
	SY_BE_HTTP1 = 0, /* HTTP/1.1, the default */
	SY_BE_H2C,       /* h2 with prior knowledge, in the clear */
	SY_BE_H2,        /* h2 over TLS (ALPN h2, else HTTP/1.1) */
	SY_BE_TLS,       /* HTTP/1.1 over TLS */
};

struct sy_pool_service {
	const char *ns;
	const char *name;     /* the Service; a URL backend: its name (RouteGroup backends[].name) */
	uint32_t weight;      /* weight as configured on the route */
	uint32_t n_endpoints; /* endpoints of this service in the pool */
	const struct sy_url_backend *urls; /* NULL: a Service's Endpoints */
	/* A URL backend: why one of its URLs is not served, as resolve says
	 * it, from when the pool was built (an https URL first, then one the
	 * router refuses, then a name that did not resolve); NULL when all
	 * are. */
	const char *problem;
	uint8_t proto; /* enum sy_be_proto */
};

/* Load-balancing strategy (Contour's strategy, Skipper's lb algorithm). */
enum sy_lb_strategy {
	SY_LB_DEFAULT,           /* weighted random */
	SY_LB_ROUND_ROBIN,       /* interleaved weighted round robin, per worker */
	SY_LB_WEIGHTED_LEAST_REQUEST, /* power of two weighted choices, fewer open legs */
	SY_LB_RANDOM,
	SY_LB_COOKIE,            /* Contour Cookie: picked as random (cookies: later) */
	SY_LB_CONSISTENT_HASH,   /* Skipper: Maglev over the client address */
	SY_LB_POWER_OF_RANDOM_N, /* Skipper: as WEIGHTED_LEAST_REQUEST */
	SY_LB_LEAST_REQUESTS,    /* Skipper leastRequests, OpenShift leastconn: as above */
	SY_LB_SOURCE,            /* OpenShift `balance source`: Maglev over the client address */
};

/*
 * What the workers pick with (control/gen/lb_tables.h builds them with the
 * pool; dataplane/lb/lb.c reads them):
 *  - alias: Walker/Vose alias table over the endpoint weights, a weighted
 *    random pick in O(1) (random, and the two candidates of P2C);
 *  - rr: round robin's schedule, each endpoint i appearing weight_i/g times
 *    (g the weights' gcd), interleaved; each worker walks it from its own
 *    offset, so on one worker the weights hold exactly over any window of
 *    rr_len picks;
 *  - maglev: the Maglev lookup table (prime length), client address hash
 *    -> endpoint; one endpoint more or less moves about 1/N of the clients.
 * A pool without tables (none could be built) falls back to a linear
 * weighted random pick.
 */
#define SY_LB_WORKER_SLOTS 16 /* == SY_MAX_WORKERS */
struct sy_lb_alias {
	uint32_t prob;  /* take this endpoint when the 32-bit draw is below */
	uint32_t alias; /* else this one */
};
/* Round robin: worker w's place in the schedule is rr_pos[(w & rr_mask) *
 * SY_LB_RR_STRIDE]: each worker writes its own, on a cache line of its own
 * when there are several (one worker needs no line to itself). */
#define SY_LB_RR_STRIDE 16 /* uint32_t: 64 bytes */
struct sy_lb_tables {
	struct sy_lb_alias *alias; /* n_endpoints, or NULL */
	uint32_t *rr;              /* rr_len endpoint indexes, or NULL */
	uint32_t rr_len;
	/* Round robin: rr_mask + 1 places (a power of two, at least the
	 * router's workers; SY_LB_RR_STRIDE). Only round robin has them: a
	 * pool is a fair part of a route's memory at a million routes. */
	uint32_t rr_mask;
	uint32_t *rr_pos;
	uint16_t *maglev;          /* maglev_len (prime) endpoint indexes, or NULL */
	uint32_t maglev_len;
	uint32_t bytes; /* control side: the one block all of the above live in */
};

/* Active health check plan for a pool's endpoints (run by the control thread). */
struct sy_health_check {
	const char *path;          /* NULL: no health check */
	const char *host;          /* Host header; NULL: "contour-envoy-healthcheck" */
	uint32_t interval_s;
	uint32_t timeout_s;
	uint32_t unhealthy_threshold;
	uint32_t healthy_threshold;
};

struct sy_pool {
	struct sy_pool_service *services;
	uint32_t n_services;
	struct sy_endpoint *endpoints;
	uint32_t n_endpoints;
	uint64_t total_weight; /* sum of endpoint weights; 0 = nothing to send to */
	enum sy_lb_strategy strategy;
	/* A URL backend the router refuses (credentials, IPv6, not a URL):
	 * no endpoints at all, since serving the rest would send an lb's whole
	 * share to part of it; requests get 503 needs_proxy_mode. */
	bool needs_proxy;
	/* A URL backend with an https:// URL: those endpoints are reached
	 * over TLS with tls_ctx (the router's trust store, tls.backend_ca or
	 * the system's), so the vhost is never spliced. tls_ctx NULL (it could
	 * not be built): such requests get 503 backend_tls. */
	bool backend_tls;
	void *tls_ctx; /* SSL_CTX *, as struct sy_vhost keeps it */
	/* backend_tls: the name each endpoint's certificate must carry
	 * (n_endpoints, NULL for one reached in the clear); NULL otherwise. */
	const char *const *tls_names;
	/* Services annotated upstream-protocol.tls or .h2: their endpoints
	 * are reached over TLS with this context, which checks no
	 * certificate (Contour's default without upstream validation);
	 * NULL when none is, or it could not be built (503 backend_tls). */
	void *svc_tls_ctx;
	struct sy_lb_tables *lb; /* the strategy's pick tables, or NULL */
	/* Open connections an endpoint takes from a worker, at most (the
	 * OpenShift annotation pod-concurrent-connections, HAProxy's per-server
	 * maxconn; dataplane/lb/lb.c); 0: no bound. */
	uint32_t max_conns;
	const struct sy_health_check *hc; /* in the pool's block; NULL: no health check */
	/* Control side (control/gen/pool.c): shared by rules, freed with the last. */
	uint32_t refs;
	void *arena;
	size_t bytes;
};

/* What a request that matches a rule gets. */
enum sy_rule_action {
	SY_ACTION_BACKEND,  /* forward to the rule's pool */
	SY_ACTION_REDIRECT, /* answer `status` with Location `location` */
	SY_ACTION_STATIC,   /* answer `status` with `body` (Skipper status/inlineContent, shunt) */
};

/* Predicates beyond host and path (Skipper's; Contour HTTPProxy header
 * conditions). All of a rule's predicates must hold. */
enum sy_pred_type {
	SY_PRED_HEADER,        /* name, value: exact */
	SY_PRED_HEADER_REGEXP, /* name, regex */
	SY_PRED_COOKIE,        /* name, regex on the cookie's value (Skipper Cookie) */
	SY_PRED_PATH_REGEXP,   /* regex on the path */
	SY_PRED_HOST_REGEXP,   /* regex on the host */
	SY_PRED_TRAFFIC,       /* fraction of the requests that reach it */
	SY_PRED_TRUE,          /* always: Skipper's priority padding */
	SY_PRED_JWT_ALL_KV,    /* kv pairs: every one in the JWT payload (not verified) */
	SY_PRED_JWT_ANY_KV,    /* kv pairs: any one of them */
	/* Gateway API and HTTPProxy conditions (include/sy_query.h for the
	 * query's parameters): */
	SY_PRED_HEADER_PRESENT,    /* name: the header is there */
	SY_PRED_HEADER_ABSENT,     /* name: the header is not there */
	SY_PRED_HEADER_NOT_REGEXP, /* name, regex: there, and its value does not match */
	SY_PRED_QUERY,             /* name, value: the parameter is there with exactly value */
	SY_PRED_QUERY_REGEXP,      /* name, regex: the parameter is there and matches */
};

/* The predicates whose value is a regex (compiled into `regex`). */
static inline bool
sy_pred_is_regex(enum sy_pred_type t)
{
	return t == SY_PRED_HEADER_REGEXP || t == SY_PRED_COOKIE || t == SY_PRED_PATH_REGEXP ||
	       t == SY_PRED_HOST_REGEXP || t == SY_PRED_HEADER_NOT_REGEXP ||
	       t == SY_PRED_QUERY_REGEXP;
}

struct sy_predicate {
	enum sy_pred_type type;
	const char *name;   /* header or cookie name */
	const char *value;  /* exact value, or the regex's text */
	void *regex;        /* compiled (PCRE2), owned by the generation */
	double fraction;    /* SY_PRED_TRAFFIC */
	const char *const *kv; /* JWT: key, value, key, value... */
	uint32_t n_kv;      /* number of strings in kv */
};

/* Request/response changes (Skipper filters; carried for the proxy mode,
 * shown by resolve). */
enum sy_filter_type {
	SY_FILTER_REDIRECT_TO,
	SY_FILTER_MOD_PATH,
	SY_FILTER_SET_PATH,
	SY_FILTER_SET_REQUEST_HEADER,
	SY_FILTER_SET_RESPONSE_HEADER,
	SY_FILTER_RESPONSE_COOKIE,
	SY_FILTER_STATUS,
	SY_FILTER_INLINE_CONTENT,
	SY_FILTER_RATELIMIT,
	SY_FILTER_CLIENT_RATELIMIT,
	SY_FILTER_LOOPBACK, /* Skipper's loopback backend: route the changed request again */
	/* OpenShift Routes (control/kinds/route_headers.c, route_edge_policy.c):
	 * spec.httpHeaders' Delete actions (s[0] the name), and the
	 * rewrite-target annotation (s[0] the route's path without its
	 * trailing '/', s[1] the target). */
	SY_FILTER_DELETE_REQUEST_HEADER,
	SY_FILTER_DELETE_RESPONSE_HEADER,
	SY_FILTER_REPLACE_PATH_PREFIX,
	/* A header line added beside any of the same name (s[0] name, s[1]
	 * value): Gateway API's RequestHeaderModifier/ResponseHeaderModifier
	 * `add`, Skipper's appendRequestHeader/appendResponseHeader. A second
	 * line of a name is the comma-joined value (RFC 9110 5.3). */
	SY_FILTER_APPEND_REQUEST_HEADER,
	SY_FILTER_APPEND_RESPONSE_HEADER,
	SY_FILTER_OTHER,
};

struct sy_filter {
	enum sy_filter_type type;
	const char *name;  /* as written, e.g. "setRequestHeader" */
	const char *args;  /* the arguments as JSON array text, e.g. ["X-A", "1"] */
	/* The arguments as the data path uses them, parsed by the compiler:
	 * text arguments in s[] (NULL if absent or not text), numbers in n[];
	 * a ratelimit's period ("1m") as milliseconds in period_ms; modPath's
	 * regex compiled (PCRE2, owned by the generation); key names the
	 * filter across generations (its rule's object, its place) so a
	 * worker's token buckets survive a recompile. */
	const char *s[3];
	double n[3];
	uint64_t period_ms;
	void *regex;
	uint64_t key;
};

/* Which backend answers a route's retry policy sends again (Envoy's
 * retry_on, as Contour's retryPolicy.retryOn names them). */
enum sy_retry_on {
	SY_RETRY_5XX = 1 << 0,           /* 5xx: any 5xx */
	SY_RETRY_GATEWAY_ERROR = 1 << 1, /* gateway-error: 502, 503, 504 */
	SY_RETRY_4XX = 1 << 2,           /* retriable-4xx: 409 */
	SY_RETRY_CODES = 1 << 3,         /* retriable-status-codes: retry_codes */
};
#define SY_RETRY_CODES_MAX 4

/* Does a route's retry policy send a response of this status again? */
static inline bool
sy_retry_status(uint8_t on, const uint16_t *codes, uint16_t status)
{
	unsigned i;

	if ((on & SY_RETRY_5XX) && status >= 500 && status < 600)
		return true;
	if ((on & SY_RETRY_GATEWAY_ERROR) && status >= 502 && status <= 504)
		return true;
	if ((on & SY_RETRY_4XX) && status == 409)
		return true;
	for (i = 0; (on & SY_RETRY_CODES) && i < SY_RETRY_CODES_MAX; i++)
		if (codes[i] == status)
			return true;
	return false;
}

/* A request mirror of a rule: a copy of per_10k of each 10,000 requests
 * goes to an endpoint of pool, its answer dropped
 * (dataplane/proxy/px_mirror.h). The pool is the rule's vhost's reference,
 * given back with it (gen_build.c). */
#define SY_RULE_MIRRORS_MAX 4
struct sy_mirror {
	const struct sy_pool *pool;
	uint16_t per_10k;
};

/* What few rules have: predicates, filters, an answer of the router's own
 * (redirect, static) or a sticky cookie. Apart, in the vhost's block, so
 * that a million plain rules are one cache line each. */
struct sy_rule_more {
	struct sy_predicate *preds;   /* n_preds (in the rule) */
	struct sy_filter *filters;    /* n_filters (in the rule) */
	union {
		const char *location; /* REDIRECT */
		/* BACKEND, proxied vhosts: the cookie that names the endpoint
		 * (sticky sessions, dataplane/lb/lb.h), or NULL: none. */
		const char *sticky_cookie;
	};
	const char *body; /* STATIC */
	/* Edge policies of the route (OpenShift's haproxy.router.openshift.io/
	 * annotations; docs/routing.md, "Edge policies"): NULL or 0 when it
	 * sets none. allow: only these client addresses (ip_allowlist); hsts:
	 * the Strict-Transport-Security value on responses over TLS
	 * (hsts_header); server_timeout_ms: the server timeout, 504 past it
	 * (timeout); tunnel_timeout_ms: an idle tunnel's (timeout-tunnel). */
	const struct sy_source_allow *allow;
	const char *hsts;
	uint32_t server_timeout_ms;
	uint32_t tunnel_timeout_ms;
	/* rate-limit-connections (dataplane/conn/src_limit.h): per source
	 * address, at most conn_max open connections, conn_rate_max new ones
	 * in 3 s, http_rate_max requests in 10 s; 0: no limit. */
	uint32_t conn_max, conn_rate_max, http_rate_max;
	/* Contour's retryPolicy: a request answered with a status retry_on
	 * names (enum sy_retry_on; SY_RETRY_CODES: one of retry_codes) goes
	 * again, at most retry_count times (0: no policy). */
	uint8_t retry_count;
	uint8_t retry_on;
	uint16_t retry_codes[SY_RETRY_CODES_MAX];
	/* Request mirrors (Gateway API's RequestMirror, Contour's mirror
	 * service): n_mirrors of them, each with its own pool. */
	uint8_t n_mirrors;
	const struct sy_mirror *mirrors;
	/* Contour's retryPolicy.perTryTimeout (Envoy's per_try_timeout): each
	 * try, the first included, gets its response head within it or is
	 * abandoned (tried again while retry_count allows, else 504); and
	 * timeoutPolicy.idle (Envoy's route idle_timeout): an exchange
	 * silent both ways that long is cut (504 before a response head).
	 * 0: none. */
	uint32_t per_try_timeout_ms;
	uint32_t idle_timeout_ms;
};

struct sy_rule {
	/* What a path match reads, first (one 16-byte piece of a line); then
	 * pointers, then the small fields: one cache line, no padding (a
	 * million rules). */
	const char *path; /* "/" when the route has none; unused for SY_PATH_REGEX-only rules */
	uint32_t path_len;
	uint8_t match;        /* enum sy_path_match */
	uint8_t action;       /* enum sy_rule_action */
	uint8_t fwd_policy;   /* enum sy_fwd_policy, never DEFAULT once compiled */
	uint8_t insecure;     /* enum sy_insecure_policy: plain HTTP to this rule of a TLS
			       * vhost (Contour's permitInsecure is per route) */
	const struct sy_pool *pool; /* BACKEND: where to send it (shared, control/gen/pool.c) */
	struct sy_rule_more *more;  /* NULL: no predicates, filters, answer or cookie */
	const char *kind;     /* object kind, e.g. "Route" */
	const char *object;   /* "namespace/name" of the object that made this rule */
	uint32_t methods;     /* bit per SY_METHOD_*; 0 = any method */
	/* The object's counters on the workers (sy_route_stats.h), the same
	 * while the object lives; 0: none. Set by the control thread before
	 * the generation is published (control/observe/route_stats.c). */
	uint16_t stat_slot;
	uint16_t n_preds;
	uint16_t n_filters;
	uint16_t status;      /* REDIRECT / STATIC: the status the router answers with */
};
_Static_assert(sizeof(struct sy_rule) == 64, "a rule is one cache line");

/* A redirect's Location, a rule's body (a static answer's), a proxied
 * rule's sticky cookie: NULL when the rule has none. */
static inline const char *
sy_rule_location(const struct sy_rule *r)
{
	return r->action == SY_ACTION_REDIRECT && r->more != NULL ? r->more->location : NULL;
}
static inline const char *
sy_rule_body(const struct sy_rule *r)
{
	return r->more != NULL ? r->more->body : NULL;
}
static inline const char *
sy_rule_sticky_cookie(const struct sy_rule *r)
{
	return r->action == SY_ACTION_BACKEND && r->more != NULL ? r->more->sticky_cookie : NULL;
}
static inline const struct sy_source_allow *
sy_rule_allow(const struct sy_rule *r)
{
	return r->more != NULL ? r->more->allow : NULL;
}

/* Forwarded headers toward the backend (the OpenShift router's
 * ROUTER_SET_FORWARDED_HEADERS and its route annotation
 * haproxy.router.openshift.io/set-forwarded-headers). */
enum sy_fwd_policy {
	SY_FWD_DEFAULT,  /* the rule says nothing: the config's (compile resolves it) */
	SY_FWD_APPEND,   /* ours are added after any the client sent */
	SY_FWD_REPLACE,  /* the client's are removed, ours added */
	SY_FWD_NEVER,    /* none added, the client's kept */
	SY_FWD_IF_NONE,  /* ours only when the client sent none */
};
/* "append", "replace", "never", "if-none" -> enum sy_fwd_policy; -1 otherwise
 * (control/gen/compile.c; the config and the OpenShift annotation use it). */
int sy_fwd_policy_parse(const char *s);

/* HTTP methods for sy_rule.methods: bit i is sy_http_method_names[i]. */
#define SY_METHODS 9
extern const char *const sy_http_method_names[SY_METHODS];
enum {
	SY_METHOD_GET = 1u << 0,
	SY_METHOD_HEAD = 1u << 1,
	SY_METHOD_POST = 1u << 2,
	SY_METHOD_PUT = 1u << 3,
	SY_METHOD_PATCH = 1u << 4,
	SY_METHOD_DELETE = 1u << 5,
	SY_METHOD_CONNECT = 1u << 6,
	SY_METHOD_OPTIONS = 1u << 7,
	SY_METHOD_TRACE = 1u << 8,
};

/* What plain HTTP gets on a TLS vhost (OpenShift insecureEdgeTerminationPolicy,
 * Contour permitInsecure). */
enum sy_insecure_policy {
	SY_INSECURE_NONE,     /* not served over plain HTTP */
	SY_INSECURE_ALLOW,    /* served */
	SY_INSECURE_REDIRECT, /* redirected to https */
};

/* What a vhost that terminates TLS (edge, re-encrypt) or names a
 * certificate's Secret adds: apart, in the vhost's block, so that plain and
 * passthrough vhosts (most of a million) do not carry it. */
struct sy_vhost_tls {
	const char *secret; /* "namespace/name" of the certificate's Secret, or NULL */
	/* Edge and re-encrypt: the server SSL_CTX of its certificate (control/
	 * tls_cert.h; one reference held by this vhost), or NULL: the router's
	 * default certificate. */
	void *ctx;
	/* Re-encrypt: the client SSL_CTX towards the backends (it verifies
	 * their chain against destinationCACertificate), and the name their
	 * certificate must carry (NULL: the chain alone, as the OpenShift
	 * router's `verify required ca-file` does). */
	void *backend_ctx;
	const char *backend_name;
	/* ctx asks for client certificates of this vhost's own CAs (an
	 * HTTPProxy's clientValidation): served only on connections whose
	 * handshake was on ctx (tls_coalesce.c), never by a Host header on a
	 * connection made for another name or without SNI. */
	bool client_ca;
};

struct sy_vhost {
	/* What a lookup reads first: the vhost is one cache line, and the
	 * host's bytes, the rules and their paths follow in the same block
	 * (control/gen/compile.c lays them out so). */
	const char *host; /* lower case, no trailing dot, no port; "*.example.com" for wildcards */
	struct sy_rule *rules; /* ordered, most specific first */
	uint32_t host_len;
	uint32_t n_rules;
	uint32_t hash;    /* sy_host_hash(host) */
	uint8_t tls;      /* enum sy_tls_mode */
	uint8_t mode;     /* enum sy_carry_mode */
	uint8_t insecure; /* enum sy_insecure_policy */
	/* Splice with path rules: until the proxy mode takes these vhosts over,
	 * the first request's path picks the rule for the whole connection. */
	bool bind_by_first_path;
	uint16_t insecure_status; /* REDIRECT: 302 (OpenShift) or 301 (Contour); 0 = 302 */
	uint16_t min_tls_version; /* 0x0301 TLS 1.0 ... 0x0304 TLS 1.3; 0 = default */
	/* A wildcard that covers any number of labels (Gateway API's:
	 * *.example.com serves a.b.example.com), not exactly one (OpenShift's
	 * Subdomain policy, Contour's and Skipper's). */
	bool wild_deep;
	/* Certificate and backend TLS (edge, re-encrypt, a named Secret), or
	 * NULL. */
	struct sy_vhost_tls *term;
	/* Control side: the block this vhost and everything it points to live
	 * in (freed as one), and its size. */
	void *arena;
	uint32_t bytes;
};
_Static_assert(sizeof(struct sy_vhost) <= 64, "a vhost is one cache line");

/*
 * The vhost table: the top bits of a host's hash pick a chunk in the
 * directory, the hash modulo SY_VHOST_CHUNK_SLOTS a home slot in it;
 * probing is linear and stays inside the chunk. A chunk is one 4 KB page:
 * the unit a change copies.
 *
 * A slot is eight bytes: the vhost's address in the low 48 bits (a user
 * space address fits in them on x86-64 and arm64) and a 16-bit tag of the
 * host's hash above them (0: the slot is empty). Eight bytes, not a hash
 * and a pointer in sixteen, halve the table: at a million vhosts it is
 * 16 MB instead of 32, and the first of a lookup's two reads, which lands
 * in it at random, misses less. The tag lets a probe skip the vhosts that
 * are not the one (one in 65,536 passes it by chance; the host compare
 * then says no).
 */
#define SY_VHOST_CHUNK_SLOTS 510
#define SY_VHOST_SLOT_ADDR_BITS 48
#define SY_VHOST_SLOT_ADDR_MASK ((UINT64_C(1) << SY_VHOST_SLOT_ADDR_BITS) - 1)
typedef uint64_t sy_vhost_slot;

/* The tag a host's hash gives its slot: never 0, which marks an empty slot. */
static inline uint64_t
sy_vhost_slot_tag(uint32_t hash)
{
	uint32_t t = (hash ^ (hash >> 16)) & 0xffff;

	return (uint64_t)(t != 0 ? t : 1) << SY_VHOST_SLOT_ADDR_BITS;
}

static inline const struct sy_vhost *
sy_vhost_slot_vhost(sy_vhost_slot s)
{
	return (const struct sy_vhost *)(uintptr_t)(s & SY_VHOST_SLOT_ADDR_MASK);
}

struct sy_vhost_chunk {
	uint64_t owner; /* id of the generation that created this copy */
	uint32_t used;
	uint32_t pad;
	sy_vhost_slot slots[SY_VHOST_CHUNK_SLOTS];
};
_Static_assert(sizeof(struct sy_vhost_chunk) == 4096, "a vhost chunk is one page");

struct sy_generation {
	uint64_t id; /* increases by one per publication */
	struct sy_vhost_chunk **chunks;
	uint32_t n_chunks;   /* a power of two */
	uint32_t chunk_shift; /* chunk = hash >> chunk_shift (32 when one chunk) */
	uint32_t n_vhosts;
	uint32_t n_rules;    /* over all vhosts (each rule sends to a pool, shared or not) */
	/* Wildcard ("*.domain") and default ("") vhosts among them: a lookup
	 * that misses probes for those only when there are some. */
	uint32_t n_wildcard_vhosts;
	uint32_t n_deep_wildcard_vhosts; /* of them, wild_deep: lookups try deeper suffixes */
	uint32_t n_default_vhosts;
	uint16_t no_route_status; /* what an unknown host gets (503 or 404) */
	size_t bytes;             /* memory held, for stats */
	/* Control side (control/gen/gen_build.c): what this generation frees when
	 * it is retired. Everything it references, or, once a successor
	 * shares its structure, only what the successor replaced. */
	struct sy_gen_retire *retire;
};

/* Every vhost of g: for (i = 0; (vh = sy_gen_next_vhost(g, &i)) != NULL;) */
const struct sy_vhost *sy_gen_next_vhost(const struct sy_generation *g, size_t *i);

/*
 * Find the vhost for a Host header or SNI value: case-insensitive, ignores a
 * trailing dot and a ":port". NULL when none.
 */
const struct sy_vhost *sy_gen_find_vhost(const struct sy_generation *g, const char *host,
					 size_t len);
/* First rule of the vhost whose path matches (rules are ordered). NULL when none. */
const struct sy_rule *sy_vhost_match_path(const struct sy_vhost *vh, const char *path,
					  size_t len);
/* SY_METHOD_* bit of a method name as a request carries it (exact case;
 * 0 for an unknown method). */
uint32_t sy_http_method_bit(const char *m, size_t len);
/* Hash used by the vhost table (over the normalized host). */
uint32_t sy_host_hash(const char *host, size_t len);
/* Strip port and trailing dot: returns the length of the host part. */
size_t sy_host_normalize_len(const char *host, size_t len);

#endif

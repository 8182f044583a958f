/* SPDX-License-Identifier: BSD-3-Clause */
/* The etcd store's local copy (cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_log.h>

#include "store/age.h"
#include "etcd/cache.h"
#include "etcd/link.h"
#include "etcd/sync.h"
#include "store/journal.h"
#include "kinds/kinds.h"
#include "store/pack.h"
#include "router.h"
#include "store/store.h"

#define CACHE_FILE "etcd-cache.jsonl"
#define CACHE_MIN_INTERVAL_MS 2000
#define CACHE_QUIET_MS 2000

/* Text in chunks of CHUNK bytes, all full but the last used: it grows
 * without copying what it holds (an open_memstream doubled and copied its
 * buffer: 100-170 ms at once at 100,000 routes, ~70 MB). A print dropped
 * keeps its chunks for the next (text_reset); the writer thread frees them
 * once written: freeing 70 MB is about a millisecond of munmap that the
 * control thread, with a change on its way, does not pay. */
#define CHUNK (1u << 20)
struct text {
	char **chunks;
	size_t n_chunks, cap_chunks; /* allocated */
	size_t used;          /* chunks holding text */
	size_t last_len;      /* bytes in the last used one */
	size_t len;           /* in all */
};

struct sy_etcd_cache {
	char path[600];
	size_t loaded;        /* objects loaded at start */
	uint64_t written_gen; /* the generation the file holds (0: none yet) */
	uint64_t seen_gen;    /* the live generation at the last tick */
	uint64_t changed_ms;  /* when the tick saw it change */
	uint64_t due_ms;      /* not written again before */
	size_t written;       /* objects in the last write */
	time_t written_at;
	char last_error[700];
	/* The write in progress: the control thread serializes the store
	 * into out; the writer thread writes, fsyncs and renames it (at
	 * 100,000 routes ten routers fsyncing 60 MB each after every change
	 * held their control threads, and the applies waiting on them, for
	 * seconds). */
	pthread_t writer;
	bool writing;         /* writer started, not joined yet */
	atomic_bool done;     /* writer finished: rc, and join it */
	struct text out;      /* the lines */
	size_t n;             /* objects */
	uint64_t gen;         /* the generation out holds */
	uint64_t t0;          /* when the write began */
	int rc;
	/* The store printed into out a slice at a time (SLICE_NS of the
	 * control thread each, between which it serves everything else: at
	 * 100,000 routes the whole print held it 0.3-0.9 s, and a change that
	 * came meanwhile waited that long). */
	bool printing;
	size_t bucket;        /* the store's next hash bucket to print */
	uint64_t mem_gen;     /* the generation being printed */
	double print_ms;      /* wall time in its slices so far */
	double slice_max_ms;  /* its longest slice, wall */
	double slice_max_cpu_ms; /* and the most CPU one took */
	size_t slices;
	/* The last write's, for status. */
	double serialize_ms, serialize_slice_max_ms, serialize_slice_max_cpu_ms;
	size_t serialize_slices;
	size_t restarted;     /* prints dropped because the store changed */
};

/* One slice of printing: at most this long before the control loop turns
 * again (checked every SLICE_CHECK objects). */
#define SLICE_NS 200000L
#define SLICE_CHECK 16

static struct sy_etcd_cache *
cache_of(struct sy_router *r)
{
	if (r->etcd_cache == NULL) {
		r->etcd_cache = calloc(1, sizeof(*r->etcd_cache));
		if (r->etcd_cache != NULL) {
			snprintf(r->etcd_cache->path, sizeof(r->etcd_cache->path), "%s/%s",
				 r->cfg.state_dir, CACHE_FILE);
			/* In etcd mode nothing else makes the state directory. */
			if (sy_mkdir_p(r->cfg.state_dir) < 0)
				RTE_LOG(WARNING, USER1, "etcd cache: cannot make %s: %s\n",
					r->cfg.state_dir, strerror(errno));
		}
	}
	return r->etcd_cache;
}

int
sy_etcd_cache_load(struct sy_router *r)
{
	struct sy_etcd_cache *c = cache_of(r);
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;

	if (c == NULL)
		return -ENOMEM;
	f = fopen(c->path, "r");
	if (f == NULL)
		return 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		json_t *rec = json_loadb(line, (size_t)len, 0, NULL);
		json_t *obj = json_object_get(rec, "object");
		json_t *md = json_object_get(obj, "metadata");
		const struct sy_kind *kind =
			sy_kind_for_object(json_string_value(json_object_get(obj, "apiVersion")),
					   json_string_value(json_object_get(obj, "kind")));
		const char *ns = json_string_value(json_object_get(md, "namespace"));
		const char *name = json_string_value(json_object_get(md, "name"));
		char err[400];

		lineno++;
		if (kind == NULL || name == NULL) {
			RTE_LOG(WARNING, USER1, "%s:%zu: not an object of a known kind: skipped\n",
				c->path, lineno);
		} else if (sy_ops_ingest(r, obj, json_integer_value(json_object_get(rec, "create_rev")),
					 kind, kind->cluster_scoped ? "" : (ns ? ns : ""), name, err,
					 sizeof(err)) < 0) {
			RTE_LOG(WARNING, USER1, "%s:%zu: %s: skipped\n", c->path, lineno, err);
		} else {
			c->loaded++;
		}
		json_decref(rec);
	}
	free(line);
	fclose(f);
	sy_store_cool(&r->store);
	RTE_LOG(NOTICE, USER1, "etcd cache %s: %zu objects loaded (served until etcd answers)\n",
		c->path, c->loaded);
	return (int)c->loaded;
}

static void
text_free(struct text *t)
{
	size_t i;

	for (i = 0; i < t->n_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	memset(t, 0, sizeof(*t));
}

/* Empty, its chunks kept. */
static void
text_reset(struct text *t)
{
	t->used = t->last_len = t->len = 0;
}

/* 0, or -ENOMEM. */
static int
text_add(struct text *t, const char *p, size_t len)
{
	while (len > 0) {
		size_t room, k;

		if (t->used == 0 || t->last_len == CHUNK) {
			if (t->used < t->n_chunks) {
				t->used++;
				t->last_len = 0;
				continue;
			}
			if (t->n_chunks == t->cap_chunks) {
				size_t cap = t->cap_chunks ? t->cap_chunks * 2 : 64;
				char **grown = realloc(t->chunks, cap * sizeof(*grown));

				if (grown == NULL)
					return -ENOMEM;
				t->chunks = grown;
				t->cap_chunks = cap;
			}
			if ((t->chunks[t->n_chunks] = malloc(CHUNK)) == NULL)
				return -ENOMEM;
			t->n_chunks++;
			t->used++;
			t->last_len = 0;
		}
		room = CHUNK - t->last_len;
		k = len < room ? len : room;
		memcpy(t->chunks[t->used - 1] + t->last_len, p, k);
		t->last_len += k;
		t->len += k;
		p += k;
		len -= k;
	}
	return 0;
}

/* One object's line: {"create_rev":N,"object":{...}}. A resting object's
 * text comes straight out of its packed bytes: at 100,000 routes parsing
 * every object into a tree only to print it again held the control thread
 * for seconds (and a SIGTERM with it). */
static int
write_line(struct text *t, const struct sy_object *o)
{
	char head[64], *dumped = NULL;
	const char *text;
	size_t len;
	int n, rc;

	n = snprintf(head, sizeof(head), "{\"create_rev\":%lld,\"object\":", (long long)o->create_rev);
	if (o->obj != NULL) { /* a tree now (warm, not shed): it is the object */
		text = dumped = json_dumps(o->obj, JSON_COMPACT);
		len = dumped ? strlen(dumped) : 0;
	} else {
		text = sy_unpack_object_text(&o->packed, &len);
	}
	if (text == NULL)
		return -ENOMEM;
	rc = text_add(t, head, (size_t)n);
	if (rc == 0)
		rc = text_add(t, text, len);
	if (rc == 0)
		rc = text_add(t, "}\n", 2);
	free(dumped);
	return rc;
}

static double
mono_ms(void)
{
	return sy_etcd_mono_s() * 1e3;
}

/* The control thread's own CPU time: a slice's wall time also counts
 * what the machine ran instead (a loaded VM stretched 0.2 ms slices to
 * 4-24 ms while the thread ran 0.1-0.35 ms of them). */
static double
cpu_ms(void)
{
	return sy_etcd_cpu_s() * 1e3;
}

/* The print in progress dropped; its chunks are kept for the next. */
static void
print_drop(struct sy_etcd_cache *c)
{
	c->printing = false;
	text_reset(&c->out);
}

/*
 * The next slice of the store's lines into c->out: whole hash buckets, in
 * the table's order (the file's order does not matter: it is loaded line
 * by line), until SLICE_NS has passed. 1 when every object is printed, 0
 * when there is more, or -errno. Between slices the
 * store does not change: a change drops the print (sy_etcd_cache_changed),
 * so the table and its chains are as the last slice left them.
 */
static int
print_slice(struct sy_router *r, struct sy_etcd_cache *c)
{
	const struct sy_store *st = &r->store;
	const double t0 = mono_ms(), cpu0 = cpu_ms();
	double took, cpu;
	unsigned k = 0;
	int rc = 0;

	while (rc == 0 && c->bucket < st->n_buckets) {
		const struct sy_object *o;

		for (o = st->buckets[c->bucket]; rc == 0 && o != NULL; o = o->hnext, k++) {
			rc = write_line(&c->out, o);
			c->n++;
		}
		c->bucket++;
		if (k >= SLICE_CHECK) {
			k = 0;
			if ((mono_ms() - t0) * 1e6 >= (double)SLICE_NS)
				break;
		}
	}
	took = mono_ms() - t0;
	cpu = cpu_ms() - cpu0;
	c->print_ms += took;
	c->slices++;
	if (took > c->slice_max_ms)
		c->slice_max_ms = took;
	if (cpu > c->slice_max_cpu_ms)
		c->slice_max_cpu_ms = cpu;
	if (rc < 0)
		return rc;
	if (c->bucket < st->n_buckets)
		return 0;
	c->printing = false;
	return 1;
}

/* The writer thread: the text to a temporary file, fsync'd, renamed over
 * the copy. */
static void *
writer_main(void *arg)
{
	struct sy_etcd_cache *c = arg;
	char tmp[640];
	size_t off = 0, i;
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", c->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		rc = -errno;
	for (i = 0; rc == 0 && i < c->out.used; i++) {
		size_t len = i + 1 < c->out.used ? CHUNK : c->out.last_len;

		for (off = 0; rc == 0 && off < len;) {
			ssize_t w = write(fd, c->out.chunks[i] + off, len - off);

			if (w < 0 && errno != EINTR)
				rc = -errno;
			else if (w > 0)
				off += (size_t)w;
		}
	}
	if (rc == 0 && fsync(fd) != 0)
		rc = -errno;
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, c->path) != 0)
		rc = -errno;
	if (rc < 0 && fd >= 0)
		unlink(tmp);
	text_free(&c->out); /* here, not on the control thread (struct text) */
	c->rc = rc;
	atomic_store(&c->done, true);
	return NULL;
}

/* The write in progress, finished: joined and accounted. wait: block
 * until it finishes (shutdown). */
static void
writer_reap(struct sy_etcd_cache *c, bool wait)
{
	uint64_t took;

	if (!c->writing || (!wait && !atomic_load(&c->done)))
		return;
	pthread_join(c->writer, NULL);
	c->writing = false;
	took = sy_mono_ms() - c->t0;
	/* A slow write (a big store) is not repeated sooner than ten times
	 * what it took. */
	c->due_ms = sy_mono_ms() + (took * 10 > CACHE_MIN_INTERVAL_MS ? took * 10 : CACHE_MIN_INTERVAL_MS);
	if (c->rc < 0) {
		snprintf(c->last_error, sizeof(c->last_error), "%.600s: %.90s", c->path,
			 strerror(-c->rc));
		RTE_LOG(WARNING, USER1, "etcd cache: %s (tried again later)\n", c->last_error);
		return;
	}
	if (took >= 1000)
		RTE_LOG(NOTICE, USER1, "etcd cache: %zu objects written in %.1f s (next write not "
			"before %.1f s)\n", c->n, took / 1e3, took * 10 / 1e3);
	c->last_error[0] = '\0';
	c->written_gen = c->gen;
	c->written = c->n;
	c->written_at = time(NULL);
}

void
sy_etcd_cache_changed(struct sy_router *r)
{
	struct sy_etcd_cache *c = r->etcd_cache;

	if (c == NULL || !c->printing)
		return;
	print_drop(c);
	c->restarted++;
}

/* The print is done (1) or failed (rc < 0): the writer thread takes the text. */
static void
print_done(struct sy_etcd_cache *c, int rc)
{
	if (rc == 1) {
		c->serialize_ms = c->print_ms;
		c->serialize_slice_max_ms = c->slice_max_ms;
		c->serialize_slice_max_cpu_ms = c->slice_max_cpu_ms;
		c->serialize_slices = c->slices;
		atomic_store(&c->done, false);
		rc = -pthread_create(&c->writer, NULL, writer_main, c);
		if (rc == 0) {
			c->writing = true;
			return;
		}
	}
	c->printing = false;
	text_free(&c->out);
	c->due_ms = sy_mono_ms() + CACHE_MIN_INTERVAL_MS;
	snprintf(c->last_error, sizeof(c->last_error), "%.600s: %.90s", c->path, strerror(-rc));
	RTE_LOG(WARNING, USER1, "etcd cache: %s (tried again later)\n", c->last_error);
}

void
sy_etcd_cache_tick(struct sy_router *r)
{
	struct sy_etcd_cache *c;
	uint64_t t0;
	int rc;

	if (r->etcd == NULL || (c = cache_of(r)) == NULL)
		return;
	writer_reap(c, false);
	if (c->printing && c->mem_gen != r->gen_id) {
		/* A generation the print does not have (sy_etcd_cache_changed
		 * drops it first; this is the same, should anything else have
		 * changed the store). */
		print_drop(c);
		c->restarted++;
	}
	if (c->printing) {
		rc = print_slice(r, c);
		if (rc == 0)
			sy_etcd_sync_wake(r); /* the next slice at the next turn */
		else
			print_done(c, rc);
		return;
	}
	if (c->writing || c->written_gen == r->gen_id)
		return;
	t0 = sy_mono_ms();
	/* Written once changes have paused for CACHE_QUIET_MS: a burst of
	 * applies or watch events is one write, after it, not a write that
	 * holds up the next apply of the burst. */
	if (c->seen_gen != r->gen_id) {
		c->seen_gen = r->gen_id;
		c->changed_ms = t0;
	}
	if (t0 < c->due_ms || t0 - c->changed_ms < CACHE_QUIET_MS)
		return;
	c->t0 = t0;
	c->gen = c->mem_gen = r->gen_id;
	c->bucket = 0;
	c->n = 0;
	c->print_ms = c->slice_max_ms = c->slice_max_cpu_ms = 0;
	c->slices = 0;
	c->printing = true;
	rc = print_slice(r, c);
	if (rc == 0)
		sy_etcd_sync_wake(r);
	else
		print_done(c, rc);
}

json_t *
sy_etcd_cache_status(const struct sy_router *r)
{
	const struct sy_etcd_cache *c = r->etcd_cache;

	if (c == NULL)
		return json_null();
	/* serialize_ms: the control thread's time printing the last write, in
	 * serialize_slices slices of at most serialize_slice_max_ms each (what a
	 * change arriving meanwhile waits at most; wall time, stretched when
	 * the machine runs something else on the control thread's CPU), the
	 * most CPU one took serialize_slice_max_cpu_ms; printing: a print is in
	 * progress; restarted: prints dropped because the store changed;
	 * next_write_in_ms: how long a change now waits for its write at the
	 * least (a slow write is not repeated sooner than ten times what it
	 * took; 0: not held back). */
	uint64_t now = sy_mono_ms();
	json_int_t next_in = c->due_ms > now ? (json_int_t)(c->due_ms - now) : 0;

	return json_pack("{s:s, s:I, s:I, s:I, s:b, s:b, s:f, s:f, s:f, s:I, s:I, s:I, s:s?}", "path",
			 c->path,
			 "loaded_at_start", (json_int_t)c->loaded, "objects_written",
			 (json_int_t)c->written, "written_at", (json_int_t)c->written_at, "current",
			 c->written_gen == r->gen_id, "printing", c->printing, "serialize_ms",
			 c->serialize_ms,
			 "serialize_slice_max_ms", c->serialize_slice_max_ms,
			 "serialize_slice_max_cpu_ms", c->serialize_slice_max_cpu_ms, "serialize_slices",
			 (json_int_t)c->serialize_slices, "restarted", (json_int_t)c->restarted,
			 "next_write_in_ms", next_in, "last_error", c->last_error[0] ? c->last_error : NULL);
}

void
sy_etcd_cache_free(struct sy_router *r)
{
	if (r->etcd_cache != NULL) {
		writer_reap(r->etcd_cache, true); /* a copy half written is no copy */
		text_free(&r->etcd_cache->out);
	}
	free(r->etcd_cache);
	r->etcd_cache = NULL;
}

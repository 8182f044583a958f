/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OCSP staples from a directory (tls_ocsp.h). Control thread only.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/ocsp.h>
#include <openssl/x509.h>

#include "sy_dataplane.h"
#include "tls/tls_ocsp.h"

/* Files looked at, at most; more are reported and left alone. */
#define OCSP_FILES_MAX 256
/* A response bigger than this is not an OCSP staple (they are ~1-2 KB). */
#define OCSP_DER_MAX 65536
/* Clock slack for thisUpdate / nextUpdate (OpenSSL's own ocsp app: 5 min). */
#define OCSP_SLACK_S 300

struct staple_file {
	char name[256];
	time_t mtime;
	off_t size;
	unsigned char *der;
	size_t len;
	OCSP_BASICRESP *bs; /* NULL: not usable, problem says why */
	char problem[320];
	char status[16];        /* of the first single response: good, revoked, unknown */
	char next_update[32];
	json_t *stapled_to;     /* subjects of the certificates it was stapled to */
};

static struct {
	char dir[512];
	unsigned rescan_s;
	time_t next_scan;
	uint64_t epoch;
	uint64_t fingerprint; /* of the last scan: names, sizes, times, freshness */
	struct staple_file files[OCSP_FILES_MAX];
	unsigned n_files;
	unsigned skipped; /* files past OCSP_FILES_MAX */
} O = { .rescan_s = 60 };

void
sy_ocsp_configure(const char *dir, unsigned rescan_s)
{
	snprintf(O.dir, sizeof(O.dir), "%s", dir);
	O.rescan_s = rescan_s ? rescan_s : 60;
	O.next_scan = 0;
	O.fingerprint = 0;
	/* The first scan, now: staples are there for the first compile. */
	sy_ocsp_rescan(time(NULL));
}

uint64_t
sy_ocsp_epoch(void)
{
	return O.epoch;
}

static void
file_clear(struct staple_file *f)
{
	free(f->der);
	OCSP_BASICRESP_free(f->bs);
	json_decref(f->stapled_to);
	memset(f, 0, sizeof(*f));
}

static void
asn1_time_text(const ASN1_GENERALIZEDTIME *t, char *out, size_t len)
{
	struct tm tm;

	if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1 ||
	    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, len, "%s", t == NULL ? "none" : "?");
}

/* Is the first single response current? */
static bool
fresh(OCSP_BASICRESP *bs)
{
	OCSP_SINGLERESP *one = OCSP_resp_get0(bs, 0);
	ASN1_GENERALIZEDTIME *thisupd = NULL, *nextupd = NULL;
	int reason;

	if (one == NULL)
		return false;
	OCSP_single_get0_status(one, &reason, NULL, &thisupd, &nextupd);
	return OCSP_check_validity(thisupd, nextupd, OCSP_SLACK_S, -1) == 1;
}

/* Parse f->der; set f->bs, or f->problem. */
static void
file_parse(struct staple_file *f)
{
	const unsigned char *p = f->der;
	OCSP_RESPONSE *r = d2i_OCSP_RESPONSE(NULL, &p, (long)f->len);
	OCSP_SINGLERESP *one;
	ASN1_GENERALIZEDTIME *thisupd = NULL, *nextupd = NULL;
	int status, reason;

	if (r == NULL) {
		snprintf(f->problem, sizeof(f->problem), "not a DER OCSP response");
		goto out;
	}
	status = OCSP_response_status(r);
	if (status != OCSP_RESPONSE_STATUS_SUCCESSFUL) {
		snprintf(f->problem, sizeof(f->problem), "the responder answered %s, not successful",
			 OCSP_response_status_str(status));
		goto out;
	}
	f->bs = OCSP_response_get1_basic(r);
	one = f->bs ? OCSP_resp_get0(f->bs, 0) : NULL;
	if (one == NULL) {
		snprintf(f->problem, sizeof(f->problem), "no basic response with a certificate status");
		OCSP_BASICRESP_free(f->bs);
		f->bs = NULL;
		goto out;
	}
	status = OCSP_single_get0_status(one, &reason, NULL, &thisupd, &nextupd);
	snprintf(f->status, sizeof(f->status), "%s", OCSP_cert_status_str(status));
	asn1_time_text(nextupd, f->next_update, sizeof(f->next_update));
	if (!fresh(f->bs)) {
		char next[sizeof(f->next_update)];

		/* A copy: gcc's -Wrestrict (with the sanitizers) cannot tell
		 * two fields of *f apart. */
		memcpy(next, f->next_update, sizeof(next));
		snprintf(f->problem, sizeof(f->problem),
			 "not current (thisUpdate in the future or nextUpdate %s past)", next);
		OCSP_BASICRESP_free(f->bs);
		f->bs = NULL;
	}
out:
	OCSP_RESPONSE_free(r);
	ERR_clear_error();
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rbe");
	unsigned char *buf = NULL;
	long n;

	if (fp == NULL)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) > 0 && n <= OCSP_DER_MAX &&
	    fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) != NULL &&
	    fread(buf, 1, (size_t)n, fp) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct staple_file *)a)->name, ((const struct staple_file *)b)->name);
}

/* FNV-1a over bytes, for the scan's fingerprint. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/* What a scan sees, without reading any file: the names, sizes and times,
 * and whether each response loaded now is still current. */
static uint64_t
scan_fingerprint(struct staple_file *seen, unsigned *n_seen, unsigned *skipped)
{
	uint64_t h = 0xcbf29ce484222325ull;
	DIR *d = opendir(O.dir);
	struct dirent *de;
	unsigned i;

	*n_seen = 0;
	*skipped = 0;
	if (d == NULL)
		return h; /* no directory: no staples */
	while ((de = readdir(d)) != NULL) {
		char path[1024];
		struct stat sb;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(seen->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", O.dir, de->d_name);
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		if (*n_seen == OCSP_FILES_MAX) {
			(*skipped)++;
			continue;
		}
		memset(&seen[*n_seen], 0, sizeof(seen[0]));
		snprintf(seen[*n_seen].name, sizeof(seen->name), "%s", de->d_name);
		seen[*n_seen].mtime = sb.st_mtime;
		seen[*n_seen].size = sb.st_size;
		(*n_seen)++;
	}
	closedir(d);
	qsort(seen, *n_seen, sizeof(seen[0]), by_name);
	for (i = 0; i < *n_seen; i++) {
		h = fnv(h, seen[i].name, strlen(seen[i].name) + 1);
		h = fnv(h, &seen[i].mtime, sizeof(seen[i].mtime));
		h = fnv(h, &seen[i].size, sizeof(seen[i].size));
	}
	for (i = 0; i < O.n_files; i++) {
		bool ok = O.files[i].bs != NULL && fresh(O.files[i].bs);

		h = fnv(h, &ok, sizeof(ok));
	}
	return h;
}

bool
sy_ocsp_rescan(time_t now)
{
	static struct staple_file seen[OCSP_FILES_MAX];
	unsigned n_seen, skipped, i;
	uint64_t fp;

	if (O.dir[0] == '\0' || now < O.next_scan)
		return false;
	O.next_scan = now + O.rescan_s;
	fp = scan_fingerprint(seen, &n_seen, &skipped);
	if (fp == O.fingerprint && O.epoch > 0)
		return false;
	/* Something changed: read everything again (a few KB per file). */
	for (i = 0; i < O.n_files; i++)
		file_clear(&O.files[i]);
	for (i = 0; i < n_seen; i++) {
		struct staple_file *f = &O.files[i];
		char path[1024];

		*f = seen[i];
		f->stapled_to = json_array();
		snprintf(path, sizeof(path), "%s/%s", O.dir, f->name);
		f->der = slurp(path, &f->len);
		if (f->der == NULL)
			snprintf(f->problem, sizeof(f->problem),
				 "cannot read it, or empty, or over %d bytes", OCSP_DER_MAX);
		else
			file_parse(f);
	}
	O.n_files = n_seen;
	O.skipped = skipped;
	/* The fingerprint again, now with the new files' freshness. */
	O.fingerprint = scan_fingerprint(seen, &n_seen, &skipped);
	O.epoch++;
	return true;
}

/* Does bs verify: signed by issuer, or by a responder issuer delegated to
 * (OCSP signing purpose, issued by issuer), chain ending at issuer? */
static bool
signature_ok(OCSP_BASICRESP *bs, X509 *issuer)
{
	X509_STORE *st = X509_STORE_new();
	STACK_OF(X509) *certs = sk_X509_new_null();
	bool ok = false;

	if (st != NULL && certs != NULL && X509_STORE_add_cert(st, issuer) == 1 &&
	    sk_X509_push(certs, issuer) > 0) {
		/* The issuer may be an intermediate: it is the anchor here. */
		X509_STORE_set_flags(st, X509_V_FLAG_PARTIAL_CHAIN);
		ok = OCSP_basic_verify(bs, certs, st, 0) == 1;
	}
	sk_X509_free(certs);
	X509_STORE_free(st);
	ERR_clear_error();
	return ok;
}

void
sy_ocsp_attach(SSL_CTX *ctx, X509 *leaf, STACK_OF(X509) *chain)
{
	X509 *issuer = NULL;
	OCSP_CERTID *id;
	char subject[256];
	int i, n = chain ? sk_X509_num(chain) : 0;
	unsigned k;

	if (O.n_files == 0)
		return;
	for (i = 0; i < n && issuer == NULL; i++)
		if (X509_check_issued(sk_X509_value(chain, i), leaf) == X509_V_OK)
			issuer = sk_X509_value(chain, i);
	if (issuer == NULL)
		return; /* no CertID without the issuer's name and key */
	id = OCSP_cert_to_id(NULL, leaf, issuer);
	if (id == NULL)
		return;
	X509_NAME_oneline(X509_get_subject_name(leaf), subject, sizeof(subject));
	for (k = 0; k < O.n_files; k++) {
		struct staple_file *f = &O.files[k];
		ASN1_GENERALIZEDTIME *thisupd, *nextupd, *rev;
		int status, reason;

		if (f->bs == NULL ||
		    OCSP_resp_find_status(f->bs, id, &status, &reason, &rev, &thisupd, &nextupd) != 1)
			continue;
		if (OCSP_check_validity(thisupd, nextupd, OCSP_SLACK_S, -1) != 1)
			continue;
		if (!signature_ok(f->bs, issuer)) {
			snprintf(f->problem, sizeof(f->problem),
				 "its signature does not verify against the issuer of %s", subject);
			continue;
		}
		if (sy_dp_tls_ctx_set_staple(ctx, f->der, f->len) == 0)
			json_array_append_new(f->stapled_to, json_string(subject));
		break;
	}
	OCSP_CERTID_free(id);
	ERR_clear_error();
}

json_t *
sy_ocsp_status(void)
{
	json_t *files = json_array();
	unsigned i;

	for (i = 0; i < O.n_files; i++) {
		const struct staple_file *f = &O.files[i];
		json_t *o = json_pack("{s:s}", "file", f->name);

		if (f->status[0])
			json_object_set_new(o, "cert_status", json_string(f->status));
		if (f->next_update[0])
			json_object_set_new(o, "next_update", json_string(f->next_update));
		if (f->problem[0])
			json_object_set_new(o, "problem", json_string(f->problem));
		else if (json_array_size(f->stapled_to) == 0)
			json_object_set_new(o, "problem",
					    json_string("matches no certificate served (or its "
							"chain lacks the issuer)"));
		json_object_set_new(o, "stapled_to",
				    f->stapled_to ? json_incref(f->stapled_to) : json_array());
		json_array_append_new(files, o);
	}
	return json_pack("{s:s, s:I, s:o, s:I}", "dir", O.dir, "rescan_s", (json_int_t)O.rescan_s,
			 "files", files, "files_not_read", (json_int_t)O.skipped);
}

void
sy_ocsp_fini(void)
{
	unsigned i;

	for (i = 0; i < O.n_files; i++)
		file_clear(&O.files[i]);
	O.n_files = 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The journal: every accepted change, appended and fsync'd before the reply,
 * replayed at start (docs/architecture.md section 5). One record per line:
 *
 *     SYJ1 <length, 8 hex> <crc32c of the JSON, 8 hex> <JSON>\n
 *
 * The length and checksum let replay tell a torn last record (power loss or
 * kill -9 mid-write) from a good one; a torn tail is skipped with a warning and
 * cut off so the next append starts on a record boundary.
 */
#ifndef SY_JOURNAL_H
#define SY_JOURNAL_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

struct sy_journal {
	int fd;
	char dir[PATH_MAX];
	char path[PATH_MAX];
	size_t records; /* records in the file now */
};

/* Create dir if needed, open (create) dir/journal. Returns 0 or -errno. */
int sy_journal_open(struct sy_journal *j, const char *dir);
/* Call cb for every good record in order; cut a torn tail. Returns the number
 * of records replayed or -errno. `warned` is set when a torn tail was found. */
int sy_journal_replay(struct sy_journal *j, int (*cb)(json_t *rec, void *arg), void *arg,
		      int *warned);
/* Append one record and fsync. Returns 0 or -errno (nothing was appended:
 * a partial write is cut back off). The fsync is the control thread's one
 * deliberate wait, on the local disk (journal.c). */
int sy_journal_append(struct sy_journal *j, const json_t *rec);
/* The same with the record already printed: rec_len bytes of compact JSON
 * (an apply prints each object once, for the journal and the store). */
int sy_journal_append_text(struct sy_journal *j, const char *rec, size_t rec_len);
/* Replace the whole journal with these records (atomically: temp file, fsync,
 * rename, fsync of the directory). Returns 0 or -errno. */
int sy_journal_rewrite(struct sy_journal *j, const json_t *records);
void sy_journal_close(struct sy_journal *j);

/* mkdir -p with mode 0700 (the state directory). 0 or -errno. */
int sy_mkdir_p(const char *dir);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_hash_crc.h>
#include <rte_log.h>

#include "store/journal.h"

#define RECORD_MAGIC "SYJ1 "
#define HEADER_LEN (5 + 8 + 1 + 8 + 1) /* "SYJ1 " len " " crc " " */
#define RECORD_MAX (64u << 20)

/*
 * CRC32-C of a record. rte_hash_crc() reads 8 bytes at a time straight from
 * the pointer, and a record's JSON starts at an odd offset in the file buffer:
 * copy each word out first so no unaligned load happens.
 */
static uint32_t
record_crc(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0;
	uint64_t word;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&word, p, 8);
		crc = rte_hash_crc_8byte(word, crc);
	}
	for (; len > 0; p++, len--)
		crc = rte_hash_crc_1byte(*p, crc);
	return crc;
}

int
sy_mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int
sy_journal_open(struct sy_journal *j, const char *dir)
{
	int rc;

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	if ((rc = sy_mkdir_p(dir)) < 0)
		return rc;
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	if (snprintf(j->path, sizeof(j->path), "%s/journal", dir) >= (int)sizeof(j->path))
		return -ENAMETOOLONG;
	j->fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	return j->fd < 0 ? -errno : 0;
}

static int
parse_hex8(const char *p, uint32_t *out)
{
	char buf[9];
	char *end;

	memcpy(buf, p, 8);
	buf[8] = '\0';
	*out = (uint32_t)strtoul(buf, &end, 16);
	return end == buf + 8 ? 0 : -1;
}

int
sy_journal_replay(struct sy_journal *j, int (*cb)(json_t *rec, void *arg), void *arg, int *warned)
{
	struct stat sb;
	char *buf;
	size_t off = 0, size;
	int n = 0;

	*warned = 0;
	if (fstat(j->fd, &sb) < 0)
		return -errno;
	size = (size_t)sb.st_size;
	buf = malloc(size + 1);
	if (buf == NULL)
		return -ENOMEM;
	if (pread(j->fd, buf, size, 0) != (ssize_t)size) {
		free(buf);
		return -EIO;
	}
	while (off < size) {
		const char *r = buf + off;
		size_t avail = size - off;
		uint32_t len, crc;
		json_error_t jerr;
		json_t *rec;

		if (avail < HEADER_LEN || memcmp(r, RECORD_MAGIC, 5) != 0 || parse_hex8(r + 5, &len) ||
		    r[13] != ' ' || parse_hex8(r + 14, &crc) || r[22] != ' ' || len > RECORD_MAX ||
		    avail < HEADER_LEN + len + 1 || r[HEADER_LEN + len] != '\n' ||
		    record_crc(r + HEADER_LEN, len) != crc) {
			RTE_LOG(WARNING, USER1,
				"journal %s: torn or corrupt record at offset %zu (%zu bytes to the end "
				"of the file), skipped; %d good records before it\n",
				j->path, off, avail, n);
			*warned = 1;
			/* Cut it off so the next append starts clean. */
			if (ftruncate(j->fd, (off_t)off) < 0 || fsync(j->fd) < 0)
				RTE_LOG(ERR, USER1, "journal %s: cannot truncate: %s\n", j->path,
					strerror(errno));
			break;
		}
		rec = json_loadb(r + HEADER_LEN, len, 0, &jerr);
		if (rec == NULL) {
			/* The checksum matched, so this was written like this: a bug,
			 * not a torn write. Skip just this one. */
			RTE_LOG(ERR, USER1, "journal %s: record at offset %zu is not JSON (%s), skipped\n",
				j->path, off, jerr.text);
		} else {
			if (cb(rec, arg) == 0)
				n++;
			json_decref(rec);
		}
		off += HEADER_LEN + len + 1;
	}
	free(buf);
	j->records = (size_t)n;
	return n;
}

/* A record's text framed: header, text, newline. */
static char *
frame_text(const char *text, size_t len, size_t *outlen)
{
	char *out = len <= RECORD_MAX ? malloc(HEADER_LEN + len + 2) : NULL;

	if (out != NULL) {
		char hdr[64];

		snprintf(hdr, sizeof(hdr), RECORD_MAGIC "%08x %08x ", (uint32_t)len,
			 record_crc(text, len));
		memcpy(out, hdr, HEADER_LEN);
		memcpy(out + HEADER_LEN, text, len);
		out[HEADER_LEN + len] = '\n';
		*outlen = HEADER_LEN + len + 1;
	}
	return out;
}

static char *
format_record(const json_t *rec, size_t *outlen)
{
	char *text = json_dumps(rec, JSON_COMPACT);
	char *out = text ? frame_text(text, strlen(text), outlen) : NULL;

	free(text);
	return out;
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int append_framed(struct sy_journal *j, char *text, size_t len);

int
sy_journal_append(struct sy_journal *j, const json_t *rec)
{
	size_t len;
	char *text = format_record(rec, &len);

	return text ? append_framed(j, text, len) : -ENOMEM;
}

int
sy_journal_append_text(struct sy_journal *j, const char *rec, size_t rec_len)
{
	size_t len;
	char *text = frame_text(rec, rec_len, &len);

	return text ? append_framed(j, text, len) : -ENOMEM;
}

/* Write a framed record (freed here) and wait for the disk. */
static int
append_framed(struct sy_journal *j, char *text, size_t len)
{
	off_t before;
	int rc;

	before = lseek(j->fd, 0, SEEK_END);
	rc = write_all(j->fd, text, len);
	/* The one wait the control thread makes on purpose: an apply is
	 * answered only once its change is on disk (a reply must not promise
	 * what a power cut would take back). It waits for the state
	 * directory's disk, never for a peer: no client, scraper or etcd
	 * member can make it longer (stream_conn.h). */
	if (rc == 0 && fdatasync(j->fd) < 0)
		rc = -errno;
	free(text);
	if (rc < 0) {
		/* Leave no half record behind for the next append to follow. */
		if (before >= 0 && ftruncate(j->fd, before) < 0)
			RTE_LOG(ERR, USER1, "journal %s: cannot cut a failed append\n", j->path);
		return rc;
	}
	j->records++;
	return 0;
}

int
sy_journal_rewrite(struct sy_journal *j, const json_t *records)
{
	char tmp[PATH_MAX + 8];
	size_t i;
	json_t *rec;
	int fd, dfd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.new", j->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	json_array_foreach(records, i, rec) {
		size_t len;
		char *text = format_record(rec, &len);

		rc = text ? write_all(fd, text, len) : -ENOMEM;
		free(text);
		if (rc < 0)
			break;
	}
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	close(fd);
	if (rc == 0 && rename(tmp, j->path) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		return rc;
	}
	/* The rename is durable only once the directory is. */
	dfd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	close(j->fd);
	j->fd = open(j->path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (j->fd < 0)
		return -errno;
	j->records = json_array_size(records);
	return 0;
}

void
sy_journal_close(struct sy_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

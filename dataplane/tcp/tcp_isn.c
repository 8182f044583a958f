/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's ISN and timestamp clock on backend legs (tcp_isn.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "tcp/tcp_isn.h"
#include "tcp/tcp_syncookie.h" /* sy_siphash24 */

int
sy_leg_clock_init(struct sy_leg_clock *lc, uint64_t tsc_per_ms)
{
	struct timespec ts;

	memset(lc, 0, sizeof(*lc));
	if (getrandom(lc->isn_key, sizeof(lc->isn_key), 0) != (ssize_t)sizeof(lc->isn_key) ||
	    getrandom(lc->ts_key, sizeof(lc->ts_key), 0) != (ssize_t)sizeof(lc->ts_key))
		return -EIO;
	clock_gettime(CLOCK_REALTIME, &ts);
	lc->base_tsc = rte_rdtsc();
	lc->base_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	lc->tsc_per_ms = tsc_per_ms ? tsc_per_ms : 1;
	return 0;
}

static int
read_full(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -EINVAL : -errno;
		got += (size_t)n;
	}
	return 0;
}

int
sy_leg_clock_keys_file(struct sy_leg_clock *lc, const char *path)
{
	uint8_t keys[32];
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		rc = read_full(fd, keys, sizeof(keys));
		close(fd);
		if (rc < 0)
			return rc; /* a short file is not silently replaced */
	} else if (errno == ENOENT) {
		/* First start: keep the random keys init chose, for good. */
		memcpy(keys, lc->isn_key, 16);
		memcpy(keys + 16, lc->ts_key, 16);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (write(fd, keys, sizeof(keys)) != (ssize_t)sizeof(keys) || fsync(fd) < 0)
			rc = errno ? -errno : -EIO;
		close(fd);
		if (rc < 0) {
			unlink(path);
			return rc;
		}
	} else {
		return -errno;
	}
	memcpy(lc->isn_key, keys, 16);
	memcpy(lc->ts_key, keys + 16, 16);
	return 0;
}

uint64_t
sy_leg_clock_ns(const struct sy_leg_clock *lc, uint64_t tsc)
{
	uint64_t d = tsc - lc->base_tsc;

	/* In two parts: d * 10^6 overflows 64 bits after two hours. */
	return lc->base_ns + d / lc->tsc_per_ms * 1000000ull +
	       d % lc->tsc_per_ms * 1000000ull / lc->tsc_per_ms;
}

uint32_t
sy_backend_isn(const struct sy_leg_clock *lc, uint64_t tsc, uint32_t saddr, uint32_t daddr,
	       uint16_t sport, uint16_t dport)
{
	struct {
		uint32_t saddr, daddr;
		uint16_t sport, dport;
	} t = { saddr, daddr, sport, dport };

	/* 64 ns a step, as Linux: wraps every 274 s, so a tuple's ISNs
	 * compare as increasing across any TIME_WAIT (60 s on Linux). */
	return (uint32_t)sy_siphash24(lc->isn_key, &t, sizeof(t)) +
	       (uint32_t)(sy_leg_clock_ns(lc, tsc) >> 6);
}

uint32_t
sy_backend_tsval(const struct sy_leg_clock *lc, uint64_t tsc, uint32_t saddr, uint32_t daddr)
{
	uint32_t a[2] = { saddr, daddr };

	/* 1 ms a tick, the rate RFC 7323 5.4 suggests and Linux uses: a
	 * client's TSvals, translated by one delta, keep advancing at about
	 * this rate, so the next connection on the tuple starts past them. */
	return (uint32_t)sy_siphash24(lc->ts_key, a, sizeof(a)) +
	       (uint32_t)(sy_leg_clock_ns(lc, tsc) / 1000000ull);
}

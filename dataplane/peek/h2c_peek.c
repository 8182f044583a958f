/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * h2c with prior knowledge (RFC 9113 3.3): the client's first bytes on the
 * plain listener are the connection preface. It is recognised before the
 * HTTP/1.x peeker sees the stream (which refuses "PRI * HTTP/2.0" as it
 * refuses any asterisk-form but OPTIONS): such a connection has no Host to
 * splice by, each of its streams names its own, so it goes to the proxy.
 */
#include <string.h>

#include "peek/peek.h"

enum sy_peek_status
sy_h2c_preface_peek(const struct sy_frag *frags, unsigned n_frags)
{
	static const char preface[] = SY_H2_PREFACE;
	uint32_t at = 0, i;
	unsigned k;

	for (k = 0; k < n_frags && at < SY_H2_PREFACE_LEN; k++) {
		for (i = 0; i < frags[k].len && at < SY_H2_PREFACE_LEN; i++, at++)
			if (frags[k].data[i] != (uint8_t)preface[at])
				return SY_PEEK_NOT_MINE;
	}
	return at == SY_H2_PREFACE_LEN ? SY_PEEK_DONE : SY_PEEK_MORE;
}

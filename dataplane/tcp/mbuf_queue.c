/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "tcp/mbuf_queue.h"

void
sy_mq_append(struct sy_mq *q, struct rte_mbuf *m)
{
	struct rte_mbuf *last = m;
	uint32_t n = 0;

	for (;;) {
		n += last->data_len;
		if (last->next == NULL)
			break;
		last = last->next;
	}
	if (q->tail != NULL)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = last;
	q->bytes += n;
}

/* Unlink the first segment (the caller frees or moves it). */
static struct rte_mbuf *
unlink_head(struct sy_mq *q)
{
	struct rte_mbuf *m = q->head;

	q->head = m->next;
	if (q->head == NULL)
		q->tail = NULL;
	if (q->seek == m)
		q->seek = NULL;
	q->head_pos += m->data_len;
	m->next = NULL;
	return m;
}

/* Unlink and free the first segment. */
static void
pop_head(struct sy_mq *q)
{
	struct rte_mbuf *m = unlink_head(q);

	m->nb_segs = 1;
	rte_pktmbuf_free_seg(m);
	q->off = 0;
}

void
sy_mq_drop(struct sy_mq *q, uint32_t n)
{
	n = RTE_MIN(n, q->bytes);
	q->bytes -= n;
	while (n > 0) {
		uint32_t room = q->head->data_len - q->off;

		if (n < room) {
			q->off += n;
			return;
		}
		n -= room;
		pop_head(q);
	}
	/* Empty segments at the front (zero-length payloads) go too. */
	while (q->head != NULL && q->off == q->head->data_len)
		pop_head(q);
}

void
sy_mq_free(struct sy_mq *q)
{
	while (q->head != NULL)
		pop_head(q);
	sy_mq_init(q);
}

/* mi, a fresh mbuf, made an indirect one for `len` bytes of m from `start`. */
static struct rte_mbuf *
attach_to(struct rte_mbuf *mi, struct rte_mbuf *m, uint32_t start, uint32_t len)
{
	rte_pktmbuf_attach(mi, m);
	mi->data_off = (uint16_t)(mi->data_off + start);
	mi->data_len = (uint16_t)len;
	mi->pkt_len = len;
	return mi;
}

/* An indirect mbuf for `len` bytes of m from `start`. */
static struct rte_mbuf *
attach_part(struct rte_mbuf *m, uint32_t start, uint32_t len, struct rte_mempool *pool)
{
	struct rte_mbuf *mi = rte_pktmbuf_alloc(pool);

	return mi == NULL ? NULL : attach_to(mi, m, start, len);
}

struct rte_mbuf *
sy_mq_clone_range(struct sy_mq *q, uint32_t off, uint32_t len, struct rte_mempool *pool)
{
	struct rte_mbuf *m = q->head, *first = NULL, *last = NULL;
	uint32_t pos = off + q->off, total = len;
	uint32_t at = q->head_pos + pos; /* the stream position of byte off */
	uint16_t segs = 0;

	/* From where the last clone began, when that is not past off. */
	if (q->seek != NULL && (int32_t)(at - q->seek_pos) >= 0) {
		m = q->seek;
		pos = at - q->seek_pos;
	}
	while (m != NULL && pos >= m->data_len) {
		pos -= m->data_len;
		m = m->next;
	}
	if (m != NULL) {
		q->seek = m;
		q->seek_pos = at - pos;
	}
	while (len > 0 && m != NULL) {
		uint32_t take = RTE_MIN(len, (uint32_t)m->data_len - pos);
		struct rte_mbuf *mi = attach_part(m, pos, take, pool);

		if (mi == NULL) {
			rte_pktmbuf_free(first);
			return NULL;
		}
		if (last != NULL)
			last->next = mi;
		else
			first = mi;
		last = mi;
		segs++;
		len -= take;
		pos = 0;
		m = m->next;
	}
	if (first != NULL) {
		first->pkt_len = total - len;
		first->nb_segs = segs;
	}
	return first;
}

int
sy_mq_move(struct sy_mq *dst, struct sy_mq *src, uint32_t n, struct rte_mempool *pool)
{
	struct rte_mbuf *spare[2], *part;
	const struct rte_mbuf *m;
	unsigned need = 0, used = 0;
	uint32_t left, off;

	n = RTE_MIN(n, src->bytes);
	if (n == 0)
		return 0;
	/* The parts it takes, at most two (the first segment's and the
	 * last's), taken before anything moves: all of it moves or none, so
	 * a caller that tries again later (a request body's framing, counted
	 * as it moves) finds the bytes where they were. */
	for (m = src->head, off = src->off, left = n; left > 0; m = m->next, off = 0) {
		uint32_t room = m->data_len - off;

		if (off != 0 || left < room)
			need++;
		left -= RTE_MIN(left, room);
	}
	if (need > 0 && rte_pktmbuf_alloc_bulk(pool, spare, need) != 0)
		return -ENOBUFS;
	/* A consumed front of the first segment: that segment travels as an
	 * indirect part (its own data_off is shared with nothing else). */
	while (n > 0) {
		struct rte_mbuf *h = src->head;
		uint32_t room = h->data_len - src->off;

		if (src->off == 0 && n >= room) {
			/* The whole segment moves. */
			unlink_head(src);
			src->bytes -= room;
			n -= room;
			sy_mq_append(dst, h);
			continue;
		}
		part = attach_to(spare[used++], h, src->off, RTE_MIN(n, room));
		sy_mq_append(dst, part);
		sy_mq_drop(src, part->data_len);
		n -= part->data_len;
	}
	return 0;
}

unsigned
sy_mq_frags(const struct sy_mq *q, uint32_t off, uint32_t len, struct sy_frag *f, unsigned max)
{
	const struct rte_mbuf *m = q->head;
	uint32_t pos = off + q->off;
	unsigned n = 0;

	len = RTE_MIN(len, q->bytes > off ? q->bytes - off : 0);
	while (m != NULL && pos >= m->data_len) {
		pos -= m->data_len;
		m = m->next;
	}
	while (len > 0 && m != NULL && n < max) {
		uint32_t take = RTE_MIN(len, (uint32_t)m->data_len - pos);

		f[n].data = rte_pktmbuf_mtod_offset(m, const uint8_t *, pos);
		f[n].len = take;
		n++;
		len -= take;
		pos = 0;
		m = m->next;
	}
	return n;
}

void
sy_mq_copy(const struct sy_mq *q, uint32_t off, uint32_t len, void *dst)
{
	struct sy_frag f[16];
	uint8_t *d = dst;

	while (len > 0) {
		unsigned n = sy_mq_frags(q, off, len, f, RTE_DIM(f)), i;

		if (n == 0)
			return;
		for (i = 0; i < n; i++) {
			memcpy(d, f[i].data, f[i].len);
			d += f[i].len;
			off += f[i].len;
			len -= f[i].len;
		}
	}
}

int
sy_mq_append_bytes(struct sy_mq *q, const void *data, uint32_t len, struct rte_mempool *pool)
{
	struct rte_mbuf *first = NULL, *last = NULL;
	const uint8_t *p = data;

	while (len > 0) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint32_t take;

		if (m == NULL) {
			rte_pktmbuf_free(first);
			return -ENOBUFS;
		}
		take = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(m));
		memcpy(rte_pktmbuf_append(m, (uint16_t)take), p, take);
		p += take;
		len -= take;
		if (last != NULL)
			last->next = m;
		else
			first = m;
		last = m;
	}
	if (first != NULL)
		sy_mq_append(q, first);
	return 0;
}

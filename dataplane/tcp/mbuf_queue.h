/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A byte queue of mbuf segments: a terminated connection's send and receive
 * buffers (tcb.h). Each segment holds payload only (its headers were cut off
 * with rte_pktmbuf_adj); segments are linked through m->next, and the
 * queue's first byte is `off` bytes into the first segment. Moving bytes
 * from one queue to another moves segments (and, for a partial segment, an
 * indirect mbuf attached to it): payload that passes through unchanged is
 * never copied.
 *
 * The segments' pkt_len / nb_segs are not kept: the queue is a list, not a
 * packet. Each segment is freed on its own (rte_pktmbuf_free_seg).
 */
#ifndef SY_MBUF_QUEUE_H
#define SY_MBUF_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "peek/peek.h"

struct rte_mbuf;
struct rte_mempool;

struct sy_mq {
	struct rte_mbuf *head, *tail;
	uint32_t off;   /* bytes of head already consumed */
	uint32_t bytes; /* bytes queued (from head + off) */
	/*
	 * Where the last sy_mq_clone_range began: a segment still queued and
	 * the stream position of its first byte (positions count every byte
	 * ever queued, wrapping; head_pos is the head segment's). A send
	 * window goes out as segments at rising offsets, so each starts its
	 * walk here instead of at the head: once through the queue per
	 * window, not once per segment (7 % of a TLS bulk worker's samples
	 * with a 256 KB queue walked from the head every time).
	 */
	struct rte_mbuf *seek;
	uint32_t seek_pos, head_pos;
};

static inline void
sy_mq_init(struct sy_mq *q)
{
	q->head = q->tail = NULL;
	q->off = q->bytes = 0;
	q->seek = NULL;
	q->seek_pos = q->head_pos = 0;
}

/* Append segment chain m (payload only; every segment's data_len counts). */
void sy_mq_append(struct sy_mq *q, struct rte_mbuf *m);
/* Append a copy of len bytes (new segments from pool). 0 or -ENOBUFS
 * (nothing appended). */
int sy_mq_append_bytes(struct sy_mq *q, const void *data, uint32_t len, struct rte_mempool *pool);
/* Drop the first n bytes (n <= bytes), freeing segments that empty. */
void sy_mq_drop(struct sy_mq *q, uint32_t n);
/* Free everything. */
void sy_mq_free(struct sy_mq *q);
/* Move the first n bytes of src to the end of dst. A segment cut in two
 * stays in src and dst gets an indirect mbuf for its part (from pool).
 * Returns 0, or -ENOBUFS (nothing moved). */
int sy_mq_move(struct sy_mq *dst, struct sy_mq *src, uint32_t n, struct rte_mempool *pool);
/* The queue's bytes from `off` as fragments (at most max of them; up to
 * `len` bytes). Returns the number of fragments. */
unsigned sy_mq_frags(const struct sy_mq *q, uint32_t off, uint32_t len, struct sy_frag *f,
		     unsigned max);
/* Copy len bytes from offset off to dst (off + len <= bytes). */
void sy_mq_copy(const struct sy_mq *q, uint32_t off, uint32_t len, void *dst);
/* A chain of indirect mbufs for bytes [off, off + len) (for a segment's
 * payload), or NULL when the pool is empty. Remembers where it began
 * (q->seek). */
struct rte_mbuf *sy_mq_clone_range(struct sy_mq *q, uint32_t off, uint32_t len,
				   struct rte_mempool *pool);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The status page (the HAProxy stats page is the model), served by the
 * control thread on the `metrics` address (metrics_http.c):
 *  - `GET /` (or `/status`): one self-contained HTML page, status_page.html
 *    compiled into routerd (embed_text.py makes status_page_html.c of it at
 *    build time): inline CSS and JavaScript, nothing fetched from elsewhere;
 *  - `GET /status.json`: what the page's script fetches every 2 s and draws:
 *    the router and its shard, the live generation, objects by kind, vhosts
 *    with their rules and pools, route objects with their admission state,
 *    backends with open connections, passive ejection and active health,
 *    each worker's cycles and counters. Counters are totals since start; the
 *    page makes rates of the differences between two fetches.
 *
 * Bounded: the control thread answers one request at a time, so the lists
 * are the first SY_STATUS_MAX_* in name order (with their totals) however
 * large the configuration is; a million routes cost a walk of the store and
 * of the vhost table, never a sort or a parse of all of them.
 */
#ifndef SY_STATUS_PAGE_H
#define SY_STATUS_PAGE_H

#include <stddef.h>

#define SY_STATUS_MAX_VHOSTS 200    /* vhosts listed, by host name */
#define SY_STATUS_MAX_RULES 16      /* rules listed per vhost, in match order */
#define SY_STATUS_MAX_ROUTES 200    /* route objects listed per kind */
#define SY_STATUS_MAX_ENDPOINTS 32  /* endpoints listed per rule's pool */
#define SY_STATUS_MAX_BACKENDS 400  /* distinct backends (address, port) */

struct sy_router;

/* The page (status_page.html), NUL-terminated. */
extern const char sy_status_page_html[];
extern const size_t sy_status_page_html_len;

/* The page's data as JSON text, malloc'd (*len its length), or NULL. */
char *sy_status_page_json(struct sy_router *r, size_t *len);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packing resting objects (control/store/store.h): compact JSON, compressed with
 * zstd against a dictionary built into routerd. A stored Route is ~300 bytes
 * of JSON and its status ~200, mostly the same keys and values in every
 * object; against the dictionary they pack to ~90 and ~30. The dictionary
 * is fixed (never trained on the fly), so packed bytes never need repacking.
 */
#ifndef SY_PACK_H
#define SY_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "region_heap.h"

#include <jansson.h>

/* An object and its status at rest: two zstd frames in one allocation. */
struct sy_packed {
	uint8_t *bytes;      /* the object's frame, then the status's; NULL: nothing yet */
	uint32_t obj_len;    /* 0: no object packed yet */
	uint32_t status_len; /* 0: no status */
};

/* Pack status (NULL: none) beside the object: obj is packed only when p
 * holds no object yet (an object never changes once stored). 0, or -ENOMEM
 * (p unchanged). */
int sy_pack(const json_t *obj, const json_t *status, struct sy_packed *p);
/* Pack a new object from its compact JSON text (len bytes, as the journal
 * has it; p empty): a later sy_pack keeps this frame instead of printing
 * the object again. 0, or -ENOMEM (p unchanged). */
int sy_pack_object_text(const char *text, size_t len, struct sy_packed *p);
/* New references, or NULL (nothing packed, or out of memory). */
json_t *sy_unpack_object(const struct sy_packed *p);
json_t *sy_unpack_status(const struct sy_packed *p);
/* The object's compact JSON text, without parsing it: *len bytes (no NUL),
 * valid until the next call here; NULL when nothing is packed. */
const char *sy_unpack_object_text(const struct sy_packed *p, size_t *len);
void sy_packed_free(struct sy_packed *p);
/* The store's long-lived blocks, packs and object records (pack.c says
 * why), and the bytes they hold, which malloc's statistics do not see. */
extern struct sy_region_heap sy_store_heap;
size_t sy_store_heap_bytes(void);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packing resting objects (control/store.h): compact JSON, compressed with
 * zstd against a dictionary built into routerd. A stored Route is ~300 bytes
 * of JSON and its status ~200, mostly the same keys and values in every
 * object; against the dictionary they pack to ~90 and ~30. The dictionary
 * is fixed (never trained on the fly), so packed bytes never need repacking.
 */
#ifndef SY_PACK_H
#define SY_PACK_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct sy_packed {
	uint8_t *bytes; /* malloc'd zstd frame; NULL: nothing (a NULL json) */
	uint32_t len;
};

/* 0, or -ENOMEM (p unchanged). j NULL packs to nothing. */
int sy_pack(const json_t *j, struct sy_packed *p);
/* New reference, or NULL (nothing packed, or out of memory). */
json_t *sy_unpack(const struct sy_packed *p);
void sy_packed_free(struct sy_packed *p);

#endif

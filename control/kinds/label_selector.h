/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kubernetes label selectors, as router shards are defined (OpenShift's
 * ROUTE_LABELS / NAMESPACE_LABELS): "a=b", "a==b", "a!=b", "a in (x,y)",
 * "a notin (x)", "a" (exists), "!a" (does not exist), joined by commas, all
 * of which must hold. An empty selector matches everything.
 */
#ifndef SY_LABEL_SELECTOR_H
#define SY_LABEL_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct sy_label_selector;

/* 0, or -EINVAL with a message naming the bad term in err. */
int sy_label_selector_parse(const char *text, struct sy_label_selector **out, char *err,
			    size_t errlen);
/* labels: a JSON object of string values (metadata.labels), or NULL. */
bool sy_label_selector_matches(const struct sy_label_selector *s, const json_t *labels);
void sy_label_selector_free(struct sy_label_selector *s);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shard zones the data plane's DNS responder answers for (sy_dns.h,
 * dataplane/dns/dns.h): one per Router with a spec.dns, its spec.vips, IPv4
 * (A) and IPv6 (AAAA) apart (with vrrp on, the workers answer only the
 * active ones of either family: fleet/vips.c), built
 * from the store after each compile and published to the workers only when
 * they changed (fleet.h).
 */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "fleet/fleet.h"
#include "router.h"
#include "store/store.h"
#include "sy_dataplane.h"
#include "sy_dns.h"

static int
cmp_zone(const void *a, const void *b)
{
	return strcmp(((const struct sy_dns_zone *)a)->name, ((const struct sy_dns_zone *)b)->name);
}

struct sy_dns_table *
sy_fleet_dns_table(const struct sy_store *st, uint32_t serial)
{
	size_t n, i, k = 0;
	struct sy_object **routers = sy_store_list(st, &sy_kind_router, NULL, &n);
	struct sy_dns_table *t = calloc(1, sizeof(*t) + (n ? n : 1) * sizeof(t->z[0]));

	if (t == NULL) {
		free(routers);
		return NULL;
	}
	t->serial = serial;
	for (i = 0; i < n; i++) {
		const json_t *spec = json_object_get(routers[i]->obj, "spec"), *v;
		const char *dns = json_string_value(json_object_get(spec, "dns"));
		struct sy_dns_zone *z = &t->z[k];
		size_t len, j, vi;

		if (dns == NULL || (len = strlen(dns)) == 0 || len > SY_DNS_NAME_MAX)
			continue;
		for (j = 0; j < len; j++)
			z->name[j] = (char)(dns[j] >= 'A' && dns[j] <= 'Z' ? dns[j] + 32 : dns[j]);
		if (z->name[len - 1] == '.')
			len--;
		z->name[len] = '\0';
		z->name_len = (uint16_t)len;
		json_array_foreach(json_object_get(spec, "vips"), vi, v) {
			struct sy_fleet_vip a;

			if (sy_fleet_vip_parse(v, &a) < 0)
				continue;
			if (a.family == AF_INET && z->n_vips < SY_DNS_VIPS_MAX)
				memcpy(&z->vips[z->n_vips++], a.addr, 4);
			else if (a.family == AF_INET6 && z->n_vips6 < SY_DNS_VIPS_MAX)
				memcpy(z->vips6[z->n_vips6++], a.addr, 16);
		}
		k++;
	}
	t->n = (uint32_t)k;
	qsort(t->z, t->n, sizeof(t->z[0]), cmp_zone);
	free(routers);
	return t;
}

/* Zones equal but for the serial: no new table (a compile that did not
 * touch the Routers keeps the workers' one). */
static bool
same_zones(const struct sy_dns_table *a, const struct sy_dns_table *b)
{
	return a != NULL && b != NULL && a->n == b->n &&
	       memcmp(a->z, b->z, a->n * sizeof(a->z[0])) == 0;
}

void
sy_fleet_dns_publish(struct sy_router *r)
{
	struct sy_dns_table *t;

	if ((r->cfg.dns_listen == 0 && !r->cfg.dns_listen6_on) || !r->dataplane_up)
		return;
	t = sy_fleet_dns_table(&r->store, (uint32_t)r->gen_id);
	if (t == NULL)
		return;
	if (same_zones(t, r->dns_published)) {
		free(t);
		return;
	}
	free(r->dns_published);
	r->dns_published = malloc(sizeof(*t) + (t->n ? t->n : 1) * sizeof(t->z[0]));
	if (r->dns_published != NULL)
		memcpy(r->dns_published, t, sizeof(*t) + (t->n ? t->n : 1) * sizeof(t->z[0]));
	(void)sy_dp_dns_publish(t); /* takes t */
}

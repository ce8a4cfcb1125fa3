#include <glib.h>
#include <string.h>

#include "server/vg_authguard.h"

typedef struct {
	unsigned failures;        /* in a row */
	uint64_t until_ns;        /* refused before this time */
} entry;

struct vg_authguard {
	GHashTable *table;        /* address (owned) -> entry (owned) */
};

vg_authguard *vg_authguard_new(void)
{
	vg_authguard *g = g_new0(vg_authguard, 1);

	g->table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return g;
}

void vg_authguard_free(vg_authguard *g)
{
	if (!g)
		return;
	g_hash_table_destroy(g->table);
	g_free(g);
}

unsigned vg_authguard_blocked_s(const vg_authguard *g, const char *addr, uint64_t now_ns)
{
	const entry *e = g_hash_table_lookup(g->table, addr);

	if (!e || e->until_ns <= now_ns)
		return 0;
	return (unsigned)((e->until_ns - now_ns + 999999999u) / 1000000000u);
}

/* Makes room for one more address: drops the entry whose block ends
 * first (an address that is not blocked at all goes before any other). */
static void drop_one(vg_authguard *g)
{
	GHashTableIter it;
	gpointer key, value, victim = NULL;
	uint64_t first = UINT64_MAX;

	g_hash_table_iter_init(&it, g->table);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		const entry *e = value;

		if (e->until_ns < first) {
			first = e->until_ns;
			victim = key;
		}
	}
	if (victim)
		g_hash_table_remove(g->table, victim);
}

unsigned vg_authguard_failed(vg_authguard *g, const char *addr, uint64_t now_ns)
{
	entry *e = g_hash_table_lookup(g->table, addr);
	unsigned shift, secs;

	if (!e) {
		if (g_hash_table_size(g->table) >= VG_AUTHGUARD_MAX)
			drop_one(g);
		e = g_new0(entry, 1);
		g_hash_table_insert(g->table, g_strdup(addr), e);
	}
	e->failures++;
	if (e->failures <= VG_AUTHGUARD_FREE)
		return 0;
	shift = MIN(e->failures - VG_AUTHGUARD_FREE - 1, 12u);
	secs = MIN((unsigned)VG_AUTHGUARD_FIRST_S << shift, (unsigned)VG_AUTHGUARD_MAX_S);
	e->until_ns = now_ns + (uint64_t)secs * 1000000000u;
	return secs;
}

void vg_authguard_succeeded(vg_authguard *g, const char *addr)
{
	g_hash_table_remove(g->table, addr);
}

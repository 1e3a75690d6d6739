/* Tests for cmd/lua/label_cache.c: a label is found under its whole key and fingerprint only,
 * mostly survives the table's growth, and the table stops growing at its limit, where new labels
 * take old ones' places and are found at once. */
#include <stdint.h>
#include <stdio.h>
#include "check.h"
#include "label_cache.h"

static uint64_t proto_of(int i)
{
	return 0x7f0000000000ULL + (uint64_t)i * 0x70;
}

static void put(struct label_cache *c, int i)
{
	struct label_entry *e = label_cache_put(c, 1, proto_of(i), i % 5, LABEL_INFO, (uint64_t)i * 3 + 1);
	if (e) {
		e->num = i;
		snprintf(e->text, sizeof e->text, "chunk-%d", i);
	}
}

static int found(struct label_cache *c, int i)
{
	struct label_entry *e = label_cache_get(c, 1, proto_of(i), i % 5, LABEL_INFO, (uint64_t)i * 3 + 1);
	char want[32];
	snprintf(want, sizeof want, "chunk-%d", i);
	return e && e->num == i && strcmp(e->text, want) == 0;
}

static void whole_key(void)
{
	struct label_cache c = { 0 };
	CHECK(label_cache_get(&c, 1, proto_of(0), 0, LABEL_INFO, 1) == NULL);
	put(&c, 0);
	CHECK(found(&c, 0));
	CHECK(label_cache_get(&c, 2, proto_of(0), 0, LABEL_INFO, 1) == NULL);  /* another process */
	CHECK(label_cache_get(&c, 1, proto_of(0), 0, LABEL_INFO, 2) == NULL);  /* another function there */
	CHECK(label_cache_get(&c, 1, proto_of(0), 1, LABEL_INFO, 1) == NULL);  /* another position */
	CHECK(label_cache_get(&c, 1, proto_of(0), 0, LABEL_LINE, 1) == NULL);  /* another kind */
	label_cache_clear(&c);
	CHECK(label_cache_get(&c, 1, proto_of(0), 0, LABEL_INFO, 1) == NULL);
	label_cache_free(&c);
}

static void grows_then_replaces(void)
{
	struct label_cache c = { 0 };
	int n = 20000, lost = 0;
	for (int i = 0; i < n; i++)
		put(&c, i);
	for (int i = 0; i < n; i++)
		lost += !found(&c, i);
	/* under the limit, growth keeps the labels (a probe window found full evicts one) */
	CHECK(lost <= n / 1000);
	size_t grown = c.nslots;
	int newest_lost = 0;
	for (int i = n; i < 40 * n; i++) {
		put(&c, i);
		newest_lost += !found(&c, i);
	}
	CHECK_INT(newest_lost, 0);  /* the newest label is always there */
	CHECK(c.nslots >= grown);
	CHECK(c.nslots <= (1u << 16));  /* the limit holds */
	int kept = 0;
	for (int i = 39 * n; i < 40 * n; i++)
		kept += found(&c, i);
	CHECK(kept > n / 2);  /* recent labels mostly stay */
	label_cache_free(&c);
}

int main(void)
{
	RUN(whole_key);
	RUN(grows_then_replaces);
	CHECK_EXIT();
}

/* libFuzzer target for the pprof reader of `lua-flame diff` (render/pprof_read.c). Input:
 * profile.proto bytes, already decompressed (seeds: tests/fuzz/corpus/pprof-*, lua-flame's
 * own profiles). Besides memory errors (ASan/UBSan) it aborts when a profile is accepted
 * but the tree it gives does not add up: every frame's samples are its own plus its
 * children's. */
#include <stdint.h>
#include <stdlib.h>
#include "diff.h"

static void check_node(const struct fnode *x)
{
	uint64_t sum = x->self;
	for (const struct fnode *c = x->child; c; c = c->next) {
		if (c->parent != x || c->total == 0)
			abort();
		sum += c->total;
	}
	if (sum != x->total)
		abort();
	for (const struct fnode *c = x->child; c; c = c->next)
		check_node(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame *f = flame_new();
	char err[256];
	if (!f)
		return 0;
	if (pprof_parse(f, data, size, err, sizeof(err)) == 0)
		check_node(&f->root);
	flame_free(f);
	return 0;
}

/* Tests for cmd/lua/global_names.c on a fake VM: tables of nodes in a buffer served by the
 * reader, so names, preferences, limits, hostile sizes, failing reads and a VM replaced at the
 * same address can be set up exactly. The real VMs are tested in tests/integ/lua_servers.sh,
 * lua_vm_threads.sh and puc_frames.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "global_names.h"

#define MEM (1u << 20)
#define NODE 24  /* key string (0: none), kind, value */

struct fake {
	uint8_t mem[MEM];
	uint32_t next;
	uint64_t reg;          /* the registry table */
	long reads, fail_after;
	long strings_read, protos_read;
	const char *strings[64];
	int nstrings;
};
static struct fake F;

/* Tables are { nodes, count } at their address; strings are their index + 1; a Lua function
 * is an even address, its proto that address + 1; odd addresses are C functions. */
static int rd(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fake *f = ctx;
	F.reads++;
	if ((f->fail_after >= 0 && F.reads > f->fail_after) || addr >= MEM || len > MEM - addr)
		return -1;
	memcpy(buf, f->mem + addr, len);
	return 0;
}

static int registry(const void *ctx, uint64_t L, uint64_t *g, uint64_t *reg)
{
	const struct fake *f = ctx;
	uint64_t v[1];
	if (rd(ctx, L, v, 8))
		return -1;
	*g = v[0];
	*reg = f->reg;
	return 0;
}

static int hash_part(const void *ctx, uint64_t t, uint64_t *nodes, uint32_t *count)
{
	uint64_t v[2];
	if (rd(ctx, t, v, 16))
		return -1;
	*nodes = v[0];
	*count = (uint32_t)v[1];
	return 0;
}

static void node(const void *ctx, const uint8_t *raw, uint64_t *key, enum gn_kind *kind, uint64_t *val)
{
	(void)ctx;
	uint64_t v[3];
	memcpy(v, raw, sizeof v);
	*key = v[0];
	*kind = (enum gn_kind)v[1];
	*val = v[2];
}

/* As the families' readers: cut to size - 1 bytes, the whole length in *full. */
static long string(const void *ctx, uint64_t s, char *out, size_t size, uint64_t *full)
{
	const struct fake *f = ctx;
	F.strings_read++;
	if (s == 0 || s > (uint64_t)f->nstrings)
		return -1;
	*full = strlen(f->strings[s - 1]);
	snprintf(out, size, "%s", f->strings[s - 1]);
	return (long)strlen(out);
}

static uint64_t proto_of(const void *ctx, uint64_t fn)
{
	(void)ctx;
	F.protos_read++;
	return fn & 1 ? 0 : fn + 1;
}

static const struct gn_ops OPS = { rd, registry, hash_part, NODE, node, string, proto_of };

static uint64_t alloc(uint32_t n)
{
	uint64_t a = F.next;
	F.next += (n + 15) & ~15u;
	return a;
}

static uint64_t str(const char *s)
{
	F.strings[F.nstrings++] = s;
	return (uint64_t)F.nstrings;
}

/* A table of n fields: keys[i] = vals[i] of kinds[i]. */
static uint64_t table(int n, const char *const *keys, const enum gn_kind *kinds, const uint64_t *vals)
{
	uint64_t t = alloc(16), nodes = alloc((uint32_t)(n + 1) * NODE), hdr[2] = { nodes, (uint64_t)n + 1 };
	memcpy(F.mem + t, hdr, 16);
	for (int i = 0; i < n; i++) {
		uint64_t v[3] = { keys[i] ? str(keys[i]) : 0, kinds[i], vals[i] };
		memcpy(F.mem + nodes + (uint64_t)i * NODE, v, sizeof v);
	}
	return t;  /* the extra node stays empty, as free nodes do */
}

static uint64_t L_of(uint64_t g)
{
	uint64_t L = alloc(8);
	memcpy(F.mem + L, &g, 8);
	return L;
}

/* A VM with globals handle (Lua), print (C), M (a table), and module mymod = M holding run,
 * and a module "both" holding handle too. */
static uint64_t setup(void)
{
	memset(&F, 0, sizeof F);
	F.next = 64;
	F.fail_after = -1;
	global_names_clear();
	uint64_t M = table(1, (const char *[]){ "run" }, (enum gn_kind[]){ GN_FUNC }, (uint64_t[]){ 0x2000 });
	uint64_t G = table(3, (const char *[]){ "handle", "print", "M" },
			   (enum gn_kind[]){ GN_FUNC, GN_FUNC, GN_TABLE }, (uint64_t[]){ 0x1000, 0x3001, M });
	uint64_t both = table(1, (const char *[]){ "h" }, (enum gn_kind[]){ GN_FUNC }, (uint64_t[]){ 0x1000 });
	uint64_t loaded = table(3, (const char *[]){ "both", "mymod", "_G" },
				(enum gn_kind[]){ GN_TABLE, GN_TABLE, GN_TABLE }, (uint64_t[]){ both, M, G });
	F.reg = table(2, (const char *[]){ NULL, "_LOADED" }, (enum gn_kind[]){ GN_TABLE, GN_TABLE },
		      (uint64_t[]){ G, loaded });
	return L_of(0x77);
}

static void test_names(void)
{
	char out[128];
	uint64_t L = setup();
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x1001, out, sizeof out), 0);
	CHECK_STR(out, "handle");  /* global first, though module "both" comes first */
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x2001, out, sizeof out), 0);
	CHECK_STR(out, "mymod.run");
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x3002, out, sizeof out), -1);  /* a C function's */
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x9001, out, sizeof out), -1);  /* in no module */
	CHECK_STR(out, "");
}

/* Functions a module gains after a walk are found by the next lookup; a walk again reads the
 * tables' nodes, but neither the prototypes of the functions nor the names of the modules. */
static void test_walk_again(void)
{
	char out[128];
	uint64_t L = setup();
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x9001, out, sizeof out), -1);  /* a whole walk */
	long protos = F.protos_read, strings = F.strings_read;
	uint64_t later = table(1, (const char *[]){ "later" }, (enum gn_kind[]){ GN_FUNC }, (uint64_t[]){ 0x9000 });
	uint64_t hdr[2];
	memcpy(hdr, F.mem + later, 16);
	memcpy(F.mem + 64 + 16, hdr, 16);  /* mymod (the first table made) now holds "later" alone */
	memcpy(F.mem + 64, hdr, 16);
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x9001, out, sizeof out), 0);
	CHECK_STR(out, "mymod.later");
	/* the new function's, and the checks of the VM's first function and of the one found */
	CHECK_INT(F.protos_read - protos, 1 + 1 + 1);
	CHECK(F.strings_read - strings <= 2 + 1);   /* "_LOADED", the new field's key, nothing else */
	CHECK_INT(global_name(&OPS, &F, 2, L, 0x1001, out, sizeof out), 0);  /* another process: its own */
	CHECK_STR(out, "handle");
}

/* A module put in package.loaded after a walk that stopped at _G is found too. */
static void test_new_module(void)
{
	char out[128];
	uint64_t L = setup();
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x1001, out, sizeof out), 0);  /* found in _G: walk stops */
	uint64_t mod = table(1, (const char *[]){ "go" }, (enum gn_kind[]){ GN_FUNC }, (uint64_t[]){ 0xa000 });
	uint64_t loaded, nodes, v[3] = { str("late"), GN_TABLE, mod };
	memcpy(&nodes, F.mem + F.reg, 8);
	memcpy(&loaded, F.mem + nodes + NODE + 16, 8);
	memcpy(&nodes, F.mem + loaded, 8);
	memcpy(F.mem + nodes + 3 * NODE, v, sizeof v);  /* loaded's free node */
	CHECK_INT(global_name(&OPS, &F, 1, L, 0xa001, out, sizeof out), 0);
	CHECK_STR(out, "late.go");
}

/* A VM closed and another made at the same address (a state per request): the field the
 * name came from holds another function, so the VM is walked again at once. */
static void test_vm_replaced(void)
{
	char out[128];
	uint64_t L = setup();
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x1001, out, sizeof out), 0);
	memset(F.mem + 64, 0, F.next - 64);  /* the old VM's memory is freed */
	L = L_of(0x77);                       /* and the new VM's global state is where its was */
	uint64_t M2 = table(1, (const char *[]){ "handle" }, (enum gn_kind[]){ GN_FUNC }, (uint64_t[]){ 0x5000 });
	uint64_t loaded = table(1, (const char *[]){ "_G" }, (enum gn_kind[]){ GN_TABLE }, (uint64_t[]){ M2 });
	F.reg = table(1, (const char *[]){ "_LOADED" }, (enum gn_kind[]){ GN_TABLE }, (uint64_t[]){ loaded });
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x1001, out, sizeof out), -1);
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x5001, out, sizeof out), 0);
	CHECK_STR(out, "handle");
}

/* Hostile tables: a hash part claiming 2^30 nodes costs a bounded number of reads; a name
 * too long to keep whole and a key that is not a string give no name. */
static void test_hostile(void)
{
	char out[128];
	uint64_t L = setup();
	uint64_t huge = table(1, (const char *[]){ "big" }, (enum gn_kind[]){ GN_FUNC }, (uint64_t[]){ 0x6000 });
	uint64_t hdr[2] = { 64, 1u << 30 };  /* nodes over the whole buffer */
	memcpy(F.mem + huge, hdr, 16);
	static char longname[200];
	memset(longname, 'x', sizeof longname - 1);
	uint64_t odd = table(2, (const char *[]){ longname, NULL }, (enum gn_kind[]){ GN_FUNC, GN_FUNC },
			     (uint64_t[]){ 0x7000, 0x8000 });
	uint64_t loaded = table(2, (const char *[]){ "huge", "odd" }, (enum gn_kind[]){ GN_TABLE, GN_TABLE },
				(uint64_t[]){ huge, odd });
	F.reg = table(1, (const char *[]){ "_LOADED" }, (enum gn_kind[]){ GN_TABLE }, (uint64_t[]){ loaded });
	F.reads = 0;
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x7001, out, sizeof out), -1);
	CHECK(F.reads < 4000);
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x8001, out, sizeof out), -1);
}

static void test_reads_fail(void)
{
	char out[128];
	uint64_t L = setup();
	F.fail_after = 0;
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x1001, out, sizeof out), -2);
	setup();
	F.fail_after = 3;  /* the registry, then failing in the middle of the walk */
	CHECK(global_name(&OPS, &F, 1, L, 0x1001, out, sizeof out) < 0);
	F.fail_after = -1;
	CHECK_INT(global_name(&OPS, &F, 1, 0, 0x1001, out, sizeof out), -1);  /* no thread */
	CHECK_INT(global_name(&OPS, &F, 1, L, 0x1001, out, 0), -1);
}

int main(void)
{
	RUN(test_names);
	RUN(test_walk_again);
	RUN(test_new_module);
	RUN(test_vm_replaced);
	RUN(test_hostile);
	RUN(test_reads_fail);
	global_names_clear();
	CHECK_EXIT();
}

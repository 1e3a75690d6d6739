/* Per-version PUC Lua layouts (generated block below) and the lookups over them: the table for a
 * version, and the version named by the identification strings inside a Lua binary. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* memmem */
#endif
#include <string.h>
#include "puc_layouts.h"

/*
 * Register holding L inside luaV_execute's main loop on Debian 12's stripped builds (a hint for
 * which unwound register to try first; the profiler still tries every callee-saved register and
 * accepts a candidate only when its l_G is a known global state). Measured by attaching gdb to a
 * CPU-busy script at random moments: every sample fell in the largest .eh_frame FDE of the file
 * (luaV_execute; vaddr range given) and one register equalled the L that lua_type received, both
 * for the main thread and inside a coroutine:
 *   lua5.1 5.1.5       rbp   0x16720-0x17e4a
 *   lua5.2 5.2.4       rbp   0x17960-0x190d7
 *   lua5.3 5.3.6       r12   0x19240-0x1b5be
 *   liblua5.3.so.0     r12   0x1c120-0x1e49e  (5.3.6, haproxy's; run by a small host program)
 *   lua5.4 5.4.4       r15   0x1b3a0-0x1ef0a
 *   redis-server 7.0   rbx   0x1613d0-0x162a45  (its own Lua 5.1.5 copy)
 */


#define NTABLES lua_layout_count

size_t puc_layout_count(void)
{
	return NTABLES;
}

const struct puc_layout *puc_layout_at(size_t i)
{
	return i < NTABLES ? &lua_layout_table[i] : NULL;
}

const struct puc_layout *puc_layout_for(int major, int minor, int patch)
{
	const struct puc_layout *newest = NULL;
	for (size_t i = 0; i < NTABLES; i++) {
		const struct puc_layout *t = &lua_layout_table[i];
		if (t->major != major || t->minor != minor)
			continue;
		if (patch >= t->patch_lo && patch <= t->patch_hi)
			return t;
		if (!newest || t->patch_hi > newest->patch_hi)
			newest = t;
	}
	/* Unknown or newer patch: the newest table is the best guess; callers validate it. */
	if (newest && (patch < 0 || patch > newest->patch_hi))
		return newest;
	return NULL;
}

/* Parses "D.D[.D]" at p (bounded by end) followed by a space; returns the end of the number or NULL.
 * Digit counts are capped so hostile input cannot overflow. */
static const char *parse_version(const char *p, const char *end, int *maj, int *min, int *patch)
{
	int v[3] = { 0, 0, 0 }, n = 0;
	static const int maxdigits[3] = { 2, 2, 3 };
	while (n < 3) {
		int d = 0;
		while (p < end && *p >= '0' && *p <= '9' && d < maxdigits[n]) {
			v[n] = v[n] * 10 + (*p - '0');
			p++, d++;
		}
		if (d == 0 || (p < end && *p >= '0' && *p <= '9'))
			return NULL;
		n++;
		if (n == 3 || p >= end || *p != '.' || p + 1 >= end || p[1] < '0' || p[1] > '9')
			break;
		p++;
	}
	if (n < 2 || p >= end || *p != ' ')
		return NULL;
	*maj = v[0], *min = v[1], *patch = v[2];
	return p;
}

/* First "PREFIX<version> " in buf; with tail set, the version must be followed by one or two
 * spaces and tail. */
static int find_after(const char *buf, size_t len, const char *prefix, const char *tail,
		      int *maj, int *min, int *patch)
{
	const char *end = buf + len, *p = buf;
	size_t plen = strlen(prefix), tlen = tail ? strlen(tail) : 0;
	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), prefix, plen);
		if (!hit)
			return 0;
		p = hit + plen;
		int a, b, c;
		const char *q = parse_version(p, end, &a, &b, &c);
		if (!q)
			continue;
		if (tail) {
			q++;
			if (q < end && *q == ' ')
				q++;
			if ((size_t)(end - q) < tlen || memcmp(q, tail, tlen) != 0)
				continue;
		}
		*maj = a, *min = b, *patch = c;
		return 1;
	}
	return 0;
}

int puc_version_from_bytes(const char *buf, size_t len, int *maj, int *min, int *patch)
{
	if (!buf)
		return LUA_VSRC_NONE;
	/* lua_ident: 5.2+ "$LuaVersion: Lua 5.x.y  Copyright ...", 5.1 "$Lua: Lua 5.1.y Copyright ..." */
	if (find_after(buf, len, "$LuaVersion: Lua ", NULL, maj, min, patch) ||
	    find_after(buf, len, "$Lua: Lua ", NULL, maj, min, patch))
		return LUA_VSRC_IDENT;
	/* LUA_COPYRIGHT as printed by the standalone interpreter's banner. */
	if (find_after(buf, len, "Lua ", "Copyright (C) ", maj, min, patch))
		return LUA_VSRC_RELEASE;
	return LUA_VSRC_NONE;
}

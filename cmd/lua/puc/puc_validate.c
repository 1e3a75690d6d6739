/* Checks a global state the memory scan found against the live VM before it is used: the
 * metamethod names it holds, its main thread's stack bounds and a CallInfo chain that reaches
 * the thread's base. A layout taken on trust (a release newer than the tables) must pass too. */
#include <string.h>

#include "proc.h"
#include "puc_frames.h"
#include "puc_runtime.h"

#define MAX_CI_WALK 65536        /* CallInfos followed to reach the base: Lua-to-Lua calls add one
				  * each, up to what the stack limit allows */
#define MAX_STACK_SLOTS 1200000  /* LUAI_MAXSTACK (1,000,000) plus the extra Lua keeps */
#define TRIES 3                  /* the VM runs while it is read: a torn read gets another go */

static long read_pid(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return (long)proc_read_mem((pid_t)(intptr_t)ctx, addr, buf, len);
}

static int rd64(const struct puc_mem *m, uint64_t addr, uint64_t *v)
{
	return puc_rd(m, addr, v, 8);
}

/* G->tmname[TM_INDEX] is the string "__index" in every version. */
static int tmname_ok(const struct puc_layout *l, const struct puc_mem *m, uint64_t g)
{
	uint64_t ts;
	char s[16];
	if (l->tm[LTM_INDEX] == LUA_OP_NONE || rd64(m, g + l->g_tmname + 8ULL * l->tm[LTM_INDEX], &ts) < 0)
		return 0;
	return puc_tstring(l, m, ts, s, sizeof s, NULL) == 7 && strcmp(s, "__index") == 0;
}

/* stack <= top <= stack_last, and a stack no larger than Lua allows. */
static int stack_ok(const struct puc_layout *l, const struct puc_mem *m, uint64_t L, uint64_t *lo, uint64_t *hi)
{
	uint64_t top;
	if (rd64(m, L + l->l_stack, lo) < 0 || rd64(m, L + l->l_stack_last, hi) < 0 ||
	    rd64(m, L + l->l_top, &top) < 0)
		return 0;
	if (!*lo || *hi <= *lo || (*hi - *lo) / l->stack_slot > MAX_STACK_SLOTS)
		return 0;
	/* top may run a few slots past stack_last (EXTRA_STACK) */
	return top >= *lo && top <= *hi + 16ULL * l->stack_slot;
}

/* From L->ci back to the base CallInfo, every frame's function inside the stack: CHAIN_BASE when
 * the base was reached, CHAIN_LONG when every one of MAX_CI_WALK frames was consistent, else 0. */
enum { CHAIN_BASE = 1, CHAIN_LONG = 2 };
static int chain_ok(const struct puc_layout *l, const struct puc_mem *m, uint64_t L, uint64_t lo, uint64_t hi)
{
	uint64_t ci, base, end = 0;
	if (rd64(m, L + l->l_ci, &ci) < 0 || !ci)
		return 0;
	if (l->flags & LUA_LF_CI_ARRAY) {
		if (rd64(m, L + l->l_base_ci, &base) < 0 || rd64(m, L + l->l_end_ci, &end) < 0)
			return 0;
		return base && ci >= base && ci < end && (ci - base) % l->ci_sizeof == 0 ? CHAIN_BASE : 0;
	}
	base = L + l->l_base_ci;
	for (int i = 0; i < MAX_CI_WALK; i++) {
		uint64_t func, prev;
		if (ci == base)
			return rd64(m, base + l->ci_previous, &prev) == 0 && prev == 0 ? CHAIN_BASE : 0;
		if (rd64(m, ci + l->ci_func, &func) < 0 || func < lo || func > hi ||
		    rd64(m, ci + l->ci_previous, &prev) < 0 || !prev)
			return 0;
		ci = prev;
	}
	return CHAIN_LONG;
}

int puc_runtime_state_ok(const struct puc_runtime *rt, uint64_t g)
{
	const struct puc_layout *l = rt->lay;
	struct puc_mem m = { read_pid, (void *)(intptr_t)rt->pid };
	uint64_t L = g - l->lg_g + l->lg_l, lG;
	for (int t = 0; t < TRIES; t++) {
		uint64_t lo, hi;
		if (rd64(&m, L + l->l_l_G, &lG) < 0 || lG != g)
			return 0;
		if (!tmname_ok(l, &m, g) || !stack_ok(l, &m, L, &lo, &hi))
			continue;
		/* a layout taken on trust must show the whole chain; a verified one a consistent part */
		int chain = chain_ok(l, &m, L, lo, hi);
		if (chain == CHAIN_BASE || (chain == CHAIN_LONG && !rt->trusted))
			return 1;
	}
	return 0;
}

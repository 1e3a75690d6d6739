/* Merge of native and Lua frames around the markers of deep Lua stacks: frames left out
 * between the innermost and outermost kept ones ([lua: N frames elided]) must leave the
 * outermost frames under the host's API call, and a stack cut at the walk's depth limit
 * must hang its innermost frames under the innermost API call. */
#include "check.h"
#include "lua_merge.h"

/* Fake process: functions start on 0x100 boundaries; 0x3000 is lua_pcallk, 0x4000 the host
 * C function (pmain) that Lua calls and that calls lua_pcallk again. The BPF side marks the
 * frames of lua_pcallk as the host's entries into the VM. */
#define PCALL (0x3030 | LF_NAT_ENTRY)
enum { LEAF = 0x1010, VM = 0x2020, PMAIN = 0x4040, MAIN = 0x5050, START = 0x6060 };
#define W(tag, v) (((__u64)(tag) << LF_TAG_SHIFT) | (v)) /* constant: used in initializers */

/* The merge's input as the fold gives it: each native frame's function start; the
 * stacks merged here are PUC Lua's, whose family leaves the merge's rules at 0. */
static int merge(struct lm_stack *s, struct lm_out *o, int max)
{
	for (int i = 0; i < s->nnat; i++)
		s->nat[i].func = s->nat[i].addr & ~0xffULL;
	return lm_merge(s, NULL, o, max);
}

/* Native frames leaf first: the VM running the Lua code, lua_pcallk called by pmain, pmain
 * run by lua_pcallk, called by main. */
static int natives(__u64 *w)
{
	static const __u64 nat[] = { W(LF_TAG_EXACT, LEAF), VM, PCALL, PMAIN, PCALL, MAIN, START };
	for (int i = 0; i < 7; i++)
		w[i] = nat[i];
	return 7;
}

static int lua_frame(__u64 *w, int tag, __u64 ptr, __u64 aux)
{
	w[0] = W(tag, ptr);
	w[1] = aux;
	return 2;
}

/* Renders the merge as a string: N<index> for native frames, L<ptr> for Lua frames, [E<n>]
 * and [D] for the markers. */
static void render(const struct lm_stack *s, const struct lm_out *o, int n, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < n && at < size; i++) {
		const struct lm_lua *f = o[i].kind == LM_LUA ? &s->th[o[i].a].f[o[i].b] : NULL;
		if (!f)
			at += (size_t)snprintf(buf + at, size - at, "N%d ", o[i].a);
		else if (f->marker && f->aux)
			at += (size_t)snprintf(buf + at, size - at, "[E%llu] ", (unsigned long long)f->aux);
		else if (f->marker)
			at += (size_t)snprintf(buf + at, size - at, "[D] ");
		else
			at += (size_t)snprintf(buf + at, size - at, "L%llx ", (unsigned long long)f->ptr);
	}
}

static void elided_keeps_root(void)
{
	__u64 w[64];
	int n = natives(w);
	w[n++] = W(LF_TAG_LTHREAD, 0x7000);
	/* innermost first: work, rec, rec, 2873 left out, rec, rec, main chunk, pmain (C) */
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa1, 0);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa2, 0x111);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa2, 0x111);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0, 2873);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa2, 0x111);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa2, 0x111);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa3, 0x222);
	n += lua_frame(w + n, LF_TAG_LCFUNC, 0x4000, 0);
	w[n++] = W(LF_TAG_LPOS, 0); /* thread 0 running at the leaf */
	static struct lm_stack s;
	struct lm_out o[64];
	lm_decode(w, n, &s);
	CHECK_INT(s.nnat, 7);
	CHECK_INT(s.nth, 1);
	CHECK_INT(s.th[0].n, 8);
	CHECK(s.th[0].f[3].marker && s.th[0].f[3].aux == 2873);
	CHECK(!s.th[0].f[0].marker && !s.th[0].f[7].marker);
	char buf[256];
	render(&s, o, merge(&s, o, 64), buf, sizeof(buf));
	CHECK_STR(buf, "N6 N5 N4 L4000 N2 La3 La2 La2 [E2873] La2 La2 La1 ");
}

static void depth_limit_hangs_under_innermost_entry(void)
{
	__u64 w[64];
	int n = natives(w);
	w[n++] = W(LF_TAG_LTHREAD, 0x7000);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa1, 0);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa2, 0x111);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0, 0); /* the root side lost */
	w[n++] = W(LF_TAG_LPOS, 0);
	static struct lm_stack s;
	struct lm_out o[64];
	lm_decode(w, n, &s);
	CHECK(s.th[0].f[2].marker && s.th[0].f[2].aux == 0);
	char buf[256];
	render(&s, o, merge(&s, o, 64), buf, sizeof(buf));
	CHECK_STR(buf, "N6 N5 N4 N3 N2 [D] La2 La1 ");
}

/* The frames left out called pcall twice; the outer pcall is kept. The part inside the
 * marker starts at it, and is entered through the outer pcall's lua_pcallk, not the
 * innermost one: that one belongs to the frames left out. */
static void elided_after_c_function(void)
{
	static const __u64 nat[] = { W(LF_TAG_EXACT, LEAF), VM, PCALL, 0x9010, VM, PCALL, 0x9010, VM, PCALL,
				     PMAIN, PCALL, MAIN, START };
	__u64 w[64];
	int n = 0;
	for (; n < 13; n++)
		w[n] = nat[n];
	w[n++] = W(LF_TAG_LTHREAD, 0x7000);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa1, 0);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0, 500);
	n += lua_frame(w + n, LF_TAG_LCFUNC, 0x9000, 0); /* pcall */
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa3, 0x222);
	n += lua_frame(w + n, LF_TAG_LCFUNC, 0x4000, 0);
	w[n++] = W(LF_TAG_LPOS, 0);
	static struct lm_stack s;
	struct lm_out o[64];
	lm_decode(w, n, &s);
	char buf[256];
	render(&s, o, merge(&s, o, 64), buf, sizeof(buf));
	CHECK_STR(buf, "N12 N11 N10 L4000 N8 La3 L9000 N5 [E500] La1 ");
}

static void luajit_marker(void)
{
	__u64 w[64];
	int n = natives(w);
	w[n++] = W(LF_TAG_LTHREAD, 0x7000);
	w[n++] = W(LF_TAG_LJSTATE, (__u32)~0u);
	n += lua_frame(w + n, LF_TAG_LJFUNC, 0xb1, 0);
	n += lua_frame(w + n, LF_TAG_LJFUNC, 0, 40);
	n += lua_frame(w + n, LF_TAG_LJFUNC, 0xb2, LF_LFLAG_CENTRY);
	static struct lm_stack s;
	lm_decode(w, n, &s);
	CHECK_INT(s.th[0].n, 3);
	CHECK(s.th[0].f[1].marker && s.th[0].f[1].lj && s.th[0].f[1].aux == 40);
	CHECK(!s.th[0].f[0].marker && !s.th[0].f[2].marker);
}

/* A LuaJIT C function the kernel named by its C function and ffid: a C frame whose ffid
 * leaves the pc word, so that no fingerprint is read from it. */
static void luajit_cfunc(void)
{
	__u64 w[64];
	int n = natives(w);
	w[n++] = W(LF_TAG_LTHREAD, 0x7000);
	w[n++] = W(LF_TAG_LJSTATE, (__u32)~0u);
	n += lua_frame(w + n, LF_TAG_LJCFUNC, 0x4040, (97ULL << LF_LJ_FFID_SHIFT) | LF_LFLAG_CENTRY | 0x10);
	static struct lm_stack s;
	lm_decode(w, n, &s);
	CHECK_INT(s.th[0].n, 1);
	const struct lm_lua *f = &s.th[0].f[0];
	CHECK(f->c && f->lj && !f->marker && f->ptr == 0x4040);
	CHECK_INT(f->ffid, 97);
	CHECK(f->aux == (LF_LFLAG_CENTRY | 0x10) && lm_fp(f) == 0);
}

/* A stripped static host: no frame marked as an entry. table.sort (0x9000) calls auxsort,
 * sort_comp and lua_callk, which runs the comparator through luaD_callnoyield (0xc000) and
 * luaV_execute (0x2000), functions the main chunk's path from lua_pcallk already ran
 * through: sort's frames down to lua_callk stay, the VM's below it go. */
static void static_host_callback(void)
{
	static const __u64 nat[] = { W(LF_TAG_EXACT, 0x2010), 0xc020, 0xd030, 0xe040, 0xf050, 0x9010, 0xa010,
				     0x2030, 0xc040, 0xb010, MAIN, START };
	__u64 w[64];
	int n = 0;
	for (; n < 12; n++)
		w[n] = nat[n];
	w[n++] = W(LF_TAG_LTHREAD, 0x7000);
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa1, 0);      /* the comparator */
	n += lua_frame(w + n, LF_TAG_LCFUNC, 0x9000, 0);   /* sort */
	n += lua_frame(w + n, LF_TAG_LFUNC, 0xa3, 0x222);  /* main chunk */
	w[n++] = W(LF_TAG_LPOS, 0);  /* both ends of the run of frames holding L */
	w[n++] = W(LF_TAG_LPOS, 9);
	static struct lm_stack s;
	struct lm_out o[64];
	lm_decode(w, n, &s);
	char buf[256];
	render(&s, o, merge(&s, o, 64), buf, sizeof(buf));
	CHECK_STR(buf, "N11 N10 N9 La3 L9000 N4 N3 N2 La1 ");
}

int main(void)
{
	RUN(elided_keeps_root);
	RUN(depth_limit_hangs_under_innermost_entry);
	RUN(elided_after_c_function);
	RUN(luajit_marker);
	RUN(luajit_cfunc);
	RUN(static_host_callback);
	CHECK_EXIT();
}

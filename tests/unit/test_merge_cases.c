/* Table-driven tests of the merge of native and Lua frames (lm_decode + lm_merge): each case
 * is a stack record written in a small text form (the native frames by function name, the
 * lua_States with their frames, where each lua_State was seen) and the merged stack expected,
 * root first. The cases follow what PUC Lua and LuaJIT really leave on a stack.
 *
 *   nat:  native frames leaf first, by function name; "name+N" is N bytes further into the
 *         same function, "trace:N" a LuaJIT trace, "mark:N" ends the native part with lf_mark N
 *   lua:  lua_States separated by "|", each "L=ADDR [lj] : frames innermost first" (lj: a
 *         LuaJIT thread; a case with one is merged by the rules the LuaJIT family sets), a frame
 *         being "f:NAME" (Lua function), "c:NAME" (C function: the native function NAME),
 *         "c:-" (a LuaJIT built-in, no native function), "E:N" (N frames left out), "D" (the
 *         root side lost); "!" after a frame marks it entered from C (LuaJIT's C frames)
 *   pos:  "THREAD@FRAME ..." native frame (leaf = 0) where a lua_State was seen
 * The record marks the host's entries into a VM as the BPF side does: the frames of native
 * functions whose name starts with lua_ (PUC Lua's API functions, found by their addresses;
 * for LuaJIT, the callers of the VM's C frames on a chain already seen), and for LuaJIT the
 * caller of each frame where a lua_State was seen (the VM's own C frame). */
#include <stdlib.h>

#include <stdio.h>
#include <string.h>
#include "lua_merge.h"
#include "runtime.h"

#define MAXN 64
static const char *fnames[MAXN];
static int nfn;

/* Functions live at 0x10000 * (index + 1); a frame's address is inside its function. */
static uint64_t fn_addr(const char *name, size_t len)
{
	for (int i = 0; i < nfn; i++)
		if (strlen(fnames[i]) == len && !strncmp(fnames[i], name, len))
			return 0x10000ULL * (uint64_t)(i + 1);
	fnames[nfn] = strndup(name, len);
	return 0x10000ULL * (uint64_t)(++nfn);
}

static const char *fn_name(uint64_t addr)
{
	int i = (int)(addr / 0x10000) - 1;
	return i >= 0 && i < nfn ? fnames[i] : "?";
}

/* The merge's input as the fold gives it: each native frame's function start, looked up at
 * the byte before its return address. */
static void func_starts(struct lm_stack *s)
{
	for (int i = 0; i < s->nnat; i++)
		s->nat[i].func = (s->nat[i].addr - 1) & ~0xffffULL;
}

#define W(tag, v) lf_word(tag, v)

static int put_native(__u64 *w, int n, const char *tok, size_t len)
{
	const char *plus = memchr(tok, '+', len);
	if (!strncmp(tok, "trace:", 6))
		return w[n] = W(LF_TAG_LJTRACE, strtoull(tok + 6, NULL, 10)), n + 1;
	if (!strncmp(tok, "mark:", 5))
		return w[n] = W(LF_TAG_MARK, strtoull(tok + 5, NULL, 10)), n + 1;
	uint64_t a = fn_addr(tok, plus ? (size_t)(plus - tok) : len) + 0x10 + (plus ? strtoull(plus + 1, NULL, 10) : 0);
	w[n] = n == 0 ? W(LF_TAG_EXACT, a) : a;
	if (!strncmp(tok, "lua_", 4))
		w[n] |= LF_NAT_ENTRY;
	return n + 1;
}

/* One Lua frame token: its two words. Lua functions are named by a fake Proto address. */
static int put_lua(__u64 *w, int n, const char *tok, size_t len, int lj)
{
	int centry = tok[len - 1] == '!';
	size_t l = len - (size_t)centry;
	__u64 aux = centry ? LF_LFLAG_CENTRY : 0, ptr;
	int tag = lj ? LF_TAG_LJFUNC : LF_TAG_LFUNC;
	if (!strncmp(tok, "E:", 2) || (l == 1 && tok[0] == 'D')) {
		ptr = 0;
		aux = tok[0] == 'E' ? strtoull(tok + 2, NULL, 10) : 0;
	} else if (!strncmp(tok, "c:-", 3)) {
		ptr = 0;
		tag = LF_TAG_LCFUNC;
	} else if (!strncmp(tok, "c:", 2)) {
		ptr = fn_addr(tok + 2, l - 2);
		tag = LF_TAG_LCFUNC; /* a LuaJIT frame as luajit_resolve leaves it */
	} else {
		ptr = fn_addr(tok + 2, l - 2) | 0x8000; /* a Proto: never a native function's start */
	}
	w[n] = W(tag, ptr);
	w[n + 1] = aux;
	return n + 2;
}

/* The next space-separated token of *s (its length), advancing *s past it; 0 at the end. */
static size_t token(const char **s, const char **tok)
{
	*s += strspn(*s, " ");
	*tok = *s;
	size_t len = strcspn(*s, " ");
	*s += len;
	return len;
}

/* The case's record into w; returns its length, and in *lj whether a lua_State is LuaJIT's. */
static int encode(const char *nat, const char *lua, const char *pos, __u64 *w, int *lj_case)
{
	int n = 0;
	const char *t;
	for (size_t len; (len = token(&nat, &t));)
		n = put_native(w, n, t, len);
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", lua);
	int nnat = n - (n && lf_word_tag(w[n - 1]) == LF_TAG_MARK), nth = 0, is_lj[8] = { 0 };
	for (char *save = NULL, *th = strtok_r(buf, "|", &save); th; th = strtok_r(NULL, "|", &save)) {
		char *colon = strchr(th, ':');
		*colon = 0;
		int lj = strstr(th, " lj") != NULL;
		if (nth < 8)
			is_lj[nth++] = lj;
		*lj_case |= lj;
		w[n++] = W(LF_TAG_LTHREAD, strtoull(strstr(th, "L=") + 2, NULL, 16));
		if (lj)
			w[n++] = W(LF_TAG_LJSTATE, 0);
		const char *f = colon + 1;
		for (size_t len; (len = token(&f, &t));)
			n = put_lua(w, n, t, len, lj);
	}
	for (size_t len; (len = token(&pos, &t));) {
		unsigned long thread = strtoul(t, NULL, 10), frame = strtoul(strchr(t, '@') + 1, NULL, 10);
		w[n++] = W(LF_TAG_LPOS, (thread << 16) | frame);
		if (thread < 8 && is_lj[thread] && frame + 1 < (unsigned long)nnat)
			w[frame + 1] |= LF_NAT_ENTRY;
	}
	return n;
}

/* The merge, root first: native frames and C functions by name, Lua functions by name,
 * [trace N], [E N] and [D] for the markers. */
static void render(const struct lm_stack *s, const struct lm_out *o, int n, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < n && at < size; i++) {
		const char *sep = i ? " " : "";
		if (o[i].kind == LM_NATIVE) {
			const struct lm_native *f = &s->nat[o[i].a];
			if (f->tag == LF_TAG_LJTRACE)
				at += (size_t)snprintf(buf + at, size - at, "%s[trace %llu]", sep, (unsigned long long)f->addr);
			else
				at += (size_t)snprintf(buf + at, size - at, "%s%s", sep, fn_name(f->addr - 1));
			continue;
		}
		const struct lm_lua *f = &s->th[o[i].a].f[o[i].b];
		if (f->marker)
			at += (size_t)snprintf(buf + at, size - at, f->aux ? "%s[E %llu]" : "%s[D]", sep,
					       (unsigned long long)f->aux);
		else
			at += (size_t)snprintf(buf + at, size - at, "%s%s", sep, f->ptr ? fn_name(f->ptr) : "[builtin]");
	}
}

struct merge_case { const char *name, *nat, *lua, *pos, *want; };

static const struct merge_case cases[] = {
	{ "PUC: Lua code running, entered by the host's lua_pcallk",
	  "luaV_execute luaD_call lua_pcallk docall main _start",
	  "L=7000 : f:work f:chunk", "0@0",
	  "_start main docall lua_pcallk chunk work" },
	{ "PUC: the VM's helpers below the interpreter stay",
	  "luaH_getshortstr luaV_finishget luaV_execute luaD_call lua_pcallk main _start",
	  "L=7000 : f:work f:chunk", "0@2",
	  "_start main lua_pcallk chunk work luaV_finishget luaH_getshortstr" },
	{ "PUC: a C function called from Lua, with its callees",
	  "memcpy str_rep luaD_precall luaV_execute luaD_call lua_pcallk main _start",
	  "L=7000 : c:str_rep f:work f:chunk", "0@1",
	  "_start main lua_pcallk chunk work str_rep memcpy" },
	{ "PUC: a host C function calling back into Lua",
	  "luaV_execute luaD_callnoyield lua_callk cb luaD_precall luaV_execute luaD_call lua_pcallk main _start",
	  "L=7000 : f:inner c:cb f:outer f:chunk", "0@0",
	  "_start main lua_pcallk chunk outer cb lua_callk inner" },
	{ "PUC: pcall from Lua is a C function that enters the VM again",
	  "luaV_execute luaD_call luaD_rawrunprotected luaD_pcall lua_pcallk luaB_pcall luaD_precall luaV_execute "
	  "luaD_call lua_pcallk main _start",
	  "L=7000 : f:risky c:luaB_pcall f:chunk", "0@0",
	  "_start main lua_pcallk chunk luaB_pcall lua_pcallk risky" },
	{ "PUC: a coroutine runs below the thread that resumed it",
	  "luaV_execute luaD_call resume luaD_rawrunprotected lua_resume auxresume luaB_coresume luaD_precall "
	  "luaV_execute luaD_call lua_pcallk main _start",
	  "L=8000 : f:body | L=7000 : c:luaB_coresume f:driver f:chunk", "0@0 1@5",
	  "_start main lua_pcallk chunk driver luaB_coresume auxresume lua_resume body" },
	{ "PUC: a coroutine inside a coroutine",
	  "luaV_execute lua_resume auxresume luaB_coresume luaV_execute lua_resume auxresume luaB_coresume "
	  "luaV_execute lua_pcallk main _start",
	  "L=9000 : f:leafco | L=8000 : c:luaB_coresume f:midco | L=7000 : c:luaB_coresume f:chunk",
	  "0@0 1@2 2@6", "_start main lua_pcallk chunk luaB_coresume auxresume lua_resume midco luaB_coresume "
	  "auxresume lua_resume leafco" },
	{ "PUC: no lua_State seen in a register: the frames below the entry are the VM's",
	  "luaV_execute luaD_call lua_pcallk main _start",
	  "L=7000 : f:work f:chunk", "",
	  "_start main lua_pcallk chunk work" },
	{ "PUC: no API symbol (a stripped static host): entered where the lua_State was first held",
	  "execute call docall main _start",
	  "L=7000 : f:work f:chunk", "0@0 0@3",
	  "_start main chunk work" },
	{ "PUC: no API symbol: a C function's callback follows the C function's frames down to its call into the VM",
	  "execute ccall callnoyield callk auxsort sort precall execute ccall callnoyield fcall rawrun pcall pcallk "
	  "docall main _start",
	  "L=7000 : f:cmp c:sort f:sorter f:chunk", "0@0 0@15",
	  "_start main chunk sorter sort auxsort callk cmp" },
	{ "PUC: no API symbol: a coroutine follows the C function that resumed it",
	  "execute ccall resume rawrun cresume auxresume coresume precall execute ccall callnoyield fcall rawrun pcall "
	  "pcallk main _start",
	  "L=8000 : f:body | L=7000 : c:coresume f:driver f:chunk", "0@0 0@4 1@5 1@15",
	  "_start main chunk driver coresume auxresume cresume body" },
	{ "PUC: no API symbol, no lua_State seen: the Lua frames come first",
	  "execute call docall main _start",
	  "L=7000 : f:work f:chunk", "",
	  "chunk work _start main docall call execute" },
	{ "PUC: both ends of a run seen with API symbols: the entry decides",
	  "luaV_execute luaD_call lua_pcallk docall main _start",
	  "L=7000 : f:work f:chunk", "0@0 0@4",
	  "_start main docall lua_pcallk chunk work" },
	{ "PUC: the walk lost the root side: the Lua frames hang under the innermost entry",
	  "luaV_execute lua_pcallk pmain luaD_precall luaV_execute lua_pcallk main _start",
	  "L=7000 : f:work f:rec D", "0@0",
	  "_start main lua_pcallk luaV_execute luaD_precall pmain lua_pcallk [D] rec work" },
	{ "PUC: frames left out between both ends of a deep Lua stack",
	  "luaV_execute luaD_call lua_pcallk main _start",
	  "L=7000 : f:work f:rec E:900 f:rec f:chunk", "0@0",
	  "_start main lua_pcallk chunk rec [E 900] rec work" },
	{ "PUC: a native stack cut short keeps the frames it has",
	  "luaV_execute lua_pcallk mark:3",
	  "L=7000 : f:work f:chunk", "0@0",
	  "lua_pcallk chunk work" },
	{ "LuaJIT: the interpreter is one function; the host's call enters it",
	  "lj_vm lj_vm+64 lua_pcall docall main _start",
	  "L=7000 lj : f:work f:chunk!", "0@1",
	  "_start main docall lua_pcall chunk work" },
	{ "LuaJIT: pcall is a built-in: no native frame, no new activation",
	  "lj_vm lj_vm+64 lua_pcall main _start",
	  "L=7000 lj : f:risky c:- f:chunk!", "0@1",
	  "_start main lua_pcall chunk [builtin] risky" },
	{ "LuaJIT: a trace's frame stays where the VM was",
	  "trace:5 lj_vm lua_pcall main _start",
	  "L=7000 lj : f:hot f:chunk!", "0@1",
	  "_start main lua_pcall chunk hot [trace 5]" },
	{ "LuaJIT: the GC's C frames below the interpreter stay",
	  "gc_sweep lj_gc_step lj_vm lj_vm+64 lua_pcall main _start",
	  "L=7000 lj : f:alloc f:chunk!", "0@3",
	  "_start main lua_pcall chunk alloc lj_gc_step gc_sweep" },
	{ "LuaJIT: a C function called through the FFI or the C API, with its callees",
	  "memcpy cfunc lj_vm lj_vm+64 lua_pcall main _start",
	  "L=7000 lj : c:cfunc f:work f:chunk!", "0@3",
	  "_start main lua_pcall chunk work cfunc memcpy" },
	{ "LuaJIT: a host callback entered from C again",
	  "lj_vm lj_vm+64 lua_call cb lj_vm lj_vm+64 lua_pcall main _start",
	  "L=7000 lj : f:inner! c:cb f:outer f:chunk!", "0@1 0@5",
	  "_start main lua_pcall chunk outer cb lua_call inner" },
	{ NULL, NULL, NULL, NULL, NULL },
};

/* The merge's rules as the named family sets them (runtime_ops.merge). */
static const struct lm_rules *family_rules(const char *family)
{
	for (int i = 0; runtime_families[i]; i++)
		if (!strcmp(runtime_families[i]->family, family))
			return runtime_families[i]->merge;
	return NULL;
}

static int run_case(const struct merge_case *c)
{
	static __u64 w[LF_MAX_USTACK];
	static struct lm_stack s;
	static struct lm_out o[LF_MAX_NATIVE + LF_MAX_LTHREADS * (LF_MAX_LUA + 1)];
	char got[1024];
	int lj = 0;
	lm_decode(w, encode(c->nat, c->lua, c->pos, w, &lj), &s);
	func_starts(&s);
	const struct lm_rules *rules = family_rules(lj ? "LuaJIT" : "PUC Lua");
	render(&s, o, lm_merge(&s, rules, o, (int)(sizeof(o) / sizeof(o[0]))), got, sizeof(got));
	if (!strcmp(got, c->want)) {
		printf("PASS: merge: %s\n", c->name);
		return 0;
	}
	printf("FAIL: merge: %s\n  got:  %s\n  want: %s\n", c->name, got, c->want);
	return 1;
}

int main(void)
{
	int failed = 0;
	for (const struct merge_case *c = cases; c->name; c++)
		failed += run_case(c);
	return failed ? 1 : 0;
}

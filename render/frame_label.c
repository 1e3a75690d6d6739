/* Frame labels parsed back into kind, name, file and line (frame_label.h): the one grammar
 * every reader of a folded file uses. */
#include <string.h>

#include "frame_label.h"

static int has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

static int has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(s, prefix, n);
}

/* `NAME (CHUNK:LINE)`. Chunk names may hold anything (`[string "f (x:1)"]`), names
 * do not hold " (", so the first " (" splits them. LINE has at most 9 digits. */
static int parse_lua(const char *s, size_t len, struct frame_label *fl)
{
	if (len < 7 || s[len - 1] != ')')
		return 0;
	size_t d = len - 1;
	long line = 0;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	size_t ndig = len - 1 - d;
	if (ndig == 0 || ndig > 9 || d == 0 || s[d - 1] != ':')
		return 0;
	for (size_t i = d; i < len - 1; i++)
		line = line * 10 + (s[i] - '0');
	size_t colon = d - 1, open = 0;
	while (open + 1 < colon && !(s[open] == ' ' && s[open + 1] == '('))
		open++;
	if (open == 0 || open + 1 >= colon || open + 2 == colon)
		return 0;   /* no " (", empty name or empty chunk */
	fl->name = s;
	fl->name_len = open;
	fl->file = s + open + 2;
	fl->file_len = colon - (open + 2);
	fl->line = line;
	return 1;
}

/* `file+0xHEX`: a mapped file without a symbol for the address. */
static void parse_offset(const char *s, size_t len, struct frame_label *fl)
{
	size_t i = len;
	while (i > 0 && strchr("0123456789abcdefABCDEF", s[i - 1]) && s[i - 1])
		i--;
	if (i == len || i < 4 || memcmp(s + i - 3, "+0x", 3))
		return;
	fl->file = s;
	fl->file_len = i - 3;
}

/* The kind of a label in brackets: what lua-flame writes (frame_label.h), what perf and
 * flamegraph.pl write for special mappings, anything else a VM state. */
static enum frame_kind bracketed(const char *s, size_t len)
{
	static const struct { const char *prefix; enum frame_kind kind; } table[] = {
		{ LF_LABEL_OFFCPU, KIND_OFFCPU },
		{ LF_LABEL_UNKNOWN, KIND_MARKER }, { "[unknown", KIND_MARKER }, { "[unwind", KIND_MARKER },
		{ "[truncat", KIND_MARKER }, { "[lost", KIND_MARKER }, { "[missing", KIND_MARKER },
		{ "[error", KIND_MARKER }, { "[no ", KIND_MARKER }, { "[idle", KIND_MARKER },
		{ "[vdso]", KIND_NATIVE }, { "[vsyscall]", KIND_NATIVE }, { "[heap]", KIND_NATIVE },
		{ "[stack]", KIND_NATIVE }, { "[anon", KIND_NATIVE },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (has_prefix(s, len, table[i].prefix))
			return table[i].kind;
	return KIND_VM;
}

void frame_label_parse(const char *s, size_t len, struct frame_label *fl)
{
	*fl = (struct frame_label){ KIND_NATIVE, s, len, "", 0, 0 };
	/* perf's inline and waker annotations say nothing about the language */
	size_t k = has_suffix(s, len, "_[i]") || has_suffix(s, len, "_[w]") ? len - 4 : len;
	if (has_suffix(s, len, "_[j]") && parse_lua(s, len - 4, fl))
		fl->kind = KIND_JIT;
	else if (parse_lua(s, k, fl))
		fl->kind = KIND_LUA;
	else if (len > 4 && has_suffix(s, len, "_[k]"))
		fl->kind = KIND_KERNEL, fl->name_len = len - 4;
	else if (k >= 2 && s[0] == '[' && s[k - 1] == ']')
		fl->kind = bracketed(s, k);
	else
		parse_offset(s, len, fl);
}

enum frame_kind kind_of(const char *s, size_t len)
{
	struct frame_label fl;
	frame_label_parse(s, len, &fl);
	return fl.kind;
}

const char *const lf_heap_types[LF_HEAP_NTYPES] = { "[string]", "[table]", "[function]", "[C function]",
						    "[userdata]", "[thread]", "[proto]", "[upvalue]",
						    "[cdata]", "[trace]" };

const char *const lf_heap_blocks[LF_HEAP_NBLOCKS] = { "[global state]", "[string table]", "[buffers]",
						      "[JIT state]", "[C types]" };

static int is_exactly(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

enum frame_kind heap_kind_of(const char *s, size_t len, int depth)
{
	if (depth == 0)
		return KIND_HEAP_FIELD;
	if (has_prefix(s, len, LF_HEAP_LOCAL) || has_prefix(s, len, LF_HEAP_UPVALUE))
		return KIND_HEAP_VAR;
	if (len < 2 || s[0] != '[' || s[len - 1] != ']')
		return KIND_HEAP_FIELD;
	if (is_exactly(s, len, LF_HEAP_VM) || is_exactly(s, len, LF_HEAP_UNREACHED))
		return KIND_HEAP_VM;
	for (int i = 0; i < LF_HEAP_NBLOCKS; i++)
		if (is_exactly(s, len, lf_heap_blocks[i]))
			return KIND_HEAP_VM;
	for (int i = 0; i < LF_HEAP_NTYPES; i++)
		if (is_exactly(s, len, lf_heap_types[i]))
			return KIND_HEAP_TYPE;
	return KIND_HEAP_STEP;
}

/* Unit tests for cmd/safe_name.c: hostile names keep their bytes visible as \xHH text and
 * can add no frame, line or count to a folded stack, nor drive a terminal. */
#include <string.h>
#include "check.h"
#include "safe_name.h"

static const char *safe(const char *s, enum safe_mode mode)
{
	static char out[512];
	safe_name_write(out, sizeof(out), s, strlen(s), mode);
	return out;
}

static void folded_separators_and_controls(void)
{
	CHECK_STR(safe("foo 999999\nforged", SAFE_FOLDED), "foo 999999\\x0aforged");
	CHECK_STR(safe("a;b\r\t\x7f\x1b[2J", SAFE_FOLDED), "a\\x3bb\\x0d\\x09\\x7f\\x1b[2J");
	CHECK_STR(safe("plain_name", SAFE_FOLDED), "plain_name");
}

static void trailing_count_lookalike(void)
{
	CHECK_STR(safe("foo 999999", SAFE_FOLDED), "foo\\x20999999");
	CHECK_STR(safe("foo 12 bar", SAFE_FOLDED), "foo 12 bar");
	CHECK_STR(safe("foo 999999", SAFE_TERMINAL), "foo 999999");
	CHECK_STR(safe("thread 7", SAFE_FOLDED_ROOT), "thread_7");
}

/* A Lua function's name never holds the " (" that ends it in `NAME (CHUNK:LINE)`. */
static void lua_name_keeps_its_end(void)
{
	CHECK_STR(safe("odd (x.lua:9)", SAFE_LUA_NAME), "odd\\x20(x.lua:9)");
	CHECK_STR(safe("a b(c) (", SAFE_LUA_NAME), "a b(c)\\x20(");
	CHECK_STR(safe("f;g 12", SAFE_LUA_NAME), "f\\x3bg\\x2012");
	CHECK_STR(safe("odd (x", SAFE_FOLDED), "odd (x");
}

static void terminal_keeps_separators(void)
{
	CHECK_STR(safe("a;b \x1b]0;title\x07", SAFE_TERMINAL), "a;b \\x1b]0;title\\x07");
}

static void utf8_kept_invalid_escaped(void)
{
	CHECK_STR(safe("caf\xc3\xa9", SAFE_FOLDED), "caf\xc3\xa9");
	CHECK_STR(safe("x\xff\xc3", SAFE_FOLDED), "x\\xff\\xc3");
	CHECK_STR(safe("\xc2\x9b" "31m", SAFE_TERMINAL), "\\xc2\\x9b31m");           /* C1 CSI */
	CHECK_STR(safe("a\xe2\x80\xae" "b", SAFE_TERMINAL), "a\\xe2\\x80\\xaeb");     /* RLO */
	CHECK_STR(safe("\xc0\xbb", SAFE_FOLDED), "\\xc0\\xbb");                       /* overlong ';' */
}

static void cut_never_splits_an_escape(void)
{
	char out[8];
	CHECK_INT(safe_name_write(out, sizeof(out), "ab\x1b\x1b", 4, SAFE_FOLDED), 6);
	CHECK_STR(out, "ab\\x1b");
	char fix[16] = "x;y\x1bz";
	safe_name_fix(fix, sizeof(fix), SAFE_FOLDED);
	CHECK_STR(fix, "x\\x3by\\x1bz");
}

int main(void)
{
	RUN(folded_separators_and_controls);
	RUN(trailing_count_lookalike);
	RUN(terminal_keeps_separators);
	RUN(lua_name_keeps_its_end);
	RUN(utf8_kept_invalid_escaped);
	RUN(cut_never_splits_an_escape);
	CHECK_EXIT();
}

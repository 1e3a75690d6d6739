/* Unit tests for cmd/status.c: the live status line's wording for a fixed and an open
 * duration, with and without a Lua runtime, and for several processes. */
#include <string.h>
#include "check.h"
#include "status.h"

static void fixed_duration_with_lua(void)
{
	struct status_info in = { .elapsed = 3.2, .duration = 30, .samples = 297, .lost = 0, .nprocs = 1, .nlua = 1 };
	strcpy(in.lua, "Lua 5.4.4");
	char buf[256];
	status_format(&in, buf, sizeof(buf));
	CHECK_STR(buf, "lua-flame: 3s / 30s, 297 samples, 0 lost, Lua 5.4.4");
}

static void open_duration_without_lua(void)
{
	struct status_info in = { .elapsed = 61.7, .samples = 6100, .lost = 12, .nprocs = 1 };
	char buf[256];
	status_format(&in, buf, sizeof(buf));
	CHECK_STR(buf, "lua-flame: 62s (Ctrl-C stops), 6100 samples, 12 lost, no Lua found yet");
}

static void several_processes(void)
{
	struct status_info in = { .elapsed = 1, .duration = 10, .samples = 5, .nprocs = 9, .nlua = 8 };
	strcpy(in.lua, "LuaJIT 2.1");
	char buf[256];
	status_format(&in, buf, sizeof(buf));
	CHECK_STR(buf, "lua-flame: 1s / 10s, 5 samples, 0 lost, LuaJIT 2.1 in 8 of 9 processes");
}

static void cut_to_the_buffer(void)
{
	struct status_info in = { .elapsed = 1, .duration = 10, .samples = 5, .nprocs = 1 };
	char buf[16];
	memset(buf, 'x', sizeof(buf));
	status_format(&in, buf, sizeof(buf));
	CHECK_INT(strlen(buf), sizeof(buf) - 1);
	CHECK_STR(buf, "lua-flame: 1s /");
}

int main(void)
{
	RUN(fixed_duration_with_lua);
	RUN(open_duration_without_lua);
	RUN(several_processes);
	RUN(cut_to_the_buffer);
	CHECK_EXIT();
}

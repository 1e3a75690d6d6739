/* The live view of `lua-flame top` (top_view.h). On a terminal it redraws one screen a
 * second and reads single keys (the terminal is put back however lua-flame ends); when
 * stdout is a pipe or a file it prints a plain block of lines a second instead. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "kind.h"
#include <stdarg.h>
#include "top_stats.h"
#include "top_view.h"
#include "util.h"

#define ROWS_MAX 200
#define PLAIN_ROWS 10

struct top_view {
	struct top_stats *st;
	enum top_sort sort;
	int lua_only, tty, drawn;
	uint64_t interval;   /* samples of the last second */
	struct live_tick last;  /* the last refresh; its lua text copied, the caller's does not last */
	char lua[128];
};

static struct termios saved_tty;
static int tty_raw;

static void tty_restore(void)
{
	if (tty_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
		tty_raw = 0;
		fputs("\033[?25h", stdout);  /* the cursor back */
		fflush(stdout);
	}
}

/* Keys without Enter, not echoed; Ctrl-C still interrupts (and ends like record's). */
static void tty_keys(void)
{
	struct termios t;
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty))
		return;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0) {
		tty_raw = 1;
		atexit(tty_restore);
	}
}

static void term_size(int *cols, int *rows)
{
	struct winsize ws;
	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 && ws.ws_row >= 8) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

static const char *kind_short(int k)
{
	static const char *const names[KIND_COUNT] = { "Lua", "JIT", "C", "kernel", "VM", "marker", "off-CPU" };
	return k >= 0 && k < KIND_COUNT ? names[k] : "?";
}

/* One line, cut to cols columns (names are safe text already: they come from the profile). */
static void line(struct sbuf *b, int cols, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(struct sbuf *b, int cols, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t n = strlen(buf);
	sb_add(b, buf, n < (size_t)cols ? n : (size_t)cols);
	sb_puts(b, "\033[K\r\n");
}

/* name in at most width bytes: a Lua label keeps its name and the end of its place
 * ("hottest (...cli_top/hot.lua:1)"), where the file and line are. */
static const char *fit(const char *name, size_t width, char *buf, size_t size)
{
	size_t n = strlen(name);
	const char *open = strstr(name, " (");
	if (n <= width || width + 1 > size || width < 16)
		return name;
	if (!open || name[n - 1] != ')' || (size_t)(open - name) + 8 > width) {
		snprintf(buf, size, "%.*s", (int)width, name);
		return buf;
	}
	size_t head = (size_t)(open - name) + 2, tail = width - head - 3;
	snprintf(buf, size, "%.*s...%s", (int)head, name, name + n - tail);
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void draw_tty(struct top_view *v)
{
	static struct top_row rows[ROWS_MAX];
	const struct live_tick *tk = &v->last;
	struct sbuf b;
	int cols, height;
	term_size(&cols, &height);
	size_t want = (size_t)(height - 5) < ROWS_MAX ? (size_t)(height - 5) : ROWS_MAX;
	size_t n = top_stats_rows(v->st, v->sort, v->lua_only, rows, want);
	double hz = tk->hz > 0 ? tk->hz : 1;
	sb_init(&b);
	sb_puts(&b, "\033[?25l\033[H");
	line(&b, cols, "lua-flame top  %s  %.40s  %s%d Hz  %.0fs", tk->prof->pids, tk->prof->command,
	     tk->lua[0] ? "" : "no Lua runtime  ", tk->hz, tk->elapsed);
	line(&b, cols, "%s  %llu samples/s  %llu lost  sort: %s (s/t)  %s (l)  q quits", tk->lua,
	     (unsigned long long)v->interval, (unsigned long long)tk->lost,
	     v->sort == TOP_BY_SELF ? "self" : "total", v->lua_only ? "Lua functions" : "all frames");
	line(&b, cols, "%s", "");
	line(&b, cols, "%6s %6s %8s %8s  %-6s %s", "%SELF", "%TOTAL", "SELF s", "TOTAL s", "KIND", "FUNCTION");
	char name[1024];
	for (size_t i = 0; i < n; i++)
		line(&b, cols, "%6.1f %6.1f %8.2f %8.2f  %-6s %s", pct(rows[i].dself, v->interval),
		     pct(rows[i].dtotal, v->interval), (double)rows[i].self / hz, (double)rows[i].total / hz,
		     kind_short(rows[i].kind), fit(rows[i].name, (size_t)cols - 41, name, sizeof(name)));
	sb_puts(&b, "\033[J");
	fwrite(b.s, 1, b.len, stdout);
	fflush(stdout);
	sb_free(&b);
}

static void draw_plain(struct top_view *v)
{
	static struct top_row rows[PLAIN_ROWS];
	const struct live_tick *tk = &v->last;
	size_t n = top_stats_rows(v->st, v->sort, v->lua_only, rows, PLAIN_ROWS);
	printf("lua-flame top %.0fs: %llu samples/s, %llu lost%s%s\n", tk->elapsed,
	       (unsigned long long)v->interval, (unsigned long long)tk->lost, tk->lua[0] ? ", " : "", tk->lua);
	for (size_t i = 0; i < n; i++)
		printf("%6.1f%% self %6.1f%% total  %-6s %s\n", pct(rows[i].dself, v->interval),
		       pct(rows[i].dtotal, v->interval), kind_short(rows[i].kind), rows[i].name);
	fflush(stdout);
}

/* Reads the keys typed since the last turn; returns 1 on q, and whether to redraw in *redraw. */
static int read_keys(struct top_view *v, int *redraw)
{
	char k[32];
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
	if (!tty_raw || poll(&p, 1, 0) <= 0)
		return 0;
	ssize_t n = read(STDIN_FILENO, k, sizeof(k));
	for (ssize_t i = 0; i < n; i++) {
		switch (k[i]) {
		case 'q': case 'Q': return 1;
		case 's': v->sort = TOP_BY_SELF; break;
		case 't': v->sort = TOP_BY_TOTAL; break;
		case 'l': v->lua_only = !v->lua_only; break;
		default: continue;
		}
		*redraw = 1;
	}
	return 0;
}

static int on_tick(void *ctx, const struct live_tick *tk)
{
	struct top_view *v = ctx;
	int redraw = 0;
	if (read_keys(v, &redraw))
		return 1;
	if (tk->refresh) {
		v->last = *tk;
		snprintf(v->lua, sizeof(v->lua), "%s", tk->lua);
		v->last.lua = v->lua;
		v->interval = top_stats_count(v->st, tk->prof);
		redraw = v->drawn = 1;
		if (!v->tty) {
			draw_plain(v);
			return 0;
		}
	}
	if (redraw && v->tty && v->drawn)
		draw_tty(v);
	return 0;
}

int top_run(struct record_opts *o)
{
	struct top_view v = { .st = top_stats_new(), .sort = TOP_BY_SELF, .tty = isatty(STDOUT_FILENO) };
	struct profile prof;
	struct record_result res;
	if (v.tty) {
		tty_keys();
		fputs("\033[H\033[2J", stdout);
	}
	o->live = on_tick;
	o->live_ctx = &v;
	profile_init(&prof);
	int rc = record_collect(o, &prof, &res);
	tty_restore();
	if (v.tty && v.drawn)
		putchar('\n');
	profile_free(&prof);
	top_stats_free(v.st);
	return rc;
}

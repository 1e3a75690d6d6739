/* Start-up work done apart (startup_helper: in a child process, while the BPF program loads):
 * the unwind tables must equal the same tables built in this process, also when the child
 * dies before it is done, and the files' scores it sends must spare this process reading
 * them. The target is this test's own process; the tables are uploaded into memfds standing
 * in for the maps. */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc_scan.h"
#include "startup_helper.h"
#include "unwind_tables.h"

struct image {
	size_t rows, files;
	void *rows_map, *rules_map, *files_map;
};

static void *memfd_map(size_t bytes, int *fd)
{
	*fd = memfd_create("tables", MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, (off_t)bytes))
		return NULL;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Builds the tables of this process (apart: 1 in a child, 2 in a child killed at once, 0
 * here) and uploads them into im. */
static struct unwind_tables *build(int apart, struct image *im)
{
	struct unwind_tables *t = ut_new();
	ut_defer_rows(t, 1);
	CHECK_INT(ut_add_pid(t, getpid()), 0);
	ut_defer_rows(t, 0);
	size_t bound = ut_rows_bound(t);
	struct startup_helper h = { 0, -1 };
	pid_t self = getpid();
	if (apart) {
		CHECK_INT(startup_helper_start(&h, t, &self, 1), 0);
		CHECK(h.pid > 0);
		if (apart == 2 && h.pid > 0)
			kill(h.pid, SIGKILL);
	}
	startup_helper_finish(&h, t);
	CHECK(ut_rows(t) > 100);
	CHECK(ut_rows(t) <= bound);
	im->rows = ut_rows(t);
	im->files = ut_files(t);
	int rows_fd, rules_fd, files_fd;
	im->rows_map = memfd_map(im->rows * sizeof(struct lf_row), &rows_fd);
	im->rules_map = memfd_map(LF_MAX_RULES * sizeof(struct lf_rule), &rules_fd);
	im->files_map = memfd_map(im->files * sizeof(struct lf_file), &files_fd);
	CHECK(im->rows_map && im->rules_map && im->files_map);
	ut_attach_maps(t, rows_fd, im->rows, rules_fd, files_fd, im->files, -1); /* no process map: -1 */
	return t;
}

static void same(const struct image *a, const struct image *b)
{
	CHECK_INT(a->rows, b->rows);
	CHECK_INT(a->files, b->files);
	if (a->rows != b->rows || a->files != b->files)
		return;
	CHECK(!memcmp(a->rows_map, b->rows_map, a->rows * sizeof(struct lf_row)));
	CHECK(!memcmp(a->rules_map, b->rules_map, LF_MAX_RULES * sizeof(struct lf_rule)));
	CHECK(!memcmp(a->files_map, b->files_map, a->files * sizeof(struct lf_file)));
}

/* The tables built as build(apart, ...) builds them, against the same built here. */
static void check_against_here(int apart)
{
	struct image here, other;
	struct unwind_tables *a = build(0, &here), *b = build(apart, &other);
	same(&here, &other);
	ut_free(a);
	ut_free(b);
}

static void apart_equals_here(void) { check_against_here(1); }
static void killed_builder_built_here(void) { check_against_here(2); }

static int reads;
static int count_reads(pid_t pid, const struct mapping *m, void *ctx)
{
	(void)pid, (void)m, (void)ctx;
	reads++;
	return 0;
}

/* A child scores a process's files and sends the scores: finding a file of that process here
 * then reads none of them. The process is a third one, not this one: under qemu-user (the
 * aarch64 tests on x86-64), a process sees its own maps as the emulated program's and
 * another's as they are. */
static void scores_taken_from_child(void)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	pid_t target = fork();
	if (target == 0) {
		pause();
		_exit(0);
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct mapping m;
		proc_find_file(target, count_reads, NULL, &m);
		_exit(reads > 0 && proc_scores_send(p[1]) == 0 ? 0 : 1);
	}
	close(p[1]);
	CHECK_INT(proc_scores_take(p[0]), 0);
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK_INT(status, 0);
	close(p[0]);
	struct mapping m;
	CHECK(proc_find_file(target, count_reads, NULL, &m) != 0); /* no file scored above 0 */
	CHECK_INT(reads, 0);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
}

int main(void)
{
	RUN(apart_equals_here);
	RUN(killed_builder_built_here);
	RUN(scores_taken_from_child);
	CHECK_EXIT();
}

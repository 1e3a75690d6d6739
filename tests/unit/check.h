/* Minimal assertions for unit tests. Each CHECK prints nothing on success; a test case
 * reports "PASS: name" or "FAIL: name: why" so tests/run.sh can count cases. */
#ifndef LF_CHECK_H
#define LF_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_failed;   /* failures in the current case */
static int check_total_failed;

#define CHECK(cond) do { if (!(cond)) { \
	printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); check_failed++; } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_)) { printf("  %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
		a_ ? a_ : "(null)", b_ ? b_ : "(null)"); check_failed++; } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { printf("  %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); \
		check_failed++; } } while (0)

/* Runs one case and prints its verdict. */
#define RUN(fn) do { check_failed = 0; fn(); \
	if (check_failed) { printf("FAIL: %s\n", #fn); check_total_failed++; } \
	else printf("PASS: %s\n", #fn); } while (0)

#define CHECK_EXIT() return check_total_failed ? 1 : 0
#endif

/* Folded lines ("root;...;leaf COUNT") read from a FILE one at a time, each with the bytes
 * it shares with the line before, for the readers that build the tree (folded.c) and
 * that sort an unsorted file (stackkeys.c). Malformed and over-long lines are skipped
 * and counted; a line is capped, so binary junk cannot exhaust memory. */
#ifndef LF_LINES_H
#define LF_LINES_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LINE_MAX_BYTES (1u << 20)

struct folded_line {
	const char *stack;   /* in the reader's buffer: valid until the next lines_next */
	size_t len;          /* of the stack, without its count */
	size_t same;         /* leading bytes equal to the previous line's stack (may pass LEN) */
	uint64_t count;      /* > 0 */
};

struct line_reader {
	FILE *in;
	char *buf;
	size_t start, end;
	int eof, skipping;
	size_t ignored;                /* malformed lines skipped */
	const char *prev;              /* the previous line's stack: in buf, or in own */
	size_t prevlen;
	char *own;
	size_t cap;
	int (*moving)(void *ctx);      /* NULL, or called before buf's bytes move: 0 or -1 */
	void *ctx;
};

/* 0, or -1 when out of memory. MOVING (may be NULL) is called with CTX before the bytes
 * of returned lines move, for callers that keep pointers into them. */
int lines_open(struct line_reader *r, FILE *in, int (*moving)(void *), void *ctx);
/* The next line with frames and a count above 0: 1, 0 at the end of the input, -1 on a
 * read error (errno tells) or lack of memory. */
int lines_next(struct line_reader *r, struct folded_line *l);
void lines_close(struct line_reader *r);

#endif

/* A consistent copy of a target's writable memory for the heap snapshot: every thread held by
 * ptrace (PTRACE_SEIZE + PTRACE_INTERRUPT, so a tracer that dies releases them) only while its
 * readable, writable mappings are copied with process_vm_readv; the walk then reads the copy. */
#ifndef LF_HEAP_COPY_H
#define LF_HEAP_COPY_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct heap_region {
	uint64_t start, end;   /* what was copied: [start, end) of the target */
	unsigned char *data;
};

struct heap_copy {
	struct heap_region *r; /* sorted by start, not overlapping */
	size_t n;
	uint64_t bytes;        /* copied */
	uint64_t unread;       /* bytes of mappings the copy could not read */
	double pause;          /* seconds the target was held */
	int threads;           /* threads held */
	struct heap_region *pre;  /* buffers made ready before the pause */
	size_t npre;
	size_t *last;          /* the region the last read was in, where most reads are: a cache,
				* so it is written through a const copy */
};

/* Holds pid's threads, copies its memory, releases them. Returns 0; 2 when pid cannot be held
 * (gone, not permitted); 1 when the copy failed or would hold the target longer than
 * max_pause seconds (it is released at that point). Each failure has been told. */
int heap_copy_take(pid_t pid, double max_pause, struct heap_copy *c);
void heap_copy_free(struct heap_copy *c);
/* The copy of [addr, addr + len) when one region holds all of it, else NULL. */
const void *heap_at(const struct heap_copy *c, uint64_t addr, size_t len);
/* The value of that size at addr in the copy, 0 outside it (every family's field reads). */
uint64_t heap_u64(const struct heap_copy *c, uint64_t addr);
uint32_t heap_u32(const struct heap_copy *c, uint64_t addr);
uint16_t heap_u16(const struct heap_copy *c, uint64_t addr);
uint8_t heap_u8(const struct heap_copy *c, uint64_t addr);
/* The bytes to count for an object at addr whose fields say size: size, or 0 with *bad counted
 * when it cannot be its own (larger than the copy or, for an object whose bytes follow its
 * header in one block, not all in it): a wild write, whose reference still leads the walk on. */
uint64_t heap_checked_size(const struct heap_copy *c, uint64_t addr, uint64_t size, int one_block, uint64_t *bad);
/* A reader over the copy for puc_mem (ctx is the heap_copy): len bytes or -1. */
long heap_copy_read(void *ctx, uint64_t addr, void *buf, size_t len);
#endif

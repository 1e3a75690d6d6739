/* The aggregated profile: distinct folded stacks ("root;caller;callee") with their
 * sample counts, plus the facts about the run that outputs print. */
#ifndef LF_PROFILE_AGG_H
#define LF_PROFILE_AGG_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"

struct prof_entry {
	char *stack;           /* NULL: an empty slot */
	uint32_t len, hash;    /* len: of the text, which holds no NUL (a stack is cut at one) */
	uint64_t count;
	uint64_t objects;      /* a heap snapshot's objects, an allocation profile's allocations */
};


struct profile {
	struct prof_entry *e;  /* open-addressing table */
	size_t cap, n;
	uint64_t total;
	size_t bytes;          /* what the distinct stacks hold, counted against the limit */
	uint64_t over_limit;   /* samples counted under "ROOT;[profile: memory limit]" */
	struct arena text;     /* the stacks' text: a heap snapshot adds about as many stacks as objects */
	/* Facts about the run, for summaries and subtitles. */
	char command[256];
	char pids[256];
	double duration;
	int hz;
	int wall;              /* wall-clock mode: off-CPU time counted too */
	uint64_t lost;
	int heap;              /* a heap snapshot: counts are bytes, entries count objects too */
	int alloc;             /* an allocation profile: counts are bytes, entries count allocations */
	char taken[64];        /* a heap snapshot: when it was taken, and its number in a series */
	struct prof_entry *order; /* NULL, or a copy of the entries in profile_sorted's order, made
	                        * once for every output by profile_sort; an add drops it */
	size_t order_n;
};

#define PROFILE_STACK_MAX (1u << 30)   /* bytes of one stack; longer ones are cut */

void profile_init(struct profile *p);
void profile_free(struct profile *p);
void profile_add(struct profile *p, const char *stack, size_t len, uint64_t count);
/* profile_add for a heap snapshot: bytes, and the objects that hold them. */
void profile_add_objects(struct profile *p, const char *stack, size_t len, uint64_t bytes, uint64_t objects);
/* profile_add_objects in two steps, for a caller that adds many new stacks: the hash of a
 * stack, its slot asked for ahead (profile_prefetch) while the caller builds the next one, then
 * the stack added with its hash. */
uint32_t profile_hash(const char *stack, size_t len);
void profile_prefetch(const struct profile *p, uint32_t hash);
void profile_add_hashed(struct profile *p, const char *stack, size_t len, uint32_t hash, uint64_t bytes,
			uint64_t objects);
/* Room for `more` distinct stacks beyond those there are, so that adding them does not grow
 * the table step by step (a heap snapshot adds about as many as it has objects). */
void profile_reserve(struct profile *p, size_t more);
/* Memory the distinct stacks of a profile may take (--max-profile-mb); past it, samples of new
 * stacks are counted under their root frame and a "[profile: memory limit]" marker, once said. */
#define PROFILE_DEFAULT_MB 1024
void profile_set_limit(size_t bytes);
/* Entries sorted by stack string, ';' before every other byte (so that the stacks under
 * one frame follow each other), for deterministic output; caller frees the array. */
struct prof_entry **profile_sorted(const struct profile *p);
/* Sorts once for every profile_sorted until the next add: a heap snapshot has about a million
 * stacks, written in two or three formats. The entries are copied into one array in their
 * order, so that each output reads them one after another. */
void profile_sort(struct profile *p);
#endif

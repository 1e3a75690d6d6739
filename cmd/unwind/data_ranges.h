/* Where a target process may keep its data, for the BPF walkers: a register or stack word
 * is read as a pointer only if it falls in one of these ranges, so a number that is not a
 * pointer costs no faulting read. */
#ifndef LF_DATA_RANGES_H
#define LF_DATA_RANGES_H
#include <stddef.h>
#include "proc.h"
#include "unwind.h"

/* Room left on each side of a range for the mapping's growth until the next refresh (brk,
 * and the kernel's merging of a new anonymous mapping into its neighbour). */
#define DATA_RANGE_SLACK (16ULL << 20)

/* Fills out (max entries, sorted, disjoint) with the ranges of pm's mappings that may hold
 * data: writable ones and anonymous reservations (an allocator's arena grows into them),
 * and the first DATA_RANGE_SLACK bytes from brk, where the process's brk heap starts (0:
 * unknown), mapped or not: a command lua-flame starts makes its heap, and its Lua state in
 * it, after its maps were read. Over max, the closest ranges are joined, so the answer only
 * ever widens. Returns the count. */
size_t data_ranges(const struct proc_maps *pm, uint64_t brk, struct lf_range *out, size_t max);

/* Fills out (max entries, sorted, exact) with the mappings that hold a thread's stack: the
 * main thread's [stack], and anonymous writable mappings right above a guard (no access),
 * which is how threads' stacks are made. The BPF unwinder reads a stack ahead up to the end
 * of its mapping, where it knows it; a stack not listed is read frame by frame. */
size_t stack_ranges(const struct proc_maps *pm, struct lf_range *out, size_t max);
#endif

/* What the floor's program and its loader share: the reads of the floor with reads, from
 * which the loader prints what one read costs. */
#ifndef LF_FLOOR_H
#define LF_FLOOR_H
#define LF_FLOOR_READS 32 /* reads of the floor with reads, a cache line apart */
#endif

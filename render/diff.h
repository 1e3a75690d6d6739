/* Differential flame graphs (`lua-flame diff`): the AFTER profile drawn by the normal
 * renderer, each frame matched to the same call path in BEFORE and coloured by how its
 * share (or count) changed; plus the folded `stack before after` text and a table of the
 * functions that changed most. */
#ifndef LF_DIFF_H
#define LF_DIFF_H
#include <stdint.h>
#include <stdio.h>
#include "frame_label.h"
#include "tree.h"

/* What BEFORE says about one frame of the AFTER tree. */
struct diff_entry {
	const struct fnode *node;    /* in AFTER; NULL: free slot */
	uint64_t total, self;        /* in BEFORE, 0 when the path is new */
	uint64_t gone;               /* BEFORE samples in children AFTER no longer has */
	int found;                   /* the path exists in BEFORE */
};

struct flame_diff {
	const struct flame *before, *after;
	struct diff_entry *slots;    /* keyed by AFTER node, open addressing */
	size_t nslots;
	int raw;                     /* compare counts, not shares of each side's total */
	int heap;                    /* heap snapshots: frames are steps of paths (heap_kind_of) */
	const char *unit;            /* what the counts are, for the legend (NULL: samples) */
	double max_change;           /* largest |change| of any frame: full colour */
	uint64_t gone_frames;        /* topmost BEFORE frames without an AFTER counterpart */
	uint64_t gone_samples;       /* and their BEFORE samples */
};

/* A frame's kind by the grammar of the profiles compared. */
enum frame_kind diff_kind(const struct flame_diff *d, const char *name, size_t len);
/* Matches every AFTER frame to BEFORE. Returns 0, or -1 when memory ran out. */
int diff_build(struct flame_diff *d, const struct flame *before, const struct flame *after, int raw);
void diff_free(struct flame_diff *d);
/* BEFORE's view of AFTER frame X (the root included); never NULL after diff_build. */
const struct diff_entry *diff_lookup(const struct flame_diff *d, const struct fnode *x);
/* Change of a frame with BEFORE count B and AFTER count A: share points (0.05 = 5 points
 * of all samples) or, raw, counts. */
double diff_change(const struct flame_diff *d, uint64_t b, uint64_t a);

/* SVG pieces used by svg.c when flame_opts.diff is set. */
void diff_color(const struct flame_diff *d, const struct fnode *x, char buf[8]);
void diff_put_attrs(const struct flame_diff *d, const struct fnode *x, FILE *out);
void diff_put_title(const struct flame_diff *d, const struct fnode *x, FILE *out);
void diff_put_legend(const struct flame_diff *d, FILE *out, double x, double y);
void diff_put_frames_attrs(const struct flame_diff *d, FILE *out);

/* `stack before after` per line, every stack of either side, sorted bytewise. Returns 0,
 * or -1 when memory ran out or writing failed. */
int diff_write_folded(const struct flame_diff *d, FILE *out);
/* Table of the N functions whose self or total share (or count) changed most. */
int diff_write_top(const struct flame_diff *d, size_t n, FILE *out);

/* Reads a gzipped pprof profile (as lua-flame writes them) into F. Returns 0, or -1 with
 * a message in ERR. */
int pprof_read(struct flame *f, FILE *in, char *err, size_t errlen);
/* The same for profile.proto bytes already decompressed. */
int pprof_parse(struct flame *f, const uint8_t *data, size_t len, char *err, size_t errlen);
/* Both, with the unit of the values read put in UNIT ("count" for a recording's samples,
 * "bytes" for a heap snapshot's inuse_space; "" when the file names none). */
int pprof_read_unit(struct flame *f, FILE *in, char *unit, size_t unitlen, char *err, size_t errlen);
int pprof_parse_unit(struct flame *f, const uint8_t *data, size_t len, char *unit, size_t unitlen, char *err,
		     size_t errlen);

/* `lua-flame diff [options] BEFORE AFTER`: exit status 0, 1 or 2. */
int diff_main(int argc, char **argv);

#endif

/* What a frame label says about the code it names (the labels of README.md, "Reading the
 * output"), and the colour that follows from it: the kind picks the palette, a hash of the
 * name the shade. */
#ifndef LF_KIND_H
#define LF_KIND_H
#include <stddef.h>
#include <stdint.h>

enum frame_kind {
	KIND_LUA,       /* NAME (CHUNK:LINE) */
	KIND_JIT,       /* Lua in a JIT trace: ..._[j] */
	KIND_NATIVE,    /* C and everything else */
	KIND_KERNEL,    /* ..._[k] */
	KIND_VM,        /* [GC], [JIT compiler], [trace 17], [interpreter] */
	KIND_MARKER,    /* [unknown], [unwind: ...], [truncated] */
	KIND_OFFCPU,    /* [off-CPU: do_nanosleep]: wall mode, where a thread waited */
	KIND_COUNT
};

enum frame_kind kind_of(const char *name, size_t len);
const char *kind_label(enum frame_kind k);
/* "#rrggbb" for a frame of kind K whose name hashes to HASH; BUF holds 8 bytes. */
void kind_color(enum frame_kind k, uint32_t hash, char buf[8]);

#endif

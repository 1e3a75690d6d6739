/* The grammar of frame labels, in one place: the kinds of frame, every bracketed label
 * lua-flame writes, and the one parser that recovers a frame's kind, name, file and line from
 * its label alone. The fold writes these labels; the renderer, `top`, `diff` and every output
 * format read them back with frame_label_parse, so `lua-flame render perf.folded` draws what
 * the recorder saw. The reference for users is the man page's "FRAME LABELS". */
#ifndef LF_FRAME_LABEL_H
#define LF_FRAME_LABEL_H
#include <stddef.h>

enum frame_kind {
	KIND_LUA,       /* NAME (CHUNK:LINE) */
	KIND_JIT,       /* Lua in a JIT trace: NAME (CHUNK:LINE)_[j] */
	KIND_NATIVE,    /* a symbol, FILE+0xOFFSET, the process name, anything else */
	KIND_KERNEL,    /* SYMBOL_[k] */
	KIND_VM,        /* [GC], [JIT compiler], [trace 17], [jit code], [fiber] */
	KIND_MARKER,    /* [unknown], [unwind: ...], [lua: ...], [native: ...]: what is missing */
	KIND_OFFCPU,    /* [off-CPU: do_nanosleep]: wall mode, where a thread waited */
	/* a heap snapshot's frames (heap_kind_of), steps of the path from the VM's roots */
	KIND_HEAP_FIELD, /* a table's string key as it is; the process name */
	KIND_HEAP_VAR,   /* local NAME, upvalue NAME */
	KIND_HEAP_STEP,  /* any other step: [n], [registry], [main thread], [metatable], [keys], ... */
	KIND_HEAP_TYPE,  /* the leaf: the object's type, [table], [string], ... */
	KIND_HEAP_VM,    /* [vm] and the VM's own blocks under it, [unreached] (garbage not collected yet) */
	KIND_COUNT
};
#define KIND_CPU_COUNT KIND_HEAP_FIELD /* the kinds of a CPU profile come first */

/* Labels of frames that are not a function's own name (the fold writes them). */
#define LF_LABEL_UNKNOWN "[unknown]"        /* a user address in no mapping known */
#define LF_LABEL_JIT "[jit code]"           /* machine code no runtime claims, or a trace not numbered */
#define LF_LABEL_GONE "[lua: function gone]" /* a Lua function freed before it was named */
#define LF_LABEL_FIBER "[fiber]"            /* the root of a stack that starts on a user-level context */
#define LF_LABEL_OFFCPU "[off-CPU"          /* "[off-CPU: FN]", "[off-CPU: preempted]" (wall mode) */
#define LF_LABEL_UNWIND "[unwind: "         /* "[unwind: REASON]": why the native walk stopped */
#define LF_LABEL_TRACE "[trace"             /* "[trace N]", "[trace]": a LuaJIT trace */
#define LF_LABEL_LUA_DEPTH "[lua: depth limit]"
#define LF_LABEL_LUA_ELIDED "[lua: "        /* "[lua: N frames elided]" */
#define LF_LABEL_NATIVE_ELIDED "[native: "  /* "[native: N frames elided]" */
#define LF_LABEL_PROFILE_LIMIT "[profile: memory limit]"
#define LF_LABEL_GC "[GC]"                  /* a VM state: its garbage collector */
#define LF_LABEL_JIT_COMPILER "[JIT compiler]"
#define LF_LABEL_TRACE_EXIT "[trace exit]"

/* A heap snapshot's labels (lua-flame heap): the steps of a path with a kind of their own
 * (a table's string key is the key as it is), and each leaf's type, indexed like the heap's
 * object kinds. */
#define LF_HEAP_LOCAL "local "         /* "local NAME": a variable of a thread's stack */
#define LF_HEAP_UPVALUE "upvalue "     /* "upvalue NAME": a closure's upvalue */
#define LF_HEAP_NUMERIC "[n]"          /* every numeric key and the array part */
#define LF_HEAP_VM "[vm]"              /* the VM's own blocks */
#define LF_HEAP_UNREACHED "[unreached]" /* objects no path reaches */
#define LF_HEAP_NTYPES 10
extern const char *const lf_heap_types[LF_HEAP_NTYPES];
/* The VM's own blocks under [vm]: its global state, string table, buffers, JIT state, C types */
enum { LF_HEAP_GLOBAL_STATE, LF_HEAP_STRING_TABLE, LF_HEAP_BUFFERS, LF_HEAP_JIT_STATE, LF_HEAP_CTYPES,
       LF_HEAP_NBLOCKS };
extern const char *const lf_heap_blocks[LF_HEAP_NBLOCKS];

/* Pointers into the parsed label; nothing is copied. */
struct frame_label {
	enum frame_kind kind;
	const char *name;   /* Lua NAME, kernel symbol without `_[k]`, else the whole label */
	size_t name_len;
	const char *file;   /* Lua CHUNK, the file of `file+0xOFFSET`, else empty */
	size_t file_len;
	long line;          /* Lua LINE, else 0 */
};

void frame_label_parse(const char *s, size_t len, struct frame_label *fl);
/* frame_label_parse's kind alone. */
enum frame_kind kind_of(const char *s, size_t len);
/* The kind of a heap snapshot's frame; depth 0 is the root (the process). */
enum frame_kind heap_kind_of(const char *s, size_t len, int depth);
#endif

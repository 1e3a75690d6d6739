/* A development aid, compiled in only with -DLF_STAGES (scripts/bench-stages.sh): the time a
 * CPU sample spends in each stage, summed per CPU in the lf_stages map. Each mark reads the
 * clock and costs some 40 ns itself, so compare stages with each other, not the total with
 * scripts/bench-lua.sh. */
#ifndef LF_STAGE_TIME_BPF_H
#define LF_STAGE_TIME_BPF_H

/* Each stage runs from the mark before it to its own mark. bench-stages.sh reads these names. */
enum lf_stage {
	LF_STAGE_START,       /* the sample is a target's: the clock starts */
	LF_STAGE_KSTACK,      /* its kernel stack */
	LF_STAGE_ENTER_WALK,  /* its registers, the tail call into the walk, the process's tables */
	LF_STAGE_RT_BEGIN,    /* which runtime the process runs, and its configuration */
	LF_STAGE_STEP_ENTRY,  /* a native step's start, from the previous step's end */
	LF_STAGE_STEP_MAP,    /* the frame's mapping */
	LF_STAGE_STEP_CORE,   /* the runtime's look at a frame of its VM's file */
	LF_STAGE_STEP_RULE,   /* the frame's unwind rule */
	LF_STAGE_STEP_READ,   /* the rule followed: the caller's registers read from the stack */
	LF_STAGE_WALK_LAST,   /* the last step, to the native walk's end */
	LF_STAGE_END_WALK,    /* the native part closed (a deep stack folded) */
	LF_STAGE_LUA,         /* the Lua frames */
	LF_STAGE_STATS,       /* the sample's statistics */
	LF_STAGE_HASH,        /* the record hashed */
	LF_STAGE_COUNT,       /* the record counted in the stack map, announced if new */
	LF_STAGE_CLOCK,       /* not a stage: the time of the last mark */
	LF_STAGE_READS,       /* not a stage: user reads (n) and the bytes they asked for (ns) */
};

#ifdef LF_STAGES
struct lf_stage_sum {
	__u64 ns, n;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LF_STAGE_READS + 1);
	__type(key, __u32);
	__type(value, struct lf_stage_sum);
} lf_stages SEC(".maps");

/* Ends stage id (LF_STAGE_START: starts the clock). */
static __always_inline void stage(__u32 id)
{
	__u32 k = LF_STAGE_CLOCK;
	struct lf_stage_sum *last = bpf_map_lookup_elem(&lf_stages, &k), *sum = bpf_map_lookup_elem(&lf_stages, &id);
	__u64 now = bpf_ktime_get_ns();
	if (!last || !sum)
		return;
	if (id != LF_STAGE_START) {
		sum->ns += now - last->ns;
		sum->n++;
	}
	last->ns = now;
}

/* Every user read is counted too: where each costs a hundred ns or more (seen on virtual
 * machines), their number says more than the time of the stage they fall in. */
static __always_inline long lf_counted_read(void *dst, __u32 len, const void *src)
{
	__u32 k = LF_STAGE_READS;
	struct lf_stage_sum *c = bpf_map_lookup_elem(&lf_stages, &k);
	if (c) {
		c->n++;
		c->ns += len;
	}
	return bpf_probe_read_user(dst, len, src);
}
#define bpf_probe_read_user(dst, len, src) lf_counted_read((dst), (len), (src))
#else
#define stage(id) do { } while (0)
#endif
#endif

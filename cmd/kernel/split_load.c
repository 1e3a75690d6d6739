/* Loads the BPF object's programs in two halves side by side: one program (the native walk,
 * the verifier's largest) in a second object made from the same ELF and sharing the first's
 * maps, while the first object loads the others. The kernel checks programs one at a time
 * per load, so on two CPUs the wait for the verifier nearly halves. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "split_load.h"

/* The second half, started from the first object's first program load: only then do its
 * maps exist for the second object to take. */
static struct {
	struct bpf_object *a, *b;
	atomic_int pending; /* 1 while the second half waits for the first's maps */
	int started, err;
	pthread_t thread;
} job;

static void *load_b(void *arg)
{
	(void)arg;
	job.err = bpf_object__load(job.b);
	return NULL;
}

/* Each map of b becomes the map of a at the same place: one ELF, one order. */
static int share_maps(struct bpf_object *a, struct bpf_object *b)
{
	struct bpf_map *ma = bpf_object__next_map(a, NULL), *mb = bpf_object__next_map(b, NULL);
	for (; ma && mb; ma = bpf_object__next_map(a, ma), mb = bpf_object__next_map(b, mb)) {
		if (strcmp(bpf_map__name(ma), bpf_map__name(mb)))
			return -EINVAL;
		int err = bpf_map__reuse_fd(mb, bpf_map__fd(ma));
		if (err)
			return err;
	}
	return ma || mb ? -EINVAL : 0;
}

static void start_b(void)
{
	int err = share_maps(job.a, job.b);
	if (!err)
		err = -pthread_create(&job.thread, NULL, load_b, NULL);
	job.started = !err;
	job.err = err;
}

static int before_prog_load(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	(void)prog, (void)opts, (void)cookie;
	int one = 1;
	if (atomic_compare_exchange_strong(&job.pending, &one, 0))
		start_b();
	return 0;
}

int split_load_init(void)
{
	static int done;
	if (done)
		return 0;
	LIBBPF_OPTS(libbpf_prog_handler_opts, opts, .prog_prepare_load_fn = before_prog_load);
	/* libbpf's own handling of SEC("perf_event") is the program type alone, as here */
	int id = libbpf_register_prog_handler("perf_event", BPF_PROG_TYPE_PERF_EVENT, 0, &opts);
	done = id >= 0;
	return id < 0 ? id : 0;
}

static void only(struct bpf_object *obj, const char *name, int in)
{
	struct bpf_program *p;
	bpf_object__for_each_program(p, obj)
		if ((strcmp(bpf_program__name(p), name) == 0) != in)
			bpf_program__set_autoload(p, false);
}

int split_load(struct bpf_object_skeleton *a, struct bpf_object *b, const char *apart)
{
	only(*a->obj, apart, 0);
	only(b, apart, 1);
	job.a = *a->obj, job.b = b, job.started = 0, job.err = 0;
	atomic_store(&job.pending, 1);
	int err = bpf_object__load_skeleton(a);
	/* a loaded no program (or failed before any): b has a's maps still to take */
	if (atomic_exchange(&job.pending, 0) && !err)
		start_b();
	if (job.started)
		pthread_join(job.thread, NULL);
	job.a = job.b = NULL;
	return err ? err : job.err;
}

/* A program whose own names are hostile, for tests/integ/hostile_names.sh: functions whose
 * .symtab names the test patches to hold a newline, a fake count, ';', CR, TAB, DEL and ESC
 * (the placeholders have the same lengths), and a worker thread named with an escape. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>

volatile uint64_t sink;

__attribute__((noinline)) void hx_999999_forged(void)
{
	for (uint64_t i = 0; i < 100000; i++)
		sink += i * 7;
}

__attribute__((noinline)) void hy_semi_ctl_esc_(void)
{
	for (uint64_t i = 0; i < 100000; i++)
		sink ^= i * 13;
}

__attribute__((noinline)) void hz_999999(void)
{
	for (uint64_t i = 0; i < 100000; i++)
		sink -= i * 3;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;)
		hy_semi_ctl_esc_();
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_setname_np(t, "w\x1b[2Jx");
	for (;;) {
		hx_999999_forged();
		hz_999999();
	}
}

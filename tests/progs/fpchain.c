/* Test target: one thread alternating between two call chains, main;run;work_a;leaf_a and
 * main;run;work_b;leaf_b, with twice the work in chain a (a 2:1 split of CPU time). */
static volatile unsigned long sink;


__attribute__((noinline)) void leaf_a(void) { for (unsigned long j = 0; j < 1000000; j++) sink += j; }
__attribute__((noinline)) void leaf_b(void) { for (unsigned long j = 0; j < 500000; j++) sink += j; }
__attribute__((noinline)) void work_a(void) { leaf_a(); sink++; }
__attribute__((noinline)) void work_b(void) { leaf_b(); sink++; }

__attribute__((noinline)) void run(void)
{
	for (;;) {
		work_a();
		work_b();
	}
}

int main(void)
{
	run();
	return 0;
}

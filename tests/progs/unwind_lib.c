/* Shared library for the native unwinder tests: reached through the PLT from unwind.c,
 * and loaded with dlopen after lua-flame attached. */
volatile unsigned long lib_sink;

__attribute__((noinline)) void lib_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		lib_sink += i ^ (i >> 3);
}

__attribute__((noinline)) void lib_work(unsigned long n)
{
	lib_leaf(n);
	lib_sink++;
}

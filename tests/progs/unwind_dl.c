/* Library loaded with dlopen by unwind.c after lua-flame attached. */
volatile unsigned long dl_sink;

__attribute__((noinline)) void dl_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		dl_sink += i * 7;
}

__attribute__((noinline)) void dl_work(unsigned long n)
{
	dl_leaf(n);
	dl_sink++;
}

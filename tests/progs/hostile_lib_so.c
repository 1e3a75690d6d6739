/* libhostile.so for tests/integ/hostile_elf.sh: an exported entry and an internal function
 * (named only in .symtab or a debug file) that calls back into the program. */
volatile int after;

__attribute__((noinline)) static void lib_inner(void (*cb)(void))
{
	cb();
	after++;   /* keeps the call a call (no tail jump), so its return address is on the stack */
}

void lib_call(void (*cb)(void))
{
	lib_inner(cb);
	after++;
}

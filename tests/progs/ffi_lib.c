/* C library called through LuaJIT's FFI by the LuaJIT stack tests: burns CPU in a known
 * function so its frame shows under the calling Lua function. */
volatile double ffi_sink;

__attribute__((noinline)) double lf_ffi_spin(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += (double)(i % 7) * 0.5;
	ffi_sink = s;
	return s;
}

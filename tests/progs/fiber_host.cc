// Test host that runs each request on a user-level context, as servers built on fibers do:
// the context calls handle(n) in a Lua state (burns in Lua), then switches back to main.
// Usage: fiber_host boost|ucontext SCRIPT.lua   (SCRIPT defines a global handle(n));
// boost: a boost::context fiber per request; ucontext: makecontext/swapcontext. Runs until killed.
#include <boost/context/fiber.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ucontext.h>
extern "C" {
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
}
namespace ctx = boost::context;

static lua_State *L;

// A request burns for tens of the sampler's periods (some 40-60 ms): one as short as a period
// would keep step with the samples and skew the split they measure.
static void serve_request(void)
{
	lua_getglobal(L, "handle");
	lua_pushinteger(L, 5000000);
	if (lua_pcall(L, 1, 0, 0)) {
		std::fprintf(stderr, "fiber_host: %s\n", lua_tostring(L, -1));
		std::exit(1);
	}
}

static ucontext_t main_uc, req_uc;

static void ucontext_request(void)
{
	serve_request();
	swapcontext(&req_uc, &main_uc);
}

static void run_ucontext(void)
{
	static char stack[256 * 1024];
	for (;;) {
		getcontext(&req_uc);
		req_uc.uc_stack.ss_sp = stack;
		req_uc.uc_stack.ss_size = sizeof(stack);
		req_uc.uc_link = &main_uc;
		makecontext(&req_uc, ucontext_request, 0);
		swapcontext(&main_uc, &req_uc);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 || (std::strcmp(argv[1], "boost") && std::strcmp(argv[1], "ucontext"))) {
		std::fprintf(stderr, "usage: fiber_host boost|ucontext SCRIPT.lua\n");
		return 2;
	}
	L = luaL_newstate();
	luaL_openlibs(L);
	if (luaL_dofile(L, argv[2])) {
		std::fprintf(stderr, "fiber_host: %s\n", lua_tostring(L, -1));
		return 1;
	}
	if (!std::strcmp(argv[1], "ucontext"))
		run_ucontext();
	for (;;) {
		ctx::fiber f{[](ctx::fiber &&main) {
			serve_request();
			return std::move(main);
		}};
		f = std::move(f).resume();
	}
}

/* A process-wide allowance for naming Lua functions from bytecode, refilled with time: a
 * target that keeps making huge or tangled functions gets a few names cut short ("?") but
 * cannot keep lua-flame from draining, stopping on time or answering Ctrl-C. */
#include <pthread.h>

#include "name_budget.h"
#include "util.h"

#define RATE  (1L << 23)   /* steps per second for all names: a few percent of a CPU */
#define BURST (1L << 23)   /* at most this much at once (some tens of ms of work) */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long left = BURST;
static double last;

long name_budget_take(void)
{
	pthread_mutex_lock(&lock);
	double now = now_sec();
	if (last > 0 && now > last) {
		double add = (now - last) * (double)RATE;
		left = add >= (double)(BURST - left) ? BURST : left + (long)add;
	}
	last = now;
	long grant = left < NAME_WORK ? (left > 0 ? left : 0) : NAME_WORK;
	left -= grant;
	pthread_mutex_unlock(&lock);
	return grant;
}

void name_budget_return(long unused)
{
	if (unused <= 0)
		return;
	pthread_mutex_lock(&lock);
	left = left + unused > BURST ? BURST : left + unused;
	pthread_mutex_unlock(&lock);
}

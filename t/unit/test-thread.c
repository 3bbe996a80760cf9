/* Teams of threads (thread.h): each step runs once on every thread, on
 * that thread's own argument, and wa_team_run returns only when all are
 * done, step after step, whether the threads are spinning or asleep. */
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "thread.h"
#include "tap.h"

#define STEPS 3000

static atomic_ulong total;

static void *
step(void *arg)
{
	(*(unsigned long *)arg)++;
	atomic_fetch_add(&total, 1);
	return NULL;
}

int
main(void)
{
	/* One thread; as many as processors, which spin between steps; one
	 * more, which do not. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned most = cpus < 1 ? 1 : cpus > 8 ? 8 : (unsigned)cpus;
	unsigned sizes[] = { 1, most, most + 1 };
	for (unsigned i = 0; i < 3; i++) {
		unsigned size = sizes[i];
		unsigned long steps[9] = { 0 };
		struct wa_team team;
		wa_team_start(&team, size, steps, sizeof steps[0]);
		atomic_store(&total, 0);
		bool whole = true;
		for (unsigned long k = 1; k <= STEPS; k++) {
			wa_team_run(&team, step);
			whole &= atomic_load(&total) == k * size;
			if (k % 1000 == 0)	/* long enough for the threads to sleep */
				nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
		}
		ok(whole, "a team of %u: every step done by all before the next", size);
		bool each = true;
		for (unsigned t = 0; t < size; t++)
			each &= steps[t] == STEPS;
		ok(each, "a team of %u: each ran every step on its own argument", size);
		wa_team_stop(&team);
	}
	return done_testing();
}

/* Worker threads with a small stack, and teams of them.
 *
 * glibc gives a thread a stack of RLIMIT_STACK bytes (8 MiB by default),
 * all of it address space from the start: under a hard address-space limit
 * (ulimit -v) a few threads would take more than a tool's whole memory
 * budget (-m).  wa's threads keep their data on the heap, within the
 * budget, and need little stack.
 *
 * A team runs one function after another on each of its threads, the
 * caller's included, and returns when all are done: started once, for the
 * thousands of short steps of a computation (three per part and sweep in
 * wa-pagerank), where starting and joining a thread for each step, about
 * 50 us, would cost a tenth of the time.  A thread waiting for the next
 * step spins a few microseconds before it sleeps, since the next step
 * usually follows at once, unless the team has more threads than there
 * are processors. */
#ifndef WA_THREAD_H
#define WA_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define WA_THREAD_STACK (1u << 20)
#define WA_TEAM_MAX 64

/* pthread_create with a stack of WA_THREAD_STACK bytes; returns 0 or an
 * errno value, as pthread_create does. */
int wa_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

struct wa_team {
	unsigned size;		/* threads, the caller's included */
	unsigned spins;		/* looks at the step before sleeping */
	char *args;		/* thread t works on args + t * arg_size */
	size_t arg_size;
	pthread_t tid[WA_TEAM_MAX];
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	void *(*fn)(void *);
	atomic_ulong step;	/* steps started */
	atomic_uint running;	/* threads of this step not done */
	bool quit;
};

/* size threads, 1 to WA_TEAM_MAX, the caller the first; dies if one
 * cannot start. */
void wa_team_start(struct wa_team *team, unsigned size, void *args, size_t arg_size);

/* fn on every thread's argument; returns when all have returned. */
void wa_team_run(struct wa_team *team, void *(*fn)(void *));

void wa_team_stop(struct wa_team *team);

#endif

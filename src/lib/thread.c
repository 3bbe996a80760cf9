/* Worker threads with a small stack, and teams of them (thread.h). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "msg.h"
#include "thread.h"

/* Valgrind runs one thread at a time: there a spinning thread only holds
 * up the one it waits for. */
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND RUNNING_ON_VALGRIND
#else
#define UNDER_VALGRIND 0
#endif

/* How often a waiting thread looks again before it sleeps: about 20 us,
 * if the team has a processor for each thread; else at once, as spinning
 * would take the processor a working thread needs (and under valgrind). */
#define SPINS 2000

int
wa_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc != 0)
		return rc;
	rc = pthread_attr_setstacksize(&attr, WA_THREAD_STACK);
	if (rc == 0)
		rc = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

struct member {
	struct wa_team *team;
	unsigned t;
};

static void *
member_main(void *arg)
{
	struct wa_team *team = ((struct member *)arg)->team;
	void *own = team->args + ((struct member *)arg)->t * team->arg_size;
	free(arg);
	for (unsigned long seen = 0;; seen++) {
		for (unsigned i = 0; i < team->spins && atomic_load(&team->step) == seen; i++)
			cpu_relax();
		if (atomic_load(&team->step) == seen) {
			pthread_mutex_lock(&team->lock);
			while (atomic_load(&team->step) == seen)
				pthread_cond_wait(&team->go, &team->lock);
			pthread_mutex_unlock(&team->lock);
		}
		if (team->quit)
			return NULL;
		team->fn(own);
		if (atomic_fetch_sub(&team->running, 1) == 1) {
			pthread_mutex_lock(&team->lock);
			pthread_cond_signal(&team->done);
			pthread_mutex_unlock(&team->lock);
		}
	}
}

void
wa_team_start(struct wa_team *team, unsigned size, void *args, size_t arg_size)
{
	if (size < 1 || size > WA_TEAM_MAX)
		wa_die("a team of %u threads: 1 to %d", size, WA_TEAM_MAX);
	team->size = size;
	team->args = args;
	team->arg_size = arg_size;
	team->fn = NULL;
	team->quit = false;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	team->spins = cpus > 0 && size <= (unsigned long)cpus && !UNDER_VALGRIND ? SPINS : 0;
	atomic_init(&team->step, 0);
	atomic_init(&team->running, 0);
	pthread_mutex_init(&team->lock, NULL);
	pthread_cond_init(&team->go, NULL);
	pthread_cond_init(&team->done, NULL);
	for (unsigned t = 1; t < size; t++) {
		struct member *m = wa_malloc(sizeof *m);
		*m = (struct member){ team, t };
		if (wa_thread_start(&team->tid[t], member_main, m) != 0)
			wa_die("cannot start a thread");
	}
}

static void
team_go(struct wa_team *team, void *(*fn)(void *), bool quit)
{
	team->fn = fn;
	team->quit = quit;
	atomic_store(&team->running, team->size - 1);
	pthread_mutex_lock(&team->lock);
	atomic_fetch_add(&team->step, 1);
	pthread_cond_broadcast(&team->go);
	pthread_mutex_unlock(&team->lock);
}

void
wa_team_run(struct wa_team *team, void *(*fn)(void *))
{
	if (team->size > 1)
		team_go(team, fn, false);
	fn(team->args);
	if (team->size == 1)
		return;
	for (unsigned i = 0; i < team->spins && atomic_load(&team->running) != 0; i++)
		cpu_relax();
	if (atomic_load(&team->running) != 0) {
		pthread_mutex_lock(&team->lock);
		while (atomic_load(&team->running) != 0)
			pthread_cond_wait(&team->done, &team->lock);
		pthread_mutex_unlock(&team->lock);
	}
}

void
wa_team_stop(struct wa_team *team)
{
	if (team->size > 1)
		team_go(team, NULL, true);
	for (unsigned t = 1; t < team->size; t++)
		pthread_join(team->tid[t], NULL);
	pthread_mutex_destroy(&team->lock);
	pthread_cond_destroy(&team->go);
	pthread_cond_destroy(&team->done);
}

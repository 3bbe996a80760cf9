/* Teams of threads (thread.h): each step runs once on every thread, on
 * that thread's own argument, and wa_team_run returns only when all are
 * done, step after step, whether the threads are spinning or asleep.
 * Pools: jobs finished in the order handed out, each once the next one is
 * done (which finish sees), each thread with a number of its own; with a
 * limit, the jobs not finished never weigh more than it but for one. */
#include <stdatomic.h>
#include <stdint.h>
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

#define POOL_THREADS 3
#define POOL_JOBS 500

struct pool_check;

struct pool_job {
	struct pool_check *check;
	unsigned number;	/* handed out as */
	uint64_t weight;
	unsigned thread;	/* wa_pool_thread of the work */
	pthread_t self;
	atomic_bool done;
};

struct pool_check {
	struct wa_pool pool;
	unsigned nthreads;
	unsigned finished;	/* jobs finished so far */
	uint64_t held;		/* the weight of the jobs handed out, not finished */
	bool in_order, next_done, thread_known;
	pthread_t threads[POOL_THREADS];
	bool seen[POOL_THREADS];
};

static void
pool_work(void *arg)
{
	struct pool_job *job = arg;
	job->thread = wa_pool_thread(&job->check->pool);
	job->self = pthread_self();
	if (job->number % 7 == 0)	/* some jobs long, for others to pass them */
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	atomic_store(&job->done, true);
}

static void
pool_finish(void *arg, void *job_arg)
{
	struct pool_check *c = arg;
	struct pool_job *job = job_arg;
	c->in_order &= job->number == c->finished++;
	c->held -= job->weight;
	const struct pool_job *next = wa_pool_await_next(&c->pool);
	c->next_done &= job->number + 1 == POOL_JOBS || !c->nthreads ? next == NULL :
	    next && next->number == job->number + 1 && atomic_load(&next->done);
	if (job->thread >= (c->nthreads ? c->nthreads : 1)) {
		c->thread_known = false;
		return;
	}
	/* A number is one thread's, and a thread has one number. */
	if (!c->seen[job->thread]) {
		for (unsigned t = 0; t < POOL_THREADS; t++)
			c->thread_known &= !c->seen[t] || !pthread_equal(c->threads[t], job->self);
		c->seen[job->thread] = true;
		c->threads[job->thread] = job->self;
	}
	c->thread_known &= pthread_equal(c->threads[job->thread], job->self);
}

static void
pool_clear(void *job)
{
	(void)job;
}

/* A pool of nthreads threads (0: none, the caller does the jobs), of 8
 * jobs a thread, whose jobs weigh up to max_weight between them
 * (UINT64_MAX: no limit). */
static void
test_pool(unsigned nthreads, uint64_t max_weight)
{
	struct pool_check c = { .nthreads = nthreads, .in_order = true, .next_done = true,
	    .thread_known = true };
	wa_pool_start(&c.pool, nthreads, 8, sizeof(struct pool_job), pool_work,
	    pool_finish, &c);
	wa_pool_limit(&c.pool, max_weight);
	ok((uintptr_t)wa_pool_next(&c.pool) % WA_CACHE_LINE == 0,
	    "pool of %u: a job starts a cache line", nthreads);
	bool within = true;
	uint64_t most = 0;
	for (unsigned i = 0; i < POOL_JOBS; i++) {
		struct pool_job *job = wa_pool_next(&c.pool);
		/* Only the job handed out last may take the weight over. */
		within &= c.held <= max_weight || i - c.finished <= 1;
		/* Weights of 0 to 60, a heavy job now and then. */
		*job = (struct pool_job){ .check = &c, .number = i,
		    .weight = i % 11 == 0 ? 60 : i % 5 * 3 };
		c.held += job->weight;
		most = c.held > most ? c.held : most;
		wa_pool_submit(&c.pool, job->weight);
	}
	wa_pool_drain(&c.pool);
	if (max_weight != UINT64_MAX)
		ok(within && most > max_weight, "pool of %u, limit %llu: the jobs not finished "
		    "weigh no more, but for the newest (%llu at most)", nthreads,
		    (unsigned long long)max_weight, (unsigned long long)most);
	ok(c.finished == POOL_JOBS && c.in_order, "pool of %u: every job finished, in order",
	    nthreads);
	ok(c.next_done, nthreads ? "pool of %u: finish sees the next job done, none after "
	    "the last" : "pool of %u: finish sees no next job", nthreads);
	ok(c.thread_known, "pool of %u: each thread a number of its own, below %u",
	    nthreads, nthreads ? nthreads : 1);
	wa_pool_stop(&c.pool, pool_clear);
}

int
main(void)
{
	test_pool(POOL_THREADS, UINT64_MAX);
	test_pool(0, UINT64_MAX);
	test_pool(POOL_THREADS, 40);
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

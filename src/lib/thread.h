/* Worker threads with a small stack, and teams and pools of them.
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
 * are processors.
 *
 * A pool does jobs that the caller hands out in order, on its threads, in
 * any order, and finishes them on the caller's thread in the order handed
 * out: the caller prepares the next jobs while the threads work, and what
 * it does with the results does not depend on the number of threads. */
#ifndef WA_THREAD_H
#define WA_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WA_THREAD_STACK (1u << 20)
#define WA_TEAM_MAX 64
/* The processor's cache line: data that two threads write go on lines of
 * their own, else each write takes the line from the other processor. */
#define WA_CACHE_LINE 64

/* Zeroed memory for n items of size bytes, each on cache lines of its
 * own (items of size rounded up to WA_CACHE_LINE, WA_CACHE_LINE-aligned);
 * free with free().  Dies if there is none. */
void *wa_lines_calloc(size_t n, size_t size);

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

struct wa_pool {
	unsigned nthreads;	/* 0: the caller does each job itself */
	size_t slots;		/* jobs in the ring */
	size_t job_size;
	char *jobs;		/* the ring, slots jobs of job_size bytes, each on lines of its own */
	unsigned char *state;	/* of each slot */
	uint64_t *weight;	/* of each slot's job, as handed out */
	uint64_t held;		/* the weight of the jobs not finished */
	uint64_t max_weight;	/* wa_pool_limit's, UINT64_MAX: none */
	uint64_t submitted, taken, finished;
	uint64_t awaited;	/* the job the caller waits for, UINT64_MAX: none */
	bool stop;
	void (*work)(void *job);
	void (*finish)(void *arg, void *job);
	void *arg;
	pthread_t *tid;
	struct wa_pool_thread *threads;	/* what each thread starts with */
	pthread_key_t thread_key;	/* on a pool thread, its wa_pool_thread */
	pthread_mutex_t lock;
	pthread_cond_t queued, done;
};

/* nthreads threads (0: none) and a ring of zeroed jobs of job_size bytes:
 * jobs_per_thread for each thread and two more, so that the threads
 * always have the next jobs while one of them is on a long one.  work runs
 * on a pool thread, finish(arg, job) on the caller's; with threads, a job
 * is finished only once the next one is handed out (or at wa_pool_drain),
 * so that finish may look at that one (wa_pool_await_next).  Dies if a
 * thread cannot start. */
void wa_pool_start(struct wa_pool *pool, unsigned nthreads, unsigned jobs_per_thread,
    size_t job_size, void (*work)(void *job), void (*finish)(void *arg, void *job),
    void *arg);
/* Called by work: the number of the thread it runs on, 0 to nthreads - 1
 * (0 without threads), so that work may keep what it reuses from job to
 * job by thread rather than by job, where that thread's cache has it. */
unsigned wa_pool_thread(const struct wa_pool *pool);
/* The jobs handed out and not finished weigh no more than max_weight
 * between them, but for the newest one: a bound on the memory they hold,
 * whatever the number of slots. */
void wa_pool_limit(struct wa_pool *pool, uint64_t max_weight);
/* The job to fill next, after finishing the oldest jobs that are done,
 * with the next one;
 * if every slot still holds a job, after waiting for the oldest half of
 * them and finishing those; if the jobs not finished weigh more than the
 * limit, after waiting for the oldest until they do not, or one is left. */
void *wa_pool_next(struct wa_pool *pool);
/* Hands out the job of wa_pool_next, of the weight given (what it holds,
 * counted against wa_pool_limit's); without threads, does and finishes it
 * at once. */
void wa_pool_submit(struct wa_pool *pool, uint64_t weight);
/* Called by finish: the job handed out after the one being finished, once
 * it is done; NULL if there is none (at wa_pool_drain, or without
 * threads). */
void *wa_pool_await_next(struct wa_pool *pool);
/* Finishes every job handed out. */
void wa_pool_drain(struct wa_pool *pool);
/* After wa_pool_drain: stops the threads, gives every job of the ring to
 * clear (which frees what it holds) and frees the ring. */
void wa_pool_stop(struct wa_pool *pool, void (*clear)(void *job));

#endif

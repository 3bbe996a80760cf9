/* Worker threads with a small stack, teams and pools of them (thread.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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

static size_t
line_size(size_t size)
{
	return (size + WA_CACHE_LINE - 1) / WA_CACHE_LINE * WA_CACHE_LINE;
}

void *
wa_lines_calloc(size_t n, size_t size)
{
	size_t bytes = line_size(size) * (n ? n : 1);
	void *p = aligned_alloc(WA_CACHE_LINE, bytes);
	if (!p)
		wa_die("out of memory (%zu bytes)", bytes);
	return memset(p, 0, bytes);
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

/* A slot's state, under the lock: a job is queued by the submitter and
 * done by the worker that ran it; a slot never used is free. */
enum { JOB_FREE, JOB_QUEUED, JOB_DONE };

static void *
pool_job(const struct wa_pool *pool, uint64_t i)
{
	return pool->jobs + (i % pool->slots) * pool->job_size;
}

struct wa_pool_thread {
	struct wa_pool *pool;
	unsigned number;
};

static void *
pool_main(void *arg)
{
	struct wa_pool *pool = ((struct wa_pool_thread *)arg)->pool;
	if (pthread_setspecific(pool->thread_key, arg) != 0)
		wa_die("pthread_setspecific failed");
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (pool->taken == pool->submitted && !pool->stop)
			pthread_cond_wait(&pool->queued, &pool->lock);
		if (pool->taken == pool->submitted)
			break;
		uint64_t i = pool->taken++;
		pthread_mutex_unlock(&pool->lock);
		pool->work(pool_job(pool, i));
		pthread_mutex_lock(&pool->lock);
		pool->state[i % pool->slots] = JOB_DONE;
		if (i == pool->awaited)
			pthread_cond_signal(&pool->done);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

void
wa_pool_start(struct wa_pool *pool, unsigned nthreads, unsigned jobs_per_thread,
    size_t job_size, void (*work)(void *job), void (*finish)(void *arg, void *job),
    void *arg)
{
	*pool = (struct wa_pool){ .nthreads = nthreads, .job_size = line_size(job_size), .work = work,
	    .finish = finish, .arg = arg, .awaited = UINT64_MAX, .max_weight = UINT64_MAX };
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->queued, NULL);
	pthread_cond_init(&pool->done, NULL);
	pool->slots = nthreads ? (size_t)jobs_per_thread * nthreads + 2 : 1;
	pool->jobs = wa_lines_calloc(pool->slots, job_size);
	pool->state = wa_calloc(pool->slots, 1);
	pool->weight = wa_calloc(pool->slots, sizeof *pool->weight);
	pool->tid = wa_calloc(nthreads ? nthreads : 1, sizeof *pool->tid);
	pool->threads = wa_calloc(nthreads ? nthreads : 1, sizeof *pool->threads);
	if (pthread_key_create(&pool->thread_key, NULL) != 0)
		wa_die("pthread_key_create failed");
	for (unsigned i = 0; i < nthreads; i++) {
		pool->threads[i] = (struct wa_pool_thread){ pool, i };
		int rc = wa_thread_start(&pool->tid[i], pool_main, &pool->threads[i]);
		if (rc) {
			errno = rc;
			wa_die_errno("cannot start a thread");
		}
	}
}

unsigned
wa_pool_thread(const struct wa_pool *pool)
{
	const struct wa_pool_thread *t = pthread_getspecific(pool->thread_key);
	return t ? t->number : 0;
}

/* Waits until job i is done. */
static void
await_job(struct wa_pool *pool, uint64_t i)
{
	size_t slot = i % pool->slots;
	pthread_mutex_lock(&pool->lock);
	pool->awaited = i;
	while (pool->state[slot] != JOB_DONE)
		pthread_cond_wait(&pool->done, &pool->lock);
	pool->awaited = UINT64_MAX;
	pthread_mutex_unlock(&pool->lock);
}

void
wa_pool_limit(struct wa_pool *pool, uint64_t max_weight)
{
	pool->max_weight = max_weight;
}

/* Finishes the oldest job, which is done. */
static void
finish_job(struct wa_pool *pool)
{
	pool->finish(pool->arg, pool_job(pool, pool->finished));
	pool->held -= pool->weight[pool->finished % pool->slots];
	pool->finished++;
}

/* Waits for the oldest n jobs handed out and finishes them.  The last of
 * them is awaited first: the threads took the others before it, so they
 * are usually done by then, and the caller wakes once for the n. */
static void
finish_oldest(struct wa_pool *pool, uint64_t n)
{
	if (n == 0)
		return;
	await_job(pool, pool->finished + n - 1);
	for (uint64_t end = pool->finished + n; pool->finished < end;) {
		await_job(pool, pool->finished);
		finish_job(pool);
	}
}

/* Finishes the oldest jobs as long as they and the next one are done,
 * without waiting (wa_pool_await_next then does not wait either). */
static void
finish_done(struct wa_pool *pool)
{
	for (;;) {
		pthread_mutex_lock(&pool->lock);
		bool done = pool->finished + 1 < pool->submitted &&
		    pool->state[pool->finished % pool->slots] == JOB_DONE &&
		    pool->state[(pool->finished + 1) % pool->slots] == JOB_DONE;
		pthread_mutex_unlock(&pool->lock);
		if (!done)
			return;
		finish_job(pool);
	}
}

void *
wa_pool_next(struct wa_pool *pool)
{
	/* Jobs done are finished at once (but the newest), so that the ring
	 * holds the ones still to do and the caller can run ahead of a long
	 * one.  The slots
	 * are taken in ring order, so the next one is free unless every slot
	 * holds a job not finished yet. */
	if (pool->nthreads)
		finish_done(pool);
	if (pool->submitted - pool->finished == pool->slots)
		finish_oldest(pool, (pool->slots + 1) / 2);
	/* The newest is finished only once the next is handed out. */
	while (pool->held > pool->max_weight && pool->submitted - pool->finished > 1)
		finish_oldest(pool, 1);
	return pool_job(pool, pool->submitted);
}

void
wa_pool_submit(struct wa_pool *pool, uint64_t weight)
{
	if (pool->nthreads == 0) {
		void *job = pool_job(pool, pool->submitted);
		pool->work(job);
		pool->finish(pool->arg, job);
		return;
	}
	pool->weight[pool->submitted % pool->slots] = weight;
	pool->held += weight;
	pthread_mutex_lock(&pool->lock);
	pool->state[pool->submitted % pool->slots] = JOB_QUEUED;
	pool->submitted++;
	pthread_cond_signal(&pool->queued);
	pthread_mutex_unlock(&pool->lock);
}

void *
wa_pool_await_next(struct wa_pool *pool)
{
	uint64_t next = pool->finished + 1;
	if (pool->nthreads == 0 || next >= pool->submitted)
		return NULL;
	await_job(pool, next);
	return pool_job(pool, next);
}

void
wa_pool_drain(struct wa_pool *pool)
{
	finish_oldest(pool, pool->submitted - pool->finished);
}

void
wa_pool_stop(struct wa_pool *pool, void (*clear)(void *job))
{
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->queued);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 0; i < pool->nthreads; i++)
		pthread_join(pool->tid[i], NULL);
	for (size_t i = 0; i < pool->slots; i++)
		clear(pool_job(pool, i));
	free(pool->jobs);
	free(pool->state);
	free(pool->weight);
	free(pool->tid);
	free(pool->threads);
	pthread_key_delete(pool->thread_key);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->queued);
	pthread_cond_destroy(&pool->done);
}

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msg.h"
#include "scratch.h"
#include "sorter.h"
#include "thread.h"
#include "workdir.h"

#define PIPE_BUFFER (1u << 20)

/* What the zstd children of one sort hold at once, measured (zstd 1.5):
 * the compressor of a run 33 MiB of RSS, each decompressor 6.3 MiB, and
 * a merge reads ZSTD_BATCH runs while it may write one.  They count in
 * the sort's budget: it gets the rest, and no zstd when they would take
 * more than half of it. */
#define ZSTD_BATCH 8
#define ZSTD_MEMORY ((40u + ZSTD_BATCH * 8u) << 20)

/* sort(1) reads nothing while it sorts a full buffer: the input waits in
 * a queue of a quarter of its memory, at most QUEUE_MAX and none below
 * QUEUE_MIN, that a thread writes to the pipe, so that the caller goes on
 * meanwhile. */
#define QUEUE_MAX (64u << 20)
#define QUEUE_MIN (64u << 10)

struct sorter_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *buf;
	size_t cap, head, len;	/* a ring of len bytes from head */
	bool closed;
	int fd, err;		/* the pipe; errno of a failed write */
	pthread_t thread;
};

static size_t
min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The stream's writes: into the ring, waiting for room. */
static ssize_t
queue_write(void *cookie, const char *data, size_t n)
{
	struct sorter_queue *q = cookie;
	size_t done = 0;
	pthread_mutex_lock(&q->mu);
	while (done < n && !q->err) {
		if (q->len == q->cap) {
			pthread_cond_wait(&q->cv, &q->mu);
			continue;
		}
		size_t at = (q->head + q->len) % q->cap;
		size_t k = min_size(n - done, min_size(q->cap - q->len, q->cap - at));
		memcpy(q->buf + at, data + done, k);
		q->len += k;
		done += k;
		pthread_cond_broadcast(&q->cv);
	}
	int err = q->err;
	pthread_mutex_unlock(&q->mu);
	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)n;
}

/* The thread: the ring to the pipe, until the stream is closed. */
static void *
queue_main(void *arg)
{
	struct sorter_queue *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->len == 0 && !q->closed)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->len == 0)
			break;
		size_t k = min_size(q->len, q->cap - q->head);
		const char *p = q->buf + q->head;
		pthread_mutex_unlock(&q->mu);
		bool ok = write_full(q->fd, p, k);
		int err = errno;
		pthread_mutex_lock(&q->mu);
		if (!ok) {
			q->err = err;
			pthread_cond_broadcast(&q->cv);
			break;
		}
		q->head = (q->head + k) % q->cap;
		q->len -= k;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* The stream's close: the rest of the ring goes out, then the pipe is
 * closed, which ends the input of sort. */
static int
queue_close(void *cookie)
{
	struct sorter_queue *q = cookie;
	pthread_mutex_lock(&q->mu);
	q->closed = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL);
	int err = q->err;
	if (close(q->fd) != 0 && !err)
		err = errno;
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q->buf);
	free(q);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* A stream into the pipe fd through a queue of cap bytes. */
static FILE *
queue_open(int fd, size_t cap, struct sorter_queue **queue)
{
	struct sorter_queue *q = wa_calloc(1, sizeof *q);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->buf = wa_malloc(cap);
	q->cap = cap;
	q->fd = fd;
	int rc = wa_thread_start(&q->thread, queue_main, q);
	if (rc) {
		errno = rc;
		wa_die_errno("cannot start a thread");
	}
	FILE *f = fopencookie(q, "w", (cookie_io_functions_t){ .write = queue_write,
	    .close = queue_close });
	if (!f)
		wa_die_errno("fopencookie");
	*queue = q;
	return f;
}

extern char **environ;

/* Whether a program is on the PATH. */
static bool
on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		char *file = wa_asprintf("%.*s/%s", (int)n, p, name);
		bool found = n && access(file, X_OK) == 0;
		free(file);
		if (found)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

void
sorter_start(struct sorter *so, const char *what, uint64_t mem, unsigned parallel,
    const char *dir, bool unique, int out_fd)
{
	/* A sort that dies shows as a write error with its exit status,
	 * rather than as a silent death. */
	signal(SIGPIPE, SIG_IGN);
	int in[2], out[2] = { -1, -1 };
	if (pipe2(in, O_CLOEXEC) != 0 || (out_fd < 0 && pipe2(out, O_CLOEXEC) != 0))
		wa_die_errno("pipe");
	/* Pipes as large as the buffers that fill them, where the system
	 * allows (pipe-max-size): a switch between the processes every
	 * megabyte, not every 64K. */
	fcntl(in[1], F_SETPIPE_SZ, PIPE_BUFFER);
	if (out_fd < 0)
		fcntl(out[1], F_SETPIPE_SZ, PIPE_BUFFER);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out_fd >= 0 ? out_fd : out[1], STDOUT_FILENO);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	sigset_t dfl, none;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

	/* URL lines compress several times over: the runs a large input
	 * spills take that much less disk.  But zstd takes 100 to 300 MiB of
	 * address space whatever -S says: under an address-space limit
	 * (ulimit -v) it would fail, and the sort with it. */
	struct rlimit as;
	bool as_limited = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
	bool zstd = !as_limited && mem >= 2 * (uint64_t)ZSTD_MEMORY && on_path("zstd");
	if (zstd)
		mem -= ZSTD_MEMORY;
	/* A small budget keeps its memory for sort itself: a smaller buffer
	 * would spill a file (and start a zstd) every few lines. */
	size_t queue = (size_t)(mem / 4 > QUEUE_MAX ? QUEUE_MAX : mem / 4);
	if (queue < QUEUE_MIN)
		queue = 0;
	mem -= queue;
	char size[32], threads[32], batch[32];
	snprintf(size, sizeof size, "%" PRIu64 "K", mem < 1024 ? 1 : mem >> 10);
	snprintf(threads, sizeof threads, "--parallel=%u", parallel ? parallel : 1);
	snprintf(batch, sizeof batch, "--batch-size=%u", ZSTD_BATCH);
	const char *argv[12];
	int argc = 0;
	argv[argc++] = "sort";
	argv[argc++] = "-S";
	argv[argc++] = size;
	argv[argc++] = threads;
	if (zstd) {
		argv[argc++] = "--compress-program=zstd";
		argv[argc++] = batch;
	}
	if (dir) {
		argv[argc++] = "-T";
		argv[argc++] = dir;
	}
	if (unique)
		argv[argc++] = "-u";
	argv[argc] = NULL;

	/* zstd's fastest level: half the processor time of its default
	 * level for spills a tenth larger, which live only as long as the
	 * sort. */
	size_t nenv = 0;
	while (environ[nenv])
		nenv++;
	char **env = wa_calloc(nenv + 3, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < nenv; i++)
		if (strncmp(environ[i], "LC_ALL=", 7) != 0 &&
		    strncmp(environ[i], "ZSTD_CLEVEL=", 12) != 0)
			env[k++] = environ[i];
	env[k++] = "LC_ALL=C";
	env[k++] = "ZSTD_CLEVEL=1";
	env[k] = NULL;

	/* No signal between the spawn and the registration: a child is
	 * never left running unknown. */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int rc = posix_spawnp(&so->pid, "sort", &fa, &attr, (char *const *)argv, env);
	if (rc == 0)
		workdir_add_child(so->pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		wa_die_errno("cannot run sort (GNU coreutils)");
	}
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	so->what = what;
	so->queue = NULL;
	so->in = queue ? queue_open(in[1], queue, &so->queue) : fdopen(in[1], "w");
	so->out = out[0] >= 0 ? fdopen(out[0], "r") : NULL;
	if (!so->in || (out[0] >= 0 && !so->out))
		wa_die_errno("fdopen");
	setvbuf(so->in, NULL, _IOFBF, PIPE_BUFFER);
	if (so->out)
		setvbuf(so->out, NULL, _IOFBF, PIPE_BUFFER);
}

static void
sorter_wait(struct sorter *so)
{
	int st;
	while (waitpid(so->pid, &st, 0) < 0)
		if (errno != EINTR)
			wa_die_errno("waitpid");
	workdir_remove_child(so->pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (WIFEXITED(st))
		wa_die("sort of the %s failed (exit status %d)", so->what, WEXITSTATUS(st));
	wa_die("sort of the %s was killed by signal %d", so->what, WTERMSIG(st));
}

void
sorter_close_input(struct sorter *so)
{
	bool failed = fclose(so->in) != 0;
	so->in = NULL;
	so->queue = NULL;
	if (failed) {
		sorter_wait(so);
		wa_die("sort of the %s stopped reading its input", so->what);
	}
}

void
sorter_finish(struct sorter *so)
{
	if (so->out) {
		if (ferror(so->out))
			wa_die_errno("reading the sorted %s", so->what);
		fclose(so->out);
		so->out = NULL;
	}
	sorter_wait(so);
}

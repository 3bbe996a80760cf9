#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "msg.h"

/* The temporary names the signal handler must remove.  A slot is filled
 * before it is published and cleared before its string is freed, so the
 * handler never sees a half-made entry. */
#define MAX_PENDING 256
static char *volatile pending[MAX_PENDING];

static void
pending_add(char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
	wa_die("too many output files open at once (%d)", MAX_PENDING);
}

static void
pending_remove(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

static void (*abort_hook)(void);

void
atomic_at_abort(void (*fn)(void))
{
	abort_hook = fn;
}

/* Removes every temporary file not yet committed. */
static void
abort_all(void)
{
	if (abort_hook)
		abort_hook();
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void
on_fatal_signal(int sig)
{
	abort_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
atomic_install_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa = { .sa_handler = on_fatal_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		/* Leave alone what the caller's shell ignores (nohup, &). */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* Before main, so that no tool can open a file before the cleanup is in
 * place; msg.c, which dies, knows nothing of this module. */
__attribute__((constructor)) static void
arm_cleanup(void)
{
	wa_at_die(abort_all);
	atomic_install_handlers();
}

mode_t
umask_value(void)
{
	mode_t m = umask(0);
	umask(m);
	return m;
}

const char *
atomic_open_failure(const char *path)
{
	struct stat st;
	int err = errno;
	bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	errno = err;
	return in_place ? "cannot be opened" : "cannot create a temporary file beside it";
}

struct atomic_file *
atomic_try_open(const char *path)
{
	struct atomic_file *af = wa_calloc(1, sizeof *af);
	af->path = wa_strdup(path);
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, /dev/stdout: written in place, as a
		 * rename would replace the device or pipe with a file. */
		if (!(af->fp = fopen(path, "we")))
			goto failed;
		return af;
	}
	char *dcopy = wa_strdup(path), *bcopy = wa_strdup(path);
	af->tmp = wa_asprintf("%s/.%s.XXXXXX", dirname(dcopy), basename(bcopy));
	free(dcopy);
	free(bcopy);

	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd >= 0)
		pending_add(af->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		goto failed;
	if (fchmod(fd, 0666 & ~umask_value()) != 0 || !(af->fp = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		unlink(af->tmp);
		pending_remove(af->tmp);
		errno = err;
		goto failed;
	}
	setvbuf(af->fp, NULL, _IOFBF, 1 << 20);
	return af;
failed:;
	int err = errno;
	free(af->tmp);
	free(af->path);
	free(af);
	errno = err;
	return NULL;
}

struct atomic_file *
atomic_open(const char *path)
{
	struct atomic_file *af = atomic_try_open(path);
	if (!af)
		wa_die_errno("%s: %s", path, atomic_open_failure(path));
	return af;
}

static void
atomic_free(struct atomic_file *af)
{
	pending_remove(af->tmp);
	free(af->tmp);
	free(af->path);
	free(af);
}

void
fsync_parent_dir(const char *path)
{
	char *copy = wa_strdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

static char *deferred_dir;

void
atomic_defer_dir_sync(const char *dir)
{
	free(deferred_dir);
	deferred_dir = dir ? wa_strdup(dir) : NULL;
}

static bool
dir_sync_deferred(const char *path)
{
	size_t n = deferred_dir ? strlen(deferred_dir) : 0;
	return n && strncmp(path, deferred_dir, n) == 0 && path[n] == '/' &&
	    !strchr(path + n + 1, '/');
}

char *
atomic_try_commit(struct atomic_file *af)
{
	bool flushed = fflush(af->fp) == 0 && !ferror(af->fp) &&
	    (!af->tmp || fsync(fileno(af->fp)) == 0);
	int err = errno;
	if (fclose(af->fp) != 0 && flushed) {
		flushed = false;
		err = errno;
	}
	char *error = NULL;
	if (!flushed)
		error = wa_asprintf("%s: write failed: %s", af->path, strerror(err));
	else if (af->tmp && rename(af->tmp, af->path) != 0)
		error = wa_asprintf("%s: cannot rename %s into place: %s", af->path,
		    af->tmp, strerror(errno));
	if (af->tmp) {
		if (error)
			unlink(af->tmp);
		else if (!dir_sync_deferred(af->path))
			fsync_parent_dir(af->path);
	}
	atomic_free(af);
	return error;
}

void
atomic_commit(struct atomic_file *af)
{
	char *error = atomic_try_commit(af);
	if (error)
		wa_die("%s", error);
}

void
atomic_abort(struct atomic_file *af)
{
	fclose(af->fp);
	if (af->tmp)
		unlink(af->tmp);
	atomic_free(af);
}

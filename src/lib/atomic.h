/* Output files that appear whole or not at all (wa.7, "Output files").
 *
 * atomic_open() creates DIR/.NAME.XXXXXX beside the final name; the tool
 * writes through fp; atomic_commit() flushes, fsyncs, renames it over the
 * final name and fsyncs the directory.  A run that dies or is interrupted
 * before the commit removes its temporary files (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE, wa_die): in a program that links this module, the signal
 * handlers are installed and the cleanup is registered with wa_at_die
 * before main.  After SIGKILL a temporary file may remain, but never a
 * partial file under the final name.  A path that exists and is no regular
 * file (/dev/null, a FIFO, /dev/stdout) is written in place, as renaming
 * over it would replace it. */
#ifndef WA_ATOMIC_H
#define WA_ATOMIC_H

#include <stdio.h>
#include <sys/types.h>

struct atomic_file {
	FILE *fp;
	char *path;	/* final name */
	char *tmp;	/* temporary name, in the same directory; NULL if in place */
};

/* Opens the file, or dies saying why. */
struct atomic_file *atomic_open(const char *path);
/* Makes the file visible under its final name, or dies saying why. */
void atomic_commit(struct atomic_file *af);
/* The same for a thread that must not end the process: NULL with errno
 * set; the commit's message (to free), and nothing left on disk. */
struct atomic_file *atomic_try_open(const char *path);
char *atomic_try_commit(struct atomic_file *af);
/* What failed when atomic_try_open(path) returned NULL; errno kept. */
const char *atomic_open_failure(const char *path);
/* Drops the file: nothing appears under the final name. */
void atomic_abort(struct atomic_file *af);

/* When a run dies (wa_die, the signals above), runs fn before the
 * temporary files are removed, for outputs that are not single files (a
 * directory being built, child processes); fn must be safe in a signal
 * handler.  A later call replaces it. */
void atomic_at_abort(void (*fn)(void));
/* Installs the signal handlers again, for a program that changed them;
 * a signal the process ignores stays ignored. */
void atomic_install_handlers(void);

/* The process's umask, for files made with other modes than open's. */
mode_t umask_value(void);

/* fsync of the directory that holds path, so that a rename is durable. */
void fsync_parent_dir(const char *path);

/* Commits of files in dir (NULL: none) leave the fsync of dir to the
 * caller, which makes it once for them all (workdir_install); each file's
 * own data is still synced at its commit. */
void atomic_defer_dir_sync(const char *dir);

#endif

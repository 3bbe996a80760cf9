/* A work directory for an output that is a directory: made hidden beside
 * the target (".NAME.XXXXXX"), it holds the new files and the scratch
 * files; at the end it is moved into place in one rename, so that the
 * target is at every moment the old output or the new one.  On an error, a
 * signal or an exit before that, it is removed with everything in it,
 * after the child processes that write there (registered here) have been
 * stopped.  One per process. */
#ifndef WA_WORKDIR_H
#define WA_WORKDIR_H

#include <sys/types.h>

/* Makes the work directory beside target, after checking that target may
 * be replaced (see workdir_install), and installs the cleanup. */
void workdir_create(const char *target, const char *marker);
/* The work directory, and the path of a file in it (to free). */
const char *workdir_path(void);
char *workdir_file(const char *name);
/* Moves the work directory to target.  An existing target is replaced
 * only if it holds a file named marker, or nothing: never a file or a
 * directory of something else given by mistake. */
void workdir_install(const char *target, const char *marker);

/* Children that write into the work directory, stopped before it goes. */
void workdir_add_child(pid_t pid);
void workdir_remove_child(pid_t pid);

#endif

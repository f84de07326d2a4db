/* For tests of the progress thread (BATON_ASYNC_PROGRESS=1): finding it among the process's
 * threads. Needs _GNU_SOURCE before the first include (pid_t of a thread). */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The thread id of this process's progress thread (named baton-progress), or -1. */
static inline pid_t mpitest_progress_tid(void)
{
    DIR* d = opendir("/proc/self/task");
    if (!d) return -1;
    pid_t found = -1;
    struct dirent* e;
    while ((e = readdir(d)) && found < 0) {
        if (e->d_name[0] == '.') continue;
        char path[sizeof "/proc/self/task//comm" + sizeof e->d_name], name[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE* f = fopen(path, "r");
        if (!f) continue;
        if (fgets(name, sizeof name, f) && strncmp(name, "baton-progress", 14) == 0) found = (pid_t)atoi(e->d_name);
        fclose(f);
    }
    closedir(d);
    return found;
}

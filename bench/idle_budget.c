/* idle_budget.c - how much of an application's sleep a helper thread on the same core can use.
 *
 * No MPI. An "idle wait" in coll_overlap.c and io_overlap.c is a nanosleep; a progress thread
 * (Baton's at SCHED_IDLE on the application's core, or any library's) can only work while that
 * sleep lasts, minus what the kernel and the hypervisor take to put the application to sleep,
 * fire its timer and switch back. This program measures that budget on the machine it runs on:
 *
 *     main thread (pinned to one core): nanosleep(S) in a loop, timer slack 1 ns (as coll_overlap)
 *     helper thread (same core, SCHED_IDLE): copies 4 KiB blocks while the main thread sleeps
 *
 * and prints, for each requested sleep S, the sleep's real length and the microseconds of copying
 * the helper got per sleep (its block count over its rate when it has the core to itself):
 *
 *     RESULT idle_budget/actual <S> <us> us
 *     RESULT idle_budget/work <S> <us> us
 *
 * With t_pure of a nonblocking operation and an idle wait calibrated to last about t_pure (as
 * coll_overlap does), a progress thread as fast as the application gets about work(S) of the
 * t_pure it needs, so no library can overlap more than about 100 x work / t_pure percent there.
 *
 *     cc -O2 -pthread bench/idle_budget.c -o idle_budget && ./idle_budget [core]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static atomic_int go;
static atomic_long blocks;
static char src[4096], dst[4096];
static int core;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void pin(pthread_t t)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(core, &s);
    (void)pthread_setaffinity_np(t, sizeof s, &s);
}

static void* helper(void* arg)
{
    (void)arg;
    struct sched_param sp = {0};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) != 0) {
        fprintf(stderr, "idle_budget: SCHED_IDLE refused; the budget below is a normal thread's\n");
    }
    for (;;) {
        if (atomic_load_explicit(&go, memory_order_relaxed)) {
            memcpy(dst, src, sizeof dst);
            __asm__ volatile("" ::: "memory");
            atomic_fetch_add_explicit(&blocks, 1, memory_order_relaxed);
        } else {
            __builtin_ia32_pause();
        }
    }
    return NULL;
}

static void sleep_us(double us)
{
    struct timespec q = {(time_t)(us / 1e6), (long)(us * 1e3) % 1000000000L};
    nanosleep(&q, NULL);
}

int main(int argc, char** argv)
{
    core = argc > 1 ? atoi(argv[1]) : sched_getcpu();
    pin(pthread_self());
#ifdef __linux__
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
    memset(src, 1, sizeof src);
    pthread_t t;
    if (pthread_create(&t, NULL, helper, NULL) != 0) {
        fprintf(stderr, "idle_budget: no thread\n");
        return 1;
    }
    pin(t);
    /* The helper's rate with the core to itself: one 50 ms sleep (best of 3). */
    double rate = 0.0;
    for (int k = 0; k < 3; ++k) {
        atomic_store(&blocks, 0);
        atomic_store(&go, 1);
        const double a = now_us();
        sleep_us(50000.0);
        atomic_store(&go, 0);
        const double r = (double)atomic_load(&blocks) / (now_us() - a);
        rate = r > rate ? r : rate;
    }
    static const double sleeps[] = {5, 10, 15, 20, 30, 40, 60, 80, 100, 150, 200, 300};
    for (size_t i = 0; i < sizeof sleeps / sizeof sleeps[0]; ++i) {
        const int n = 2000;
        double wall = 0.0;
        atomic_store(&blocks, 0);
        for (int k = 0; k < n; ++k) {
            atomic_store(&go, 1);
            const double a = now_us();
            sleep_us(sleeps[i]);
            atomic_store(&go, 0);
            wall += now_us() - a;
        }
        const double work = (double)atomic_load(&blocks) / rate / n;
        printf("RESULT idle_budget/actual %.0f %.1f us\n", sleeps[i], wall / n);
        printf("RESULT idle_budget/work %.0f %.1f us\n", sleeps[i], work);
    }
    return 0;
}

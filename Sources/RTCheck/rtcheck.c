// A malloc/free/lock interposer with a thread-local "real-time section" flag.
//
// Linked into a test executable (or LD_PRELOADed into `repeater` as librepeaterRTCheck.so) it
// defines the allocator entry points, forwards them to glibc's __libc_* implementations, and counts
// the calls a thread makes between rtcheck_enter() and rtcheck_leave(). Calls from libstdc++,
// librubberband and the Swift runtime are seen too, because the dynamic linker resolves their
// malloc to the first definition in the search order: this one.
//
// With RTCHECK_REPORT=path in the environment, the totals and the first offending call sites are
// written to that file at exit (the integration tests read it).
#define _GNU_SOURCE
#include "rtcheck.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define RTCHECK_DISABLED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define RTCHECK_DISABLED 1
#endif

#ifdef RTCHECK_DISABLED

int rtcheck_available(void) { return 0; }
void rtcheck_enter(void) {}
void rtcheck_leave(void) {}
rtcheck_counts rtcheck_thread_counts(void) { rtcheck_counts c = {0, 0, 0}; return c; }
void rtcheck_thread_reset(void) {}
rtcheck_counts rtcheck_total_counts(void) { rtcheck_counts c = {0, 0, 0}; return c; }
long rtcheck_total_sections(void) { return 0; }

#else

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);

static __thread int rt_depth;
static __thread rtcheck_counts thread_counts;
static atomic_long total_allocs, total_frees, total_locks, total_sections;

#define SITE_COUNT 8
static void *_Atomic sites[SITE_COUNT];
static atomic_int site_next;

static inline void note_site(void *site) {
    int i = atomic_fetch_add_explicit(&site_next, 1, memory_order_relaxed);
    if (i < SITE_COUNT) atomic_store_explicit(&sites[i], site, memory_order_relaxed);
}

#define NOTE(kind, field)                                                       \
    do {                                                                        \
        if (__builtin_expect(rt_depth > 0, 0)) {                                \
            thread_counts.field++;                                              \
            atomic_fetch_add_explicit(&total_##kind, 1, memory_order_relaxed); \
            note_site(__builtin_return_address(0));                             \
        }                                                                       \
    } while (0)

int rtcheck_available(void) { return 1; }
void rtcheck_enter(void) {
    if (rt_depth++ == 0) atomic_fetch_add_explicit(&total_sections, 1, memory_order_relaxed);
}
void rtcheck_leave(void) { if (rt_depth > 0) rt_depth--; }
rtcheck_counts rtcheck_thread_counts(void) { return thread_counts; }
void rtcheck_thread_reset(void) { rtcheck_counts zero = {0, 0, 0}; thread_counts = zero; }
rtcheck_counts rtcheck_total_counts(void) {
    rtcheck_counts c = {atomic_load(&total_allocs), atomic_load(&total_frees), atomic_load(&total_locks)};
    return c;
}
long rtcheck_total_sections(void) { return atomic_load(&total_sections); }

void *malloc(size_t n) { NOTE(allocs, allocs); return __libc_malloc(n); }
void *calloc(size_t n, size_t s) { NOTE(allocs, allocs); return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { NOTE(allocs, allocs); return __libc_realloc(p, n); }
void free(void *p) { if (p) NOTE(frees, frees); __libc_free(p); }
void *memalign(size_t a, size_t n) { NOTE(allocs, allocs); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { NOTE(allocs, allocs); return __libc_memalign(a, n); }
void *valloc(size_t n) { NOTE(allocs, allocs); return __libc_valloc(n); }
int posix_memalign(void **out, size_t a, size_t n) {
    NOTE(allocs, allocs);
    if (a < sizeof(void *) || (a & (a - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(a, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

typedef int (*mutex_lock_fn)(pthread_mutex_t *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static mutex_lock_fn real_mutex_lock;
static cond_wait_fn real_cond_wait;
static cond_timedwait_fn real_cond_timedwait;

static void resolve(void) {
    if (!real_mutex_lock) real_mutex_lock = (mutex_lock_fn)dlsym(RTLD_NEXT, "pthread_mutex_lock");
    if (!real_cond_wait) real_cond_wait = (cond_wait_fn)dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
    if (!real_cond_timedwait)
        real_cond_timedwait = (cond_timedwait_fn)dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
}

int pthread_mutex_lock(pthread_mutex_t *m) {
    NOTE(locks, locks);
    if (__builtin_expect(real_mutex_lock == NULL, 0)) resolve();
    return real_mutex_lock(m);
}
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    NOTE(locks, locks);
    if (__builtin_expect(real_cond_wait == NULL, 0)) resolve();
    return real_cond_wait(c, m);
}
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) {
    NOTE(locks, locks);
    if (__builtin_expect(real_cond_timedwait == NULL, 0)) resolve();
    return real_cond_timedwait(c, m, t);
}

__attribute__((constructor)) static void rtcheck_init(void) { resolve(); }

__attribute__((destructor)) static void rtcheck_report(void) {
    const char *path = getenv("RTCHECK_REPORT");
    if (path == NULL || *path == 0) return;
    FILE *f = fopen(path, "w");
    if (f == NULL) return;
    fprintf(f, "sections=%ld allocs=%ld frees=%ld locks=%ld\n", atomic_load(&total_sections),
            atomic_load(&total_allocs), atomic_load(&total_frees), atomic_load(&total_locks));
    int n = atomic_load(&site_next);
    for (int i = 0; i < n && i < SITE_COUNT; i++) {
        Dl_info info;
        void *site = atomic_load(&sites[i]);
        if (dladdr(site, &info) && info.dli_sname)
            fprintf(f, "site %s+%#lx (%s)\n", info.dli_sname, (unsigned long)((char *)site - (char *)info.dli_saddr),
                    info.dli_fname);
        else
            fprintf(f, "site %p\n", site);
    }
    fclose(f);
}

#endif

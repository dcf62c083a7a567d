#ifndef REPEATER_RTCHECK_H
#define REPEATER_RTCHECK_H
#ifdef __cplusplus
extern "C" {
#endif

/// Counts of calls that a real-time thread must never make.
typedef struct {
    long allocs;   ///< malloc, calloc, realloc, memalign, aligned_alloc, posix_memalign, valloc
    long frees;    ///< free
    long locks;    ///< pthread_mutex_lock, pthread_cond_wait, pthread_cond_timedwait
} rtcheck_counts;

/// 1 when the interposer is compiled in (it switches itself off under the thread and address
/// sanitizers, whose runtimes own malloc), 0 otherwise.
int rtcheck_available(void);

/// Marks the calling thread as inside a real-time section (nestable).
void rtcheck_enter(void);
void rtcheck_leave(void);

/// What the calling thread did inside its real-time sections since its last reset.
rtcheck_counts rtcheck_thread_counts(void);
void rtcheck_thread_reset(void);

/// What all threads did inside real-time sections, and how many sections were entered.
rtcheck_counts rtcheck_total_counts(void);
long rtcheck_total_sections(void);

#ifdef __cplusplus
}
#endif
#endif

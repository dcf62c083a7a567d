#ifndef REPEATER_SUPPORT_H
#define REPEATER_SUPPORT_H
#ifdef __cplusplus
extern "C" {
#endif

// ---- Real-time probe --------------------------------------------------------------------------
// The JACK callback brackets its work with these. They do nothing unless the RTCheck library was
// preloaded (LD_PRELOAD=libRepeaterRTCheck.so), in which case they mark the audio thread so that
// every allocation or lock on it is counted. Resolved once, at start-up, by dlsym.
typedef void (*repeater_probe_fn)(void);
extern repeater_probe_fn repeater_rtprobe_enter_fn;
extern repeater_probe_fn repeater_rtprobe_leave_fn;
/// Looks the probe up; returns 1 when a checker is present. Control thread, before activation.
int repeater_rtprobe_init(void);
/// Real-time thread.
static inline void repeater_rtprobe_enter(void) { if (repeater_rtprobe_enter_fn) repeater_rtprobe_enter_fn(); }
/// Real-time thread.
static inline void repeater_rtprobe_leave(void) { if (repeater_rtprobe_leave_fn) repeater_rtprobe_leave_fn(); }

// ---- Signals ----------------------------------------------------------------------------------
/// Installs handlers for SIGINT, SIGTERM and SIGHUP that only record the signal and write one byte
/// to a pipe (so a poll() on repeater_signal_fd() wakes). SIGPIPE is ignored.
/// Returns 0, or -1 with errno set.
int repeater_signals_install(void);
/// The read end of the wake-up pipe, or -1 before install.
int repeater_signal_fd(void);
/// The first signal received since the last call (0 if none); drains the pipe.
int repeater_signal_take(void);

/// A wake-up the real-time thread can give a thread asleep in poll(): an eventfd (non-blocking,
/// close-on-exec), or -1 with errno. `post` adds 1 to its counter (one write(2) that never blocks:
/// no lock, no allocation); `drain` reads it back to 0.
int repeater_wake_create(void);
void repeater_wake_post(int fd);
void repeater_wake_drain(int fd);

// ---- Memory -----------------------------------------------------------------------------------
/// Gives the free memory the allocator holds back to the system (glibc's malloc_trim(0)). Only
/// for threads that are not real-time: it walks every arena under its lock.
void repeater_malloc_trim(void);

// ---- FFTW ---------------------------------------------------------------------------------------
/// FFTW's planner (fftwf_plan_*, fftwf_destroy_plan) keeps process-wide state and is not
/// thread-safe; every part of repeater that plans (the isolator, the note view, the tests' aubio)
/// takes this one lock around it. Never on the audio thread: planning allocates.
void repeater_fftw_planner_lock(void);
void repeater_fftw_planner_unlock(void);

// ---- Threads ----------------------------------------------------------------------------------
/// Sets the calling thread's nice value (0 normal … 19 least), for work behind the control thread.
/// JACK's threads are real-time and never compete with these. Not 19 for a thread that shares a lock
/// with the control thread, even briefly: on a machine busy with other work a nice-19 thread gets
/// about 1.5 % of a core and, preempted while it holds the lock, keeps the control thread waiting
/// for seconds (measured: stdin commands answered after > 1 s beside two busy loops).
/// Returns 0, or -1 with errno set.
int repeater_thread_set_nice(int nice);

// ---- Guarded children ---------------------------------------------------------------------------
/// Starts `path` with `argv` (NULL-ended; stdout and stderr to `out_fd`, stdin from /dev/null) as
/// the child of a small guardian process. The guardian ends when the program ends (with its exit
/// status), and when `*control_fd` closes (the caller closed it, exited or crashed: the kernel
/// closes it) it sends the program one SIGTERM and waits for it, however long: never SIGKILL (a
/// jackd killed so keeps its slot in JACK's shared-memory registry). The guardian ignores SIGINT,
/// SIGHUP, SIGTERM and SIGQUIT (the program gets the terminal's itself), and holds no other
/// descriptor of the caller's. Control thread: forks; the guardian calls only async-signal-safe functions.
/// Returns the guardian's pid, or -1 with errno set. `*child_pid` is the program's pid.
int repeater_spawn_guarded(const char *path, char *const argv[], int out_fd, int *control_fd, int *child_pid);

#ifdef __cplusplus
}
#endif
#endif

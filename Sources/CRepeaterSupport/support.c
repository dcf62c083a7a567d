#define _GNU_SOURCE
#include "repeater_support.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

repeater_probe_fn repeater_rtprobe_enter_fn;
repeater_probe_fn repeater_rtprobe_leave_fn;

int repeater_rtprobe_init(void) {
    repeater_rtprobe_enter_fn = (repeater_probe_fn)dlsym(RTLD_DEFAULT, "rtcheck_enter");
    repeater_rtprobe_leave_fn = (repeater_probe_fn)dlsym(RTLD_DEFAULT, "rtcheck_leave");
    if (!repeater_rtprobe_enter_fn || !repeater_rtprobe_leave_fn) {
        repeater_rtprobe_enter_fn = 0;
        repeater_rtprobe_leave_fn = 0;
        return 0;
    }
    return 1;
}

static int signal_pipe[2] = {-1, -1};
static volatile sig_atomic_t pending_signal;

static void on_signal(int sig) {
    int saved = errno;
    if (pending_signal == 0) pending_signal = sig;
    if (signal_pipe[1] >= 0) {
        char b = (char)sig;
        ssize_t r = write(signal_pipe[1], &b, 1);
        (void)r;
    }
    errno = saved;
}

int repeater_signals_install(void) {
    if (signal_pipe[0] < 0) {
        if (pipe2(signal_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &sa, 0) || sigaction(SIGTERM, &sa, 0) || sigaction(SIGHUP, &sa, 0)) return -1;
    signal(SIGPIPE, SIG_IGN);
    // A parent may have started us with these blocked (the mask is inherited): unblock them.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &set, 0);
    return 0;
}

int repeater_signal_fd(void) { return signal_pipe[0]; }

int repeater_signal_take(void) {
    char buf[64];
    if (signal_pipe[0] >= 0) {
        while (read(signal_pipe[0], buf, sizeof buf) > 0) {}
    }
    int sig = pending_signal;
    pending_signal = 0;
    return sig;
}

#include <stdint.h>
#include <sys/eventfd.h>

int repeater_wake_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void repeater_wake_post(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;  // (EAGAIN only at a counter of 2^64 - 2: it is woken anyway)
}

void repeater_wake_drain(int fd) {
    uint64_t count;
    ssize_t got = read(fd, &count, sizeof count);
    (void)got;
}

#include <malloc.h>

void repeater_malloc_trim(void) {
    malloc_trim(0);
}

int repeater_thread_set_nice(int nice) {
    // On Linux a nice value belongs to a thread: PRIO_PROCESS with the thread's id.
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

static pthread_mutex_t fftw_planner = PTHREAD_MUTEX_INITIALIZER;

void repeater_fftw_planner_lock(void) { pthread_mutex_lock(&fftw_planner); }
void repeater_fftw_planner_unlock(void) { pthread_mutex_unlock(&fftw_planner); }

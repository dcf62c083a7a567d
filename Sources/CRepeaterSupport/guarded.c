#define _GNU_SOURCE
#include "repeater_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

// Closes every descriptor from `first` up, except `keep` (-1: none). close_range is Linux 5.9+;
// where the kernel lacks it, a loop up to the descriptor limit does the same.
static void close_from(int first, int keep) {
    if (keep >= first) {
        if (keep > first && syscall(SYS_close_range, (unsigned)first, (unsigned)(keep - 1), 0) != 0) {
            for (int fd = first; fd < keep; fd++) close(fd);
        }
        first = keep + 1;
    }
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) != 0) {
        for (int fd = first; fd < 65536; fd++) close(fd);
    }
}

static void default_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &action, NULL);  // fails harmlessly for KILL, STOP
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static int exit_code(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// The guardian: starts the program, reports its pid, then waits for either to end.
static void guard(const char *path, char *const argv[], int out_fd, int control, int report) {
    default_signals();
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    // Only the control pipe's end or the program's own end ends the guardian: a signal meant for
    // its starter (a forked copy, it shares its command line: `pkill -f` finds both) must not
    // orphan the program.
    sigaction(SIGINT, &ignore, NULL);
    sigaction(SIGHUP, &ignore, NULL);
    sigaction(SIGTERM, &ignore, NULL);
    sigaction(SIGQUIT, &ignore, NULL);
    sigaction(SIGPIPE, &ignore, NULL);
    prctl(PR_SET_NAME, "repeater-guard", 0, 0, 0);
    pid_t child = fork();
    if (child == 0) {
        default_signals();
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != 0) dup2(null, 0);
        dup2(out_fd, 1);
        dup2(out_fd, 2);
        close_from(3, -1);
        execv(path, argv);
        _exit(127);
    }
    int pid = (int)child;
    ssize_t written = write(report, &pid, sizeof pid);
    (void)written;
    close(report);
    if (child < 0) _exit(127);
    close_from(3, control);  // nothing of the caller's stays open here but the control pipe
    for (;;) {
        int status = 0;
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child) _exit(exit_code(status));
        struct pollfd watch = {.fd = control, .events = POLLIN, .revents = 0};
        int ready = poll(&watch, 1, 100);
        if (ready > 0) {
            char byte;
            if (read(control, &byte, 1) <= 0) {  // the caller is gone, or asks for the end
                kill(child, SIGTERM);
                while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
                _exit(exit_code(status));
            }
        }
    }
}

int repeater_spawn_guarded(const char *path, char *const argv[], int out_fd, int *control_fd, int *child_pid) {
    int control[2], report[2];
    if (pipe2(control, O_CLOEXEC) != 0) return -1;
    if (pipe2(report, O_CLOEXEC) != 0) {
        close(control[0]);
        close(control[1]);
        return -1;
    }
    pid_t guardian = fork();
    if (guardian < 0) {
        int saved = errno;
        close(control[0]);
        close(control[1]);
        close(report[0]);
        close(report[1]);
        errno = saved;
        return -1;
    }
    if (guardian == 0) {
        close(control[1]);
        close(report[0]);
        guard(path, argv, out_fd, control[0], report[1]);
        _exit(127);
    }
    close(control[0]);
    close(report[1]);
    int pid = -1;
    ssize_t got;
    do { got = read(report[0], &pid, sizeof pid); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got != (ssize_t)sizeof pid || pid <= 0) {
        close(control[1]);
        int status;
        waitpid(guardian, &status, 0);
        errno = ECHILD;
        return -1;
    }
    *control_fd = control[1];
    *child_pid = pid;
    return (int)guardian;
}

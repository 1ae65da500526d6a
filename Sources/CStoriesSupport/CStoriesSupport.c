#include "CStoriesSupport.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

void stories_malloc_counts(unsigned long long *in_use, unsigned long long *held_free) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33) // mallinfo2 came with glibc 2.33
    struct mallinfo2 info = mallinfo2();
    *in_use = (unsigned long long)(info.uordblks + info.hblkhd);
    *held_free = (unsigned long long)info.fordblks;
#else
    *in_use = 0;
    *held_free = 0;
#endif
}

void stories_tune_allocator(void) {
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

static struct termios saved_termios;
static int saved_fd = -1;

// Mouse drag + SGR off, cursor visible, attributes reset, leave the alternate screen.
static const char restore_sequence[] = "\033[?1002l\033[?1006l\033[?1000l\033[?1004l\033[?25h\033[0m\033[?1049l";

// kitty: every picture this program placed is deleted (its images live on a layer of
// their own, which leaving the alternate screen does not clear everywhere).
static const char kitty_delete_sequence[] = "\033_Ga=d,d=A,q=2\033\\";
static volatile sig_atomic_t deletes_kitty_pictures = 0;

void stories_restore_deletes_kitty_pictures(int on) { deletes_kitty_pictures = on ? 1 : 0; }

void stories_restore_terminal_now(void) {
    if (saved_fd < 0) return;
    ssize_t ignored;
    if (deletes_kitty_pictures) {
        ignored = write(saved_fd, kitty_delete_sequence, sizeof kitty_delete_sequence - 1);
        (void)ignored;
    }
    ignored = write(saved_fd, restore_sequence, sizeof restore_sequence - 1);
    (void)ignored;
    tcsetattr(saved_fd, TCSANOW, &saved_termios);
}

static void on_crash(int sig) {
    stories_restore_terminal_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

void stories_install_crash_restore(int fd) {
    if (tcgetattr(fd, &saved_termios) != 0) return;
    saved_fd = fd;
    const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_crash;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, NULL);
    }
}

// The probe's guard (stories_guard_terminal): the modes to give back, the program's own,
// and the handlers it replaced.
static struct termios guard_saved, guard_raw;
static volatile sig_atomic_t guard_fd = -1;
static const int guarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP };
#define GUARDED_COUNT (sizeof guarded_signals / sizeof guarded_signals[0])
static struct sigaction guard_previous[GUARDED_COUNT];

static void guard_install(int sig, void (*handler)(int)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    for (unsigned i = 0; i < GUARDED_COUNT; i++) sigaddset(&action.sa_mask, guarded_signals[i]);
    sigaction(sig, &action, NULL);
}

static void guard_unblock_and_raise(int sig) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

// A file the probe made (the shared memory offered to kitty), removed if a signal ends the
// process while the probe reads (unlink is async-signal-safe). Empty: none.
static char guard_file[128];

// Puts `path` into `into` for a signal handler to read: emptied first, the first byte
// written last, so a handler never sees half a path; one that does not fit is left out.
static void set_signal_path(char *into, size_t size, const char *path) {
    into[0] = 0;
    if (path == NULL) return;
    size_t length = strlen(path);
    if (length == 0 || length >= size) return;
    memcpy(into + 1, path + 1, length);
    into[0] = path[0];
}

void stories_guard_remove_on_signal(const char *path) {
    set_signal_path(guard_file, sizeof guard_file, path);
}

static void on_guarded(int sig) {
    int saved_errno = errno;
    int fd = guard_fd;
    if (fd >= 0) tcsetattr(fd, TCSANOW, &guard_saved);
    if (sig == SIGTSTP) {
        signal(SIGTSTP, SIG_DFL);
        guard_unblock_and_raise(SIGTSTP); // stopped here until SIGCONT
        guard_install(SIGTSTP, on_guarded);
        if (guard_fd >= 0) tcsetattr(guard_fd, TCSANOW, &guard_raw);
        errno = saved_errno;
        return;
    }
    if (guard_file[0] != 0) unlink(guard_file);
    signal(sig, SIG_DFL);
    guard_unblock_and_raise(sig);
    _exit(128 + sig); // a signal whose default is not to end the process (never for these)
}

void stories_guard_terminal(int fd, const struct termios *saved, const struct termios *raw) {
    guard_saved = *saved;
    guard_raw = *raw;
    for (unsigned i = 0; i < GUARDED_COUNT; i++) sigaction(guarded_signals[i], NULL, &guard_previous[i]);
    guard_fd = fd;
    for (unsigned i = 0; i < GUARDED_COUNT; i++) {
        // A signal the shell set to be ignored (nohup, a background job) stays ignored.
        if (guard_previous[i].sa_handler == SIG_IGN) continue;
        guard_install(guarded_signals[i], on_guarded);
    }
}

void stories_unguard_terminal(void) {
    if (guard_fd < 0) return;
    for (unsigned i = 0; i < GUARDED_COUNT; i++) sigaction(guarded_signals[i], &guard_previous[i], NULL);
    guard_fd = -1;
}

// A file a command is writing (`stories render`'s FILE.partial-PID), removed when a signal
// ends the process before it is whole. Empty: none.
static char remove_file[4096];

static void on_removing(int sig) {
    if (remove_file[0] != 0) unlink(remove_file);
    signal(sig, SIG_DFL);
    guard_unblock_and_raise(sig);
    _exit(128 + sig);
}

void stories_remove_on_signal(const char *path) {
    set_signal_path(remove_file, sizeof remove_file, path);
    if (remove_file[0] == 0) return;
    for (unsigned i = 0; i < GUARDED_COUNT; i++) {
        if (guarded_signals[i] == SIGTSTP) continue;
        struct sigaction previous;
        sigaction(guarded_signals[i], NULL, &previous);
        // A signal the shell set to be ignored (nohup, a background job) stays ignored.
        if (previous.sa_handler == SIG_IGN) continue;
        guard_install(guarded_signals[i], on_removing);
    }
}

static void on_ignored(int sig) { (void)sig; }

void stories_ignore_keeping_pending(int sig) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_ignored;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, NULL);
}

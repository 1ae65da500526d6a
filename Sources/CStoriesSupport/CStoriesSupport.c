#include "CStoriesSupport.h"

#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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

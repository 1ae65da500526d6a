#ifndef STORIES_SUPPORT_H
#define STORIES_SUPPORT_H

#include <stddef.h>
#include <termios.h>

/// Remembers the terminal's current settings (termios of fd) and installs handlers for
/// crash signals (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) that give the
/// terminal back (mouse modes off, cursor on, main screen, saved termios) and re-raise.
void stories_install_crash_restore(int fd);

/// Writes the sequences that turn off what the app turned on, and the saved termios.
/// Async-signal-safe; safe to call more than once.
void stories_restore_terminal_now(void);

/// Whether the restore also deletes every kitty graphics picture on screen (set while the
/// viewer shows pictures through kitty's protocol; a crash must not leave one behind).
void stories_restore_deletes_kitty_pictures(int on);

/// While the terminal `fd` is in a mode of the program's (`raw`, the probe's), the signals
/// that end or stop the process give it back first (issue 45, point 5): SIGINT, SIGTERM,
/// SIGHUP and SIGQUIT restore `saved` and end the process by the same signal (its usual
/// status); SIGTSTP restores `saved`, stops, and after `fg` puts `raw` back. Signals the
/// process blocks stay pending for whoever takes them later. Async-signal-safe handlers.
void stories_guard_terminal(int fd, const struct termios *saved, const struct termios *raw);

/// Gives `sig` a handler that does nothing: like SIG_IGN for a thread that does not block
/// it, but a signal already pending (blocked, for a Dispatch source to read) is kept, where
/// setting SIG_IGN would discard it.
void stories_ignore_keeping_pending(int sig);

/// While the terminal is guarded, a signal that ends the process also removes file `path`
/// (the probe's shared-memory offer, as /dev/shm/NAME); NULL: none.
void stories_guard_remove_on_signal(const char *path);

/// A signal that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT) removes file `path`
/// first (a file half made: `stories render`'s), then ends it by the same signal; NULL: none
/// (the handlers stay, ending the process as before).
void stories_remove_on_signal(const char *path);

/// Puts back the handlers `stories_guard_terminal` replaced.
void stories_unguard_terminal(void);

/// Keeps glibc's allocator from fragmenting under the decode threads (docs/performance.md,
/// "Memory"): at most two arenas, and every block of 128 KB or more (decoded pictures,
/// video frames) mapped on its own so it goes back to the system when freed, instead of
/// the threshold rising after the first such free. Call first thing, before any thread.
/// Does nothing on other C libraries.
void stories_tune_allocator(void);

/// What malloc holds (glibc's mallinfo2): bytes in use, and bytes held free in its arenas.
/// Both 0 on other C libraries.
void stories_malloc_counts(unsigned long long *in_use, unsigned long long *held_free);

/// Puts `count` bytes in a new POSIX shared-memory object `name` ("/stories-…") for kitty's
/// graphics protocol to read (`t=s`, which unlinks it after reading): created for this user
/// alone (0600), never one that exists (O_EXCL). 0, or -1 with errno (nothing left behind).
int stories_shm_put(const char *name, const void *bytes, size_t count);

/// Removes shared-memory object `name` (one the terminal did not take); nothing when gone.
void stories_shm_remove(const char *name);

/// epoll without its packed struct (which Swift does not import): `stories bench hold`'s
/// connections. A new epoll descriptor (close-on-exec), or -1.
int stories_epoll_create(void);
/// Watches `fd` for `events` (EPOLLIN 1, EPOLLOUT 4, EPOLLRDHUP 0x2000) under `id`; `modify`
/// changes a watch already there. 0, or -1 with errno.
int stories_epoll_watch(int epoll, int fd, unsigned events, unsigned long long id, int modify);
/// Waits up to `timeout` ms; fills `ids` and `events` with up to `max` ready watches; how
/// many (or -1 with errno).
int stories_epoll_wait(int epoll, unsigned long long *ids, unsigned *events, int max, int timeout);

#endif

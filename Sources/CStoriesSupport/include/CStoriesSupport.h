#ifndef STORIES_SUPPORT_H
#define STORIES_SUPPORT_H

/// Remembers the terminal's current settings (termios of fd) and installs handlers for
/// crash signals (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) that give the
/// terminal back (mouse modes off, cursor on, main screen, saved termios) and re-raise.
void stories_install_crash_restore(int fd);

/// Writes the sequences that turn off what the app turned on, and the saved termios.
/// Async-signal-safe; safe to call more than once.
void stories_restore_terminal_now(void);

#endif

// The C side of the ncurses backend. Swift 6 cannot touch ncurses' mutable globals or
// import its struct-built macros, so this header gives getters and constant copies.
#ifndef STORIES_CNCURSESW_SHIM_H
#define STORIES_CNCURSESW_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <langinfo.h>
#include <locale.h>
#include <wchar.h>
#include <stdio.h>
#include <ncursesw/curses.h>

static inline WINDOW *stories_stdscr(void) { return stdscr; }
static inline WINDOW *stories_curscr(void) { return curscr; }
static inline int stories_cols(void) { return COLS; }
static inline int stories_lines(void) { return LINES; }
static inline int stories_colors(void) { return COLORS; }
static inline int stories_color_pairs(void) { return COLOR_PAIRS; }

static const attr_t STORIES_A_NORMAL = A_NORMAL;
static const attr_t STORIES_A_BOLD = A_BOLD;
static const attr_t STORIES_A_DIM = A_DIM;
static const attr_t STORIES_A_UNDERLINE = A_UNDERLINE;
static const attr_t STORIES_A_REVERSE = A_REVERSE;
static const attr_t STORIES_A_ITALIC = A_ITALIC;
static const attr_t STORIES_A_COLOR = A_COLOR;

/// Writes one cell: up to CCHARW_MAX code points (a grapheme), attributes and an extended
/// colour pair (above 255), which only the opts pointer of setcchar can carry.
/// Returns STORIES_REFUSED when ncurses will not make a cell of the characters; otherwise
/// what mvwadd_wch says (ERR also when the bottom-right cell was written but the cursor
/// could not move on, which is not a failure to draw).
static inline int stories_put_cell(int y, int x, const wchar_t *chars, attr_t attrs, int pair) {
    cchar_t cell;
    if (setcchar(&cell, chars, attrs, 0, &pair) != OK) return -2;
    return mvwadd_wch(stdscr, y, x, &cell);
}
static const int STORIES_REFUSED = -2;

/// Whether the current terminal can move its cursor to any cell (terminfo's `cup`): the app
/// draws by cell, and without it (TERM=dumb) every frame would run together on one line.
static inline int stories_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}

/// term.h's, declared here alone (term.h defines macros such as `lines` and `columns`).
extern int setupterm(const char *, int, int *);
extern struct term *cur_term;
extern struct term *set_curterm(struct term *);
extern int del_curterm(struct term *);

/// Whether `term` has a terminfo entry on this machine (1) or not (0); ncurses' current
/// terminal is left as it was.
static inline int stories_terminfo_exists(const char *term) {
    int error = 0;
    struct term *before = cur_term;
    int found = setupterm(term, 1, &error) == OK;
    if (found && cur_term != before) {
        struct term *made = set_curterm(before);
        del_curterm(made);
    }
    return found;
}

/// The colours terminfo entry `term` has, read without starting ncurses (`stories doctor`);
/// -1 without an entry.
static inline int stories_terminfo_colors(const char *term) {
    int error = 0;
    if (setupterm(term, 1, &error) != OK) return -1;
    return tigetnum("colors");
}

/// The pair number ncurses uses for a foreground/background, allocating when needed.
/// Defines pair `pair` (numbered by the caller, never reused before a reset, so ncurses
/// never scans the screen for cells of a changed pair).
static inline int stories_init_pair(int pair, int fg, int bg) { return init_extended_pair(pair, fg, bg); }

/// Forgets every pair at once (cheap: the screen is repainted in full at the next update).
static inline void stories_reset_pairs(void) { reset_color_pairs(); }

/// Reads one input unit: returns KEY_CODE_YES for a function key, OK for a character,
/// ERR when nothing is waiting.
static inline int stories_get_wch(wint_t *out) { return wget_wch(stdscr, out); }

/// Reads back one cell of stdscr (for tests): its characters, attributes and pair.
static inline int stories_read_cell(int y, int x, wchar_t *chars, attr_t *attrs, int *pair) {
    cchar_t cell;
    short short_pair = 0;
    if (mvwin_wch(stdscr, y, x, &cell) == ERR) return ERR;
    if (getcchar(&cell, chars, attrs, &short_pair, pair) == ERR) return ERR;
    return OK;
}

/// The colours of an extended pair (for tests).
static inline int stories_pair_colors(int pair, int *fg, int *bg) { return extended_pair_content(pair, fg, bg); }

/// The name of the locale's character set ("UTF-8" when wide characters work).
static inline const char *stories_codeset(void) { return nl_langinfo(CODESET); }

static const int STORIES_KEY_CODE_YES = KEY_CODE_YES;
static const int STORIES_KEY_RESIZE = KEY_RESIZE;
static const int STORIES_ERR = ERR;
static const int STORIES_OK = OK;

#endif

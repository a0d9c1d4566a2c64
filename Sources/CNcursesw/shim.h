#ifndef STOREFRONT_CNCURSESW_SHIM_H
#define STOREFRONT_CNCURSESW_SHIM_H
// SwiftPM drops the -D flags of ncursesw.pc: without these, get_wch and cchar_t vanish.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Macros and mutable globals that Swift 6 cannot import, wrapped as functions.
static inline WINDOW *cn_stdscr(void) { return stdscr; }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_maxy(WINDOW *w) { int y, x; getmaxyx(w, y, x); (void)x; return y; }
static inline int cn_maxx(WINDOW *w) { int y, x; getmaxyx(w, y, x); (void)y; return x; }
static inline attr_t cn_a_normal(void) { return A_NORMAL; }
static inline attr_t cn_a_bold(void) { return A_BOLD; }
static inline attr_t cn_a_reverse(void) { return A_REVERSE; }
static inline attr_t cn_a_dim(void) { return A_DIM; }
static inline attr_t cn_a_underline(void) { return A_UNDERLINE; }
static inline mmask_t cn_button1_clicked(void) { return BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED; }
static inline mmask_t cn_button1_press_or_click(void) { return BUTTON1_CLICKED | BUTTON1_PRESSED; }
static inline mmask_t cn_wheel_up(void) { return BUTTON4_PRESSED; }
#if defined(BUTTON5_PRESSED)
static inline mmask_t cn_wheel_down(void) { return BUTTON5_PRESSED; }
#else
static inline mmask_t cn_wheel_down(void) { return 0; }
#endif

/// The process's standard streams (mutable C globals Swift 6 will not touch).
static inline FILE *cn_stdin(void) { return stdin; }
static inline FILE *cn_stdout(void) { return stdout; }

/// Draws one cell: a UTF-8 character (with combining marks) in the given attributes and colour pair.
static inline int cn_put_cell(WINDOW *w, int y, int x, const wchar_t *text, attr_t attrs, short pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attrs, pair, NULL) != OK) return ERR;
    return mvwadd_wch(w, y, x, &cell);
}

/// Whether the terminal has an alternate screen to leave at exit (rmcup); vt100 has none.
static inline int cn_has_alternate_screen(void) {
    char *exit_ca = tigetstr("rmcup");
    return exit_ca != NULL && exit_ca != (char *)-1 && exit_ca[0] != 0;
}

/// Whether the current locale's character set is UTF-8.
static inline int cn_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (codeset[0] == 'U' || codeset[0] == 'u') && (codeset[1] == 'T' || codeset[1] == 't')
        && (codeset[2] == 'F' || codeset[2] == 'f');
}
#endif

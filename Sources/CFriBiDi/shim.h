// GNU FriBiDi (Debian's libfribidi-dev): the Unicode bidirectional algorithm and Arabic
// shaping, for terminals that show text in the order it is stored. Only StoriesUI imports it.
#ifndef STORIES_CFRIBIDI_SHIM_H
#define STORIES_CFRIBIDI_SHIM_H

#include <fribidi.h>
#include <stdlib.h>

/// One line of text, analysed: every code point's embedding level (odd: right to left) in
/// `levels`, and `text` shaped in place — Arabic letters in their joined forms (a lam-alef
/// ligature leaves U+FEFF where its second letter was) and brackets mirrored inside
/// right-to-left runs. `direction` is the paragraph's: 1 right to left, 0 left to right,
/// -1 as its first strong letter says. Reordering is left to the caller, which keeps
/// grapheme clusters whole. Returns 1 when done, 0 when FriBiDi could not (out of memory).
static inline int stories_bidi_analyse(FriBidiChar *text, int length, FriBidiLevel *levels, int direction) {
    if (length <= 0) return 1;
    FriBidiCharType *types = malloc(sizeof(FriBidiCharType) * (size_t)length);
    FriBidiBracketType *brackets = malloc(sizeof(FriBidiBracketType) * (size_t)length);
    FriBidiArabicProp *joining = malloc(sizeof(FriBidiArabicProp) * (size_t)length);
    int done = 0;
    if (types && brackets && joining) {
        FriBidiParType base = direction > 0 ? FRIBIDI_PAR_RTL : direction == 0 ? FRIBIDI_PAR_LTR : FRIBIDI_PAR_ON;
        fribidi_get_bidi_types(text, length, types);
        fribidi_get_bracket_types(text, length, types, brackets);
        if (fribidi_get_par_embedding_levels_ex(types, brackets, length, &base, levels) != 0) {
            fribidi_get_joining_types(text, length, joining);
            fribidi_join_arabic(types, length, levels, joining);
            fribidi_shape(FRIBIDI_FLAGS_DEFAULT | FRIBIDI_FLAGS_ARABIC, levels, length, joining, text);
            done = 1;
        }
    }
    free(types);
    free(brackets);
    free(joining);
    return done;
}

#endif

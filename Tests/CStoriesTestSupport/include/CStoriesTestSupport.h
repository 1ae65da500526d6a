#ifndef STORIES_TEST_SUPPORT_H
#define STORIES_TEST_SUPPORT_H

/// renameat2(RENAME_EXCHANGE): swaps two names at once, atomically (a folder and a link to
/// another folder, for the confinement race). 0, or -1 with errno.
int stories_test_exchange(const char *a, const char *b);

#endif

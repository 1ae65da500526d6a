// epoll for `stories bench hold`: Swift does not import `struct epoll_event` (packed on
// x86-64), so the calls are wrapped here with plain arrays.
#include "CStoriesSupport.h"
#include <sys/epoll.h>

int stories_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int stories_epoll_watch(int epoll, int fd, unsigned events, unsigned long long id, int modify) {
    struct epoll_event event = { .events = events, .data = { .u64 = id } };
    return epoll_ctl(epoll, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

int stories_epoll_wait(int epoll, unsigned long long *ids, unsigned *events, int max, int timeout) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    if (max < 1) return 0;
    int n = epoll_wait(epoll, ready, max, timeout);
    for (int i = 0; i < n; i++) {
        ids[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return n;
}

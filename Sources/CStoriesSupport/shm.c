#include "CStoriesSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int stories_shm_put(const char *name, const void *bytes, size_t count) {
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)count) != 0) goto fail;
    const unsigned char *at = bytes;
    size_t done = 0;
    while (done < count) {
        ssize_t n = pwrite(fd, at + done, count - done, (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) goto fail;
        done += (size_t)n;
    }
    close(fd);
    return 0;
fail:;
    int saved = errno;
    close(fd);
    shm_unlink(name);
    errno = saved;
    return -1;
}

void stories_shm_remove(const char *name) {
    shm_unlink(name);
}

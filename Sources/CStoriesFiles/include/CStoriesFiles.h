#ifndef STORIES_FILES_H
#define STORIES_FILES_H

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: `path`
/// (relative) is opened under the folder `dirfd` and nowhere else, no link followed on the
/// way (a link anywhere in the path: ELOOP; a way out: EXDEV). Returns the descriptor, or
/// -1 with errno: ENOSYS where the kernel (or a seccomp filter) has no openat2 — the caller
/// then walks the path one component at a time. glibc 2.36 has no wrapper for it.
int stories_open_beneath(int dirfd, const char *path, int flags, unsigned int mode);

/// `O_PATH` (Glibc's Swift module leaves it out: it is a GNU extension): a descriptor that
/// names a file or folder without opening it for reading.
extern const int stories_o_path;

/// Names the calling thread (`pthread_setname_np`, a GNU extension Glibc's Swift module
/// leaves out): at most 15 bytes are kept. 0, or an errno.
int stories_name_this_thread(const char *name);

#endif

// Linux system calls Swift's Glibc module leaves out: epoll, eventfd, timerfd, prctl (egress
// workers ask for a signal when the server dies; I/O threads name themselves), the batched socket calls recvmmsg/sendmmsg/accept4,
// and posix_spawn's closefrom action (test daemons inherit no stray descriptor).
//
// glibc declares the batched calls only under _GNU_SOURCE, but defining _GNU_SOURCE here changes
// glibc's fd_set (fds_bits vs __fds_bits) and clashes with the SwiftGlibc module, depending on
// which module the compiler builds first. So this header never defines it and declares the few
// GNU-only items itself, with glibc's exact layouts and prototypes (see recvmmsg(2)).
#ifndef SRTC_CSYSTEM_SHIM_H
#define SRTC_CSYSTEM_SHIM_H
#ifdef __linux__
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
// prctl is variadic, which Swift cannot call.
static inline int srtc_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}
// The calling thread's name as `top -H` and perf show it (15 bytes; pthread_setname_np is GNU-only).
static inline int srtc_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
#include <time.h>
#include <spawn.h>

#ifndef __USE_GNU
struct mmsghdr {
    struct msghdr msg_hdr;  // the message
    unsigned int msg_len;   // bytes transmitted
};
extern int recvmmsg(int fd, struct mmsghdr *vmessages, unsigned int vlen, int flags, struct timespec *tmo);
extern int sendmmsg(int fd, struct mmsghdr *vmessages, unsigned int vlen, int flags);
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addr_len, int flags);
// glibc 2.34: the spawned child closes every descriptor from `from` up (posix_spawn(3)).
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
// glibc 2.29: the spawned child changes to `path` before it runs the program.
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
#endif
#endif
#endif

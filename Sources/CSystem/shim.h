// Linux system calls Swift's Glibc module leaves out (epoll, eventfd, recvmmsg/sendmmsg).
#ifndef SRTC_CSYSTEM_SHIM_H
#define SRTC_CSYSTEM_SHIM_H
#ifdef __linux__
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#endif
#endif

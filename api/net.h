/*
 * net — the socket headers the API's address handling needs (inet_pton,
 * inet_ntop, getaddrinfo, struct sockaddr_in/in6). The one place they
 * differ by system: POSIX headers on Linux, Winsock 2 on Windows
 * (libmicrohttpd's own sockets are Winsock there too).
 */
#ifndef STORBENCH_NET_H
#define STORBENCH_NET_H

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#define SHUT_RDWR SD_BOTH /* shutdown(): both directions */
#else
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#endif

/*
 * The burst load generator of bench/loadgen.ts in C (epoll, one thread), used when a C compiler
 * is at hand. The JS one's own CPU (~0.1 ms a request) ran on the same two cores as the server it
 * measured, and in a burst of 200 that is ~20 ms of CPU the server's threads (its serving
 * thread, V8's compiler and GC threads, the database writer) had to share the cores with; real
 * tenants' clients run on machines of their own. This one costs a few microseconds a request.
 *
 * Input (stdin): "<port> <connections> <jobs>\n", then each job's request bytes as
 * "<length>\n<bytes>". Connection i sends job r * connections + i in burst r; burst r + 1 starts
 * when every response of burst r is in; connections are opened by the first burst and kept.
 * A response is read as far as its framing (Content-Length or chunked), as the JS one does.
 * Output (stdout): the JSON of LoadResult without serverCpuMs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn {
  int fd;
  char *in;
  size_t len, cap;
  const char *out; /* request bytes still to send */
  size_t outlen;
  int waiting;
  double sent;
};

static int port, nconn, njobs;
static char **req;
static size_t *reqlen;
static int epfd;

static void die(const char *what) {
  fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
  exit(1);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec * 1e3 + u.ru_utime.tv_usec / 1e3 + u.ru_stime.tv_sec * 1e3 + u.ru_stime.tv_usec / 1e3;
}

static void open_conn(struct conn *c, int i) {
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (c->fd < 0) die("socket");
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(c->fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) die("connect");
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = (unsigned)i};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
}

static void flush_out(struct conn *c) {
  while (c->outlen > 0) {
    ssize_t n = write(c->fd, c->out, c->outlen);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINPROGRESS || errno == ENOTCONN) return;
      die("write");
    }
    c->out += n;
    c->outlen -= (size_t)n;
  }
}

/* Is a whole response at the start of c->in? Returns its length (0: not yet), status in *status. */
static size_t parse(struct conn *c, int *status, int *close) {
  char *h = memmem(c->in, c->len, "\r\n\r\n", 4);
  if (!h) return 0;
  size_t head = (size_t)(h - c->in) + 4;
  *status = c->len >= 12 ? atoi(c->in + 9) : 0;
  *close = 0;
  long clen = -1;
  int chunked = 0;
  for (char *p = c->in; p < h;) {
    char *e = memmem(p, (size_t)(h - p) + 2, "\r\n", 2);
    if (!e) break;
    size_t l = (size_t)(e - p);
    if (l > 15 && strncasecmp(p, "content-length:", 15) == 0) clen = strtol(p + 15, NULL, 10);
    else if (l > 18 && strncasecmp(p, "transfer-encoding:", 18) == 0 && memmem(p, l, "chunked", 7)) chunked = 1;
    else if (l > 11 && strncasecmp(p, "connection:", 11) == 0 && memmem(p, l, "close", 5)) *close = 1;
    p = e + 2;
  }
  if (clen >= 0) return c->len >= head + (size_t)clen ? head + (size_t)clen : 0;
  if (!chunked) return 0; /* framing by close: not produced by the servers measured */
  size_t at = head;
  for (;;) {
    char *nl = memmem(c->in + at, c->len - at, "\r\n", 2);
    if (!nl) return 0;
    long size = strtol(c->in + at, NULL, 16);
    at = (size_t)(nl - c->in) + 2 + (size_t)size + 2;
    if (at > c->len) return 0;
    if (size == 0) return at;
  }
}

static size_t read_all(char **buf) {
  size_t cap = 1 << 16, len = 0;
  *buf = malloc(cap);
  for (;;) {
    if (len == cap) *buf = realloc(*buf, cap *= 2);
    ssize_t n = read(0, *buf + len, cap - len);
    if (n < 0) die("read stdin");
    if (n == 0) return len;
    len += (size_t)n;
  }
}

int main(void) {
  char *input;
  size_t inlen = read_all(&input);
  char *p = input;
  if (sscanf(p, "%d %d %d", &port, &nconn, &njobs) != 3) return fprintf(stderr, "loadgen: bad input\n"), 1;
  p = memchr(p, '\n', inlen) + 1;
  req = calloc((size_t)njobs, sizeof *req);
  reqlen = calloc((size_t)njobs, sizeof *reqlen);
  for (int j = 0; j < njobs; j++) {
    char *e;
    reqlen[j] = strtoul(p, &e, 10);
    req[j] = e + 1;
    p = e + 1 + reqlen[j];
  }
  epfd = epoll_create1(0);
  if (epfd < 0) die("epoll_create1");
  struct conn *conns = calloc((size_t)nconn, sizeof *conns);
  for (int i = 0; i < nconn; i++) conns[i].fd = -1;
  int rounds = (njobs + nconn - 1) / nconn;
  double *lat = calloc((size_t)njobs, sizeof *lat);
  int *codes = calloc(600, sizeof *codes);
  struct epoll_event evs[256];
  double cpu0 = cpu_ms(), t0 = now_ms();
  for (int r = 0; r < rounds; r++) {
    int pending = 0;
    for (int i = 0; i < nconn; i++) {
      int j = r * nconn + i;
      if (j >= njobs) break;
      struct conn *c = &conns[i];
      if (c->fd < 0) open_conn(c, i);
      c->out = req[j];
      c->outlen = reqlen[j];
      c->waiting = 1;
      c->sent = now_ms();
      flush_out(c);
      pending++;
    }
    while (pending > 0) {
      int n = epoll_wait(epfd, evs, 256, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        die("epoll_wait");
      }
      for (int k = 0; k < n; k++) {
        int i = (int)evs[k].data.u32;
        struct conn *c = &conns[i];
        if (evs[k].events & EPOLLOUT) flush_out(c);
        if (!(evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
        for (;;) {
          if (c->cap - c->len < 65536) c->in = realloc(c->in, c->cap = c->cap * 2 + 65536);
          ssize_t got = read(c->fd, c->in + c->len, c->cap - c->len);
          if (got > 0) {
            c->len += (size_t)got;
            continue;
          }
          if (got < 0 && errno == EAGAIN) break;
          if (got < 0) die("read");
          /* closed by the server */
          if (c->waiting) return fprintf(stderr, "loadgen: the server closed the connection before its response was complete\n"), 1;
          epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
          close(c->fd);
          c->fd = -1;
          c->len = 0;
          break;
        }
        int status, cl;
        size_t end;
        if (c->waiting && (end = parse(c, &status, &cl)) > 0) {
          int j = r * nconn + i;
          lat[j] = now_ms() - c->sent;
          if (status >= 0 && status < 600) codes[status]++;
          c->waiting = 0;
          memmove(c->in, c->in + end, c->len - end);
          c->len -= end;
          pending--;
          if (cl) {
            epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
            close(c->fd);
            c->fd = -1;
            c->len = 0;
          }
        }
      }
    }
  }
  double elapsed = now_ms() - t0, cpu = cpu_ms() - cpu0;
  printf("{\"lat\":[");
  for (int j = 0; j < njobs; j++) printf("%s%.3f", j ? "," : "", lat[j]);
  printf("],\"byRound\":[");
  for (int r = 0; r < rounds; r++) {
    printf("%s[", r ? "," : "");
    for (int i = 0; i < nconn && r * nconn + i < njobs; i++) printf("%s%.3f", i ? "," : "", lat[r * nconn + i]);
    printf("]");
  }
  printf("],\"codes\":{");
  int first = 1;
  for (int s = 0; s < 600; s++)
    if (codes[s]) printf("%s\"%d\":%d", first ? "" : ",", s, codes[s]), first = 0;
  printf("},\"elapsed\":%.3f,\"clientCpuMs\":%.3f}", elapsed, cpu);
  return 0;
}

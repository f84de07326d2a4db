/* pmi_probe: a tiny PMI-1 wire-protocol client for testing mpiexec (no libmpi_abi).
 *
 * Each argument is one action, run in order; "@R:action" runs the action on rank R only.
 *   init            init + get_maxes/appnum/kvsname/universe_size, checks BATON_* env
 *   kvs             put own key, barrier, get every rank's key, check a missing key
 *   barrier         barrier_in / barrier_out
 *   finalize        finalize / finalize_ack
 *   abort:N         cmd=abort exitcode=N, then wait to be killed
 *   exit:N          exit(N)
 *   signal:N        raise(N)
 *   sleep:S         sleep S seconds (fractions allowed)
 *   print:TEXT      TEXT and a newline on stdout    eprint:TEXT  the same on stderr
 *   partial:TEXT    TEXT without a newline on stdout
 *   spam:N          N long lines on stdout, each written in two pieces
 *   stdin           echo stdin lines as "stdin: <line>", then "stdin-eof rank R"
 *   ignore-term     ignore SIGTERM
 *   pidfile:PATH    append own pid to PATH
 *   env:VAR=VALUE   check that VAR is VALUE
 *   noenv:VAR       check that VAR is not set
 * A failed check prints "pmi_probe: rank R: ..." on stderr and exits 99.
 */
#define _POSIX_C_SOURCE 200809L /* NOLINT(bugprone-reserved-identifier): the feature-test macro */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

static int fd = -1, rank = -1, size = -1;
static char kvsname[300];

static void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "pmi_probe: rank %d: ", rank);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(99);
}

static int env_int(const char* name) {
  const char* v = getenv(name);
  if (v == NULL || *v == '\0') die("%s is not set", name);
  return atoi(v);
}

static void send_line(const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  buf[n++] = '\n';
  for (int off = 0; off < n;) {
    ssize_t w = write(fd, buf + off, (size_t)(n - off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die("write to PMI_FD failed: %s", strerror(errno));
    off += (int)w;
  }
}

static void recv_line(char* buf, size_t cap) {
  size_t len = 0;
  for (;;) {
    char c;
    ssize_t r = read(fd, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) die("PMI_FD closed");
    if (c == '\n') break;
    if (len + 1 < cap) buf[len++] = c;
  }
  buf[len] = '\0';
}

/* The value of key in a reply line ("" when absent), copied to out. */
static const char* field(const char* line, const char* key, char* out, size_t cap) {
  size_t klen = strlen(key);
  out[0] = '\0';
  for (const char* p = line; *p;) {
    while (*p == ' ') ++p;
    const char* end = strchr(p, ' ');
    if (end == NULL) end = p + strlen(p);
    if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
      size_t n = (size_t)(end - p) - klen - 1;
      if (n >= cap) n = cap - 1;
      memcpy(out, p + klen + 1, n);
      out[n] = '\0';
      return out;
    }
    p = end;
  }
  return out;
}

/* Sends a command and checks that the reply is cmd=<want> with rc=0 (when rc present). */
static void call(const char* want, char* reply, size_t cap, const char* fmt, ...) {
  char buf[2048], v[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  send_line("%s", buf);
  recv_line(reply, cap);
  if (strcmp(field(reply, "cmd", v, sizeof v), want) != 0)
    die("sent '%s', expected cmd=%s, got '%s'", buf, want, reply);
}

static void expect(const char* reply, const char* key, const char* want) {
  char v[1100];
  if (strcmp(field(reply, key, v, sizeof v), want) != 0)
    die("in '%s': expected %s=%s, got '%s'", reply, key, want, v);
}

static void do_init(void) {
  char r[2048], want[64];
  call("response_to_init", r, sizeof r, "cmd=init pmi_version=1 pmi_subversion=1");
  expect(r, "rc", "0");
  expect(r, "pmi_version", "1");
  call("maxes", r, sizeof r, "cmd=get_maxes");
  expect(r, "rc", "0");
  expect(r, "kvsname_max", "256");
  expect(r, "keylen_max", "64");
  expect(r, "vallen_max", "1024");
  call("appnum", r, sizeof r, "cmd=get_appnum");
  expect(r, "appnum", "0");
  call("my_kvsname", r, sizeof r, "cmd=get_my_kvsname");
  expect(r, "rc", "0");
  field(r, "kvsname", kvsname, sizeof kvsname);
  if (kvsname[0] == '\0') die("empty kvsname");
  call("universe_size", r, sizeof r, "cmd=get_universe_size");
  snprintf(want, sizeof want, "%d", size);
  expect(r, "size", want);
  expect(r, "rc", "0");
  if (env_int("BATON_LOCAL_RANK") != rank) die("BATON_LOCAL_RANK != PMI_RANK");
  if (env_int("BATON_LOCAL_SIZE") != size) die("BATON_LOCAL_SIZE != PMI_SIZE");
  if (env_int("BATON_UNIVERSE_SIZE") != size) die("BATON_UNIVERSE_SIZE != PMI_SIZE");
  const char* id = getenv("BATON_JOBID");
  if (id == NULL || *id == '\0') die("BATON_JOBID is not set");
  if (strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(id))
    die("BATON_JOBID '%s' is not safe in a /dev/shm name", id);
}

static void do_barrier(void) {
  char r[256];
  call("barrier_out", r, sizeof r, "cmd=barrier_in");
}

static void do_kvs(void) {
  char r[2048], want[128];
  call("put_result", r, sizeof r, "cmd=put kvsname=%s key=key-%d value=val-%d-of-%d=x", kvsname,
       rank, rank, size);
  expect(r, "rc", "0");
  expect(r, "msg", "success");
  do_barrier();
  for (int i = 0; i < size; ++i) {
    call("get_result", r, sizeof r, "cmd=get kvsname=%s key=key-%d", kvsname, i);
    expect(r, "rc", "0");
    expect(r, "msg", "success");
    snprintf(want, sizeof want, "val-%d-of-%d=x", i, size);
    expect(r, "value", want);
  }
  call("get_result", r, sizeof r, "cmd=get kvsname=%s key=no-such-key", kvsname);
  expect(r, "rc", "-1");
  expect(r, "msg", "key_not_found");
  char big[1100];
  memset(big, 'k', 65);
  big[65] = '\0';
  call("put_result", r, sizeof r, "cmd=put kvsname=%s key=%s value=1", kvsname, big);
  expect(r, "rc", "-1");
  memset(big, 'v', 1025);
  big[1025] = '\0';
  call("put_result", r, sizeof r, "cmd=put kvsname=%s key=long-%d value=%s", kvsname, rank, big);
  expect(r, "rc", "-1");
  expect(r, "msg", "value_too_long");
  big[1024] = '\0';
  call("put_result", r, sizeof r, "cmd=put kvsname=%s key=long-%d value=%s", kvsname, rank, big);
  expect(r, "rc", "0");
  call("get_result", r, sizeof r, "cmd=get kvsname=%s key=long-%d", kvsname, rank);
  expect(r, "value", big);
  call("get_result", r, sizeof r, "cmd=get kvsname=not-%s key=key-0", kvsname);
  expect(r, "rc", "-1");
  call("get_result", r, sizeof r, "cmd=get kvsname=%s key=PMI_process_mapping", kvsname);
  snprintf(want, sizeof want, "(vector,(0,1,%d))", size);
  expect(r, "value", want);
  do_barrier();
  printf("rank %d kvs ok\n", rank);
  fflush(stdout);
}

static void do_spam(int lines) {
  char buf[512];
  for (int i = 0; i < lines; ++i) {
    int n = snprintf(buf, sizeof buf, "spam rank %d line %d ", rank, i);
    while (n < 200) buf[n++] = (char)('a' + rank % 26);
    buf[n++] = '\n';
    if (write(1, buf, 100) != 100 || write(1, buf + 100, (size_t)n - 100) != n - 100)
      die("write failed");
  }
}

static void run(const char* a) {
  if (a[0] == '@') {
    char* end;
    long only = strtol(a + 1, &end, 10);
    if (*end != ':') die("bad action '%s'", a);
    if (only != rank) return;
    a = end + 1;
  }
  if (strcmp(a, "init") == 0) {
    do_init();
  } else if (strcmp(a, "kvs") == 0) {
    do_kvs();
  } else if (strcmp(a, "barrier") == 0) {
    do_barrier();
  } else if (strcmp(a, "finalize") == 0) {
    char r[256];
    call("finalize_ack", r, sizeof r, "cmd=finalize");
  } else if (strncmp(a, "abort:", 6) == 0) {
    send_line("cmd=abort exitcode=%d message=probe abort from rank %d", atoi(a + 6), rank);
    for (;;) pause();
  } else if (strncmp(a, "exit:", 5) == 0) {
    fflush(stdout);
    exit(atoi(a + 5));
  } else if (strncmp(a, "signal:", 7) == 0) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    fflush(stdout);
    signal(atoi(a + 7), SIG_DFL); /* a sanitizer runtime may have claimed it */
    raise(atoi(a + 7));
  } else if (strncmp(a, "sleep:", 6) == 0) {
    double s = atof(a + 6);
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  } else if (strncmp(a, "print:", 6) == 0) {
    printf("%s\n", a + 6);
    fflush(stdout);
  } else if (strncmp(a, "eprint:", 7) == 0) {
    fprintf(stderr, "%s\n", a + 7);
  } else if (strncmp(a, "partial:", 8) == 0) {
    printf("%s", a + 8);
    fflush(stdout);
  } else if (strncmp(a, "spam:", 5) == 0) {
    do_spam(atoi(a + 5));
  } else if (strcmp(a, "stdin") == 0) {
    char line[1024];
    while (fgets(line, sizeof line, stdin) != NULL) {
      line[strcspn(line, "\n")] = '\0';
      printf("stdin: %s\n", line);
    }
    printf("stdin-eof rank %d\n", rank);
    fflush(stdout);
  } else if (strcmp(a, "ignore-term") == 0) {
    signal(SIGTERM, SIG_IGN);
  } else if (strncmp(a, "pidfile:", 8) == 0) {
    FILE* f = fopen(a + 8, "a");
    if (f == NULL) die("cannot open %s", a + 8);
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
  } else if (strncmp(a, "env:", 4) == 0) {
    char name[256];
    const char* eq = strchr(a + 4, '=');
    if (eq == NULL || (size_t)(eq - a - 4) >= sizeof name) die("bad action '%s'", a);
    memcpy(name, a + 4, (size_t)(eq - a - 4));
    name[eq - a - 4] = '\0';
    const char* v = getenv(name);
    if (v == NULL || strcmp(v, eq + 1) != 0) die("%s is '%s', expected '%s'", name, v ? v : "(unset)", eq + 1);
  } else if (strncmp(a, "noenv:", 6) == 0) {
    if (getenv(a + 6) != NULL) die("%s is set to '%s'", a + 6, getenv(a + 6));
  } else {
    die("unknown action '%s'", a);
  }
}

int main(int argc, char** argv) {
  rank = env_int("PMI_RANK");
  size = env_int("PMI_SIZE");
  fd = env_int("PMI_FD");
  for (int i = 1; i < argc; ++i) run(argv[i]);
  return 0;
}

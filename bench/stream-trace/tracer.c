/*
   Stream-order tracer for GPU runs, loaded with LD_PRELOAD (bench/stream-trace.sh builds it and runs a command under it).

   Why: with PETSc's root stream made non-blocking (-root_device_context_stream_type nonblocking) some runs give NaN,
   diverge or hang, and pass with CUDA_LAUNCH_BLOCKING=1 (README, "Known problems"). Work issued on the legacy stream
   (stream 0 and the synchronous copies) is not ordered with a non-blocking stream, so the suspects are operations that
   run on one stream while an operation issued earlier on another has not finished. Neither compute-sanitizer nor
   nsys is usable on every lent GPU host; CUPTI is (pip's nvidia-cuda-cupti), so this records with it:
   - every kernel, copy and memset with its stream, start and end (CUPTI's activity records),
   - each stream's creation flags (CUPTI_ACTIVITY_KIND_STREAM: legacy, blocking, non-blocking),
   - for each runtime or driver call that issued one of them, the first caller outside CUDA's libraries (dladdr of
     the return addresses), so that a record names PETSc's or SFPC's function.
   At exit it prints per stream the operation counts, then every "unordered pair": an operation B that started before
   an operation A issued earlier (lower correlation id) on another stream had ended, and that is not explained by the
   two being independent (the tracer cannot know the data; each pair is a candidate, read its callers). Pairs where B
   is on the legacy stream and A on a non-blocking stream are the ones the option can break.
   Environment: SFPC_TRACE_PAIRS (most pairs printed, default 40), SFPC_TRACE_ALL=1 (also every record in issue order).
*/
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACE_CALLER 192

typedef struct {
  unsigned long long start, end;
  unsigned           corr, stream, kind; /* kind: 0 kernel, 1 copy, 2 memset */
  const char        *name;               /* kernels: CUPTI's name (kept alive by CUPTI); copies: a kind string */
} Op;

typedef struct {
  unsigned corr;
  char     caller[TRACE_CALLER];
} Caller;

typedef struct {
  unsigned stream, flag;
} Stream;

static Op     *ops;
static size_t  nops, capops;
static Caller *callers;
static size_t  ncallers, capcallers;
static Stream  streams[256];
static size_t  nstreams;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle subscriber;

#define CUPTI_OK(call) \
  do { \
    CUptiResult _r = (call); \
    if (_r != CUPTI_SUCCESS) { \
      const char *_s; \
      cuptiGetResultString(_r, &_s); \
      fprintf(stderr, "[stream-trace] %s failed: %s\n", #call, _s); \
    } \
  } while (0)

static void *Grow(void *p, size_t *cap, size_t n, size_t size)
{
  if (n < *cap) return p;
  *cap = *cap ? 2 * *cap : 4096;
  p    = realloc(p, *cap * size);
  if (!p) {
    fprintf(stderr, "[stream-trace] out of memory\n");
    abort();
  }
  return p;
}

static int IsCUDALibrary(const char *lib)
{
  return strstr(lib, "libcuda") || strstr(lib, "libcupti") || strstr(lib, "stream-trace") || strstr(lib, "libcusparse") || strstr(lib, "libcublas") || strstr(lib, "libnvJitLink");
}

/* A return address as "function (library)", or "library+0xoffset" where the symbol is not exported (addr2line -f -e on an unstripped copy names it). */
static int Frame(void *pc, char *out, size_t len, const char **libout)
{
  Dl_info d;
  if (!dladdr(pc, &d) || !d.dli_fname) return 0;
  const char *lib = strrchr(d.dli_fname, '/');
  lib             = lib ? lib + 1 : d.dli_fname;
  *libout         = lib;
  if (d.dli_sname) snprintf(out, len, "%s (%s)", d.dli_sname, lib);
  else snprintf(out, len, "%s+0x%lx", lib, (unsigned long)((char *)pc - (char *)d.dli_fbase));
  return 1;
}

/* The first return address outside CUDA's, CUPTI's and this tracer's libraries and, where that is in PETSc, the first outside PETSc too: "A <- B". */
static void FirstCaller(char *out, size_t len)
{
  void       *pcs[64];
  int         n = backtrace(pcs, 64), have = 0;
  char        a[TRACE_CALLER], b[TRACE_CALLER];
  const char *lib;

  snprintf(out, len, "?");
  for (int i = 1; i < n; i++) {
    if (!Frame(pcs[i], have ? b : a, TRACE_CALLER, &lib) || IsCUDALibrary(lib)) continue;
    if (!have) {
      have = 1;
      snprintf(out, len, "%s", a);
      if (!strstr(lib, "libpetsc")) return;
    } else if (!strstr(lib, "libpetsc")) {
      snprintf(out, len, "%.90s <- %.90s", a, b);
      return;
    }
  }
}

static void CUPTIAPI OnCall(void *udata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
  const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
  (void)udata;
  (void)domain;
  (void)cbid;
  if (cb->callbackSite != CUPTI_API_ENTER || !cb->functionName) return;
  /* only the calls that issue GPU work: launches, copies, memsets (graph launches included) */
  if (!strstr(cb->functionName, "aunch") && !strstr(cb->functionName, "emcpy") && !strstr(cb->functionName, "emset")) return;
  pthread_mutex_lock(&lock);
  callers = Grow(callers, &capcallers, ncallers, sizeof(Caller));
  callers[ncallers].corr = cb->correlationId;
  FirstCaller(callers[ncallers].caller, TRACE_CALLER);
  ncallers++;
  pthread_mutex_unlock(&lock);
}

static void CUPTIAPI BufferRequested(uint8_t **buffer, size_t *size, size_t *maxrecords)
{
  *size       = 8 << 20;
  *buffer     = aligned_alloc(8, *size);
  *maxrecords = 0;
}

static const char *CopyKind(unsigned k)
{
  switch (k) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    return "copy HtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    return "copy DtoH";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    return "copy DtoD";
  default:
    return "copy (other)";
  }
}

static void AddOp(unsigned long long start, unsigned long long end, unsigned corr, unsigned stream, unsigned kind, const char *name)
{
  ops        = Grow(ops, &capops, nops, sizeof(Op));
  ops[nops++] = (Op){start, end, corr, stream, kind, name};
}

static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t streamid, uint8_t *buffer, size_t size, size_t valid)
{
  CUpti_Activity *rec = NULL;
  (void)ctx;
  (void)streamid;
  (void)size;
  pthread_mutex_lock(&lock);
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
      AddOp(k->start, k->end, k->correlationId, k->streamId, 0, strdup(k->name ? k->name : "?"));
    } break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
      AddOp(m->start, m->end, m->correlationId, m->streamId, 1, CopyKind(m->copyKind));
    } break;
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
      AddOp(m->start, m->end, m->correlationId, m->streamId, 2, "memset");
    } break;
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const CUpti_ActivityStream *s = (const CUpti_ActivityStream *)rec;
      if (nstreams < 256) streams[nstreams++] = (Stream){s->streamId, (unsigned)s->flag};
    } break;
    default:
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  free(buffer);
}

static const char *StreamFlag(unsigned stream)
{
  for (size_t i = 0; i < nstreams; i++)
    if (streams[i].stream == stream) switch (streams[i].flag) {
      case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING:
        return "non-blocking";
      case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL:
        return "legacy (NULL)";
      default:
        return "blocking";
      }
  return "not created in the trace (legacy)";
}

static const char *CallerOf(unsigned corr)
{
  size_t lo = 0, hi = ncallers; /* callers are appended in issue order, so by correlation id */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (callers[mid].corr < corr) lo = mid + 1;
    else hi = mid;
  }
  return lo < ncallers && callers[lo].corr == corr ? callers[lo].caller : "?";
}

static int ByCorr(const void *a, const void *b)
{
  const Op *x = a, *y = b;
  return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int ByCallerCorr(const void *a, const void *b)
{
  const Caller *x = a, *y = b;
  return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static void Report(void)
{
  const char *e      = getenv("SFPC_TRACE_PAIRS");
  long        maxp   = e ? atol(e) : 40, npairs = 0;
  unsigned    seen[64], counts[64];
  size_t      nseen = 0;

  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (subscriber) cuptiUnsubscribe(subscriber);
  qsort(ops, nops, sizeof(Op), ByCorr);
  qsort(callers, ncallers, sizeof(Caller), ByCallerCorr);
  for (size_t i = 0; i < nops; i++) {
    size_t s = 0;
    while (s < nseen && seen[s] != ops[i].stream) s++;
    if (s == nseen && nseen < 64) {
      seen[nseen] = ops[i].stream;
      counts[nseen++] = 0;
    }
    if (s < 64) counts[s]++;
  }
  fprintf(stderr, "[stream-trace %d] %zu operations on %zu streams\n", (int)getpid(), nops, nseen);
  for (size_t s = 0; s < nseen; s++) fprintf(stderr, "[stream-trace %d]   stream %u (%s): %u operations\n", (int)getpid(), seen[s], StreamFlag(seen[s]), counts[s]);
  if (getenv("SFPC_TRACE_ALL"))
    for (size_t i = 0; i < nops; i++) fprintf(stderr, "[stream-trace %d] #%u stream %u %llu-%llu %.80s <- %s\n", (int)getpid(), ops[i].corr, ops[i].stream, ops[i].start, ops[i].end, ops[i].name, CallerOf(ops[i].corr));
  { /* per stream, the operations by name and caller, most frequent first (a legacy stream beside a non-blocking one is the suspect) */
    const char *e2 = getenv("SFPC_TRACE_KINDS");
    long        maxk = e2 ? atol(e2) : 12;
    for (size_t st = 0; st < nseen; st++) {
      typedef struct {
        const char *name, *caller;
        unsigned    count;
      } Kind;
      Kind  *kinds = calloc(nops + 1, sizeof(Kind));
      size_t nk    = 0;
      for (size_t i = 0; i < nops; i++) {
        if (ops[i].stream != seen[st]) continue;
        const char *c = CallerOf(ops[i].corr);
        size_t      k = 0;
        while (k < nk && (strcmp(kinds[k].name, ops[i].name) || strcmp(kinds[k].caller, c))) k++;
        if (k == nk) kinds[nk++] = (Kind){ops[i].name, c, 0};
        kinds[k].count++;
      }
      for (long shown = 0; shown < maxk && nk; shown++) {
        size_t best = 0;
        for (size_t k = 1; k < nk; k++)
          if (kinds[k].count > kinds[best].count) best = k;
        if (!kinds[best].count) break;
        fprintf(stderr, "[stream-trace %d]     stream %u: %5u x %.60s <- %s\n", (int)getpid(), seen[st], kinds[best].count, kinds[best].name, kinds[best].caller);
        kinds[best].count = 0;
      }
      free(kinds);
    }
  }
  /* For each operation B, the operations issued before it on other streams that had not ended when B started. The
     latest end so far per stream keeps this linear in practice: only look back while an earlier op could still overlap. */
  for (size_t j = 0; j < nops; j++) {
    for (size_t i = j; i-- > 0;) {
      if (ops[i].stream == ops[j].stream) continue;
      if (ops[i].end > ops[j].start) {
        if (npairs < maxp)
          fprintf(stderr, "[stream-trace %d] unordered: #%u %.60s (stream %u, %s) <- %s\n    started %lld ns before #%u %.60s (stream %u, %s) <- %s ended\n", (int)getpid(), ops[j].corr, ops[j].name, ops[j].stream, StreamFlag(ops[j].stream), CallerOf(ops[j].corr), (long long)(ops[i].end - ops[j].start), ops[i].corr, ops[i].name, ops[i].stream, StreamFlag(ops[i].stream), CallerOf(ops[i].corr));
        npairs++;
      }
      if (j - i > 256) break; /* far enough back: anything issued that long before has ended in these tests */
    }
  }
  fprintf(stderr, "[stream-trace %d] %ld unordered pairs\n", (int)getpid(), npairs);
}

__attribute__((constructor)) static void Start(void)
{
  CUPTI_OK(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM));
  CUPTI_OK(cuptiSubscribe(&subscriber, OnCall, NULL));
  CUPTI_OK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API));
  CUPTI_OK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  atexit(Report);
}

/* fake-libcuda.c: a host-only stand-in for the NVIDIA driver library
 * (libcuda.so.1) with the CUDA driver API entry points memplan's runtime
 * calls, so that a compiled GPU program's host side -- its driver loop, the
 * runtime's arena and counters, copies and printing -- runs on machines
 * without a GPU (lit builds it; test/Integration/GPU-host).
 *
 * "Device memory" is host pages mapped PROT_NONE: the host program cannot
 * read or write it, just as it cannot dereference a real device pointer (a
 * segfault in both cases). Only this driver's copies and memsets open the
 * pages for the moment they touch them. Streams and events do nothing;
 * kernel launches check the launch's shape against an sm_90 device's limits
 * and do NOT run the kernel, so the values a program prints are meaningless
 * while its counters and control flow are real. A copy or memset whose
 * device side is not inside one allocation is refused, as the driver
 * refuses it. Not modelled: asynchrony (copies finish at once, so a missing
 * stream synchronization before a host read cannot show here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef uint64_t CUdeviceptr;

static int ctx_token, module_token, function_token, stream_token, event_token;
static unsigned long long launches;

CUresult cuInit(unsigned flags) {
  (void)flags;
  return 0;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0)
    return 101; /* CUDA_ERROR_INVALID_DEVICE */
  *d = 0;
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d;
  *c = &ctx_token;
  return 0;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  (void)c;
  return 0;
}
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuMemGetInfo_v2(size_t *freeBytes, size_t *total) {
  *freeBytes = (size_t)64 << 30;
  *total = (size_t)80 << 30;
  return 0;
}
/* Live "device" mappings: start and length, to find what a pointer is in. */
#define MAX_MAPPINGS 65536
static struct {
  uintptr_t start;
  size_t length; /* whole pages */
  size_t size;   /* what was asked for */
} maps[MAX_MAPPINGS];
static size_t nmaps;

static size_t page_round(size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (n + page - 1) / page * page;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  if (bytes == 0 || nmaps == MAX_MAPPINGS)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  size_t length = page_round(bytes);
  void *m = mmap(NULL, length, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return 2;
  maps[nmaps].start = (uintptr_t)m;
  maps[nmaps].length = length;
  maps[nmaps].size = bytes;
  ++nmaps;
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  for (size_t i = 0; i < nmaps; ++i)
    if (maps[i].start == (uintptr_t)p) {
      munmap((void *)maps[i].start, maps[i].length);
      maps[i] = maps[--nmaps];
      return 0;
    }
  return 1; /* CUDA_ERROR_INVALID_VALUE: not an allocation */
}

/* The allocation [p, p + n) lies in, or -1 when p is no device memory;
 * -2 when it starts in one but does not end there. */
static long find(uintptr_t p, size_t n) {
  for (size_t i = 0; i < nmaps; ++i)
    if (p >= maps[i].start && p < maps[i].start + maps[i].size)
      return p + n <= maps[i].start + maps[i].size ? (long)i : -2;
  return -1;
}

/* Checks one side of a copy: device memory must lie inside one allocation
 * (host memory is not checked). Opens its pages for the copy. */
static int open_side(uintptr_t p, size_t n, long *index) {
  *index = find(p, n);
  if (*index == -2)
    return 0;
  if (*index >= 0)
    mprotect((void *)maps[*index].start, maps[*index].length,
             PROT_READ | PROT_WRITE);
  return 1;
}
static void close_side(long index) {
  if (index >= 0)
    mprotect((void *)maps[index].start, maps[index].length, PROT_NONE);
}

static CUresult copy(uintptr_t dst, uintptr_t src, size_t n) {
  long d, s;
  if (!open_side(dst, n, &d))
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  if (!open_side(src, n, &s)) {
    close_side(d);
    return 1;
  }
  memmove((void *)dst, (const void *)src, n);
  close_side(d);
  close_side(s);
  return 0;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  (void)s;
  return copy((uintptr_t)dst, (uintptr_t)src, n);
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  if (find((uintptr_t)dst, n) < 0)
    return 1;
  return copy((uintptr_t)dst, (uintptr_t)src, n);
}
/* A memset must write device memory, inside one allocation. */
static void *open_device(CUdeviceptr dst, size_t bytes, long *index) {
  *index = find((uintptr_t)dst, bytes);
  if (*index < 0)
    return NULL;
  mprotect((void *)maps[*index].start, maps[*index].length,
           PROT_READ | PROT_WRITE);
  return (void *)(uintptr_t)dst;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s) {
  (void)s;
  long index;
  unsigned *p = open_device(dst, n * 4, &index);
  if (!p)
    return 1;
  for (size_t i = 0; i < n; ++i)
    p[i] = v;
  close_side(index);
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n,
                          CUstream s) {
  (void)s;
  long index;
  unsigned short *p = open_device(dst, n * 2, &index);
  if (!p)
    return 1;
  for (size_t i = 0; i < n; ++i)
    p[i] = v;
  close_side(index);
  return 0;
}
/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2): CU_MEMORYTYPE_DEVICE (2) for the
 * fake device memory; host memory is unknown (CUDA_ERROR_INVALID_VALUE). */
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr p) {
  if (attribute != 2)
    return 1;
  for (size_t i = 0; i < nmaps; ++i)
    if ((uintptr_t)p >= maps[i].start &&
        (uintptr_t)p < maps[i].start + maps[i].length) {
      *(unsigned *)data = 2;
      return 0;
    }
  return 1;
}
CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  if (!image)
    return 1;
  *m = &module_token;
  return 0;
}
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n,
                            void *options, void **values) {
  (void)n, (void)options, (void)values;
  return cuModuleLoadData(m, image);
}
CUresult cuModuleUnload(CUmodule m) {
  (void)m;
  return 0;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  if (!m || !name || !*name)
    return 500; /* CUDA_ERROR_NOT_FOUND */
  *f = &function_token;
  return 0;
}
/* The limits of an sm_90 device: a launch outside them fails as the driver
 * would fail it. */
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        CUstream s, void **params, void **extra) {
  (void)f, (void)smem, (void)s, (void)extra;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      gx > 2147483647u || gy > 65535u || gz > 65535u ||
      (unsigned long long)bx * by * bz > 1024u)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  if (!params)
    return 1;
  ++launches;
  return 0;
}
CUresult cuStreamCreate(CUstream *s, unsigned flags) {
  (void)flags;
  *s = &stream_token;
  return 0;
}
CUresult cuStreamSynchronize(CUstream s) {
  (void)s;
  return 0;
}
CUresult cuStreamDestroy_v2(CUstream s) {
  (void)s;
  return 0;
}
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  (void)s, (void)e, (void)flags;
  return 0;
}
CUresult cuEventCreate(CUevent *e, unsigned flags) {
  (void)flags;
  *e = &event_token;
  return 0;
}
CUresult cuEventDestroy_v2(CUevent e) {
  (void)e;
  return 0;
}
CUresult cuEventRecord(CUevent e, CUstream s) {
  (void)e, (void)s;
  return 0;
}
CUresult cuEventSynchronize(CUevent e) {
  (void)e;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char **name) {
  switch (r) {
  case 1:
    *name = "CUDA_ERROR_INVALID_VALUE";
    break;
  case 2:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case 101:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    break;
  case 500:
    *name = "CUDA_ERROR_NOT_FOUND";
    break;
  default:
    *name = "CUDA_ERROR_UNKNOWN";
    break;
  }
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **message) {
  (void)r;
  *message = "refused by test/Utils/fake-libcuda.c";
  return 0;
}

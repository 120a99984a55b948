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
 * while its counters and control flow are real. */
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

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
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
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return 0; }
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
  size_t length;
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
  void *m = mmap(NULL, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
                 MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return 2;
  maps[nmaps].start = (uintptr_t)m;
  maps[nmaps].length = length;
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

/* Opens (prot = read/write) or closes (PROT_NONE) the device pages that
 * [p, p + n) lies in; host memory is left alone. */
static void device_access(uintptr_t p, size_t n, int prot) {
  for (size_t i = 0; i < nmaps; ++i)
    if (p < maps[i].start + maps[i].length && p + n > maps[i].start)
      mprotect((void *)maps[i].start, maps[i].length, prot);
}
static void copy(uintptr_t dst, uintptr_t src, size_t n) {
  device_access(dst, n, PROT_READ | PROT_WRITE);
  device_access(src, n, PROT_READ | PROT_WRITE);
  memmove((void *)dst, (const void *)src, n);
  device_access(dst, n, PROT_NONE);
  device_access(src, n, PROT_NONE);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  (void)s;
  copy((uintptr_t)dst, (uintptr_t)src, n);
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  copy((uintptr_t)dst, (uintptr_t)src, n);
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s) {
  (void)s;
  device_access((uintptr_t)dst, n * 4, PROT_READ | PROT_WRITE);
  unsigned *p = (unsigned *)(uintptr_t)dst;
  for (size_t i = 0; i < n; ++i)
    p[i] = v;
  device_access((uintptr_t)dst, n * 4, PROT_NONE);
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n,
                          CUstream s) {
  (void)s;
  device_access((uintptr_t)dst, n * 2, PROT_READ | PROT_WRITE);
  unsigned short *p = (unsigned short *)(uintptr_t)dst;
  for (size_t i = 0; i < n; ++i)
    p[i] = v;
  device_access((uintptr_t)dst, n * 2, PROT_NONE);
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
CUresult cuModuleUnload(CUmodule m) { (void)m; return 0; }
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
CUresult cuStreamSynchronize(CUstream s) { (void)s; return 0; }
CUresult cuStreamDestroy_v2(CUstream s) { (void)s; return 0; }
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  (void)s, (void)e, (void)flags;
  return 0;
}
CUresult cuEventCreate(CUevent *e, unsigned flags) {
  (void)flags;
  *e = &event_token;
  return 0;
}
CUresult cuEventDestroy_v2(CUevent e) { (void)e; return 0; }
CUresult cuEventRecord(CUevent e, CUstream s) { (void)e, (void)s; return 0; }
CUresult cuEventSynchronize(CUevent e) { (void)e; return 0; }
CUresult cuGetErrorName(CUresult r, const char **name) {
  *name = r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_FAKE_DRIVER";
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **message) {
  (void)r;
  *message = "refused by test/Utils/fake-libcuda.c";
  return 0;
}

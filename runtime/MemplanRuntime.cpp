//===- MemplanRuntime.cpp - memplan's CUDA runtime ------------------------===//
//
// Part of memplan. See MemplanRuntime.h.
//
//===----------------------------------------------------------------------===//

#include "MemplanRuntime.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace {
/// Ends the process with status 1 at once: no static destructors or atexit
/// handlers (a failure inside the context's one-time setup would otherwise
/// re-enter it from the kernel modules' unload destructor).
[[noreturn]] void die() {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(1);
}

[[noreturn]] void fail(const char *what, const char *detail) {
  std::fflush(stdout);
  std::fprintf(stderr, "memplan-runtime: error: %s: %s\n", what, detail);
  die();
}

/// Names for the results a driverless or broken setup gives, where
/// cuGetErrorName itself cannot answer (the toolkit's stub library).
const char *fallbackName(CUresult result, const char **message) {
  switch (int(result)) {
  case 34:
    *message = "the program runs against the CUDA toolkit's stub libcuda: "
               "no NVIDIA driver is installed here";
    return "CUDA_ERROR_STUB_LIBRARY";
  case 35:
    *message = "the installed NVIDIA driver is older than the CUDA runtime";
    return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 100:
    *message = "no CUDA-capable device is detected";
    return "CUDA_ERROR_NO_DEVICE";
  default:
    *message = "no message";
    return "unknown CUresult";
  }
}

/// Checks one CUDA driver call: on failure prints the call, the error's name
/// and message, and exits 1.
void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *message = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS ||
      cuGetErrorString(result, &message) != CUDA_SUCCESS || !name || !message)
    name = fallbackName(result, &message);
  std::fflush(stdout);
  std::fprintf(stderr, "memplan-runtime: error: %s failed: %s (%d): %s\n", call,
               name, int(result), message);
  die();
}
#define MEMPLAN_CU(call) check((call), #call)

struct Counters {
  int64_t allocations = 0, bytes = 0, live = 0, peak = 0, frees = 0;
  int64_t arenas = 0, arenaBytes = 0, constants = 0, constantBytes = 0;
  // Allocation counts and host clock readings (ns) at the step markers.
  std::vector<int64_t> marks;
  std::vector<int64_t> times;
  bool stepsBegun = false;
  // Sizes of live allocations, to keep `live` exact on free.
  std::vector<std::pair<CUdeviceptr, int64_t>> sizes;
};

std::mutex &lock() {
  static std::mutex m;
  return m;
}
/// Guards the arena and constant slots (separate from the counters' lock,
/// which allocation takes).
std::mutex &slotLock() {
  static std::mutex m;
  return m;
}
Counters &counters() {
  static Counters c;
  return c;
}

int defaultDevice = -1;
/// The device's used memory (cuMemGetInfo) right after the context was
/// made: what other processes and the context itself hold.
size_t usedAtStart = 0;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
/// When the runtime was loaded (static initialization of this file).
const int64_t startNs = nowNs();

/// MEMPLAN_VERBOSE_STEPS=1: the step markers print on stderr as they pass
/// (a run stopped by a time limit still tells how far it got).
bool verboseSteps() {
  static const bool verbose = [] {
    const char *env = std::getenv("MEMPLAN_VERBOSE_STEPS");
    return env && *env && std::string(env) != "0";
  }();
  return verbose;
}
/// Set once a context exists: before that the process holds no device
/// memory, and a program that never touches the GPU needs no driver.
std::atomic<bool> contextReady{false};

/// The primary context of the chosen device, made current on this thread.
void ensureContext() {
  static CUcontext context = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    MEMPLAN_CU(cuInit(0));
    int ordinal = defaultDevice;
    if (ordinal < 0) {
      ordinal = 0;
      if (const char *env = std::getenv("MEMPLAN_DEVICE")) {
        char *end = nullptr;
        long v = std::strtol(env, &end, 10);
        if (end == env || *end != '\0' || v < 0 || v > 1024)
          fail("MEMPLAN_DEVICE", "expected a device ordinal");
        ordinal = int(v);
      }
    }
    CUdevice device;
    MEMPLAN_CU(cuDeviceGet(&device, ordinal));
    MEMPLAN_CU(cuDevicePrimaryCtxRetain(&context, device));
    MEMPLAN_CU(cuCtxSetCurrent(context));
    size_t freeBytes = 0, totalBytes = 0;
    MEMPLAN_CU(cuMemGetInfo(&freeBytes, &totalBytes));
    usedAtStart = totalBytes - freeBytes;
    contextReady = true;
  });
  MEMPLAN_CU(cuCtxSetCurrent(context));
}

CUdeviceptr allocate(int64_t bytes) {
  ensureContext();
  if (bytes < 0)
    fail("device allocation", "negative size");
  CUdeviceptr ptr = 0;
  // cuMemAlloc refuses zero bytes; a zero-size buffer gets one byte.
  MEMPLAN_CU(cuMemAlloc(&ptr, size_t(bytes > 0 ? bytes : 1)));
  std::lock_guard<std::mutex> guard(lock());
  Counters &c = counters();
  ++c.allocations;
  c.bytes += bytes;
  c.live += bytes;
  if (c.live > c.peak)
    c.peak = c.live;
  c.sizes.push_back({ptr, bytes});
  return ptr;
}

void release(CUdeviceptr ptr) {
  ensureContext();
  MEMPLAN_CU(cuMemFree(ptr));
  std::lock_guard<std::mutex> guard(lock());
  Counters &c = counters();
  ++c.frees;
  for (size_t i = 0; i < c.sizes.size(); ++i)
    if (c.sizes[i].first == ptr) {
      c.live -= c.sizes[i].second;
      c.sizes[i] = c.sizes.back();
      c.sizes.pop_back();
      break;
    }
}

void fillByteMemRef(MemplanByteMemRef *result, CUdeviceptr ptr, int64_t bytes) {
  auto *p = reinterpret_cast<uint8_t *>(ptr);
  result->allocated = p;
  result->aligned = p;
  result->offset = 0;
  result->sizes[0] = bytes;
  result->strides[0] = 1;
}

bool isDevicePointer(const void *ptr) {
  if (!contextReady)
    return false;
  ensureContext();
  unsigned type = 0;
  CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     reinterpret_cast<CUdeviceptr>(ptr));
  // Plain host memory is unknown to CUDA (CUDA_ERROR_INVALID_VALUE).
  return r == CUDA_SUCCESS && type == CU_MEMORYTYPE_DEVICE;
}

template <typename T>
void printMemRef(MemplanUnrankedMemRef *memref, int digits, const char *name) {
  if (!memref || !memref->descriptor)
    fail(name, "null memref");
  int64_t rank = memref->rank;
  if (rank < 0 || rank > 16)
    fail(name, "unsupported rank");
  // Ranked descriptor: allocated, aligned, offset, sizes[rank],
  // strides[rank].
  auto *fields = static_cast<int64_t *>(memref->descriptor);
  T *aligned = reinterpret_cast<T *>(fields[1]);
  int64_t offset = fields[2];
  const int64_t *sizes = fields + 3;
  const int64_t *strides = fields + 3 + rank;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0)
      fail(name, "negative size");
    count *= sizes[d];
  }
  if (count > 0 && isDevicePointer(aligned + offset))
    fail(name, "the memref is in device memory; copy it to the host first");
  std::printf("memref rank=%" PRId64 " sizes=[", rank);
  for (int64_t d = 0; d < rank; ++d)
    std::printf("%s%" PRId64, d ? ", " : "", sizes[d]);
  std::printf("] data=\n");
  if (count == 0) {
    std::printf("[]\n");
    return;
  }
  // Row-major walk; brackets open where trailing indices are 0 and close
  // where they reach their size.
  std::vector<int64_t> index(size_t(rank), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t zeros = 0; // trailing dimensions at index 0
    while (zeros < rank && index[size_t(rank - 1 - zeros)] == 0)
      ++zeros;
    if (n > 0)
      std::printf(zeros > 0 ? ",\n%*s" : ", ", int(rank - zeros), "");
    for (int64_t k = 0; k < (rank == 0 ? 1 : zeros); ++k)
      std::printf("[");
    int64_t at = offset;
    for (int64_t d = 0; d < rank; ++d)
      at += index[size_t(d)] * strides[d];
    std::printf("%.*g", digits, double(aligned[at]));
    int64_t full = 0; // trailing dimensions that wrap after this element
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[size_t(d)] < sizes[d])
        break;
      index[size_t(d)] = 0;
      ++full;
    }
    for (int64_t k = 0; k < (rank == 0 ? 1 : full); ++k)
      std::printf("]");
  }
  std::printf("\n");
}
} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// The entry points of MLIR 22's host code (gpu-to-llvm).
//===----------------------------------------------------------------------===//

CUmodule mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  ensureContext();
  CUmodule module = nullptr;
  MEMPLAN_CU(cuModuleLoadData(&module, data));
  return module;
}

CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ensureContext();
  CUmodule module = nullptr;
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(intptr_t(optLevel))};
  CUresult r = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (r != CUDA_SUCCESS && log[0])
    std::fprintf(stderr, "memplan-runtime: PTX JIT log: %s\n", log);
  MEMPLAN_CU(r);
  return module;
}

void mgpuModuleUnload(CUmodule module) {
  // Called from a global destructor at exit, when the driver may already be
  // shutting down: nothing to report then (the process is ending).
  if (!contextReady)
    return;
  CUresult r = cuModuleUnload(module);
  if (r != CUDA_ERROR_DEINITIALIZED && r != CUDA_ERROR_CONTEXT_IS_DESTROYED)
    check(r, "cuModuleUnload(module)");
}

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  ensureContext();
  CUfunction function = nullptr;
  MEMPLAN_CU(cuModuleGetFunction(&function, module, name));
  return function;
}

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  ensureContext();
  const intptr_t dims[] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  for (intptr_t d : dims)
    if (d < 1 || d > intptr_t(UINT32_MAX))
      fail("mgpuLaunchKernel", "grid or block dimension out of range");
  MEMPLAN_CU(cuLaunchKernel(function, unsigned(gridX), unsigned(gridY),
                            unsigned(gridZ), unsigned(blockX), unsigned(blockY),
                            unsigned(blockZ), unsigned(smem), stream, params,
                            extra));
}

CUstream mgpuStreamCreate() {
  ensureContext();
  CUstream stream = nullptr;
  MEMPLAN_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

void mgpuStreamDestroy(CUstream stream) {
  ensureContext();
  MEMPLAN_CU(cuStreamDestroy(stream));
}

void mgpuStreamSynchronize(CUstream stream) {
  ensureContext();
  MEMPLAN_CU(cuStreamSynchronize(stream));
}

void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ensureContext();
  MEMPLAN_CU(cuStreamWaitEvent(stream, event, /*flags=*/0));
}

CUevent mgpuEventCreate() {
  ensureContext();
  CUevent event = nullptr;
  MEMPLAN_CU(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

void mgpuEventDestroy(CUevent event) {
  ensureContext();
  MEMPLAN_CU(cuEventDestroy(event));
}

void mgpuEventSynchronize(CUevent event) {
  ensureContext();
  MEMPLAN_CU(cuEventSynchronize(event));
}

void mgpuEventRecord(CUevent event, CUstream stream) {
  ensureContext();
  MEMPLAN_CU(cuEventRecord(event, stream));
}

void *mgpuMemAlloc(uint64_t bytes, CUstream stream, bool isHostShared) {
  if (isHostShared)
    fail("gpu.alloc host_shared",
         "memplan's runtime allocates device memory only (no managed memory)");
  if (stream)
    MEMPLAN_CU(cuStreamSynchronize(stream));
  if (bytes > uint64_t(std::numeric_limits<int64_t>::max()))
    fail("gpu.alloc", "size does not fit in 63 bits");
  return reinterpret_cast<void *>(allocate(int64_t(bytes)));
}

void mgpuMemFree(void *ptr, CUstream stream) {
  if (stream)
    MEMPLAN_CU(cuStreamSynchronize(stream));
  release(reinterpret_cast<CUdeviceptr>(ptr));
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, CUstream stream) {
  ensureContext();
  MEMPLAN_CU(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), bytes, stream));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream) {
  ensureContext();
  MEMPLAN_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream));
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  CUstream stream) {
  ensureContext();
  MEMPLAN_CU(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream));
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

//===----------------------------------------------------------------------===//
// memplan's own entry points.
//===----------------------------------------------------------------------===//

namespace {
/// What an arena slot points to: the function's device arena and its size.
/// Made on the function's first call; never freed (the process keeps its
/// arenas until it exits, as it keeps a static arena).
struct ArenaRecord {
  CUdeviceptr ptr = 0;
  int64_t capacity = 0;
};
} // namespace

void _mlir_ciface_memplan_arena_acquire(MemplanByteMemRef *result, void **slot,
                                        int64_t bytes) {
  if (!result || !slot)
    fail("memplan_arena_acquire", "null argument");
  if (bytes < 0)
    fail("memplan_arena_acquire", "negative arena size");
  std::lock_guard<std::mutex> slotGuard(slotLock());
  auto *record = static_cast<ArenaRecord *>(*slot);
  if (!record) {
    record = new ArenaRecord;
    *slot = record;
  }
  // An arena sized at run time (dynamic shapes) grows when a call needs
  // more than the last allocation holds: the old one is freed once the
  // device has finished with it, and one allocation of exactly this call's
  // size replaces it. A call that fits allocates nothing.
  if (!record->ptr || bytes > record->capacity) {
    if (record->ptr) {
      ensureContext();
      MEMPLAN_CU(cuCtxSynchronize());
      release(record->ptr);
    }
    record->ptr = allocate(bytes);
    record->capacity = bytes;
    std::lock_guard<std::mutex> guard(lock());
    ++counters().arenas;
    counters().arenaBytes += bytes;
  }
  fillByteMemRef(result, record->ptr, bytes);
}

void _mlir_ciface_memplan_constant_acquire(MemplanByteMemRef *result,
                                           void **slot, int64_t host,
                                           int64_t bytes) {
  if (!result || !slot || !host)
    fail("memplan_constant_acquire", "null argument");
  std::lock_guard<std::mutex> slotGuard(slotLock());
  if (!*slot) {
    CUdeviceptr ptr = allocate(bytes);
    if (bytes > 0) {
      MEMPLAN_CU(cuMemcpyHtoD(ptr, reinterpret_cast<const void *>(host),
                              size_t(bytes)));
      // Kernels run on non-blocking streams, which do not wait for this
      // copy: finish it before any of them can read the constant.
      MEMPLAN_CU(cuCtxSynchronize());
    }
    std::lock_guard<std::mutex> guard(lock());
    ++counters().constants;
    counters().constantBytes += bytes;
    *slot = reinterpret_cast<void *>(ptr);
  }
  fillByteMemRef(result, reinterpret_cast<CUdeviceptr>(*slot), bytes);
}

void _mlir_ciface_memplan_print_f32(MemplanUnrankedMemRef *memref) {
  printMemRef<float>(memref, 9, "memplan_print_f32");
}

void _mlir_ciface_memplan_print_f64(MemplanUnrankedMemRef *memref) {
  printMemRef<double>(memref, 17, "memplan_print_f64");
}

void memplan_steps_begin() {
  std::lock_guard<std::mutex> guard(lock());
  Counters &c = counters();
  c.marks.assign(1, c.allocations);
  c.times.assign(1, nowNs());
  c.stepsBegun = true;
  if (verboseSteps()) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "memplan-runtime: steps begin %.3f ms after the runtime's "
                 "start (kernel modules loaded, inputs made and copied)\n",
                 double(c.times[0] - startNs) / 1e6);
  }
}

void memplan_step_done(int64_t step) {
  std::lock_guard<std::mutex> guard(lock());
  Counters &c = counters();
  if (!c.stepsBegun)
    fail("memplan_step_done", "memplan_steps_begin was not called");
  if (step != int64_t(c.marks.size()))
    fail("memplan_step_done", "steps must be marked in order 1, 2, ...");
  c.marks.push_back(c.allocations);
  // A step's device work is finished when it returns: the host code
  // synchronizes its stream before the step function returns.
  c.times.push_back(nowNs());
  if (verboseSteps()) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "memplan-runtime: step %" PRId64 " done in %.3f ms, %" PRId64
                 " device allocations so far\n",
                 step,
                 double(c.times.back() - c.times[c.times.size() - 2]) / 1e6,
                 c.allocations);
  }
}

int64_t memplan_device_allocations() {
  std::lock_guard<std::mutex> guard(lock());
  return counters().allocations;
}

void memplan_print_counters() {
  size_t freeBytes = 0, totalBytes = 0;
  if (contextReady) {
    ensureContext();
    MEMPLAN_CU(cuMemGetInfo(&freeBytes, &totalBytes));
  }
  std::lock_guard<std::mutex> guard(lock());
  const Counters &c = counters();
  std::printf("memplan-runtime: device_allocations=%" PRId64
              " device_bytes=%" PRId64 " peak_device_bytes=%" PRId64
              " frees=%" PRId64 "\n",
              c.allocations, c.bytes, c.peak, c.frees);
  std::printf("memplan-runtime: arena_allocations=%" PRId64
              " arena_bytes=%" PRId64 " constant_copies=%" PRId64
              " constant_bytes=%" PRId64 "\n",
              c.arenas, c.arenaBytes, c.constants, c.constantBytes);
  if (c.marks.size() > 1) {
    int64_t steps = int64_t(c.marks.size()) - 1;
    int64_t first = c.marks[1] - c.marks[0];
    int64_t later = c.marks.back() - c.marks[1];
    std::printf("memplan-runtime: steps=%" PRId64 " step1_allocations=%" PRId64
                " later_step_allocations=%" PRId64 "\n",
                steps, first, later);
    // Host wall time of each step, in milliseconds, and the median of the
    // steps after the first (the first loads nothing but does allocate the
    // arena and warm the caches).
    std::vector<double> ms;
    for (size_t i = 1; i < c.times.size(); ++i)
      ms.push_back(double(c.times[i] - c.times[i - 1]) / 1e6);
    std::printf("memplan-runtime: step_ms=");
    for (size_t i = 0; i < ms.size(); ++i)
      std::printf("%s%.3f", i ? "," : "", ms[i]);
    std::printf("\n");
    if (ms.size() > 1) {
      std::vector<double> later(ms.begin() + 1, ms.end());
      std::sort(later.begin(), later.end());
      size_t n = later.size();
      double median =
          n % 2 ? later[n / 2] : (later[n / 2 - 1] + later[n / 2]) / 2.0;
      std::printf("memplan-runtime: median_later_step_ms=%.3f\n", median);
    }
  }
  if (contextReady)
    std::printf("memplan-runtime: device_memory_used=%zu "
                "device_memory_used_at_start=%zu device_memory_total=%zu\n",
                totalBytes - freeBytes, usedAtStart, totalBytes);
  else
    std::printf("memplan-runtime: no CUDA context was created\n");
  std::fflush(stdout);
}
}

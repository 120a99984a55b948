//===- CudaProbe.cpp - Is there a CUDA device that runs a kernel? ---------===//
//
// Part of memplan. `memplan-cuda-probe` runs a tiny CUDA program: it loads a
// PTX kernel, launches it on device 0, and checks the value it wrote. Exit 0
// when that works; otherwise it prints why and exits 1. lit enables the GPU
// tests (feature `cuda-gpu`) only where it succeeds.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdio>

static const char kPtx[] = R"(
.version 6.0
.target sm_50
.address_size 64
.visible .entry memplan_probe(.param .u64 out) {
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 42;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

static bool ok(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    name = "unknown";
  std::printf("memplan-cuda-probe: %s failed: %s (%d)\n", call, name, int(r));
  return false;
}

int main() {
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction kernel;
  CUdeviceptr out;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&context, device),
          "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(cuModuleLoadData(&module, kPtx), "cuModuleLoadData") ||
      !ok(cuModuleGetFunction(&kernel, module, "memplan_probe"),
          "cuModuleGetFunction") ||
      !ok(cuMemAlloc(&out, 4), "cuMemAlloc"))
    return 1;
  void *params[] = {&out};
  unsigned value = 0;
  if (!ok(cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr),
          "cuLaunchKernel") ||
      !ok(cuCtxSynchronize(), "cuCtxSynchronize") ||
      !ok(cuMemcpyDtoH(&value, out, 4), "cuMemcpyDtoH"))
    return 1;
  char name[256] = {0};
  cuDeviceGetName(name, sizeof(name), device);
  if (value != 42) {
    std::printf("memplan-cuda-probe: the kernel wrote %u, expected 42\n",
                value);
    return 1;
  }
  std::printf("memplan-cuda-probe: %s runs kernels\n", name);
  return 0;
}

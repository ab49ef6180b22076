#include "cuda/device.hpp"

#include <cuda_runtime_api.h>

#include <sstream>

#include "cuda/check.hpp"

namespace nbl {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << "CUDA error " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") in " << call << " at "
      << file << ":" << line;
  throw CudaError(code, msg.str());
}

namespace {

// FP32 and SFU throughput per SM per clock (CUDA C++ Programming Guide, "Arithmetic Instructions").
void fill_lanes(DeviceInfo& d) {
  const int cc = d.compute_major * 10 + d.compute_minor;
  d.sfu_lanes_per_sm = 16;
  if (cc == 60 || cc == 70 || cc == 72 || cc == 75 || cc == 80) d.fp32_lanes_per_sm = 64;
  else d.fp32_lanes_per_sm = 128;  // 5.x, 6.1, 8.6, 8.7, 8.9, 9.0, 10.x, 12.x
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  NBL_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

std::optional<DeviceInfo> query_device(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why) {
      if (status == cudaSuccess || status == cudaErrorNoDevice) {
        *why = "no CUDA device found";
      } else if (status == cudaErrorInsufficientDriver) {
        // Also what the runtime says when there is no NVIDIA driver at all.
        *why = "no NVIDIA driver, or one older than this CUDA runtime needs";
      } else {
        *why = std::string("no usable CUDA device (") + cudaGetErrorString(status) + ")";
      }
    }
    cudaGetLastError();  // clear the sticky "no device" error
    return std::nullopt;
  }
  DeviceInfo d;
  d.index = 0;
  cudaDeviceProp prop{};
  NBL_CUDA_CHECK(cudaGetDeviceProperties(&prop, d.index));
  d.name = prop.name;
  d.compute_major = prop.major;
  d.compute_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.clock_mhz = attribute(cudaDevAttrClockRate, d.index) / 1000;
  d.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, d.index) / 1000;
  d.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d.index);
  d.memory_bytes = prop.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  d.shared_per_block_optin = prop.sharedMemPerBlockOptin;
  d.shared_per_sm = prop.sharedMemPerMultiprocessor;
  d.shared_reserved_per_block = prop.reservedSharedMemPerBlock;
  NBL_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  NBL_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  fill_lanes(d);
  return d;
}

std::pair<std::size_t, std::size_t> device_memory_free_total() {
  std::size_t free_bytes = 0, total_bytes = 0;
  NBL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {free_bytes, total_bytes};
}

static std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string describe(const DeviceInfo& d) {
  std::ostringstream s;
  s << d.name << " (" << d.arch() << ")\n"
    << "  SMs: " << d.sm_count << ", peak clock " << d.clock_mhz << " MHz, " << d.fp32_lanes_per_sm
    << " FP32 lanes/SM, " << d.sfu_lanes_per_sm << " SFU lanes/SM\n"
    << "  FP32 ceiling: " << d.fp32_peak_flops() / 1e12 << " TFLOP/s (2 flops x lanes x SMs x clock)\n"
    << "  memory: " << d.memory_bytes / (1024.0 * 1024 * 1024) << " GiB, " << d.memory_bus_bits << "-bit bus, "
    << d.dram_bandwidth_bytes_per_s() / 1e9 << " GB/s peak, L2 " << d.l2_bytes / (1024 * 1024) << " MiB\n"
    << "  driver " << version_string(d.driver_version) << ", runtime " << version_string(d.runtime_version);
  return s.str();
}

std::string describe_runtime() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return "CUDA runtime " + version_string(runtime) + ", driver " + (driver ? version_string(driver) : "none");
}

}  // namespace nbl

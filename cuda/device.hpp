// The GPU in front of us, described without CUDA types so app/ and the panel can show it.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace nbl {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  int clock_mhz = 0;             // peak SM clock the driver reports
  int fp32_lanes_per_sm = 0;     // FP32 results per clock per SM (128 on Hopper, 64 on A100/V100)
  int sfu_lanes_per_sm = 0;      // MUFU (rsqrt) results per clock per SM
  std::size_t memory_bytes = 0;  // total device memory
  int memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_per_block_optin = 0;
  std::size_t shared_per_sm = 0;              // shared memory of one SM, all its blocks together
  std::size_t shared_reserved_per_block = 0;  // what the driver keeps of it for each resident block
  int driver_version = 0, runtime_version = 0;

  std::string arch() const { return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor); }
  // FP32 ceiling in flop/s: every lane retires one FMA (two flops) per clock at the peak clock.
  double fp32_peak_flops() const { return 2.0 * sm_count * fp32_lanes_per_sm * clock_mhz * 1e6; }
  double dram_bandwidth_bytes_per_s() const { return 2.0 * memory_clock_mhz * 1e6 * memory_bus_bits / 8; }
};

// The first CUDA device, or nothing when there is no usable GPU (no driver, no device, too old).
// `why` receives a one-line reason in the second case.
std::optional<DeviceInfo> query_device(std::string* why = nullptr);

// Free and total device memory right now (bytes).
std::pair<std::size_t, std::size_t> device_memory_free_total();

std::string describe(const DeviceInfo& d);  // multi-line human description
std::string describe_runtime();             // CUDA runtime/driver versions, one line

}  // namespace nbl

// A new random seed for every run of a randomized test, which prints it (SCOPED_TRACE) so a failure can
// be replayed: NBODYLAB_TEST_SEED=<the printed seed> makes every fresh_seed() return it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>

namespace nbl::test {

inline std::uint64_t fresh_seed() {
  if (const char* replay = std::getenv("NBODYLAB_TEST_SEED"); replay && *replay)
    return std::strtoull(replay, nullptr, 10);
  static std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) | device();
}

}  // namespace nbl::test

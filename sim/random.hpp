// The program's one random number generator: xoshiro256** seeded through splitmix64, with our own
// conversions to uniform and normal variates. std::*_distribution is avoided on purpose: its output
// differs between standard libraries, and initial conditions and samples must be the same everywhere.
// The conversions use only +, -, *, / and sqrt (correctly rounded on every IEEE machine) plus std::log
// in normal(); nothing here depends on the standard library's choice of algorithm.
#pragma once
#include <cmath>
#include <cstdint>

namespace nbl {

// splitmix64 (Steele, Lea & Flood 2014): spreads a small seed over 64 well-mixed bits.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman & Vigna 2018).
class Random {
 public:
  explicit Random(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& word : state_) word = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // (0, 1): never exactly 0, so it is safe under log() and negative powers.
  double uniform_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // An integer in [0, bound) without modulo bias (Lemire 2019, multiply-high with rejection).
  std::uint64_t below(std::uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = -bound % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Standard normal, Marsaglia's polar method (no sin/cos). The second value of each pair is kept.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = uniform(-1.0, 1.0);
      v = uniform(-1.0, 1.0);
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

  // A direction uniform on the unit sphere, by rejection from the cube (only sqrt, no trigonometry).
  void unit_vector(double& x, double& y, double& z) {
    double s;
    do {
      x = uniform(-1.0, 1.0);
      y = uniform(-1.0, 1.0);
      z = uniform(-1.0, 1.0);
      s = x * x + y * y + z * z;
    } while (s > 1.0 || s < 1e-12);
    const double inv = 1.0 / std::sqrt(s);
    x *= inv;
    y *= inv;
    z *= inv;
  }

  // A direction uniform on the unit circle, the same way.
  void unit_vector(double& x, double& y) {
    double s;
    do {
      x = uniform(-1.0, 1.0);
      y = uniform(-1.0, 1.0);
      s = x * x + y * y;
    } while (s > 1.0 || s < 1e-12);
    const double inv = 1.0 / std::sqrt(s);
    x *= inv;
    y *= inv;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t state_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace nbl

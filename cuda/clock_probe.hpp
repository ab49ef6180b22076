// The SM clock under load, measured (cuda/kernels/clock_probe.cu): the driver reports the peak boost
// clock, but a GPU running FP32 flat out may hold a lower one. Benchmarks state both, so "% of peak"
// can be read against the clock the kernels really had.
#pragma once

namespace nbl {

struct ClockMeasurement {
  double sm_clock_mhz = 0;      // SM cycles (clock64) per microsecond of global timer, median over blocks
  double reported_max_mhz = 0;  // what the driver reports as the peak clock
  double seconds = 0;           // how long the measured launch ran
  int blocks = 0;
};

// Fills every SM with FMA chains for about `seconds` (after a warm-up launch of the same length, so
// the clock has settled). Throws Error without a GPU.
ClockMeasurement measure_sm_clock(double seconds = 0.5);

}  // namespace nbl

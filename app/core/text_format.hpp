// Numbers as the panel and the terminal print them.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace nbl {

// 1048576 -> "1,048,576"
inline std::string with_commas(std::int64_t value) {
  const std::string digits =
      std::to_string(value < 0 ? -static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value));
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// 2.13e12, "FLOP/s" -> "2.13 TFLOP/s" (three significant digits, SI prefix up to peta)
inline std::string si(double value, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  while (std::fabs(value) >= 1000 && p < 5) value /= 1000, ++p;
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s%s", value, prefixes[p], unit);
  return text;
}

// A duration for people: 0.35 -> "0.35 ms", 12.4 -> "12 ms", 1234 -> "1.23 s", 75000 -> "75 s"
inline std::string fmt_ms(double ms) {
  char text[32];
  if (ms >= 1000) std::snprintf(text, sizeof text, "%.3g s", ms / 1000);
  else if (ms >= 10) std::snprintf(text, sizeof text, "%.0f ms", ms);
  else std::snprintf(text, sizeof text, "%.2g ms", ms);
  return text;
}

}  // namespace nbl

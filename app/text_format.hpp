// Numbers as the panel and the terminal print them.
#pragma once
#include <cstdint>
#include <string>

namespace nbl {

// 1048576 -> "1,048,576"
inline std::string with_commas(std::int64_t value) {
  const std::string digits = std::to_string(value < 0 ? -static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value));
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace nbl

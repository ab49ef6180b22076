// The vertex buffer the simulation writes and the renderer draws, defined once. For n bodies it holds
// n float4 (x, y, z, mass) followed by n floats (colour key in [0, 1] for the current colour mode).
// GPU backends write it in place through CUDA-OpenGL interop; the CPU path writes a host copy.
#pragma once
#include <cstddef>

namespace nbl {

inline constexpr std::size_t kVertexPositionBytes = 4 * sizeof(float);
inline constexpr std::size_t kVertexColorKeyBytes = sizeof(float);

inline constexpr std::size_t vertex_buffer_bytes(std::size_t n) {
  return n * (kVertexPositionBytes + kVertexColorKeyBytes);
}
inline constexpr std::size_t vertex_color_key_offset(std::size_t n) { return n * kVertexPositionBytes; }

}  // namespace nbl

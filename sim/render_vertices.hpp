// The vertex buffer the simulation writes and the renderer draws, defined once. For n bodies it holds
// n float4 (x, y, z, mass) followed by n floats (colour key in [0, 1] for the current colour mode).
// GPU backends write it in place through CUDA-OpenGL interop; the CPU path writes a host copy.
#pragma once
#include <cstddef>

#include "sim/bodies.hpp"

namespace nbl {

inline constexpr std::size_t kVertexPositionBytes = 4 * sizeof(float);
inline constexpr std::size_t kVertexColorKeyBytes = sizeof(float);

inline constexpr std::size_t vertex_buffer_bytes(std::size_t n) {
  return n * (kVertexPositionBytes + kVertexColorKeyBytes);
}
inline constexpr std::size_t vertex_color_key_offset(std::size_t n) { return n * kVertexPositionBytes; }

// The first part of a host vertex buffer: each body's x, y, z and mass; returns where its n colour keys go.
float* write_vertex_positions(const Bodies& bodies, float* buffer);

// The scales that colour keys divide magnitudes by (physics/color_keys.hpp): the scene's virial speed
// sqrt(M/R) and acceleration M/R^2, R the bodies' RMS distance from their centre of mass, and the
// largest mass. Every backend computes them once, from the bodies it was given.
struct ColorScales {
  float speed = 1, acceleration = 1, max_mass = 1;
};
ColorScales color_scales(const Bodies& bodies);

}  // namespace nbl

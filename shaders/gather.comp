// Copies every u_stride-th body's (x, y, z, mass) from the vertex buffer into a small buffer the host
// reads a frame or two later (render/body_sample.hpp): the camera follows the bound bodies from a few
// thousand of them instead of reading back all N positions.
#version 450 core

layout(local_size_x = 256) in;
layout(std430, binding = 3) readonly buffer Vertices {
  vec4 positions[];
};
layout(std430, binding = 4) writeonly buffer Sample {
  vec4 sampled[];
};
uniform uint u_count;
uniform uint u_stride;

void main() {
  uint k = gl_GlobalInvocationID.x;
  if (k < u_count) sampled[k] = positions[k * u_stride];
}

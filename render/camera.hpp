// The orbit camera: it circles a target point at some distance. +z is up: the scenes put their disks
// and orbits in the xy plane, so yaw turns around the disks' axis and pitch is the elevation above
// their plane (90: face-on from above). The window drives it with the mouse; `render` places it once
// and may orbit it per frame.
#pragma once
#include <cstddef>
#include <glm/glm.hpp>

namespace nbl {

// A rectangle of the framebuffer in pixels, origin bottom-left (OpenGL's convention).
struct Viewport {
  int x = 0, y = 0, width = 1, height = 1;
  float aspect() const { return height > 0 ? static_cast<float>(width) / static_cast<float>(height) : 1.0f; }
};

// Where the bodies are: a robust centre and radius (outliers flung out of a collision do not count)
// and the exact axis-aligned bounds.
struct SceneExtent {
  glm::vec3 center{0.0f};
  float radius = 1.0f;  // holds ~90% of the bodies
  glm::vec3 min{-1.0f}, max{1.0f};
};

// positions: n float4 (x, y, z, mass), the vertex buffer's layout (sim/render_vertices.hpp).
// Non-finite positions are skipped. Large n is subsampled for the robust part; bounds are exact.
SceneExtent measure_extent(const float* positions, std::size_t n);

class OrbitCamera {
 public:
  // Mouse drags, in pixels of a viewport `viewport_height` tall.
  void orbit(float dx_px, float dy_px);
  void pan(float dx_px, float dy_px, int viewport_height);
  void zoom(float wheel_steps);         // positive: closer
  void fit(const SceneExtent& extent);  // frame the bodies, keep the viewing direction

  void set_angles(float yaw_deg, float pitch_deg);
  void set_distance(float distance);
  void set_target(const glm::vec3& target) { target_ = target; }

  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;
  glm::vec3 eye() const;
  const glm::vec3& target() const { return target_; }
  float distance() const { return distance_; }
  float yaw_deg() const { return yaw_deg_; }
  float pitch_deg() const { return pitch_deg_; }
  float fov_y_deg() const { return fov_y_deg_; }

 private:
  glm::vec3 target_{0.0f};
  float distance_ = 4.0f;
  float yaw_deg_ = -60.0f;
  float pitch_deg_ = 50.0f;
  float fov_y_deg_ = 45.0f;
};

}  // namespace nbl

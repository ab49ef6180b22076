#include "render/camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <vector>

namespace nbl {

SceneExtent measure_extent(const float* positions, std::size_t n) {
  SceneExtent extent;
  constexpr std::size_t kMaxSamples = 1 << 16;
  const std::size_t stride = std::max<std::size_t>(1, n / kMaxSamples);
  std::vector<float> xs, ys, zs;
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (std::size_t i = 0; i < n; ++i) {
    const glm::vec3 p(positions[4 * i], positions[4 * i + 1], positions[4 * i + 2]);
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
    if (i % stride == 0) {
      xs.push_back(p.x);
      ys.push_back(p.y);
      zs.push_back(p.z);
    }
  }
  if (xs.empty()) return extent;
  extent.min = lo;
  extent.max = hi;
  auto median = [](std::vector<float>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  std::vector<float> distances(xs.size());
  extent.center = {median(xs), median(ys), median(zs)};
  // median() reordered each axis independently: recompute distances from the (unreordered) positions.
  for (std::size_t k = 0, i = 0; i < n && k < distances.size(); i += stride) {
    const glm::vec3 p(positions[4 * i], positions[4 * i + 1], positions[4 * i + 2]);
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
    distances[k++] = glm::length(p - extent.center);
  }
  const auto at = distances.begin() + static_cast<std::ptrdiff_t>(0.9 * static_cast<double>(distances.size() - 1));
  std::nth_element(distances.begin(), at, distances.end());
  extent.radius = std::max(*at, 1e-3f);
  return extent;
}

void OrbitCamera::orbit(float dx_px, float dy_px) {
  constexpr float kDegreesPerPixel = 0.3f;
  yaw_deg_ = std::fmod(yaw_deg_ - dx_px * kDegreesPerPixel, 360.0f);
  pitch_deg_ = std::clamp(pitch_deg_ + dy_px * kDegreesPerPixel, -89.0f, 89.0f);
}

void OrbitCamera::pan(float dx_px, float dy_px, int viewport_height) {
  // Move the target so the point under the cursor follows it (exact at the target's depth).
  const float world_per_px =
      2.0f * distance_ * std::tan(glm::radians(fov_y_deg_) / 2) / static_cast<float>(std::max(viewport_height, 1));
  const glm::mat4 v = view();
  const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
  const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
  target_ += (-dx_px * right + dy_px * up) * world_per_px;
}

void OrbitCamera::zoom(float wheel_steps) {
  distance_ = std::clamp(distance_ * std::pow(0.88f, wheel_steps), 1e-4f, 1e7f);
}

void OrbitCamera::fit(const SceneExtent& extent) {
  target_ = extent.center;
  // The sphere of radius `radius` fills ~80% of the view's height.
  distance_ = std::clamp(extent.radius / std::sin(glm::radians(fov_y_deg_) / 2) / 0.8f, 1e-4f, 1e7f);
}

void OrbitCamera::set_angles(float yaw_deg, float pitch_deg) {
  yaw_deg_ = std::fmod(yaw_deg, 360.0f);
  pitch_deg_ = std::clamp(pitch_deg, -89.0f, 89.0f);
}

void OrbitCamera::set_distance(float distance) { distance_ = std::clamp(distance, 1e-4f, 1e7f); }

glm::vec3 OrbitCamera::eye() const {
  const float yaw = glm::radians(yaw_deg_), pitch = glm::radians(pitch_deg_);
  const glm::vec3 direction(std::cos(pitch) * std::cos(yaw), std::cos(pitch) * std::sin(yaw), std::sin(pitch));
  return target_ + distance_ * direction;
}

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target_, glm::vec3(0, 0, 1)); }

glm::mat4 OrbitCamera::projection(float aspect) const {
  return glm::perspective(glm::radians(fov_y_deg_), aspect, distance_ * 1e-3f, distance_ * 1e3f);
}

}  // namespace nbl

#include "render/camera.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace nbl {
namespace {

std::vector<float> cluster(glm::vec3 center, float radius, int n) {
  std::vector<float> p;
  for (int i = 0; i < n; ++i) {
    const float t = static_cast<float>(i) * 2.399963f;  // golden angle spiral on a sphere
    const float z = 1.0f - 2.0f * (static_cast<float>(i) + 0.5f) / static_cast<float>(n);
    const float r = std::sqrt(1.0f - z * z);
    const float scale = radius * std::cbrt((static_cast<float>(i % 97) + 1.0f) / 97.0f);
    p.insert(p.end(),
             {center.x + scale * r * std::cos(t), center.y + scale * r * std::sin(t), center.z + scale * z, 1.0f});
  }
  return p;
}

TEST(SceneExtent, OutliersMoveTheBoundsButNotTheFit) {
  auto p = cluster({1, 2, 3}, 1.0f, 5000);
  p.insert(p.end(), {1000.0f, 0.0f, 0.0f, 1.0f});  // one body flung far away
  p.insert(p.end(), {NAN, 0.0f, 0.0f, 1.0f});      // and a broken one
  const SceneExtent e = measure_extent(p.data(), p.size() / 4);
  EXPECT_NEAR(e.center.x, 1.0f, 0.1f);
  EXPECT_NEAR(e.center.y, 2.0f, 0.1f);
  EXPECT_NEAR(e.center.z, 3.0f, 0.1f);
  EXPECT_GT(e.radius, 0.7f);
  EXPECT_LT(e.radius, 1.1f);
  EXPECT_FLOAT_EQ(e.max.x, 1000.0f);
}

TEST(OrbitCamera, FitPutsTheTargetAtTheCentreOfTheView) {
  OrbitCamera camera;
  SceneExtent e;
  e.center = {5, -1, 2};
  e.radius = 3;
  camera.fit(e);
  const glm::vec4 clip = camera.projection(16.0f / 9.0f) * camera.view() * glm::vec4(e.center, 1.0f);
  EXPECT_NEAR(clip.x / clip.w, 0.0f, 1e-5f);
  EXPECT_NEAR(clip.y / clip.w, 0.0f, 1e-5f);
  // A point one radius above the centre (perpendicular to the view) lands inside the view.
  EXPECT_GT(camera.distance(), e.radius);
}

TEST(OrbitCamera, PitchIsClampedAndZoomMovesCloser) {
  OrbitCamera camera;
  camera.orbit(0, 10000);
  EXPECT_LE(camera.pitch_deg(), 89.0f);
  const float before = camera.distance();
  camera.zoom(2);
  EXPECT_LT(camera.distance(), before);
}

TEST(OrbitCamera, PanMovesTheTargetSideways) {
  OrbitCamera camera;
  camera.set_angles(0, 0);  // on the +x axis looking at the origin, +z up: +y is to the right
  camera.pan(100, 0, 1000);
  EXPECT_LT(camera.target().y, 0.0f);  // dragging right pulls the scene right: the target moves left
  EXPECT_NEAR(camera.target().x, 0.0f, 1e-6f);
  EXPECT_NEAR(camera.target().z, 0.0f, 1e-6f);
}

}  // namespace
}  // namespace nbl

// A backend that holds bodies on the host and never moves them: lets the renderer tests draw a known
// picture without a simulation.
#pragma once
#include "sim/backend.hpp"

namespace nbl::testing {

class FakeBackend : public Backend {
 public:
  explicit FakeBackend(Bodies bodies) : bodies_(std::move(bodies)) {}
  std::string name() const override { return "fake"; }
  Algorithm algorithm() const override { return Algorithm::barneshut; }
  bool on_gpu() const override { return false; }
  void configure(const Settings&) override {}
  void set_bodies(const Bodies& b) override { bodies_ = b; }
  void get_bodies(Bodies& b) override { b = bodies_; }
  std::size_t body_count() const override { return bodies_.size(); }
  StepStats step() override { return {}; }
  void compute_accelerations(Accelerations& out) override { out.resize(bodies_.size()); }
  void write_vertices(VertexTarget target, ColorMode mode) override;
  std::vector<CellBox> tree_cells(int max_depth) override;

 private:
  Bodies bodies_;
};

// n bodies in a thin exponential disk (scale length radius/4, cut at radius) in the xy plane around the
// origin, deterministic: a bright core fading outwards.
Bodies blob(std::size_t n, float radius);

}  // namespace nbl::testing

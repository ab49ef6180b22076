// A few thousand bodies' positions, every stride-th of the vertices, gathered on the GPU (from the GL
// buffer by shaders/gather.comp into buffers that stay mapped; from device vertices by one strided CUDA
// copy into pinned memory) and handed to the host a frame or two later when their fence or event has
// passed: the camera follows the bound bodies from these (bound_centre.hpp)
// without reading back N positions or waiting for the GPU. The same bodies every frame (a fixed
// stride), so two samples a step apart give their velocities.
#pragma once
#include <array>
#include <cstddef>
#include <glm/glm.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "render/gl_objects.hpp"
#include "render/shader_program.hpp"

namespace nbl {

struct BodySample {
  double time = 0;                   // simulation time of the positions
  std::size_t body_count = 0;        // N of the run they came from
  std::size_t stride = 1;            // bodies 0, stride, 2 stride, ...
  std::vector<glm::vec4> positions;  // x, y, z, mass
};

// Which bodies a sample of n takes: `count` of them, `stride` apart.
struct SamplePlan {
  std::size_t count = 0, stride = 1;
};
SamplePlan sample_plan(std::size_t body_count, std::size_t max_count);

class BodySampler {
 public:
  static constexpr std::size_t kMaxSample = 4096;
  static constexpr int kRing = 3;  // a gather is read two frames after it was issued, by then long done

  BodySampler();
  ~BodySampler();

  // Queues the gather from `vertex_buffer` (sim/render_vertices.hpp layout), tagged with `time`.
  void gather(GLuint vertex_buffer, std::size_t body_count, double time);
  // The same from device memory (the interop path's vertices), on `stream` (a cudaStream_t that
  // already waits for their write).
  void gather_device(const float* vertices, void* stream, std::size_t body_count, double time);
  // The gather before the newest one (offscreen renders, which should not depend on how fast the GPU
  // was: the same frames every time), waiting for it if it is still running (issued a frame ago, it has
  // as good as always finished), or nothing when it was taken already; older ones are dropped. Never
  // waits for the newest gather, which waits for this frame's vertices.
  std::optional<BodySample> take_previous();
  // The newest gather that has finished and was not taken yet; never waits.
  std::optional<BodySample> take();

 private:
  struct Slot {
    GlMappedBuffer buffer{kMaxSample * sizeof(glm::vec4)};
    GlFence fence;
    BodySample meta;  // positions empty; filled by take()
    bool pending = false;
    bool on_device = false;  // gathered by CUDA: into the pinned slot of `device_`, its event says when
  };
  struct Device;  // pinned memory and events, made by the first gather_device
  Slot& next_slot(const SamplePlan& plan, std::size_t body_count, double time);
  bool finished(Slot& slot, bool wait);
  const void* data(const Slot& slot) const;

  GlProgram gather_{"shaders/gather.comp"};
  std::array<Slot, kRing> slots_;
  int next_ = 0;
  std::unique_ptr<Device> device_;
};

}  // namespace nbl

#include "render/body_vertices.hpp"

#include <chrono>

#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

const char* to_string(VertexPath path) { return path == VertexPath::interop ? "interop" : "host copy"; }

BodyVertices::BodyVertices(bool allow_interop) : allow_interop_(allow_interop) {
  if (!allow_interop_) interop_reason_ = "interop turned off (--no-interop)";
}

void BodyVertices::resize(std::size_t n, bool want_interop) {
  if (n != count_) {
    interop_.reset();  // unregister before the storage it names goes away
    buffer_.allocate(vertex_buffer_bytes(n));
    count_ = n;
    interop_tried_ = false;
  }
  if (want_interop && !interop_ && !interop_tried_) {
    interop_tried_ = true;
    try {
      // Read and written: the backend writes it, the splatting renderer reads it (render/splatter.hpp).
      interop_ = std::make_unique<InteropBuffer>(buffer_.id(), InteropUse::read_write);
      interop_reason_.clear();
    } catch (const Error& e) {
      interop_reason_ = e.what();
    }
  }
  if (!want_interop) interop_.reset();
}

void BodyVertices::update(Backend& backend, ColorMode mode) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = backend.body_count();
  resize(n, allow_interop_ && backend.on_gpu());
  if (interop_) {
    path_ = VertexPath::interop;
    host_.clear();
    {
      auto mapping = interop_->map(backend.cuda_stream());
      backend.write_vertices({mapping.device_pointer(), true}, mode);
    }
    // A CUDA reader (the splat) waits for this write alone: the lab's next step may already be queued
    // behind it on the backend's stream, and a frame must not wait for it.
    interop_->mark_written(backend.cuda_stream());
  } else {
    path_ = VertexPath::host_copy;
    host_.resize(vertex_buffer_bytes(n) / sizeof(float));
    backend.write_vertices({host_.data(), false}, mode);
    buffer_.upload(0, vertex_buffer_bytes(n), host_.data());
  }
  update_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::vector<float> BodyVertices::read_positions() const {
  if (!host_.empty()) return {host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(4 * count_)};
  std::vector<float> positions(4 * count_);
  if (count_) buffer_.download(0, count_ * kVertexPositionBytes, positions.data());
  return positions;
}

}  // namespace nbl

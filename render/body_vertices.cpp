#include "render/body_vertices.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>

#include "cuda/buffer.hpp"
#include "cuda/check.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

struct BodyVertices::Staging {
  std::size_t count = 0;
  std::array<DeviceBuffer<unsigned char>, 2> buffers;
  std::array<CudaEvent, 2> written{CudaEvent(cudaEventDisableTiming), CudaEvent(cudaEventDisableTiming)};
  std::array<CudaEvent, 2> copied{CudaEvent(cudaEventDisableTiming), CudaEvent(cudaEventDisableTiming)};
  CudaStream copies{CudaStream::Priority::display};  // the display's copy into GL's buffer
};

const char* to_string(VertexPath path) { return path == VertexPath::interop ? "interop" : "host copy"; }

BodyVertices::BodyVertices(bool allow_interop) : allow_interop_(allow_interop) {
  if (!allow_interop_) interop_reason_ = "interop turned off (--no-interop)";
}

BodyVertices::~BodyVertices() = default;

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

bool BodyVertices::staging(const Backend& backend) const {
  if (backend.body_count() != count_ || count_ == 0) return false;
  // The GPU backends' vertices go aside on the device; a CPU backend's, on the host.
  return path_ == VertexPath::interop ? interop_ && backend.on_gpu() : !backend.on_gpu();
}

bool BodyVertices::staging_ready(const Backend& backend) const {
  if (!staging(backend)) return false;
  return path_ == VertexPath::interop ? staging_ && staging_->count == count_ : host_staged_count_ == count_;
}

void BodyVertices::prepare_staging(const Backend& backend) {
  if (!staging(backend)) return;
  if (path_ == VertexPath::host_copy) {
    for (auto& b : host_staged_) b.resize(vertex_buffer_bytes(count_) / sizeof(float));
    host_staged_count_ = count_;
    return;
  }
  if (!staging_) {
    staging_ = std::make_unique<Staging>();
    // Recorded once on an idle stream: a first stage() into either buffer has nothing to wait for.
    for (CudaEvent& e : staging_->copied) e.record(staging_->copies.get());
  }
  if (staging_->count != count_) {
    for (auto& b : staging_->buffers) b.resize(vertex_buffer_bytes(count_));
    staging_->count = count_;
  }
}

void BodyVertices::stage(Backend& backend, ColorMode mode, int slot) {
  const std::size_t k = static_cast<std::size_t>(slot & 1);
  if (path_ == VertexPath::host_copy) {
    // The display reads the other buffer, or none: it took this one's last contents in adopt().
    if (host_staged_count_ != backend.body_count())
      throw Error("the vertices cannot be written aside: no staging buffers for this many bodies");
    backend.write_vertices({host_staged_[k].data(), false}, mode);
    return;
  }
  if (!staging_ || staging_->count != backend.body_count())
    throw Error("the vertices cannot be written aside: no staging buffers for this many bodies");
  const auto stream = static_cast<cudaStream_t>(backend.cuda_stream());
  NBL_CUDA_CHECK(cudaStreamWaitEvent(stream, staging_->copied[k].get(), 0));
  backend.write_vertices({staging_->buffers[k].data(), true}, mode);
  staging_->written[k].record(stream);
}

void BodyVertices::adopt(int slot) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t k = static_cast<std::size_t>(slot & 1);
  if (path_ == VertexPath::host_copy) {
    if (host_staged_count_ != count_ || host_staged_[k].empty()) throw Error("no vertices written aside to adopt");
    std::swap(host_, host_staged_[k]);  // the host copy is this state's now; the buffer's old one goes aside
    if (host_staged_[k].size() != host_.size()) host_staged_[k].resize(host_.size());
    buffer_.upload(0, vertex_buffer_bytes(count_), host_.data());
    update_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return;
  }
  if (!staging_ || !interop_) throw Error("no vertices written aside to adopt");
  cudaStream_t stream = staging_->copies.get();
  NBL_CUDA_CHECK(cudaStreamWaitEvent(stream, staging_->written[k].get(), 0));
  {
    auto mapping = interop_->map(stream);
    NBL_CUDA_CHECK(cudaMemcpyAsync(mapping.device_pointer(), staging_->buffers[k].data(), vertex_buffer_bytes(count_),
                                   cudaMemcpyDeviceToDevice, stream));
  }
  interop_->mark_written(stream);
  staging_->copied[k].record(stream);
  update_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void* BodyVertices::adopt_stream() const { return staging_ ? staging_->copies.get() : nullptr; }

std::vector<float> BodyVertices::read_positions() const {
  if (!host_.empty()) return {host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(4 * count_)};
  std::vector<float> positions(4 * count_);
  if (count_) buffer_.download(0, count_ * kVertexPositionBytes, positions.data());
  return positions;
}

}  // namespace nbl

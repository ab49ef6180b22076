#include "render/body_vertices.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>

#include "cuda/buffer.hpp"
#include "cuda/check.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

// The interop path's current vertices in device memory, and the GL buffer's copy of them.
struct BodyVertices::Device {
  DeviceBuffer<unsigned char> vertices;
  CudaStream copies{CudaStream::Priority::display};  // the display's copies: staged in, out to GL, the sample
  CudaEvent written{cudaEventDisableTiming};         // the last write of `vertices`
  CudaEvent read{cudaEventDisableTiming};            // scratch: where `copies` stands, for a writer to wait
  bool gl_current = false;                           // the GL buffer holds them
};

struct BodyVertices::Staging {
  std::size_t count = 0;
  std::array<DeviceBuffer<unsigned char>, 2> buffers;
  std::array<CudaEvent, 2> written{CudaEvent(cudaEventDisableTiming), CudaEvent(cudaEventDisableTiming)};
  std::array<CudaEvent, 2> copied{CudaEvent(cudaEventDisableTiming), CudaEvent(cudaEventDisableTiming)};
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
      // CUDA only ever overwrites it, with the device vertices (buffer()).
      interop_ = std::make_unique<InteropBuffer>(buffer_.id());
      if (!device_) device_ = std::make_unique<Device>();
      interop_reason_.clear();
    } catch (const Error& e) {
      interop_.reset();
      interop_reason_ = e.what();
    }
  }
  if (!want_interop) interop_.reset();
  if (interop_) {
    device_->vertices.resize(vertex_buffer_bytes(n));
  } else if (device_) {
    // The host copy from now on: the device copy goes, after whatever still reads it.
    NBL_CUDA_CHECK(cudaStreamSynchronize(device_->copies.get()));
    device_->vertices.resize(0);
    device_->gl_current = false;
  }
}

void BodyVertices::update(Backend& backend, ColorMode mode) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = backend.body_count();
  resize(n, allow_interop_ && backend.on_gpu());
  if (interop_) {
    path_ = VertexPath::interop;
    host_.clear();
    Device& d = *device_;
    const auto stream = static_cast<cudaStream_t>(backend.cuda_stream());
    // The display's copies of the last vertices (into GL's buffer, the sample) end before they change.
    d.read.record(d.copies.get());
    NBL_CUDA_CHECK(cudaStreamWaitEvent(stream, d.read.get(), 0));
    backend.write_vertices({d.vertices.data(), true}, mode);
    // A reader waits for this write alone: the lab's next step may already be queued behind it on the
    // backend's stream, and a frame must not wait for it.
    d.written.record(stream);
    d.gl_current = false;
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
    for (CudaEvent& e : staging_->copied) e.record(device_->copies.get());
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
  Device& d = *device_;
  cudaStream_t stream = d.copies.get();
  NBL_CUDA_CHECK(cudaStreamWaitEvent(stream, staging_->written[k].get(), 0));
  NBL_CUDA_CHECK(cudaMemcpyAsync(d.vertices.data(), staging_->buffers[k].data(), vertex_buffer_bytes(count_),
                                 cudaMemcpyDeviceToDevice, stream));
  d.written.record(stream);
  d.gl_current = false;
  staging_->copied[k].record(stream);
  update_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const float* BodyVertices::device_vertices() const {
  return path_ == VertexPath::interop && interop_ ? reinterpret_cast<const float*>(device_->vertices.data()) : nullptr;
}

void BodyVertices::wait_for_write(void* stream) const {
  if (device_vertices())
    NBL_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), device_->written.get(), 0));
}

void* BodyVertices::adopt_stream() const { return device_vertices() ? device_->copies.get() : nullptr; }

void* BodyVertices::copy_stream() const {
  if (!device_vertices()) return nullptr;
  wait_for_write(device_->copies.get());
  return device_->copies.get();
}

GLuint BodyVertices::buffer() const {
  if (device_vertices() && !device_->gl_current && count_ > 0) {
    // The interop hand-off, only now that GL reads them: CUDA writes GL's buffer on the display's copy
    // stream, and GL's next use of it waits for that copy on the GPU (the unmap).
    cudaStream_t stream = static_cast<cudaStream_t>(copy_stream());
    {
      auto mapping = interop_->map(stream);
      NBL_CUDA_CHECK(cudaMemcpyAsync(mapping.device_pointer(), device_->vertices.data(), vertex_buffer_bytes(count_),
                                     cudaMemcpyDeviceToDevice, stream));
    }
    device_->gl_current = true;
  }
  return buffer_.id();
}

std::vector<float> BodyVertices::read_positions() const {
  if (!host_.empty()) return {host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(4 * count_)};
  std::vector<float> positions(4 * count_);
  if (count_ == 0) return positions;
  if (device_vertices()) {
    cudaStream_t stream = static_cast<cudaStream_t>(copy_stream());
    NBL_CUDA_CHECK(cudaMemcpyAsync(positions.data(), device_->vertices.data(), count_ * kVertexPositionBytes,
                                   cudaMemcpyDeviceToHost, stream));
    NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    buffer_.download(0, count_ * kVertexPositionBytes, positions.data());
  }
  return positions;
}

}  // namespace nbl

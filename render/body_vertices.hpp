// The vertex buffer the bodies are drawn from, and how it gets filled each frame (a
// host-copy path takes over when interop is not available, and the panel says which path is active):
//   interop    the GPU backend writes the GL buffer in place through CUDA (InteropBuffer);
//   host copy  the backend writes a host array, glBufferSubData uploads it (CPU backends, Mesa, or a
//              GL context on another GPU than CUDA's).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "render/gl_objects.hpp"
#include "render/interop_buffer.hpp"
#include "sim/backend.hpp"

namespace nbl {

enum class VertexPath { interop, host_copy };
const char* to_string(VertexPath path);  // "interop" / "host copy"

class BodyVertices {
 public:
  // allow_interop = false forces the host copy (to compare the two paths).
  explicit BodyVertices(bool allow_interop = true);

  // Refills the buffer from the backend's current state. Throws what the backend throws.
  void update(Backend& backend, ColorMode mode);

  GLuint buffer() const { return buffer_.id(); }
  std::size_t count() const { return count_; }
  VertexPath path() const { return path_; }
  double update_ms() const { return update_ms_; }  // CPU wall time of the last update (map/copy/upload)
  // Why interop is not in use ("" when it is, or has not been tried: a CPU backend never tries).
  const std::string& interop_unavailable_reason() const { return interop_reason_; }

  // Positions and masses (n float4), read back from the GL buffer: camera fit, bounding box.
  std::vector<float> read_positions() const;
  // The host copy the last update uploaded (empty on the interop path): free to read.
  const std::vector<float>& host_copy() const { return host_; }
  // On the interop path: the registered buffer, its last write marked (InteropBuffer::mark_written) for
  // the splatting renderer to wait for; null otherwise.
  InteropBuffer* interop() const { return path_ == VertexPath::interop ? interop_.get() : nullptr; }

 private:
  void resize(std::size_t n, bool want_interop);

  bool allow_interop_;
  GlBuffer buffer_;
  std::unique_ptr<InteropBuffer> interop_;
  bool interop_tried_ = false;
  std::string interop_reason_;
  std::vector<float> host_;
  std::size_t count_ = 0;
  VertexPath path_ = VertexPath::host_copy;
  double update_ms_ = 0;
};

}  // namespace nbl

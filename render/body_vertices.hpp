// The bodies' vertices for drawing, and how they get there each frame (a host-copy path takes over when
// interop is not available, and the panel says which path is active):
//   interop    the GPU backend writes them into device memory; the CUDA splat reads them there, and
//              CUDA copies them into the GL buffer (registered with it) only when GL reads them: the
//              sprites, or a splat CUDA cannot run. A splatted frame hands nothing but its picture
//              between CUDA and GL.
//   host copy  the backend writes a host array, glBufferSubData uploads it (CPU backends, Mesa, or a
//              GL context on another GPU than CUDA's).
#pragma once
#include <array>
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
  ~BodyVertices();

  // Refills the buffer from the backend's current state. Throws what the backend throws.
  void update(Backend& backend, ColorMode mode);

  // The GL buffer with the current vertices (on the interop path, copied in now if GL has not had them:
  // GL's use of it waits for the copy on the GPU). buffer_name(): the buffer, whatever it holds.
  GLuint buffer() const;
  GLuint buffer_name() const { return buffer_.id(); }
  std::size_t count() const { return count_; }
  VertexPath path() const { return path_; }
  double update_ms() const { return update_ms_; }  // CPU wall time of the last update (map/copy/upload)
  // Why interop is not in use ("" when it is, or has not been tried: a CPU backend never tries).
  const std::string& interop_unavailable_reason() const { return interop_reason_; }

  // Positions and masses (n float4), read back (device memory or the GL buffer): camera fit, bounding box.
  std::vector<float> read_positions() const;
  // The host copy the last update uploaded (empty on the interop path): free to read.
  const std::vector<float>& host_copy() const { return host_; }
  // On the interop path, the vertices in device memory (sim/render_vertices.hpp layout), for CUDA readers
  // (the splat, the camera's body sample); null otherwise. A reader on its own stream first makes it
  // wait for their last write (wait_for_write: that write alone, not the lab's next step queued behind
  // it), and the next write waits for it (the splat: Splatter::order_before on update()'s and adopt()'s
  // streams; the sample reads on copy_stream(), which they wait for).
  const float* device_vertices() const;
  void wait_for_write(void* stream) const;  // a cudaStream_t
  // The stream the display's copies run on (cudaStream_t), made to wait for the last write: a reader
  // there needs nothing more. Null off the interop path.
  void* copy_stream() const;

  // Vertices written aside by the lab's stepping thread (app/core/stepper.hpp, StepJob::after_steps):
  // two device buffers, used in turn, that stage() fills from a finished job's state on the backend's
  // stream, beside the display, and adopt() copies into the vertex buffer on a stream of its own, so a
  // job queued behind the finished one may already step. A CPU backend's go aside into two host
  // buffers, and adopt() uploads one. staging() says whether the last update() took a path that
  // stages for this backend's bodies.
  bool staging(const Backend& backend) const;
  bool staging_ready(const Backend& backend) const;  // and prepare_staging() made the buffers for them
  // The display thread, between jobs: makes the two buffers (and events) for the backend's bodies.
  void prepare_staging(const Backend& backend);
  // The stepping thread: the backend's state into buffer `slot` (0 or 1), after the display's copy of
  // what the buffer held before (in stream order: nothing waits on the CPU). Throws what the backend
  // throws.
  void stage(Backend& backend, ColorMode mode, int slot);
  // The display thread: buffer `slot` becomes the current vertices, once stage() has been called for it
  // (a copy into the device vertices that waits for that write on the GPU). Readers wait for the copy
  // (wait_for_write).
  void adopt(int slot);
  // The stream adopt() copies on (a cudaStream_t): a reader of the last vertices makes it wait for that
  // read (Splatter::order_before) before the copy overwrites them. Null off the interop path.
  void* adopt_stream() const;

 private:
  struct Staging;
  struct Device;
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
  std::unique_ptr<Device> device_;                 // the interop path's current vertices
  std::unique_ptr<Staging> staging_;               // the interop path's (device memory)
  std::array<std::vector<float>, 2> host_staged_;  // the host copy path's
  std::size_t host_staged_count_ = 0;
};

}  // namespace nbl

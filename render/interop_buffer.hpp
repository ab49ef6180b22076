// A GL buffer registered with CUDA (CUDA-OpenGL interop, Garland's 'Parallel Computing in CUDA': "cudaGLMapBufferObject",
// today cudaGraphicsGLRegisterBuffer). CUDA fills the vertex buffer from the GPU backends' device
// vertices through the mapped pointer (render/body_vertices.hpp); nothing crosses the PCIe bus. And a GL
// texture registered the same way takes the CUDA splat's picture. Registers in the constructor, unregisters in the
// destructor; map() returns a scoped mapping that unmaps when it goes out of scope.
// This header names no CUDA type, so app/ and the panel may include it.
#pragma once
#include <cstddef>
#include <string>

#include "render/gl.hpp"

namespace nbl {

class InteropBuffer {
 public:
  // Throws Error with CUDA's reason when the buffer cannot be registered (no GPU, the GL context is
  // not on the CUDA device, a driver without interop such as Mesa's). `what` names it in messages.
  // CUDA overwrites the whole buffer while it is mapped (registered write-discard): GL's old contents are
  // not kept for it.
  explicit InteropBuffer(GLuint gl_buffer, std::string what = "the OpenGL vertex buffer");
  ~InteropBuffer();
  InteropBuffer(const InteropBuffer&) = delete;
  InteropBuffer& operator=(const InteropBuffer&) = delete;

  class Mapping {
   public:
    ~Mapping();
    Mapping(Mapping&& o) noexcept;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    Mapping& operator=(Mapping&&) = delete;
    void* device_pointer() const { return pointer_; }  // a CUDA device pointer
    std::size_t bytes() const { return bytes_; }

   private:
    friend class InteropBuffer;
    friend class InteropTexture;
    Mapping(void* resource, void* pointer, std::size_t bytes, void* stream)
        : resource_(resource), pointer_(pointer), bytes_(bytes), stream_(stream) {}
    void* resource_;
    void* pointer_;
    std::size_t bytes_;
    void* stream_;
  };

  // Maps the buffer for CUDA work on `stream` (a cudaStream_t; null: the legacy default stream). Both
  // ends are stream-ordered: CUDA's work on that stream starts after GL's earlier use of the buffer,
  // and GL's next use starts after everything enqueued on that stream before the unmap (when the
  // mapping goes out of scope). Nothing waits for the whole device. Throws Error.
  Mapping map(void* stream);

 private:
  void* resource_ = nullptr;  // cudaGraphicsResource_t
  std::string what_;
};

// A 2D GL texture registered with CUDA, which overwrites it while mapped: the mapping's device_pointer()
// is then a cudaArray_t (level 0) for cudaMemcpy2DToArrayAsync. Same lifetime and ordering rules as
// InteropBuffer.
class InteropTexture {
 public:
  InteropTexture(GLuint texture, std::string what);
  ~InteropTexture();
  InteropTexture(const InteropTexture&) = delete;
  InteropTexture& operator=(const InteropTexture&) = delete;
  InteropBuffer::Mapping map(void* stream);

 private:
  void* resource_ = nullptr;
  std::string what_;
};

}  // namespace nbl

#include "render/interop_buffer.hpp"

// GLAD's header came first (interop_buffer.hpp), so cuda_gl_interop.h finds the GL types and does not
// pull in the system <GL/gl.h>.
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "sim/error.hpp"

namespace nbl {

namespace {

std::string cuda_message(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

}  // namespace

InteropBuffer::InteropBuffer(GLuint gl_buffer, std::string what) : what_(std::move(what)) {
  cudaGraphicsResource_t resource = nullptr;
  const cudaError_t status = cudaGraphicsGLRegisterBuffer(&resource, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
  if (status != cudaSuccess) {
    cudaGetLastError();  // do not leave the failure sticky for the next CUDA call
    throw Error("CUDA cannot register " + what_ + " (" + cuda_message(status) + ")");
  }
  resource_ = resource;
}

InteropBuffer::~InteropBuffer() {
  if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
}

InteropBuffer::Mapping InteropBuffer::map(void* stream) {
  auto resource = static_cast<cudaGraphicsResource_t>(resource_);
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  cudaError_t status = cudaGraphicsMapResources(1, &resource, cuda_stream);
  if (status != cudaSuccess) throw Error("CUDA cannot map " + what_ + " (" + cuda_message(status) + ")");
  void* pointer = nullptr;
  std::size_t bytes = 0;
  status = cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, resource);
  if (status != cudaSuccess) {
    cudaGraphicsUnmapResources(1, &resource, cuda_stream);
    throw Error("CUDA cannot address " + what_ + ", mapped (" + cuda_message(status) + ")");
  }
  return Mapping(resource_, pointer, bytes, stream);
}

InteropTexture::InteropTexture(GLuint texture, std::string what) : what_(std::move(what)) {
  cudaGraphicsResource_t resource = nullptr;
  const cudaError_t status =
      cudaGraphicsGLRegisterImage(&resource, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw Error("CUDA cannot register " + what_ + " (" + cuda_message(status) + ")");
  }
  resource_ = resource;
}

InteropTexture::~InteropTexture() {
  if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
}

InteropBuffer::Mapping InteropTexture::map(void* stream) {
  auto resource = static_cast<cudaGraphicsResource_t>(resource_);
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  cudaError_t status = cudaGraphicsMapResources(1, &resource, cuda_stream);
  if (status != cudaSuccess) throw Error("CUDA cannot map " + what_ + " (" + cuda_message(status) + ")");
  cudaArray_t array = nullptr;
  status = cudaGraphicsSubResourceGetMappedArray(&array, resource, 0, 0);
  if (status != cudaSuccess) {
    cudaGraphicsUnmapResources(1, &resource, cuda_stream);
    throw Error("CUDA cannot address " + what_ + ", mapped (" + cuda_message(status) + ")");
  }
  return InteropBuffer::Mapping(resource_, array, 0, stream);
}

InteropBuffer::Mapping::Mapping(Mapping&& o) noexcept
    : resource_(std::exchange(o.resource_, nullptr)),
      pointer_(std::exchange(o.pointer_, nullptr)),
      bytes_(o.bytes_),
      stream_(o.stream_) {}

InteropBuffer::Mapping::~Mapping() {
  if (!resource_) return;
  // Stream-ordered: GL's next use of the buffer waits for the writes enqueued on this stream (the
  // backend's), and for nothing else on the device.
  auto resource = static_cast<cudaGraphicsResource_t>(resource_);
  cudaGraphicsUnmapResources(1, &resource, static_cast<cudaStream_t>(stream_));
}

}  // namespace nbl

#include "render/gl_objects.hpp"

#include <cstdio>
#include <string>

#include "sim/error.hpp"

namespace nbl {

namespace {

std::string hex(unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

template <typename Create>
GLuint create_name(Create create, const char* what) {
  GLuint id = 0;
  create(&id);
  if (!id) throw Error(std::string("OpenGL could not create a ") + what);
  return id;
}

}  // namespace

GlBuffer::GlBuffer() : name_(create_name([](GLuint* id) { glCreateBuffers(1, id); }, "buffer")) {}

void GlBuffer::allocate(std::size_t bytes, GLenum usage) {
  if (bytes == bytes_) return;
  glNamedBufferData(name_.id(), static_cast<GLsizeiptr>(bytes), nullptr, usage);
  if (glGetError() == GL_OUT_OF_MEMORY)
    throw Error("OpenGL is out of memory for a " + std::to_string(bytes >> 20) + " MiB vertex buffer");
  bytes_ = bytes;
}

void GlBuffer::upload(std::size_t offset, std::size_t bytes, const void* data) {
  glNamedBufferSubData(name_.id(), static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
}

void GlBuffer::download(std::size_t offset, std::size_t bytes, void* data) const {
  glGetNamedBufferSubData(name_.id(), static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
}

GlVertexArray::GlVertexArray() : name_(create_name([](GLuint* id) { glCreateVertexArrays(1, id); }, "vertex array")) {}

GlTexture::GlTexture(GLenum target)
    : name_(create_name([target](GLuint* id) { glCreateTextures(target, 1, id); }, "texture")) {}

GlFramebuffer::GlFramebuffer() : name_(create_name([](GLuint* id) { glCreateFramebuffers(1, id); }, "framebuffer")) {}

GlQuery::GlQuery(GLenum target)
    : name_(create_name([target](GLuint* id) { glCreateQueries(target, 1, id); }, "query")) {}

GlMappedBuffer::GlMappedBuffer(std::size_t bytes)
    : name_(create_name([](GLuint* id) { glCreateBuffers(1, id); }, "buffer")), bytes_(bytes) {
  const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  glNamedBufferStorage(name_.id(), static_cast<GLsizeiptr>(bytes), nullptr, flags);
  data_ = glMapNamedBufferRange(name_.id(), 0, static_cast<GLsizeiptr>(bytes), flags);
  if (!data_) throw Error("OpenGL could not map a " + std::to_string(bytes >> 10) + " KiB buffer for reading");
}

void GlFence::place() {
  reset();
  sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

bool GlFence::signaled() {
  if (!sync_) return false;
  const GLenum state = glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
  return state == GL_ALREADY_SIGNALED || state == GL_CONDITION_SATISFIED;
}

void GlFence::wait() {
  if (!sync_) return;
  while (true) {
    const GLenum state = glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
    if (state != GL_TIMEOUT_EXPIRED) return;
  }
}

void GlFence::reset() {
  if (sync_) glDeleteSync(sync_);
  sync_ = nullptr;
}

GlRenderTarget::GlRenderTarget(int width, int height, GLenum internal_format) : width_(width), height_(height) {
  glTextureStorage2D(texture_.id(), 1, internal_format, width, height);
  glTextureParameteri(texture_.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(texture_.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTextureParameteri(texture_.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(texture_.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glNamedFramebufferTexture(framebuffer_.id(), GL_COLOR_ATTACHMENT0, texture_.id(), 0);
  const GLenum status = glCheckNamedFramebufferStatus(framebuffer_.id(), GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw Error("OpenGL cannot render into a " + std::to_string(width) + "x" + std::to_string(height) +
                " target of this format (framebuffer status " + hex(status) + ")");
}

}  // namespace nbl

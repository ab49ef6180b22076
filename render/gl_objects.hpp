// RAII owners of OpenGL objects (CONTRIBUTING.md: no raw glDelete* outside these types). Move-only; each
// creates its object in the constructor and deletes it in the destructor. They need a current context
// for their whole life: the window or the EGL context outlives every one of them.
#pragma once
#include <cstddef>
#include <utility>

#include "render/gl.hpp"

namespace nbl {

// A GL name plus the function that deletes it. Deleter: void(GLuint).
template <typename Deleter>
class GlName {
 public:
  GlName() = default;
  explicit GlName(GLuint id) : id_(id) {}
  ~GlName() {
    if (id_) Deleter{}(id_);
  }
  GlName(GlName&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      if (id_) Deleter{}(id_);
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;

  GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }

 private:
  GLuint id_ = 0;
};

namespace gl_delete {
struct Buffer {
  void operator()(GLuint id) const { glDeleteBuffers(1, &id); }
};
struct VertexArray {
  void operator()(GLuint id) const { glDeleteVertexArrays(1, &id); }
};
struct Texture {
  void operator()(GLuint id) const { glDeleteTextures(1, &id); }
};
struct Framebuffer {
  void operator()(GLuint id) const { glDeleteFramebuffers(1, &id); }
};
struct Query {
  void operator()(GLuint id) const { glDeleteQueries(1, &id); }
};
struct Shader {
  void operator()(GLuint id) const { glDeleteShader(id); }
};
struct Program {
  void operator()(GLuint id) const { glDeleteProgram(id); }
};
}  // namespace gl_delete

// A buffer object with immutable-size-on-demand storage (glNamedBufferData on resize).
class GlBuffer {
 public:
  GlBuffer();
  // (Re)allocates `bytes` of storage (contents undefined) when the size changes.
  void allocate(std::size_t bytes, GLenum usage = GL_DYNAMIC_DRAW);
  void upload(std::size_t offset, std::size_t bytes, const void* data);
  void download(std::size_t offset, std::size_t bytes, void* data) const;
  GLuint id() const { return name_.id(); }
  std::size_t bytes() const { return bytes_; }

 private:
  GlName<gl_delete::Buffer> name_;
  std::size_t bytes_ = 0;
};

class GlVertexArray {
 public:
  GlVertexArray();
  GLuint id() const { return name_.id(); }

 private:
  GlName<gl_delete::VertexArray> name_;
};

class GlTexture {
 public:
  explicit GlTexture(GLenum target);
  GLuint id() const { return name_.id(); }

 private:
  GlName<gl_delete::Texture> name_;
};

class GlFramebuffer {
 public:
  GlFramebuffer();
  GLuint id() const { return name_.id(); }

 private:
  GlName<gl_delete::Framebuffer> name_;
};

class GlQuery {
 public:
  explicit GlQuery(GLenum target);
  GLuint id() const { return name_.id(); }

 private:
  GlName<gl_delete::Query> name_;
};

// A buffer whose storage stays mapped for reading for its whole life (glNamedBufferStorage with
// GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT): the GPU writes it (a compute shader, glReadPixels into a
// pixel-pack buffer) and the host reads the same memory once a fence says the writes are done, on any
// thread, without a map call per frame. Deleting the buffer unmaps it.
class GlMappedBuffer {
 public:
  explicit GlMappedBuffer(std::size_t bytes);
  GLuint id() const { return name_.id(); }
  std::size_t bytes() const { return bytes_; }
  const void* data() const { return data_; }

 private:
  GlName<gl_delete::Buffer> name_;
  std::size_t bytes_ = 0;
  const void* data_ = nullptr;
};

// A fence after the commands issued so far (glFenceSync); empty until placed. Checking it never waits.
class GlFence {
 public:
  GlFence() = default;
  ~GlFence() { reset(); }
  GlFence(GlFence&& o) noexcept : sync_(std::exchange(o.sync_, nullptr)) {}
  GlFence& operator=(GlFence&& o) noexcept {
    if (this != &o) {
      reset();
      sync_ = std::exchange(o.sync_, nullptr);
    }
    return *this;
  }
  GlFence(const GlFence&) = delete;
  GlFence& operator=(const GlFence&) = delete;

  void place();  // replaces an earlier fence
  bool placed() const { return sync_ != nullptr; }
  bool signaled();  // the commands before it have finished (flushes once so that it can finish)
  void wait();      // blocks until signaled
  void reset();

 private:
  GLsync sync_ = nullptr;
};

// A colour target of one size and format, sampled by later passes (2D texture + framebuffer).
class GlRenderTarget {
 public:
  GlRenderTarget(int width, int height, GLenum internal_format);
  int width() const { return width_; }
  int height() const { return height_; }
  GLuint framebuffer() const { return framebuffer_.id(); }
  GLuint texture() const { return texture_.id(); }

 private:
  int width_, height_;
  GlTexture texture_{GL_TEXTURE_2D};
  GlFramebuffer framebuffer_;
};

}  // namespace nbl

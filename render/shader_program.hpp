// GLSL programs built from the files under shaders/ (CONTRIBUTING.md), found at run time through
// find_resource(). A shader that does not compile or link throws Error naming the file and quoting
// the driver's log, so an edited shader tells its author what is wrong.
#pragma once
#include <glm/fwd.hpp>
#include <string>
#include <string_view>

#include "render/gl_objects.hpp"

namespace nbl {

class GlProgram {
 public:
  // e.g. GlProgram("shaders/bodies.vert", "shaders/bodies.frag")
  GlProgram(std::string_view vertex_file, std::string_view fragment_file);
  // A compute program: GlProgram("shaders/histogram.comp").
  explicit GlProgram(std::string_view compute_file);

  void use() const { glUseProgram(name_.id()); }
  GLuint id() const { return name_.id(); }

  // Uniform setters; a name the program does not use (optimized away) is ignored.
  void set(const char* name, int value) const;
  void set(const char* name, unsigned value) const;
  void set(const char* name, float value) const;
  void set(const char* name, const glm::vec2& value) const;
  void set(const char* name, const glm::ivec2& value) const;
  void set(const char* name, const glm::vec3& value) const;
  void set(const char* name, const glm::mat4& value) const;

 private:
  GlName<gl_delete::Program> name_;
};

// Compiles one shader stage from source; `origin` names it in errors. Throws Error with the log.
GlName<gl_delete::Shader> compile_shader(GLenum stage, const std::string& source, const std::string& origin);

}  // namespace nbl

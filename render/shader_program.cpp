#include "render/shader_program.hpp"

#include <glm/glm.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/resources.hpp"

namespace nbl {

namespace {

std::string info_log(GLuint object, bool is_program) {
  GLint length = 0;
  if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
  else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) {
    if (is_program) glGetProgramInfoLog(object, length, nullptr, log.data());
    else glGetShaderInfoLog(object, length, nullptr, log.data());
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log.empty() ? "(the driver gave no log)" : log;
}

}  // namespace

GlName<gl_delete::Shader> compile_shader(GLenum stage, const std::string& source, const std::string& origin) {
  GlName<gl_delete::Shader> shader(glCreateShader(stage));
  if (!shader) throw Error("OpenGL could not create a shader for " + origin);
  const char* text = source.c_str();
  glShaderSource(shader.id(), 1, &text, nullptr);
  glCompileShader(shader.id());
  GLint ok = GL_FALSE;
  glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
  if (!ok) throw Error("shader " + origin + " does not compile:\n" + info_log(shader.id(), false));
  return shader;
}

GlProgram::GlProgram(std::string_view vertex_file, std::string_view fragment_file) : name_(glCreateProgram()) {
  const auto vertex_path = find_resource(vertex_file);
  const auto fragment_path = find_resource(fragment_file);
  const auto vertex = compile_shader(GL_VERTEX_SHADER, read_text_file(vertex_path), vertex_path.string());
  const auto fragment = compile_shader(GL_FRAGMENT_SHADER, read_text_file(fragment_path), fragment_path.string());
  glAttachShader(name_.id(), vertex.id());
  glAttachShader(name_.id(), fragment.id());
  glLinkProgram(name_.id());
  glDetachShader(name_.id(), vertex.id());
  glDetachShader(name_.id(), fragment.id());
  GLint ok = GL_FALSE;
  glGetProgramiv(name_.id(), GL_LINK_STATUS, &ok);
  if (!ok)
    throw Error("shaders " + vertex_path.string() + " + " + fragment_path.string() + " do not link:\n" +
                info_log(name_.id(), true));
}

GlProgram::GlProgram(std::string_view compute_file) : name_(glCreateProgram()) {
  const auto path = find_resource(compute_file);
  const auto compute = compile_shader(GL_COMPUTE_SHADER, read_text_file(path), path.string());
  glAttachShader(name_.id(), compute.id());
  glLinkProgram(name_.id());
  glDetachShader(name_.id(), compute.id());
  GLint ok = GL_FALSE;
  glGetProgramiv(name_.id(), GL_LINK_STATUS, &ok);
  if (!ok) throw Error("shader " + path.string() + " does not link:\n" + info_log(name_.id(), true));
}

void GlProgram::set(const char* name, unsigned value) const {
  glProgramUniform1ui(name_.id(), glGetUniformLocation(name_.id(), name), value);
}

void GlProgram::set(const char* name, int value) const {
  glProgramUniform1i(name_.id(), glGetUniformLocation(name_.id(), name), value);
}
void GlProgram::set(const char* name, float value) const {
  glProgramUniform1f(name_.id(), glGetUniformLocation(name_.id(), name), value);
}
void GlProgram::set(const char* name, const glm::vec2& value) const {
  glProgramUniform2fv(name_.id(), glGetUniformLocation(name_.id(), name), 1, glm::value_ptr(value));
}
void GlProgram::set(const char* name, const glm::ivec2& value) const {
  glProgramUniform2iv(name_.id(), glGetUniformLocation(name_.id(), name), 1, glm::value_ptr(value));
}
void GlProgram::set(const char* name, const glm::vec3& value) const {
  glProgramUniform3fv(name_.id(), glGetUniformLocation(name_.id(), name), 1, glm::value_ptr(value));
}
void GlProgram::set(const char* name, const glm::mat4& value) const {
  glProgramUniformMatrix4fv(name_.id(), glGetUniformLocation(name_.id(), name), 1, GL_FALSE, glm::value_ptr(value));
}

}  // namespace nbl

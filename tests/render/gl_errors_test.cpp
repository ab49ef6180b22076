// GL errors are never silent: with exceptions each GL call is checked as it returns (GLAD's debug
// hooks), and the per-frame policy reports the first error once. On Mesa's EGL in CI.
#include <gtest/gtest.h>

#include <string>

#include "render/egl_context.hpp"
#include "render/gl.hpp"
#include "render/gl_errors.hpp"

namespace nbl {
namespace {

class GlErrors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new EglContext(); }
  static void TearDownTestSuite() { delete context_; }
  void TearDown() override { install_gl_error_checks(default_gl_error_mode()); }
  static EglContext* context_;
};
EglContext* GlErrors::context_ = nullptr;

TEST_F(GlErrors, ExceptionModeNamesTheFailingCall) {
  install_gl_error_checks(GlErrorMode::exceptions);
  glBindBuffer(GL_ARRAY_BUFFER, 0);  // a valid call passes
  try {
    glBindBuffer(0xdead, 0);
    FAIL() << "an invalid enum did not throw";
  } catch (const GlError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("glBindBuffer"), std::string::npos) << what;
    EXPECT_NE(what.find("GL_INVALID_ENUM"), std::string::npos) << what;
  }
  EXPECT_EQ(take_gl_error(), "");  // the queue was drained: the next check starts clean
}

TEST_F(GlErrors, PerFrameModeReportsTheFirstErrorOnce) {
  install_gl_error_checks(GlErrorMode::per_frame);
  EXPECT_EQ(take_gl_error(), "");
  EXPECT_NO_THROW(glBindBuffer(0xdead, 0));
  EXPECT_NO_THROW(glEnable(0xbeef));
  const std::string first = take_gl_error();
  EXPECT_EQ(first.rfind("GL_INVALID_ENUM", 0), 0u) << first;
  EXPECT_EQ(take_gl_error(), "");  // drained
}

TEST(GlErrorNames, KnownCodesHaveNames) {
  EXPECT_EQ(gl_error_name(GL_INVALID_OPERATION), "GL_INVALID_OPERATION");
  EXPECT_EQ(gl_error_name(0x1234), "GL error 0x1234");
}

}  // namespace
}  // namespace nbl

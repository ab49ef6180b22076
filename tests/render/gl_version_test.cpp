#include "render/gl_version.hpp"

#include <gtest/gtest.h>

namespace nbl {
namespace {

TEST(GlVersion, ParsesMesaNvidiaAndEsStrings) {
  auto mesa = parse_gl_version("4.5 (Core Profile) Mesa 22.3.6");
  ASSERT_TRUE(mesa);
  EXPECT_EQ(mesa->major, 4);
  EXPECT_EQ(mesa->minor, 5);
  EXPECT_FALSE(mesa->es);
  auto nvidia = parse_gl_version("4.6.0 NVIDIA 550.54.15");
  ASSERT_TRUE(nvidia);
  EXPECT_EQ(nvidia->minor, 6);
  auto es = parse_gl_version("OpenGL ES 3.2 Mesa 22.3.6");
  ASSERT_TRUE(es);
  EXPECT_TRUE(es->es);
  EXPECT_EQ(es->major, 3);
  EXPECT_FALSE(parse_gl_version("garbage"));
  EXPECT_FALSE(parse_gl_version(""));
  EXPECT_FALSE(parse_gl_version("4."));
}

TEST(GlVersion, FourFiveAndNewerAreEnough) {
  EXPECT_EQ(gl_version_problem("4.5 (Core Profile) Mesa 22.3.6"), "");
  EXPECT_EQ(gl_version_problem("4.6.0 NVIDIA 550.54.15"), "");
  EXPECT_EQ(gl_version_problem("5.0 future"), "");
}

TEST(GlVersion, TooOldSaysWhichWasFoundAndWhichIsNeeded) {
  const std::string msg = gl_version_problem("3.3 (Core Profile) Mesa 20.0.8", "llvmpipe");
  EXPECT_NE(msg.find("needs OpenGL 4.5 core"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offers only OpenGL 3.3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("llvmpipe"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nbodylab render"), std::string::npos) << msg;
  EXPECT_NE(gl_version_problem("4.1 Metal"), "");
}

TEST(GlVersion, EsAndUnreadableVersionsAreRefusedWithTheString) {
  EXPECT_NE(gl_version_problem("OpenGL ES 3.2 Mesa").find("OpenGL ES 3.2"), std::string::npos);
  EXPECT_NE(gl_version_problem("weird").find("\"weird\""), std::string::npos);
}

}  // namespace
}  // namespace nbl

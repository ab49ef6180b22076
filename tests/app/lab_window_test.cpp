// The interactive lab under a private Xvfb server (Mesa llvmpipe, OpenGL 4.5 core), on the CPU
// backend: frames run, the bodies and the panel are drawn, edits made through the panel's code path
// reach the simulation, and the window's failure messages say what to do.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "app/lab/lab.hpp"
#include "cuda/device.hpp"
#include "render/gl.hpp"
#include "render/gl_errors.hpp"
#include "png_file.hpp"
#include "sim/error.hpp"
#include "xvfb_server.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

// The simulation steps on its own thread (app/core/stepper.hpp): settings apply between its jobs, so a
// test runs frames until what it waits for has happened, at most `limit` of them.
template <class Done>
bool frames_until(Lab& lab, Done done, int limit = 400) {
  for (int i = 0; i < limit && !done(); ++i) {
    lab.frame();
    usleep(1000);
  }
  return done();
}
constexpr int kWidth = 1280, kHeight = 720;

class LabWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::XvfbServer::installed()) GTEST_SKIP() << xvfb_.problem();
    ASSERT_TRUE(xvfb_.running()) << xvfb_.problem();
    dir_ = fs::temp_directory_path() / ("nbl_lab_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static LabOptions small_lab() {
    LabOptions o;
    o.window.width = kWidth;
    o.window.height = kHeight;
    o.settings.scene = Scene::galaxy;
    o.settings.body_count = 4096;
    o.settings.backend = BackendKind::cpu;
    o.settings.view.vsync = false;
    o.tune_body_count = false;
    return o;
  }

  testing::XvfbServer xvfb_{kWidth, kHeight};
  fs::path dir_;
};

TEST_F(LabWindow, DrawsBodiesInTheSceneAndThePanelBesideIt) {
  Lab lab(small_lab());
  for (int i = 0; i < 6; ++i) lab.frame();
  const fs::path file = dir_ / "lab.png";
  lab.request_screenshot(file);
  lab.frame();
  ASSERT_TRUE(fs::exists(file)) << lab.last_error();
  const Image image = testing::load_png(file);
  ASSERT_EQ(image.width, kWidth);
  ASSERT_EQ(image.height, kHeight);

  const int scene_width = lab.scene_viewport().width;
  ASSERT_GT(scene_width, kWidth / 2);
  ASSERT_LT(scene_width, kWidth);
  // The galaxy glows in the middle of the scene area; its corners stay dark.
  const int cx = scene_width / 2, cy = kHeight / 2;
  const double lit =
      testing::fraction(image, cx - 60, cy - 60, cx + 60, cy + 60, [](auto p) { return testing::luma(p) > 80; });
  EXPECT_GT(lit, 0.05) << "bodies should be drawn in the scene region";
  const double dark_corner = testing::fraction(image, 5, 5, 60, 60, [](auto p) { return testing::luma(p) < 25; });
  EXPECT_GT(dark_corner, 0.95);
  // The panel: its background colour fills most of its area, and its text is light.
  const int px0 = scene_width + 10, px1 = kWidth - 10;
  const double panel_bg = testing::fraction(image, px0, 0, px1, kHeight, [](auto p) {
    return std::abs(p[0] - 18) < 8 && std::abs(p[1] - 19) < 8 && std::abs(p[2] - 26) < 8;
  });
  const double text = testing::fraction(image, px0, 0, px1, kHeight, [](auto p) { return testing::luma(p) > 160; });
  EXPECT_GT(panel_bg, 0.3) << "the panel's background should cover its area";
  EXPECT_GT(text, 0.003) << "the panel should show text";
  EXPECT_GT(lab.stats().frame_ms.count(), 5);
  EXPECT_TRUE(lab.stats().has_step);
}

TEST_F(LabWindow, PresenterModeShowsACompactHighContrastPanelAndALargeCaption) {
  Lab lab(small_lab());
  for (int i = 0; i < 4; ++i) lab.frame();
  const int normal_scene = lab.scene_viewport().width;
  lab.editor().view().ui_scale = 1.75f;
  lab.editor().view().panel_theme = PanelTheme::high_contrast;
  lab.request(LabCommand::toggle_presenter);
  for (int i = 0; i < 4; ++i) lab.frame();
  EXPECT_TRUE(lab.editor().draft().view.presenter);
  const Caption caption = lab.caption();
  EXPECT_NE(caption.title.find("4,096 bodies"), std::string::npos) << caption.title;
  EXPECT_NE(caption.figure.find("ms per step"), std::string::npos) << caption.figure;
  const fs::path file = dir_ / "presenter.png";
  lab.request_screenshot(file);
  lab.frame();
  ASSERT_TRUE(fs::exists(file)) << lab.last_error();
  const Image image = testing::load_png(file);
  const int scene_width = lab.scene_viewport().width;
  // 1.75x type in a panel of 0.8 the share: wider than the normal panel, but the scene keeps most room.
  EXPECT_LT(scene_width, normal_scene);
  EXPECT_GT(scene_width, kWidth / 3);
  // The high-contrast panel: pure black behind white text.
  const int px0 = scene_width + 10, px1 = kWidth - 10;
  EXPECT_GT(testing::fraction(image, px0, 0, px1, kHeight, [](auto p) { return p[0] < 4 && p[1] < 4 && p[2] < 4; }),
            0.3);
  EXPECT_GT(
      testing::fraction(image, px0, 0, px1, kHeight, [](auto p) { return p[0] > 240 && p[1] > 240 && p[2] > 240; }),
      0.01);
  // The caption: large white and yellow type on a dark band in the bottom-left of the picture.
  const double caption_text = testing::fraction(image, 10, kHeight - 140, scene_width / 2 + 200, kHeight - 10,
                                                [](auto p) { return p[0] > 200 && p[1] > 170; });
  EXPECT_GT(caption_text, 0.01) << "the caption should be drawn";
  const double top_left = testing::fraction(image, 10, 10, 400, 120, [](auto p) { return p[0] > 200 && p[1] > 170; });
  EXPECT_LT(top_left, caption_text / 3) << "and only there";

  lab.set_caption(Caption{"Step 7: shared-memory tiling", "3.1x faster than step 6"});
  EXPECT_EQ(lab.caption().title, "Step 7: shared-memory tiling");
  lab.set_caption(std::nullopt);
  EXPECT_NE(lab.caption().title.find("bodies"), std::string::npos);
}

TEST_F(LabWindow, RecordingWritesTheWindowsFramesThroughTheRing) {
  LabOptions o = small_lab();
  const fs::path raw = dir_ / "talk.rgba";
  o.record.target = raw.string();
  o.record.pace_by_wall_clock = false;  // every frame a video frame: the count is exact
  {                                     // one Lab (one ImGui context) at a time
    Lab lab(o);
    ASSERT_TRUE(lab.recorder());
    const Viewport scene = lab.scene_viewport();
    for (int i = 0; i < 8; ++i) lab.frame();
    ASSERT_TRUE(lab.stop_recording()) << lab.last_error();
    EXPECT_FALSE(lab.recorder());
    EXPECT_NE(lab.last_status().find("8 frames"), std::string::npos) << lab.last_status();
    ASSERT_TRUE(fs::exists(raw));
    const std::size_t frame_bytes = static_cast<std::size_t>(scene.width) * scene.height * 4;
    EXPECT_EQ(fs::file_size(raw), 8 * frame_bytes) << "the scene alone, without the panel";
  }

  // The panel's button starts and stops it (the target the panel holds).
  LabOptions plain = small_lab();
  Lab again(plain);
  again.frame();
  again.request(LabCommand::toggle_recording);  // the default target is an .mp4: needs ffmpeg
  again.frame();
  if (find_program("ffmpeg")) {
    EXPECT_TRUE(again.recorder()) << again.last_error();
    again.frame();
    again.request(LabCommand::toggle_recording);
    again.frame();
    EXPECT_FALSE(again.recorder());
    fs::remove(again.panel().record_target());
  } else {
    EXPECT_FALSE(again.recorder());
    EXPECT_NE(again.last_error().find("ffmpeg is not on PATH"), std::string::npos) << again.last_error();
  }
}

TEST_F(LabWindow, RecordingWithoutFfmpegIsRefusedClearly) {
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  LabOptions o = small_lab();
  o.record.target = (dir_ / "talk.mp4").string();
  try {
    Lab lab(o);
    ADD_FAILURE() << "no ffmpeg on PATH";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("apt-get install ffmpeg"), std::string::npos) << e.what();
  }
  setenv("PATH", path.c_str(), 1);
}

TEST_F(LabWindow, ABookmarkRestoresTheBodiesTheTimeAndTheSettings) {
  LabOptions o = small_lab();
  o.bookmark_dir = dir_ / "bookmarks";
  Lab lab(o);
  for (int i = 0; i < 5; ++i) lab.frame();
  lab.wait_for_steps();  // the bodies below are read from outside the frame loop
  const double t = lab.simulation().time();
  ASSERT_GT(t, 0.0);
  lab.editor().view().color_mode = ColorMode::density;
  lab.save_bookmark("after-five");
  ASSERT_TRUE(fs::exists(o.bookmark_dir / "after-five.tipsy")) << lab.last_error();
  ASSERT_TRUE(fs::exists(o.bookmark_dir / "after-five.json"));
  const Bodies saved = lab.simulation().bodies();
  for (int i = 0; i < 5; ++i) lab.frame();
  lab.editor().view().color_mode = ColorMode::speed;
  lab.request(LabCommand::toggle_pause);
  lab.frame();

  const auto& list = lab.bookmarks();
  const auto mine = std::find_if(list.begin(), list.end(), [](const Bookmark& b) { return b.name == "after-five"; });
  ASSERT_NE(mine, list.end());
  EXPECT_FALSE(mine->shipped);
  EXPECT_TRUE(std::any_of(list.begin(), list.end(), [](const Bookmark& b) {
    return b.shipped && b.name == "collision-tails";
  })) << "the shipped moments of the default collision are listed";
  lab.restore_bookmark(*mine);  // waits for the running step, then replaces the state
  EXPECT_TRUE(lab.last_error().empty()) << lab.last_error();
  EXPECT_NEAR(lab.simulation().time(), t, 1e-9);
  EXPECT_EQ(lab.editor().draft().view.color_mode, ColorMode::density);
  const Bodies now = lab.simulation().bodies();
  ASSERT_EQ(now.size(), saved.size());
  for (std::size_t i = 0; i < now.size(); i += 97) EXPECT_FLOAT_EQ(now.x[i], saved.x[i]);
  lab.frame();

  lab.save_bookmark("../escape");
  EXPECT_NE(lab.last_error().find("plain file name"), std::string::npos) << lab.last_error();
}

TEST_F(LabWindow, AGlErrorIsReportedInThePanelAndTheFramesGoOn) {
  Lab lab(small_lab());
  lab.frame();
  EXPECT_EQ(lab.first_gl_error(), "");
  if (gl_error_mode() == GlErrorMode::exceptions) GTEST_SKIP() << "a debug build throws at the failing call instead";
  glBindBuffer(0xdead, 0);  // a broken GL call somewhere in the frame
  lab.frame();
  EXPECT_EQ(lab.first_gl_error().rfind("GL_INVALID_ENUM", 0), 0u) << lab.first_gl_error();
  glEnable(0xbeef);  // later errors do not replace the first
  lab.frame();
  lab.frame();
  EXPECT_EQ(lab.first_gl_error().rfind("GL_INVALID_ENUM", 0), 0u);
  EXPECT_GE(lab.stats().frame_ms.count(), 3);
}

TEST_F(LabWindow, EditsThroughTheEditorReachTheSimulation) {
  Lab lab(small_lab());
  lab.frame();
  SettingsEditor& editor = lab.editor();

  editor.set_toggle(*find_toggle("bh_sort"), 0);
  EXPECT_TRUE(frames_until(lab, [&] { return lab.simulation().settings().toggles["bh_sort"] == 0; }));

  editor.set_algorithm(Algorithm::allpairs);
  EXPECT_TRUE(frames_until(lab, [&] { return lab.simulation().backend().algorithm() == Algorithm::allpairs; }));
  EXPECT_EQ(lab.simulation().body_count(), 4096u) << "switching the algorithm keeps the bodies";

  editor.set_body_count(2048);  // waits for a restart
  EXPECT_FALSE(frames_until(
      lab, [&] { return lab.simulation().body_count() != 4096u; }, 10));
  lab.request(LabCommand::reset);
  EXPECT_TRUE(frames_until(lab, [&] { return lab.simulation().body_count() == 2048u; }));

  editor.set_algorithm(Algorithm::barneshut);
  editor.view().octree_depth = 3;
  EXPECT_TRUE(frames_until(lab, [&] { return lab.scene().overlay().cells_drawn > 1u; }))
      << "the octree overlay should draw cells";
}

TEST_F(LabWindow, PauseStopsTheClockAndStepAdvancesIt) {
  Lab lab(small_lab());
  lab.frame();
  lab.request(LabCommand::toggle_pause);
  lab.frame();
  ASSERT_TRUE(frames_until(lab, [&] { return !lab.stepping(); }));  // a step started before the pause ends
  const double t = lab.simulation().time();
  for (int i = 0; i < 5; ++i) lab.frame();
  EXPECT_EQ(lab.simulation().time(), t);
  lab.request(LabCommand::step);
  lab.frame();
  EXPECT_TRUE(frames_until(lab, [&] { return lab.simulation().time() > t && !lab.stepping(); }));
  for (int i = 0; i < 5; ++i) lab.frame();
  EXPECT_NEAR(lab.simulation().time(), t + lab.simulation().dt(), 1e-12) << "one step, and no more while paused";
}

TEST_F(LabWindow, ScreenshotCommandWritesAPng) {
  LabOptions o = small_lab();
  o.screenshot_dir = dir_;
  Lab lab(o);
  lab.frame();
  lab.request(LabCommand::screenshot);
  lab.frame();
  int pngs = 0;
  for (const auto& e : fs::directory_iterator(dir_)) pngs += e.path().extension() == ".png";
  EXPECT_EQ(pngs, 1);
  EXPECT_NE(lab.last_status().find("Screenshot saved"), std::string::npos);
}

TEST_F(LabWindow, AFinalScreenshotThatFailsIsReportedNotSwallowed) {
  // The folder vanishes while the window runs: the check before start passed, the save at the end fails.
  const fs::path folder = dir_ / "vanishes";
  fs::create_directories(folder);
  {
    LabOptions o = small_lab();
    o.frames = 2;
    o.final_screenshot = folder / "last.png";
    Lab lab(o);
    fs::remove_all(folder);
    EXPECT_EQ(lab.run(), 0);
    EXPECT_NE(lab.final_screenshot_error().find((folder / "last.png").string()), std::string::npos)
        << "the caller needs the reason to print it and exit non-zero: '" << lab.final_screenshot_error() << "'";
  }
  LabOptions fine = small_lab();
  fine.frames = 2;
  fine.final_screenshot = dir_ / "last.png";
  Lab ok(fine);
  ok.run();
  EXPECT_EQ(ok.final_screenshot_error(), "");
  EXPECT_TRUE(fs::exists(dir_ / "last.png"));
}

TEST_F(LabWindow, ARefusedEditIsReportedAndTheRunGoesOn) {
  if (query_device()) GTEST_SKIP() << "this machine has a GPU, so --backend gpu would succeed";
  Lab lab(small_lab());
  lab.frame();
  lab.editor().set_backend(BackendKind::gpu);
  EXPECT_TRUE(frames_until(lab, [&] { return !lab.last_error().empty(); }));
  EXPECT_NE(lab.last_error().find("gpu"), std::string::npos) << lab.last_error();
  EXPECT_FALSE(lab.simulation().backend().on_gpu());
  EXPECT_EQ(lab.simulation().settings().backend, BackendKind::cpu);
  EXPECT_EQ(lab.editor().draft().backend, BackendKind::cpu);
  const double t = lab.simulation().time();
  EXPECT_TRUE(frames_until(lab, [&] { return lab.simulation().time() > t; })) << "the run goes on";
}

TEST_F(LabWindow, TooOldOpenGlSaysWhichVersionWasFound) {
  setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1);
  try {
    Window window(WindowOptions{});
    ADD_FAILURE() << "a 3.3 context must be refused";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("needs OpenGL 4.5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("3.3"), std::string::npos) << msg;
  }
  unsetenv("MESA_GL_VERSION_OVERRIDE");
}

TEST_F(LabWindow, NoDisplaySaysHowToRenderWithoutOne) {
  unsetenv("DISPLAY");
  unsetenv("WAYLAND_DISPLAY");
  try {
    Window window(WindowOptions{});
    ADD_FAILURE() << "no display must be refused";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no display"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nbodylab render"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace nbl

// Settings as JSON: every field survives a round trip; bad input is refused with a message that names
// the key, and nothing half-applied comes back.
#include "sim/settings_io.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/error.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

void expect_same(const Settings& a, const Settings& b) {
  EXPECT_EQ(a.scene, b.scene);
  EXPECT_EQ(a.body_count, b.body_count);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.softening, b.softening);
  EXPECT_EQ(a.opening_angle, b.opening_angle);
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.steps_per_frame, b.steps_per_frame);
  EXPECT_EQ(a.kernels_dir, b.kernels_dir);
  EXPECT_TRUE(a.toggles == b.toggles);
  EXPECT_EQ(a.view.color_mode, b.view.color_mode);
  EXPECT_EQ(a.view.point_size, b.view.point_size);
  EXPECT_EQ(a.view.exposure, b.view.exposure);
  EXPECT_EQ(a.view.octree_depth, b.view.octree_depth);
  EXPECT_EQ(a.view.show_bounding_box, b.view.show_bounding_box);
  EXPECT_EQ(a.view.show_axes, b.view.show_axes);
  EXPECT_EQ(a.view.vsync, b.view.vsync);
}

Settings everything_changed() {
  Settings s;
  s.scene = Scene::plummer;
  s.body_count = 123456;
  s.seed = 0xFFFFFFFFFFFFull;
  s.dt = 0.0017;
  s.softening = 0.0;
  s.opening_angle = 0.7;
  s.algorithm = Algorithm::allpairs;
  s.backend = BackendKind::cpu;
  s.steps_per_frame = 3;
  s.kernels_dir = "/home/teacher/my-kernels";
  s.toggles[ToggleId("rsqrt")] = 0;
  s.toggles[ToggleId("unroll")] = 7;
  s.toggles[ToggleId("tiling")] = 2;
  s.toggles[ToggleId("block_size")] = 512;
  s.toggles[ToggleId("bh_traversal")] = 0;
  s.view.color_mode = ColorMode::tree_depth;
  s.view.point_size = 2.5f;
  s.view.exposure = 0.3f;
  s.view.octree_depth = 4;
  s.view.show_bounding_box = true;
  s.view.show_axes = true;
  s.view.vsync = false;
  return s;
}

// The InputError message that parsing `json` raises ("" when it parses).
std::string parse_error(const std::string& json) {
  try {
    settings_from_json(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SettingsJson, DefaultsRoundTrip) {
  const Settings s;
  expect_same(settings_from_json(settings_to_json(s)), s);
}

TEST(SettingsJson, EveryFieldRoundTrips) {
  const Settings s = everything_changed();
  const Settings back = settings_from_json(settings_to_json(s));
  expect_same(back, s);
  // And the unset optionals stay unset.
  Settings unset = s;
  unset.body_count.reset();
  unset.dt.reset();
  unset.softening.reset();
  expect_same(settings_from_json(settings_to_json(unset)), unset);
}

TEST(SettingsJson, KernelsDirIsAStringField) {
  EXPECT_EQ(settings_from_json(R"({"kernels_dir": "work/kernels"})").kernels_dir, "work/kernels");
  EXPECT_EQ(settings_from_json("{}").kernels_dir, "") << "empty: the installed kernels";
  EXPECT_THROW(settings_from_json(R"({"kernels_dir": 3})"), InputError);
}

TEST(SettingsJson, AbsentKeysKeepTheBaseValues) {
  const Settings base = everything_changed();
  const Settings s = settings_from_json(R"({"theta": 0.3})", base);
  EXPECT_EQ(s.opening_angle, 0.3);
  Settings expected = base;
  expected.opening_angle = 0.3;
  expect_same(s, expected);
}

TEST(SettingsJson, NotJsonIsAnInputError) {
  EXPECT_NE(parse_error("{\"theta\": 0.5").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse_error("theta = 0.5").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse_error("[1, 2]").find("object"), std::string::npos);
}

TEST(SettingsJson, WrongTypesAreInputErrorsNamingTheKey) {
  EXPECT_NE(parse_error(R"({"theta": "wide"})").find("'theta'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"bodies": 1.5})").find("'bodies'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"seed": -1})").find("'seed'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"rsqrt": 1}})").find("'toggles.rsqrt'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"view": {"vsync": "yes"}})").find("'view.vsync'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"scene": 3})").find("'scene'"), std::string::npos);
}

TEST(SettingsJson, UnknownKeysAreInputErrors) {
  EXPECT_NE(parse_error(R"({"thetta": 0.5})").find("unknown key 'thetta'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"warp_speed": true}})").find("warp_speed"), std::string::npos);
  EXPECT_NE(parse_error(R"({"view": {"colour": "speed"}})").find("view.colour"), std::string::npos);
  EXPECT_NE(parse_error(R"({"scene": "saturn"})").find("must be one of"), std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"tiling": "cache"}})").find("must be one of"), std::string::npos);
}

TEST(SettingsJson, OutOfRangeValuesAreInputErrors) {
  EXPECT_NE(parse_error(R"({"theta": 3})").find("theta"), std::string::npos);
  EXPECT_NE(parse_error(R"({"theta": -0.1})").find("theta"), std::string::npos);
  EXPECT_NE(parse_error(R"({"bodies": 0})").find("at least 1"), std::string::npos);
  EXPECT_NE(parse_error(R"({"bodies": -5})").find("at least 1"), std::string::npos);
  EXPECT_NE(parse_error(R"({"dt": 0})").find("dt"), std::string::npos);
  EXPECT_NE(parse_error(R"({"softening": -1})").find("softening"), std::string::npos);
  EXPECT_NE(parse_error(R"({"steps_per_frame": 0})").find("'steps_per_frame' must lie in [1, 1000]"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"unroll": 0}})").find("'toggles.unroll'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"block_size": 100}})").find("steps of 32"), std::string::npos);
}

// A number is checked in 64 bits before it is narrowed to the field's int.
TEST(SettingsJson, LargeIntegersAreRefusedNotWrapped) {
  const std::string steps = parse_error(R"({"steps_per_frame": 4294967297})");
  EXPECT_NE(steps.find("'steps_per_frame'"), std::string::npos) << steps;
  EXPECT_NE(steps.find("4294967297"), std::string::npos) << steps;
  const std::string block = parse_error(R"({"toggles": {"block_size": 4294967552}})");
  EXPECT_NE(block.find("'toggles.block_size'"), std::string::npos) << block;
  EXPECT_NE(block.find("4294967552"), std::string::npos) << block;
  const std::string depth = parse_error(R"({"view": {"octree_depth": 4294967297}})");
  EXPECT_NE(depth.find("'view.octree_depth'"), std::string::npos) << depth;
  EXPECT_NE(depth.find("[0, 32]"), std::string::npos) << depth;
  // Beyond int64 too: nlohmann keeps 2^64 - 1 as an unsigned, which must not become -1.
  EXPECT_NE(parse_error(R"({"bodies": 18446744073709551615})").find("'bodies'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"unroll": 18446744073709551615}})").find("'toggles.unroll'"),
            std::string::npos);
  EXPECT_EQ(settings_from_json(R"({"seed": 18446744073709551615})").seed, 18446744073709551615ull);
}

// A number beyond a double is the parser's out_of_range, not a syntax error; it must
// still be an InputError (exit code 2) that names the key.
TEST(SettingsJson, ANumberBeyondADoubleNamesItsKey) {
  const std::string theta = parse_error(R"({"theta": 1e400})");
  EXPECT_NE(theta.find("'theta'"), std::string::npos) << theta;
  EXPECT_NE(theta.find("1e400"), std::string::npos) << theta;
  const std::string exposure = parse_error(R"({"theta": 0.5, "view": {"point_size": 2, "exposure": -1e999}})");
  EXPECT_NE(exposure.find("'view.exposure'"), std::string::npos) << exposure;
}

// The messages a hand-written file gets say what was wrong and where things go.
TEST(SettingsJson, KeysInTheWrongSectionSayWhereTheyBelong) {
  const std::string toggle = parse_error(R"({"unroll": 8})");
  EXPECT_NE(toggle.find("'unroll'"), std::string::npos) << toggle;
  EXPECT_NE(toggle.find("\"toggles\""), std::string::npos) << toggle;
  EXPECT_NE(parse_error(R"({"exposure": 2})").find("\"view\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"view": {"theta": 1}})").find("top-level"), std::string::npos);
  EXPECT_NE(parse_error(R"({"toggles": {"dt": 0.1}})").find("top-level"), std::string::npos);
  const std::string depth = parse_error(R"({"view": {"octree_depth": 40}})");
  EXPECT_NE(depth.find("(got 40)"), std::string::npos) << depth;
}

TEST(SettingsJson, FailedParseLeavesBaseUntouched) {
  const Settings base = everything_changed();
  EXPECT_THROW(settings_from_json(R"({"theta": 0.1, "bodies": 0})", base), InputError);
  expect_same(base, everything_changed());
}

class SettingsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_settings_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SettingsFile, SaveThenLoadRoundTrips) {
  const Settings s = everything_changed();
  save_settings(dir_ / "s.json", s);
  expect_same(load_settings(dir_ / "s.json"), s);
}

// A directory is not "invalid JSON".
TEST_F(SettingsFile, ADirectoryIsSaidToBeOne) {
  try {
    load_settings(dir_);
    FAIL() << "no error for a directory";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("directory"), std::string::npos) << message;
    EXPECT_NE(message.find(dir_.string()), std::string::npos) << message;
    EXPECT_EQ(message.find("JSON"), std::string::npos) << message;
  }
}

TEST_F(SettingsFile, LoadErrorsNameTheFile) {
  try {
    load_settings(dir_ / "missing.json");
    FAIL() << "no error for a missing file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos) << e.what();
  }
  {
    std::ofstream out(dir_ / "bad.json");
    out << R"({"theta": "x"})";
  }
  try {
    load_settings(dir_ / "bad.json");
    FAIL() << "no error for a bad file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'theta'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nbl

// Tipsy snapshots: bit-exact round trips, both byte orders, and every way a file can be bad.
#include "sim/tipsy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

class Tipsy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_tipsy_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path path(const std::string& name) const { return dir_ / name; }

  void write_bytes(const fs::path& file, const std::string& bytes) const {
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string read_bytes(const fs::path& file) const {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // The message of the InputError that reading `file` raises ("" when it does not).
  std::string read_error(const fs::path& file) const {
    try {
      read_tipsy(file);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

// Builds Tipsy files by hand, in either byte order, independently of the writer under test.
class TipsyBuilder {
 public:
  explicit TipsyBuilder(bool big_endian) : big_endian_(big_endian) {}

  TipsyBuilder& header(double time, std::int32_t nbodies, std::int32_t ndim, std::int32_t nsph, std::int32_t ndark,
                       std::int32_t nstar, bool pad = true) {
    put64(std::bit_cast<std::uint64_t>(time));
    for (std::int32_t v : {nbodies, ndim, nsph, ndark, nstar}) put32(static_cast<std::uint32_t>(v));
    if (pad) put32(0);
    return *this;
  }
  TipsyBuilder& floats(std::initializer_list<float> values) {
    for (float f : values) put32(std::bit_cast<std::uint32_t>(f));
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void put32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<char>(v >> (big_endian_ ? 24 - 8 * i : 8 * i)));
  }
  void put64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>(v >> (big_endian_ ? 56 - 8 * i : 8 * i)));
  }
  bool big_endian_;
  std::string bytes_;
};

// One gas, two dark, one star particle, in the given byte order.
std::string mixed_file(bool big_endian, bool pad = true) {
  TipsyBuilder b(big_endian);
  b.header(2.5, 4, 3, 1, 2, 1, pad);
  b.floats({0.1f, 1, 2, 3, 4, 5, 6, /*rho..phi*/ 7, 8, 9, 10, 11});                            // gas
  b.floats({0.2f, -1, -2, -3, -4, -5, -6, /*eps, phi*/ 0.01f, 0});                             // dark
  b.floats({0.3f, 10, 20, 30, 40, 50, 60, 0.01f, 0});                                          // dark
  b.floats({0.4f, 0.5f, 0.25f, 0.125f, 1, 2, 3, /*metals, tform, eps, phi*/ 0, 0, 0.01f, 0});  // star
  return b.bytes();
}

void expect_mixed_contents(const TipsySnapshot& s) {
  EXPECT_EQ(s.time, 2.5);
  ASSERT_EQ(s.bodies.size(), 4u);
  // Gas, then dark, then star, in file order.
  EXPECT_EQ(s.bodies.mass, (std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f}));
  EXPECT_EQ(s.bodies.x, (std::vector<float>{1, -1, 10, 0.5f}));
  EXPECT_EQ(s.bodies.y, (std::vector<float>{2, -2, 20, 0.25f}));
  EXPECT_EQ(s.bodies.z, (std::vector<float>{3, -3, 30, 0.125f}));
  EXPECT_EQ(s.bodies.vx, (std::vector<float>{4, -4, 40, 1}));
  EXPECT_EQ(s.bodies.vy, (std::vector<float>{5, -5, 50, 2}));
  EXPECT_EQ(s.bodies.vz, (std::vector<float>{6, -6, 60, 3}));
}

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_F(Tipsy, RoundTripIsBitExact) {
  const Bodies bodies = make_scene(Scene::plummer, 1000, 11);
  write_tipsy(path("snap.tipsy"), bodies, 1.25, 0.02f);
  const TipsySnapshot back = read_tipsy(path("snap.tipsy"));
  EXPECT_EQ(back.time, 1.25);
  for (auto field : {&Bodies::x, &Bodies::y, &Bodies::z, &Bodies::vx, &Bodies::vy, &Bodies::vz, &Bodies::mass}) {
    EXPECT_TRUE(bit_identical(bodies.*field, back.bodies.*field));
  }
}

TEST_F(Tipsy, WritesStandardBigEndianDarkParticles) {
  Bodies bodies;
  bodies.resize(3);
  bodies.mass = {1, 2, 3};
  write_tipsy(path("snap.tipsy"), bodies, 0.5, 0.05f);
  const std::string bytes = read_bytes(path("snap.tipsy"));
  ASSERT_EQ(bytes.size(), 32u + 3 * 9 * 4);
  TipsyBuilder expected(true);
  expected.header(0.5, 3, 3, 0, 3, 0);
  EXPECT_EQ(bytes.substr(0, 32), expected.bytes());
  // First record: mass 1, position, velocity 0, eps = the softening, phi 0.
  TipsyBuilder record(true);
  record.floats({1, 0, 0, 0, 0, 0, 0, 0.05f, 0});
  EXPECT_EQ(bytes.substr(32, 36), record.bytes());
}

TEST_F(Tipsy, ReadsBigEndianWithEveryParticleKind) {
  write_bytes(path("big.tipsy"), mixed_file(true));
  expect_mixed_contents(read_tipsy(path("big.tipsy")));
}

TEST_F(Tipsy, ReadsLittleEndianWithEveryParticleKind) {
  write_bytes(path("little.tipsy"), mixed_file(false));
  expect_mixed_contents(read_tipsy(path("little.tipsy")));
}

TEST_F(Tipsy, ReadsHeaderWithoutPadding) {
  write_bytes(path("nopad.tipsy"), mixed_file(true, /*pad=*/false));
  expect_mixed_contents(read_tipsy(path("nopad.tipsy")));
}

TEST_F(Tipsy, MissingFileIsAnInputErrorNamingIt) {
  const std::string message = read_error(path("does_not_exist.tipsy"));
  EXPECT_NE(message.find("does_not_exist.tipsy"), std::string::npos) << message;
}

TEST_F(Tipsy, TruncatedFileIsAnInputError) {
  const std::string full = mixed_file(true);
  // (Not exactly 4: that is indistinguishable from a valid file whose header lacks the padding.)
  for (std::size_t cut : {std::size_t{1}, std::size_t{3}, std::size_t{40}, full.size() - 32}) {
    write_bytes(path("cut.tipsy"), full.substr(0, full.size() - cut));
    const std::string message = read_error(path("cut.tipsy"));
    EXPECT_NE(message.find("truncated"), std::string::npos) << "cut " << cut << ": " << message;
    EXPECT_NE(message.find("cut.tipsy"), std::string::npos) << message;
    // The total it needs, header included, next to what the file has: never "needs N bytes of records"
    // beside a larger file size.
    EXPECT_NE(message.find("take " + std::to_string(full.size()) + " bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("has only " + std::to_string(full.size() - cut) + " bytes"), std::string::npos) << message;
  }
  write_bytes(path("tiny.tipsy"), full.substr(0, 10));
  EXPECT_NE(read_error(path("tiny.tipsy")).find("too short"), std::string::npos);
}

TEST_F(Tipsy, HeaderCountsThatDisagreeAreAnInputError) {
  TipsyBuilder b(true);
  b.header(0, 5, 3, 0, 4, 0);  // nbodies 5, but only 4 dark particles
  for (int i = 0; i < 4; ++i) b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
  write_bytes(path("count.tipsy"), b.bytes());
  const std::string message = read_error(path("count.tipsy"));
  EXPECT_NE(message.find("nbodies is 5"), std::string::npos) << message;
}

TEST_F(Tipsy, HeaderCountsThatDisagreeWithFileSizeAreAnInputError) {
  TipsyBuilder b(true);
  b.header(0, 2, 3, 0, 2, 0);  // says 2 bodies, holds 3
  for (int i = 0; i < 3; ++i) b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
  write_bytes(path("extra.tipsy"), b.bytes());
  const std::string message = read_error(path("extra.tipsy"));
  EXPECT_NE(message.find("counts are wrong"), std::string::npos) << message;
}

TEST_F(Tipsy, WrongDimensionIsAnInputError) {
  TipsyBuilder b(true);
  b.header(0, 1, 2, 0, 1, 0);
  b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
  write_bytes(path("dim.tipsy"), b.bytes());
  EXPECT_NE(read_error(path("dim.tipsy")).find("not a Tipsy file"), std::string::npos);
}

TEST_F(Tipsy, NegativeCountIsAnInputError) {
  TipsyBuilder b(true);
  b.header(0, -1, 3, 0, -1, 0);
  write_bytes(path("negative.tipsy"), b.bytes());
  EXPECT_NE(read_error(path("negative.tipsy")).find("negative particle count"), std::string::npos);
}

TEST_F(Tipsy, NaNOrInfValueIsAnInputErrorNamingParticleAndField) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    TipsyBuilder b(true);
    b.header(0, 3, 3, 0, 3, 0);
    b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
    b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
    b.floats({1, 0, 0, 0, 0, bad, 0, 0, 0});  // dark particle 2, vy
    write_bytes(path("nan.tipsy"), b.bytes());
    const std::string message = read_error(path("nan.tipsy"));
    EXPECT_NE(message.find("dark particle 2"), std::string::npos) << message;
    EXPECT_NE(message.find("'vy'"), std::string::npos) << message;
  }
  // Also in a field the bodies do not keep (a gas particle's temperature).
  TipsyBuilder g(false);
  g.header(0, 1, 3, 1, 0, 0);
  g.floats({1, 0, 0, 0, 0, 0, 0, 0, std::numeric_limits<float>::infinity(), 0, 0, 0});
  write_bytes(path("temp.tipsy"), g.bytes());
  EXPECT_NE(read_error(path("temp.tipsy")).find("'temp'"), std::string::npos);
}

TEST_F(Tipsy, NaNTimeIsAnInputError) {
  TipsyBuilder b(true);
  b.header(std::numeric_limits<double>::quiet_NaN(), 1, 3, 0, 1, 0);
  b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
  write_bytes(path("time.tipsy"), b.bytes());
  EXPECT_NE(read_error(path("time.tipsy")).find("time"), std::string::npos);
}

TEST_F(Tipsy, ZeroBodiesIsAnInputError) {
  TipsyBuilder b(true);
  b.header(0, 0, 3, 0, 0, 0);
  write_bytes(path("empty.tipsy"), b.bytes());
  EXPECT_NE(read_error(path("empty.tipsy")).find("no bodies"), std::string::npos);
}

TEST_F(Tipsy, NegativeMassIsAnInputError) {
  TipsyBuilder b(true);
  b.header(0, 2, 3, 0, 2, 0);
  b.floats({1, 0, 0, 0, 0, 0, 0, 0, 0});
  b.floats({-0.5f, 0, 0, 0, 0, 0, 0, 0, 0});
  write_bytes(path("mass.tipsy"), b.bytes());
  const std::string message = read_error(path("mass.tipsy"));
  EXPECT_NE(message.find("negative mass"), std::string::npos) << message;
  EXPECT_NE(message.find("dark particle 1"), std::string::npos) << message;
}

TEST_F(Tipsy, SpeedAboveAMillionTimesTheVirialSpeedIsAnInputError) {
  Bodies bodies = make_scene(Scene::plummer, 1000, 3);
  const double scale = virial_speed(bodies);
  ASSERT_GT(scale, 0.1);  // a Plummer sphere in N-body units: of order 1
  ASSERT_LT(scale, 10.0);
  // A hundred thousand times is fast but allowed.
  bodies.vx[17] = static_cast<float>(1e5 * scale);
  write_tipsy(path("fast.tipsy"), bodies);
  EXPECT_EQ(read_error(path("fast.tipsy")), "");
  // Ten million times is refused, naming the body, the speed scale and how it is defined.
  bodies.vx[17] = static_cast<float>(1e7 * scale);
  write_tipsy(path("faster.tipsy"), bodies);
  const std::string message = read_error(path("faster.tipsy"));
  EXPECT_NE(message.find("body 17 "), std::string::npos) << message;
  EXPECT_NE(message.find("virial speed"), std::string::npos) << message;
  EXPECT_NE(message.find("sqrt(G M / R) with G = 1"), std::string::npos) << message;
  EXPECT_NE(message.find("faster.tipsy"), std::string::npos) << message;
}

TEST_F(Tipsy, FarOutlierDoesNotMakeTheOtherBodiesTooFast) {
  // A Plummer sphere plus one body at rest at x = 1e20 (the far-outlier benchmark) loads.
  Bodies bodies = make_scene(Scene::plummer, 1000, 4);
  bodies.resize(1001);
  bodies.x[1000] = 1e20f;
  bodies.mass[1000] = bodies.mass[0];
  write_tipsy(path("outlier.tipsy"), bodies);
  EXPECT_EQ(read_error(path("outlier.tipsy")), "");
}

TEST_F(Tipsy, SpeedBoundNeedsAMassAndARadius) {
  // One moving body has no radius to scale a speed by, massless bodies no mass: both load.
  Bodies one;
  one.resize(1);
  one.mass = {1};
  one.vx = {1e30f};
  write_tipsy(path("one.tipsy"), one);
  EXPECT_EQ(read_error(path("one.tipsy")), "");
  Bodies massless;
  massless.resize(2);
  massless.x = {0, 1};
  massless.vy = {1e30f, 0};
  write_tipsy(path("massless.tipsy"), massless);
  EXPECT_EQ(read_error(path("massless.tipsy")), "");
}

TEST_F(Tipsy, FailedWriteLeavesNoFileBehind) {
  Bodies bodies;
  bodies.resize(2);
  bodies.mass = {1, 1};
  EXPECT_THROW(write_tipsy(path("no_such_dir") / "snap.tipsy", bodies), Error);
  EXPECT_FALSE(fs::exists(path("no_such_dir") / "snap.tipsy"));
  // An earlier snapshot survives a failed overwrite attempt of nothing to write.
  write_tipsy(path("keep.tipsy"), bodies);
  EXPECT_THROW(write_tipsy(path("keep.tipsy"), Bodies{}), Error);
  EXPECT_EQ(read_tipsy(path("keep.tipsy")).bodies.size(), 2u);
}

}  // namespace
}  // namespace nbl

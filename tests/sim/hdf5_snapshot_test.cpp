// HDF5 snapshots in the layouts GADGET-2, GADGET-4, SWIFT and AREPO write: every type read, the values converted by the
// documented rule (sim/hdf5_snapshot.hpp), multi-file snapshots, round trips through the writer, and every way a file
// can be malformed refused with a message that names the place.
#include "sim/hdf5_snapshot.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/scenes.hpp"
#include "sim/snapshot.hpp"
#include "tests/sim/hdf5_fixture.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;
using testing::FixtureType;
using testing::Hdf5Fixture;

constexpr double kMpcCm = 1000 * kCmPerKpc;
constexpr double kGadgetMassG = 1e10 * kGramsPerSolarMass;

class Hdf5Snapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_hdf5_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path path(const std::string& name) const { return dir_ / name; }

  // The message of the InputError that reading `file` raises ("" when it reads).
  static std::string read_error(const fs::path& file) {
    try {
      read_snapshot(file);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

// A Plummer sphere (the lab's own, in N-body units) as two GADGET types in code units: PartType1 with its mass in the
// MassTable, PartType2 with per-particle Masses.
std::vector<FixtureType> gadget_types(std::size_t n1 = 200, std::size_t n2 = 100) {
  const Bodies b = make_scene(Scene::plummer, n1 + n2, 5);
  std::vector<FixtureType> types(2);
  types[0].type = 1;
  types[0].table_mass = 0.004;
  types[1].type = 2;
  for (std::size_t i = 0; i < n1 + n2; ++i) {
    FixtureType& t = types[i < n1 ? 0 : 1];
    t.position.insert(t.position.end(), {20.0 * b.x[i], 20.0 * b.y[i], 20.0 * b.z[i]});        // kpc/h
    t.velocity.insert(t.velocity.end(), {100.0 * b.vx[i], 100.0 * b.vy[i], 100.0 * b.vz[i]});  // km/s
    t.ids.push_back(1000 + i);
    if (i >= n1) t.mass.push_back(0.001 + 1e-6 * static_cast<double>(i % 7));
  }
  return types;
}

void write_gadget2(const fs::path& file, const std::vector<FixtureType>& types, double time, double redshift,
                   double hubble = 0.7) {
  Hdf5Fixture f(file);
  testing::write_gadget_header(f, types, time, redshift);
  f.scalar("Header", "HubbleParam", hubble);
  testing::write_gadget_types(f, types);
}

// Each body's physical value, from the lab's value times its unit, against the file's value times the factor the rule
// gives.
void expect_converted(const Snapshot& s, const std::vector<FixtureType>& types, double length_factor,
                      double velocity_factor, double mass_factor) {
  const PhysicalUnits& u = s.meta.units;
  std::size_t body = 0;
  for (const FixtureType& t : types) {
    for (std::size_t i = 0; i < t.count(); ++i, ++body) {
      const double lab_position[3] = {s.bodies.x[body], s.bodies.y[body], s.bodies.z[body]};
      const double lab_velocity[3] = {s.bodies.vx[body], s.bodies.vy[body], s.bodies.vz[body]};
      for (int k = 0; k < 3; ++k) {
        const double x = t.position[3 * i + k] * length_factor, v = t.velocity[3 * i + k] * velocity_factor;
        EXPECT_NEAR(lab_position[k] * u.length_cm, x, 1e-6 * std::fabs(x) + 1e-7 * u.length_cm) << "body " << body;
        EXPECT_NEAR(lab_velocity[k] * u.velocity_cm_per_s, v, 1e-6 * std::fabs(v) + 1e-7 * u.velocity_cm_per_s)
            << "body " << body;
      }
      const double m = (t.mass.empty() ? t.table_mass : t.mass[i]) * mass_factor;
      EXPECT_NEAR(s.bodies.mass[body] * u.mass_g, m, 1e-6 * m) << "body " << body;
    }
  }
}

TEST_F(Hdf5Snapshot, Gadget2MassTableTypesConvertByTheDocumentedRule) {
  const auto types = gadget_types();
  write_gadget2(path("g2.hdf5"), types, 0.5,
                1.0);  // comoving: a = 0.5, z = 1; h = 0.7
  const Snapshot s = read_snapshot(path("g2.hdf5"));
  ASSERT_EQ(s.bodies.size(), 300u);
  ASSERT_EQ(s.meta.types.size(), 2u);
  EXPECT_EQ(s.meta.types[0].type, 1);
  EXPECT_EQ(s.meta.types[0].end, 200u);
  EXPECT_EQ(s.meta.types[1].type, 2);
  EXPECT_EQ(s.meta.types[1].begin, 200u);
  ASSERT_EQ(s.meta.ids.size(), 300u);
  EXPECT_EQ(s.meta.ids[0], 1000u);
  EXPECT_EQ(s.meta.ids[299], 1299u);

  // GADGET's conventions without unit attributes: kpc/h comoving, u = v / sqrt(a) in km/s, 1e10 Msun/h.
  const double a = 0.5, h = 0.7;
  expect_converted(s, types, a / h * kCmPerKpc, std::sqrt(a) * kCmPerSecondPerKmPerSecond, kGadgetMassG / h);
  // The lab's units: total mass 1, half-mass radius 1 (so the virial speed is 1), G = 1.
  EXPECT_NEAR(std::accumulate(s.bodies.mass.begin(), s.bodies.mass.end(), 0.0), 1.0, 1e-5);
  EXPECT_NEAR(virial_speed(s.bodies), 1.0, 1e-4);
  EXPECT_NEAR(s.meta.units.velocity_cm_per_s, std::sqrt(kGravityCgs * s.meta.units.mass_g / s.meta.units.length_cm),
              1e-9 * s.meta.units.velocity_cm_per_s);
  EXPECT_EQ(s.time, 0.0) << "a comoving file's Time is a scale factor: the lab's clock starts at 0";

  const std::string said =
      s.meta.description.at(0) + "\n" + s.meta.description.at(1) + "\n" + s.meta.description.back();
  EXPECT_NE(said.find("GADGET-2"), std::string::npos) << said;
  EXPECT_NE(said.find("PartType1 (dark matter) 200 (mass from MassTable)"), std::string::npos) << said;
  EXPECT_NE(said.find("PartType2 100 (mass from Masses)"), std::string::npos) << said;
  EXPECT_NE(said.find("a = 0.5"), std::string::npos) << said;
  EXPECT_NE(said.find("little h = 0.7"), std::string::npos) << said;
  EXPECT_NE(said.find("kpc"), std::string::npos) << said;
}

TEST_F(Hdf5Snapshot, TheScaleFactorScalesVelocitiesAsGadgetWritesThem) {
  // The same numbers at a = 0.5 and at a = 1 (z = 0, not comoving): lengths and masses rescale away, physical
  // velocities are sqrt(a) u and the velocity unit goes as sqrt(M / (a L)): lab velocities go as a.
  const auto types = gadget_types();
  write_gadget2(path("half.hdf5"), types, 0.5, 1.0);
  write_gadget2(path("one.hdf5"), types, 1.0, 0.0);
  const Snapshot half = read_snapshot(path("half.hdf5")), one = read_snapshot(path("one.hdf5"));
  ASSERT_EQ(half.bodies.size(), one.bodies.size());
  for (std::size_t i = 0; i < half.bodies.size(); i += 37) {
    EXPECT_NEAR(half.bodies.x[i], one.bodies.x[i], 1e-5f * (1 + std::fabs(one.bodies.x[i])));
    EXPECT_NEAR(half.bodies.vy[i], 0.5f * one.bodies.vy[i], 1e-5f * (1 + std::fabs(one.bodies.vy[i])));
  }
  EXPECT_NEAR(half.meta.units.length_cm, 0.5 * one.meta.units.length_cm, 1e-9 * one.meta.units.length_cm);
  EXPECT_GT(one.time, 0.0) << "not comoving: Time is a time, converted to the lab's units";
}

TEST_F(Hdf5Snapshot, Gadget4SeveralTypesWithUnitAttributesInParameters) {
  auto types = gadget_types(150, 90);
  types[1].type = 4;  // stars
  FixtureType gas;
  gas.type = 0;
  for (int i = 0; i < 60; ++i) {
    gas.position.insert(gas.position.end(), {0.01 * std::sin(i), 0.01 * std::cos(3 * i), 0.002 * (i % 5)});  // Mpc/h
    gas.velocity.insert(gas.velocity.end(), {30.0 * std::cos(i), -20.0, 5.0 * (i % 3)});
    gas.mass.push_back(0.0005);
    gas.ids.push_back(static_cast<std::uint64_t>(i) + 1);
  }
  for (auto& t : types)
    for (double& x : t.position) x *= 1e-3;  // the Plummer sphere in Mpc/h
  types.insert(types.begin(), gas);
  {
    Hdf5Fixture f(path("g4.hdf5"));
    testing::write_gadget_header(f, types, 0.25, 0.0);
    f.group("Parameters");
    f.scalar("Parameters", "UnitLength_in_cm", kMpcCm);
    f.scalar("Parameters", "UnitMass_in_g", kGadgetMassG);
    f.scalar("Parameters", "UnitVelocity_in_cm_per_s", 1e5);
    f.scalar("Parameters", "HubbleParam", 0.6774);
    f.scalar("Parameters", "ComovingIntegrationOn", 0, H5T_STD_I32LE);
    testing::write_gadget_types(f, types);
    for (const auto& t : types) {  // GADGET-4's own scaling attributes
      const std::string g = "PartType" + std::to_string(t.type);
      f.scalar(g + "/Coordinates", "a_scaling", 1);
      f.scalar(g + "/Coordinates", "h_scaling", -1);
      f.scalar(g + "/Velocities", "a_scaling", 0.5);
      f.scalar(g + "/Velocities", "h_scaling", 0);
    }
  }
  const Snapshot s = read_snapshot(path("g4.hdf5"));
  ASSERT_EQ(s.bodies.size(), 300u);
  ASSERT_EQ(s.meta.types.size(), 3u);
  EXPECT_EQ(s.meta.types[0].type, 0);
  EXPECT_EQ(s.meta.types[1].type, 1);
  EXPECT_EQ(s.meta.types[2].type, 4);
  EXPECT_EQ(s.meta.types[2].begin, 210u);
  const double h = 0.6774;  // not comoving: the a exponents do not apply
  expect_converted(s, types, kMpcCm / h, 1e5, kGadgetMassG / h);
  EXPECT_NEAR(virial_speed(s.bodies), 1.0, 1e-4);
  // Time 0.25 in GADGET's time unit, (Mpc/h) / (km/s), in the lab's.
  EXPECT_NEAR(s.time * s.meta.units.time_s(), 0.25 * kMpcCm / 1e5 / h, 1e-6 * 0.25 * kMpcCm / 1e5);
  std::string said;
  for (const auto& line : s.meta.description) said += line + "\n";
  EXPECT_NE(said.find("GADGET-4 layout"), std::string::npos) << said;
  EXPECT_NE(said.find("units from Parameters"), std::string::npos) << said;
  EXPECT_NE(said.find("no gas pressure"), std::string::npos) << said;
  EXPECT_EQ(said.find("comoving"), std::string::npos) << said;
}

TEST_F(Hdf5Snapshot, AStateSteppedAndWrittenBackReadsTheSame) {
  write_gadget2(path("start.hdf5"), gadget_types(), 0.5, 1.0);
  const Snapshot start = read_snapshot(path("start.hdf5"));
  Settings settings;
  settings.dt = 0.002;
  settings.softening = 0.05;
  auto backend = make_cpu_allpairs(settings);
  backend->set_bodies(start.bodies);
  for (int i = 0; i < 5; ++i) backend->step();
  Snapshot stepped = start;
  backend->get_bodies(stepped.bodies);
  stepped.time = start.time + 5 * 0.002;
  ASSERT_NE(stepped.bodies.x[7], start.bodies.x[7]) << "the bodies moved";

  write_snapshot(path("after.hdf5"), stepped, 0.05f);
  const Snapshot back = read_snapshot(path("after.hdf5"));
  ASSERT_EQ(back.bodies.size(), stepped.bodies.size());
  for (auto field : {&Bodies::x, &Bodies::y, &Bodies::z, &Bodies::vx, &Bodies::vy, &Bodies::vz, &Bodies::mass})
    EXPECT_EQ(back.bodies.*field, stepped.bodies.*field) << "floats kept bit for bit";
  EXPECT_EQ(back.meta.ids, start.meta.ids);
  ASSERT_EQ(back.meta.types.size(), 2u);
  EXPECT_EQ(back.meta.types[1].type, 2);
  EXPECT_EQ(back.meta.types[1].begin, 200u);
  EXPECT_DOUBLE_EQ(back.time, stepped.time);
  EXPECT_NEAR(back.meta.units.length_cm, start.meta.units.length_cm, 1e-12 * start.meta.units.length_cm);
  EXPECT_NEAR(back.meta.units.mass_g, start.meta.units.mass_g, 1e-12 * start.meta.units.mass_g);
  EXPECT_NE(back.meta.description.back().find("nothing rescaled"), std::string::npos) << back.meta.description.back();

  // And written again, the same file contents (a fixed point).
  write_snapshot(path("again.hdf5"), back, 0.05f);
  const Snapshot again = read_snapshot(path("again.hdf5"));
  EXPECT_EQ(again.bodies.x, back.bodies.x);
  EXPECT_EQ(again.meta.ids, back.meta.ids);
}

TEST_F(Hdf5Snapshot, ASceneIsWrittenInKpcAndTenBillionSolarMasses) {
  Snapshot scene;
  scene.bodies = make_scene(Scene::plummer, 500, 3);
  scene.time = 1.5;
  write_snapshot(path("scene.hdf5"), scene, 0.01f);
  const Snapshot back = read_snapshot(path("scene.hdf5"));
  EXPECT_EQ(back.bodies.x, scene.bodies.x);
  EXPECT_EQ(back.bodies.vz, scene.bodies.vz);
  EXPECT_DOUBLE_EQ(back.time, 1.5);
  EXPECT_NEAR(back.meta.units.length_cm, kCmPerKpc, 1e-9 * kCmPerKpc);
  EXPECT_NEAR(back.meta.units.mass_g, kGadgetMassG, 1e-9 * kGadgetMassG);
  EXPECT_NEAR(back.meta.units.velocity_cm_per_s / 1e5, 207.4, 0.1);
  ASSERT_EQ(back.meta.ids.size(), 500u);
  EXPECT_EQ(back.meta.ids[0], 1u) << "bodies without IDs are numbered from 1";
}

TEST_F(Hdf5Snapshot, SwiftUnitsGroupScaleFactorAndAPeriodicBoxUnwrapped) {
  // A clump straddling the corner of a 10 Mpc box: wrapped, its bodies sit near both faces.
  FixtureType dm;
  dm.type = 1;
  const Bodies b = make_scene(Scene::plummer, 400, 9);
  const double centre[3] = {0.2, 5.0, 9.9};
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double p[3] = {b.x[i], b.y[i], b.z[i]};
    for (int k = 0; k < 3; ++k) {
      double x = centre[k] + 0.1 * std::clamp(p[k], -3.0, 3.0);
      x -= 10.0 * std::floor(x / 10.0);
      dm.position.push_back(x);
    }
    dm.velocity.insert(dm.velocity.end(), {50.0 * b.vx[i], 50.0 * b.vy[i], 50.0 * b.vz[i]});
    dm.mass.push_back(1e-3);
    dm.ids.push_back(i);
  }
  {
    Hdf5Fixture f(path("swift.hdf5"));
    std::vector<double> counts = {0, 400, 0, 0, 0, 0, 0};
    f.group("Header");
    f.attribute("Header", "NumPart_ThisFile", counts, H5T_STD_I64LE);
    f.attribute("Header", "NumPart_Total", counts, H5T_STD_I64LE);
    f.attribute("Header", "NumPart_Total_HighWord", std::vector<double>(7, 0), H5T_STD_I64LE);
    f.attribute("Header", "MassTable", std::vector<double>(7, 0));
    f.attribute("Header", "Time", {0.0123});
    f.attribute("Header", "Scale-factor", {0.8});
    f.attribute("Header", "Redshift", {0.25});
    f.attribute("Header", "BoxSize", {10, 10, 10});
    f.attribute("Header", "NumFilesPerSnapshot", {1}, H5T_STD_I32LE);
    f.group("Units");
    f.attribute("Units", "Unit length in cgs (U_L)", {kMpcCm});
    f.attribute("Units", "Unit mass in cgs (U_M)", {kGadgetMassG});
    f.attribute("Units", "Unit time in cgs (U_t)", {kMpcCm / 1e5});
    f.group("Cosmology");
    f.attribute("Cosmology", "Cosmological run", {1}, H5T_STD_I32LE);
    f.attribute("Cosmology", "h", {0.7});
    f.group("PartType1");
    f.dataset("PartType1/Coordinates", dm.position, {400, 3}, H5T_IEEE_F64LE);
    f.dataset("PartType1/Velocities", dm.velocity, {400, 3});
    f.dataset("PartType1/Masses", dm.mass, {400});
    f.ids("PartType1/ParticleIDs", dm.ids);
    f.attribute("PartType1/Coordinates", "a-scale exponent", {1});
    f.attribute("PartType1/Coordinates", "h-scale exponent", {0});
    f.attribute("PartType1/Velocities", "a-scale exponent", {0});
    f.attribute("PartType1/Velocities", "h-scale exponent", {0});
  }
  const Snapshot s = read_snapshot(path("swift.hdf5"));
  ASSERT_EQ(s.bodies.size(), 400u);
  const double a = 0.8;
  // Unwrapped: the clump is whole, a few tenths of a Mpc across, not spread over the box.
  for (auto field : {&Bodies::x, &Bodies::y, &Bodies::z}) {
    const auto [lo, hi] = std::minmax_element((s.bodies.*field).begin(), (s.bodies.*field).end());
    EXPECT_LT((*hi - *lo) * s.meta.units.length_cm, 0.7 * a * kMpcCm);
  }
  // SWIFT's conventions: comoving positions (x a), peculiar velocities as written, no little h.
  for (std::size_t i = 0; i < 400; i += 13) {
    const double vx = dm.velocity[3 * i] * 1e5;
    EXPECT_NEAR(s.bodies.vx[i] * s.meta.units.velocity_cm_per_s, vx, 1e-6 * std::fabs(vx) + 1e-3);
    EXPECT_NEAR(s.bodies.mass[i] * s.meta.units.mass_g, 1e-3 * kGadgetMassG, 1e-9 * kGadgetMassG);
    // Distances between bodies are a times the comoving ones (modulo the box).
    auto wrapped_dx = [&](std::size_t j) {
      double d = dm.position[3 * j] - dm.position[0];
      return d - 10.0 * std::round(d / 10.0);
    };
    EXPECT_NEAR((s.bodies.x[i] - s.bodies.x[0]) * s.meta.units.length_cm, wrapped_dx(i) * a * kMpcCm, 1e-5 * kMpcCm);
  }
  EXPECT_EQ(s.time, 0.0);
  std::string said;
  for (const auto& line : s.meta.description) said += line + "\n";
  EXPECT_NE(said.find("SWIFT layout"), std::string::npos) << said;
  EXPECT_NE(said.find("periodic box"), std::string::npos) << said;
  EXPECT_NE(said.find("a = 0.8"), std::string::npos) << said;
  EXPECT_EQ(said.find("little h"), std::string::npos) << "SWIFT's units have no h: " << said;
}

TEST_F(Hdf5Snapshot, ATwoFileSnapshotReadsWholeFromAnyOfItsNames) {
  const auto types = gadget_types();
  write_gadget2(path("single.hdf5"), types, 1.0, 0.0, 1.0);
  // The same particles split: the first 120 + 40 in file 0, the rest in file 1.
  std::vector<std::vector<FixtureType>> parts(2, types);
  auto take = [](FixtureType& t, std::size_t begin, std::size_t end) {
    t.position = std::vector<double>(t.position.begin() + 3 * begin, t.position.begin() + 3 * end);
    t.velocity = std::vector<double>(t.velocity.begin() + 3 * begin, t.velocity.begin() + 3 * end);
    if (!t.mass.empty()) t.mass = std::vector<double>(t.mass.begin() + begin, t.mass.begin() + end);
    t.ids = std::vector<std::uint64_t>(t.ids.begin() + begin, t.ids.begin() + end);
  };
  take(parts[0][0], 0, 120), take(parts[0][1], 0, 40);
  take(parts[1][0], 120, 200), take(parts[1][1], 40, 100);
  for (int file = 0; file < 2; ++file) {
    Hdf5Fixture f(path("snap." + std::to_string(file) + ".hdf5"));
    testing::write_gadget_header(f, parts[static_cast<std::size_t>(file)], 1.0, 0.0, 2, {0, 200, 100, 0, 0, 0});
    f.scalar("Header", "HubbleParam", 1.0);
    testing::write_gadget_types(f, parts[static_cast<std::size_t>(file)]);
  }
  const Snapshot single = read_snapshot(path("single.hdf5"));
  for (const char* name : {"snap.0.hdf5", "snap.1.hdf5", "snap.hdf5"}) {
    const Snapshot s = read_snapshot(path(name));
    EXPECT_EQ(s.bodies.x, single.bodies.x) << name;
    EXPECT_EQ(s.bodies.vz, single.bodies.vz) << name;
    EXPECT_EQ(s.bodies.mass, single.bodies.mass) << name;
    EXPECT_EQ(s.meta.ids, single.meta.ids) << name;
    EXPECT_NE(s.meta.description.front().find("2 files"), std::string::npos) << s.meta.description.front();
  }

  // A file missing, or counts that do not add up, are refused.
  fs::rename(path("snap.1.hdf5"), path("elsewhere.hdf5"));
  std::string m = read_error(path("snap.0.hdf5"));
  EXPECT_NE(m.find("split over 2 files"), std::string::npos) << m;
  EXPECT_NE(m.find("snap.1.hdf5 is missing"), std::string::npos) << m;
  {
    Hdf5Fixture f(path("snap.1.hdf5"));
    testing::write_gadget_header(f, parts[1], 1.0, 0.0, 2, {0, 210, 100, 0, 0, 0});
    testing::write_gadget_types(f, parts[1]);
  }
  m = read_error(path("snap.0.hdf5"));
  EXPECT_NE(m.find("NumPart_Total"), std::string::npos) << m;
}

// The pieces of a one-type GADGET file of 10 particles; each malformed case below changes one of them.
struct Pieces {
  std::vector<double> this_file = {0, 10, 0, 0, 0, 0}, total = {0, 10, 0, 0, 0, 0}, mass_table = {0, 0, 0, 0, 0, 0};
  std::vector<double> position = std::vector<double>(30, 0.5), velocity = std::vector<double>(30, 1.0),
                      mass = std::vector<double>(10, 0.1);
  std::vector<hsize_t> position_dims = {10, 3};
  bool header = true, velocities = true, masses = true;
  double files = 1;
};
void write_pieces(const fs::path& file, const Pieces& p) {
  Hdf5Fixture f(file);
  if (p.header) {
    f.group("Header");
    f.attribute("Header", "NumPart_ThisFile", p.this_file, H5T_STD_U32LE);
    f.attribute("Header", "NumPart_Total", p.total, H5T_STD_U32LE);
    f.attribute("Header", "MassTable", p.mass_table);
    f.scalar("Header", "Time", 0);
    f.scalar("Header", "NumFilesPerSnapshot", p.files, H5T_STD_I32LE);
  }
  f.group("PartType1");
  std::vector<double> spread = p.position;
  for (std::size_t i = 0; i < spread.size() && p.position_dims.size() == 2; ++i)
    spread[i] += 0.1 * static_cast<double>(i % 7) * (i % 2 ? 1 : -1);
  f.dataset("PartType1/Coordinates", spread, p.position_dims);
  if (p.velocities) f.dataset("PartType1/Velocities", p.velocity, {p.velocity.size() / 3, 3});
  if (p.masses) f.dataset("PartType1/Masses", p.mass, {p.mass.size()});
}

TEST_F(Hdf5Snapshot, AWellFormedMinimalFileReads) {
  write_pieces(path("ok.hdf5"), Pieces{});
  EXPECT_EQ(read_error(path("ok.hdf5")), "");
}

TEST_F(Hdf5Snapshot, MalformedFilesAreRefusedNamingTheFileAndThePlace) {
  struct Case {
    const char* name;
    Pieces pieces;
    std::vector<std::string> said;
  };
  std::vector<Case> cases;
  {
    Case c{"no_header.hdf5", {}, {"no Header group"}};
    c.pieces.header = false;
    cases.push_back(c);
  }
  {
    Case c{"counts.hdf5", {}, {"PartType1/Coordinates", "8 rows", "NumPart_ThisFile[1]", "10"}};
    c.pieces.position.resize(24);
    c.pieces.position_dims = {8, 3};
    cases.push_back(c);
  }
  {
    Case c{"nan.hdf5", {}, {"PartType1/Coordinates", "row 3", "NaN"}};
    c.pieces.position[3 * 3 + 1] = std::nan("");
    cases.push_back(c);
  }
  {
    Case c{"rank.hdf5", {}, {"PartType1/Coordinates", "rank 1", "(N, 3)"}};
    c.pieces.position_dims = {30};
    cases.push_back(c);
  }
  {
    Case c{"columns.hdf5", {}, {"PartType1/Coordinates", "shape (10, 2)"}};
    c.pieces.position.resize(20);
    c.pieces.position_dims = {10, 2};
    cases.push_back(c);
  }
  {
    Case c{"no_masses.hdf5", {}, {"PartType1", "no Masses dataset", "MassTable[1] is 0"}};
    c.pieces.masses = false;
    cases.push_back(c);
  }
  {
    Case c{"no_velocities.hdf5", {}, {"PartType1", "no Velocities dataset"}};
    c.pieces.velocities = false;
    cases.push_back(c);
  }
  {
    Case c{"totals.hdf5", {}, {"NumPart_ThisFile[1] is 10", "NumPart_Total[1] is 12"}};
    c.pieces.total[1] = 12;
    cases.push_back(c);
  }
  {
    Case c{"negative.hdf5", {}, {"PartType1/Masses", "row 4", "negative mass"}};
    c.pieces.mass[4] = -1;
    cases.push_back(c);
  }
  {
    Case c{"massless.hdf5", {}, {"zero mass"}};
    c.pieces.mass.assign(10, 0.0);
    cases.push_back(c);
  }
  {
    Case c{"split.hdf5", {}, {"NumFilesPerSnapshot", "split over 2 files", "no file number", "split.0.hdf5"}};
    c.pieces.files = 2;
    cases.push_back(c);
  }
  {
    Case c{"types.hdf5", {}, {"Header/NumPart_Total", "5 entries", "NumPart_ThisFile has 6"}};
    c.pieces.total.resize(5);
    cases.push_back(c);
  }
  {
    Case c{"empty.hdf5", {}, {"holds no particles"}};
    c.pieces.this_file[1] = c.pieces.total[1] = 0;
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    write_pieces(path(c.name), c.pieces);
    const std::string m = read_error(path(c.name));
    ASSERT_FALSE(m.empty()) << c.name << " was read";
    EXPECT_NE(m.find(path(c.name).string()), std::string::npos) << c.name << ": the message names the file: " << m;
    for (const std::string& part : c.said)
      EXPECT_NE(m.find(part), std::string::npos) << c.name << ": \"" << part << "\" missing from: " << m;
  }
}

TEST_F(Hdf5Snapshot, NotAnHdf5FileOrNoFileAtAllIsSaidPlainly) {
  std::ofstream(path("text.hdf5")) << "just text\n";
  EXPECT_NE(read_error(path("text.hdf5")).find("not an HDF5 file"), std::string::npos);
  const std::string m = read_error(path("nothing.hdf5"));
  EXPECT_NE(m.find("no such file"), std::string::npos) << m;
  EXPECT_NE(m.find("nothing.hdf5"), std::string::npos) << m;
}

TEST_F(Hdf5Snapshot, TheFormatIsChosenByNameAndAnHdf5FileIsKnownByItsSignature) {
  Snapshot scene;
  scene.bodies = make_scene(Scene::plummer, 64, 1);
  write_snapshot(path("state.tipsy"), scene, 0.01f);
  write_snapshot(path("state.H5"), scene, 0.01f);
  EXPECT_TRUE(read_snapshot(path("state.tipsy")).meta.description.empty()) << "Tipsy";
  EXPECT_FALSE(read_snapshot(path("state.H5")).meta.description.empty()) << "HDF5, by its extension in any case";
  fs::copy_file(path("state.H5"), path("state.dat"));
  const Snapshot sniffed = read_snapshot(path("state.dat"));
  EXPECT_FALSE(sniffed.meta.description.empty()) << "HDF5, by its signature";
  EXPECT_EQ(sniffed.bodies.x, scene.bodies.x);
}

TEST(Hdf5Library, HasAVersion) {
  const std::string v = hdf5_library_version();
  EXPECT_EQ(v.rfind("1.", 0), 0u) << v;
}

}  // namespace
}  // namespace nbl

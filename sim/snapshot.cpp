#include "sim/snapshot.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/hdf5_snapshot.hpp"
#include "sim/tipsy.hpp"

namespace nbl {

namespace {

// The first bytes of every HDF5 file without a user block (the layouts here have none).
bool starts_with_hdf5_signature(const std::filesystem::path& file) {
  static constexpr char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::ifstream in(file, std::ios::binary);
  char head[8] = {};
  return in.read(head, sizeof head) && std::equal(head, head + 8, kSignature);
}

}  // namespace

PhysicalUnits units_with_unit_gravity(double length_cm, double mass_g) {
  return {length_cm, mass_g, std::sqrt(kGravityCgs * mass_g / length_cm)};
}

PhysicalUnits default_physical_units() { return units_with_unit_gravity(kCmPerKpc, 1e10 * kGramsPerSolarMass); }

std::string_view particle_type_name(int type) {
  static constexpr std::array<std::string_view, kMaxParticleTypes> kNames = {
      "PartType0 (gas)",   "PartType1 (dark matter)",
      "PartType2",         "PartType3",
      "PartType4 (stars)", "PartType5 (black holes)",
      "PartType6",         "PartType7",
      "PartType8",         "PartType9",
      "PartType10",        "PartType11",
      "PartType12",        "PartType13",
      "PartType14",        "PartType15"};
  return type >= 0 && type < kMaxParticleTypes ? kNames[static_cast<std::size_t>(type)] : std::string_view("PartType?");
}

bool is_hdf5_file_name(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return extension == ".hdf5" || extension == ".h5" || extension == ".hdf";
}

Snapshot read_snapshot(const std::filesystem::path& file) {
  if (is_hdf5_file_name(file) || starts_with_hdf5_signature(file)) return read_hdf5_snapshot(file);
  TipsySnapshot tipsy = read_tipsy(file);
  Snapshot snapshot;
  snapshot.time = tipsy.time;
  snapshot.bodies = std::move(tipsy.bodies);
  return snapshot;
}

void write_snapshot(const std::filesystem::path& file, const Snapshot& snapshot, float softening) {
  if (is_hdf5_file_name(file)) write_hdf5_snapshot(file, snapshot, softening);
  else write_tipsy(file, snapshot.bodies, snapshot.time, softening);
}

// A million times the virial speed: see the header. Refused with the figures.
void check_snapshot_speeds(const std::string& name, const Bodies& b) {
  constexpr double kMaxSpeedOverVirial = 1e6;
  const double scale = virial_speed(b);
  // No mass, or no radius (one body, half the mass at one point): nothing sets a speed scale.
  if (!(scale > 0) || std::isinf(scale)) return;
  const double limit = kMaxSpeedOverVirial * scale;
  double fastest = 0;
  std::size_t fastest_body = 0, too_fast = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double speed = std::sqrt(double(b.vx[i]) * b.vx[i] + double(b.vy[i]) * b.vy[i] + double(b.vz[i]) * b.vz[i]);
    if (speed > limit) ++too_fast;
    if (speed > fastest) fastest = speed, fastest_body = i;
  }
  if (too_fast == 0) return;
  std::ostringstream m;
  m << name << ": body " << fastest_body << " moves at speed " << fastest << ", more than " << kMaxSpeedOverVirial
    << " times the scene's virial speed " << scale
    << " (sqrt(G M / R) with G = 1, M the total mass and R the half-mass radius about the median position)";
  if (too_fast > 1) m << "; " << too_fast << " bodies are that fast";
  m << ". That is a unit mix-up or a corrupt record, not a body the scene can hold: check the file's velocity units";
  throw InputError(m.str());
}

}  // namespace nbl

// Snapshots: the bodies at one moment, in a file. One entry point for every format the lab reads and writes, chosen by
// the file's name: NAME.hdf5, .h5 or .hdf is HDF5 in the layout GADGET, SWIFT and AREPO write (sim/hdf5_snapshot.hpp),
// anything else Tipsy (sim/tipsy.hpp). A file that starts with HDF5's signature is read as HDF5 whatever its name.
//
// Besides positions, velocities and masses a file may say more about its bodies: their particle types (PartType0 gas,
// PartType1 dark matter...), their IDs, and what the numbers mean in physical units. The lab keeps that beside the
// bodies (backends keep the bodies in the order they were given), so a state written back keeps its types, IDs and
// units.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/bodies.hpp"

namespace nbl {

// Physical constants of the unit conversions (cgs). G as CODATA 2018 gives it; the parsec and the solar mass as
// GADGET's and SWIFT's unit attributes use them.
inline constexpr double kGravityCgs = 6.6743e-8;  // cm^3 g^-1 s^-2
inline constexpr double kCmPerKpc = 3.085678e21;
inline constexpr double kGramsPerSolarMass = 1.989e33;
inline constexpr double kCmPerSecondPerKmPerSecond = 1e5;

// What one of the lab's units is in physical terms. The lab's units have G = 1, so the three are tied: velocity =
// sqrt(G mass / length); the unit of time is length / velocity. All zero when nobody said (a scene, a Tipsy file).
struct PhysicalUnits {
  double length_cm = 0, mass_g = 0, velocity_cm_per_s = 0;
  bool known() const { return length_cm > 0 && mass_g > 0 && velocity_cm_per_s > 0; }
  double time_s() const { return length_cm / velocity_cm_per_s; }
};
// The units a state is written in when nothing said what they are (a scene): 1 kpc and 1e10 solar masses, so the
// velocity unit is 207.4 km/s and the time unit 4.71 Myr: a scene's galaxy is then a small disk galaxy.
PhysicalUnits default_physical_units();
// PhysicalUnits with G = 1 from a length and a mass.
PhysicalUnits units_with_unit_gravity(double length_cm, double mass_g);

// The bodies of one particle type, as a range of body indices. Types are GADGET's PartType numbers.
struct ParticleTypeRange {
  int type = 0;
  std::size_t begin = 0, end = 0;
};
// "PartType1 (dark matter)": the type's group name with what it holds in GADGET, SWIFT and AREPO where they agree.
// Static storage (a BodyGroup's name points at it).
std::string_view particle_type_name(int type);
inline constexpr int kMaxParticleTypes = 16;

// What a file said about its bodies beyond positions, velocities and masses.
struct SnapshotMeta {
  std::vector<std::uint64_t> ids;        // one per body, in body order; empty: numbered 1..n on writing
  std::vector<ParticleTypeRange> types;  // in body order; empty: no types (a scene, a Tipsy file)
  PhysicalUnits units;                   // what the lab's units are; unknown for a scene or Tipsy
  // For the user, one line each: what was read (file, layout, bodies per type) and how its numbers became the lab's
  // (units, comoving and little-h factors, a periodic box). Empty for Tipsy.
  std::vector<std::string> description;
};

struct Snapshot {
  double time = 0;  // in the lab's units
  Bodies bodies;
  SnapshotMeta meta;
};

// NAME.hdf5, NAME.h5 or NAME.hdf (any case).
bool is_hdf5_file_name(const std::filesystem::path& file);

// Reads a snapshot, by name (and HDF5's signature) as above. Everything is checked before anything is returned: a
// malformed or unsupported file is an InputError naming the file, the group and dataset or attribute, and what was
// expected.
Snapshot read_snapshot(const std::filesystem::path& file);

// Writes `snapshot` in the format its name asks for, whole or not at all. Tipsy keeps positions, velocities, masses and
// the time; HDF5 also the types, the IDs and the units. `softening` goes into the file for the codes that read it
// (Tipsy's eps, GADGET-4's softening parameters).
void write_snapshot(const std::filesystem::path& file, const Snapshot& snapshot, float softening);

// A body a million times faster than the system's own speed scale (diagnostics.hpp virial_speed) crosses it thousands
// of times in one time step: a unit mix-up or a corrupt record, never physics the lab can show. InputError naming
// `name`, the body and the figures.
void check_snapshot_speeds(const std::string& name, const Bodies& bodies);

}  // namespace nbl

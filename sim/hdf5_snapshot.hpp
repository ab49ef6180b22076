// HDF5 snapshots in the layout GADGET-2 and GADGET-4, SWIFT and AREPO write, through the HDF5 C library: a Header
// group (NumPart_ThisFile, NumPart_Total, MassTable, Time, Redshift, BoxSize, NumFilesPerSnapshot), PartType0..
// groups with Coordinates, Velocities, ParticleIDs and, for the types whose MassTable entry is zero, Masses; unit
// attributes in a Units group (SWIFT's names, or GADGET's), a Parameters group (GADGET-4) or the Header (AREPO),
// looked for in that order.
//
// Reading follows one rule (docs/snapshots.md says it for users, with an example):
//   1. Every particle type becomes bodies, type after type (PartType0 first), files in order within a type. A
//      snapshot split over NAME.0.hdf5, NAME.1.hdf5... is read whole from any of its files, or from NAME.hdf5 when
//      only the numbered files exist.
//   2. Physical values: each dataset times a^a_exp h^h_exp times its code unit in cgs. The exponents come from the
//      dataset's own attributes when it has them (GADGET-4 and AREPO: a_scaling, h_scaling; SWIFT: "a-scale
//      exponent", "h-scale exponent"), else from GADGET's convention (coordinates comoving kpc/h: a^1 h^-1;
//      velocities u = v / sqrt(a): a^0.5; masses h^-1) or SWIFT's (no h; velocities already peculiar). a is the
//      header's Time (SWIFT: Scale-factor) when the run is comoving (Parameters/ComovingIntegrationOn, SWIFT's
//      Cosmology/"Cosmological run", or, in files that say neither, a Redshift above 0 with Time = 1 / (1 +
//      Redshift)); else 1. h is HubbleParam (Header or Parameters; SWIFT: Cosmology/h), 1 when absent. Without unit
//      attributes the units are GADGET's defaults: kpc/h, 1e10 Msun/h, km/s.
//   3. A periodic box (BoxSize > 0 with every body inside it) is unwrapped: coordinates move by whole box lengths to
//      lie within half a box of the mass-weighted circular mean of their axis, and the lab simulates the result as
//      an isolated system (no periodic images).
//   4. The lab's units (G = 1): when the file's own units already have G = 1 (as nbodylab writes them), they are
//      the lab's and nothing is rescaled. Otherwise the unit of mass is the total mass, the unit of length the
//      half-mass radius about the mass-weighted median position (the radius of diagnostics.hpp virial_speed), the
//      unit of velocity sqrt(G M / L). Time is converted likewise; a comoving file starts the lab's clock at 0 (its
//      Time is a scale factor).
// The bodies keep the frame of the file (nothing is recentred). Gas moves as collisionless bodies.
//
// Writing: one file in GADGET-4's layout (Header; Parameters with the unit attributes and ComovingIntegrationOn = 0;
// a dataset per field and type with GADGET-4's scaling attributes), the unit attributes also in the Header (AREPO's
// place). Positions, velocities and masses as the lab holds them (float32), IDs as uint64. The units
// are those the bodies were read in, or default_physical_units() for a scene: either way G = 1 in them, so the file
// reads back unchanged.
#pragma once
#include <filesystem>
#include <string>

#include "sim/snapshot.hpp"

namespace nbl {

Snapshot read_hdf5_snapshot(const std::filesystem::path& file);
void write_hdf5_snapshot(const std::filesystem::path& file, const Snapshot& snapshot, float softening);

// "1.10.8": the HDF5 library this program runs with.
std::string hdf5_library_version();

}  // namespace nbl

// Writing HDF5 snapshots in GADGET-4's layout (sim/hdf5_snapshot.hpp says what goes where).
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/hdf5_handle.hpp"
#include "sim/hdf5_snapshot.hpp"

namespace nbl {

namespace fs = std::filesystem;

namespace {

class Writer {
 public:
  Writer(const fs::path& target, const fs::path& stage) : target_(target.string()) {
    file_ = Hdf5Handle(H5Fcreate(stage.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    check(file_.valid(), "cannot create the file");
  }
  hid_t id() const { return file_.get(); }
  void close() { check(H5Fclose(file_.release()) >= 0, "cannot finish the file"); }

  Hdf5Handle group(const std::string& path) {
    Hdf5Handle g(H5Gcreate2(file_.get(), path.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    check(g.valid(), "cannot create group " + path);
    return g;
  }
  template <class T>
  void attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type, const std::vector<T>& values,
                 bool scalar = false) {
    const hsize_t size = values.size();
    Hdf5Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &size, nullptr), H5Sclose);
    Hdf5Handle a(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && H5Awrite(a.get(), memory_type, values.data()) >= 0,
          std::string("cannot write attribute ") + name);
  }
  void scalar(hid_t object, const char* name, double value) {
    attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, std::vector<double>{value}, true);
  }
  void scalar_int(hid_t object, const char* name, int value) {
    attribute(object, name, H5T_STD_I32LE, H5T_NATIVE_INT, std::vector<int>{value}, true);
  }
  template <class T>
  Hdf5Handle dataset(hid_t group, const char* name, hid_t file_type, hid_t memory_type, const std::vector<T>& values,
                     int columns) {
    const hsize_t dims[2] = {values.size() / static_cast<std::size_t>(columns), static_cast<hsize_t>(columns)};
    Hdf5Handle space(H5Screate_simple(columns == 1 ? 1 : 2, dims, nullptr), H5Sclose);
    Hdf5Handle d(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    check(d.valid() && H5Dwrite(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0,
          std::string("cannot write dataset ") + name);
    return d;
  }

 private:
  void check(bool ok, const std::string& what) const {
    if (!ok) throw Error("cannot write " + target_ + ": HDF5: " + what + " (disk full or no permission?)");
  }
  std::string target_;
  Hdf5Handle file_;
};

// GADGET-4's per-dataset description of its units: the exponents of a and h, of the length, mass and velocity units,
// and the factor to cgs.
void scaling_attributes(Writer& w, hid_t dataset, double length, double mass, double velocity, double to_cgs) {
  w.scalar(dataset, "a_scaling",
           0);                        // physical values: ComovingIntegrationOn is 0
  w.scalar(dataset, "h_scaling", 0);  // and no little-h factors
  w.scalar(dataset, "length_scaling", length);
  w.scalar(dataset, "mass_scaling", mass);
  w.scalar(dataset, "velocity_scaling", velocity);
  w.scalar(dataset, "to_cgs", to_cgs);
}

void write_contents(Writer& w, const Snapshot& s, float softening) {
  const Bodies& b = s.bodies;
  const std::size_t n = b.size();
  const PhysicalUnits units = s.meta.units.known() ? s.meta.units : default_physical_units();

  // Bodies per type, in body order within a type; bodies outside every range are PartType1.
  int types = 6;  // GADGET's six, more when the bodies have more
  std::vector<int> type_of(n, 1);
  for (const ParticleTypeRange& r : s.meta.types) {
    for (std::size_t i = r.begin; i < std::min(r.end, n); ++i) type_of[i] = r.type;
    types = std::max(types, r.type + 1);
  }
  std::vector<std::vector<std::size_t>> members(static_cast<std::size_t>(types));
  for (std::size_t i = 0; i < n; ++i) members[static_cast<std::size_t>(type_of[i])].push_back(i);
  const bool have_ids = s.meta.ids.size() == n;

  std::vector<std::uint64_t> count(static_cast<std::size_t>(types));
  for (int t = 0; t < types; ++t) count[static_cast<std::size_t>(t)] = members[static_cast<std::size_t>(t)].size();
  const std::vector<double> unit_values = {units.length_cm, units.mass_g, units.velocity_cm_per_s};
  const char* unit_names[3] = {"UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s"};

  {
    Hdf5Handle header = w.group("Header");
    const hid_t h = header.get();
    w.attribute(h, "NumPart_ThisFile", H5T_STD_U64LE, H5T_NATIVE_UINT64, count);
    w.attribute(h, "NumPart_Total", H5T_STD_U64LE, H5T_NATIVE_UINT64, count);
    w.attribute(h, "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT, std::vector<unsigned>(count.size(), 0u));
    w.attribute(h, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, std::vector<double>(count.size(), 0.0));
    w.scalar(h, "Time", s.time);
    w.scalar(h, "Redshift", 0);
    w.scalar(h, "BoxSize", 0);
    w.scalar_int(h, "NumFilesPerSnapshot", 1);
    w.scalar(h, "HubbleParam", 1);
    w.scalar(h, "Omega0", 0);
    w.scalar(h, "OmegaLambda", 0);
    for (int u = 0; u < 3; ++u) w.scalar(h, unit_names[u],
                                         unit_values[static_cast<std::size_t>(u)]);  // AREPO's place
  }
  {
    Hdf5Handle parameters = w.group("Parameters");
    const hid_t p = parameters.get();
    for (int u = 0; u < 3; ++u) w.scalar(p, unit_names[u], unit_values[static_cast<std::size_t>(u)]);
    w.scalar_int(p, "ComovingIntegrationOn", 0);
    w.scalar(p, "HubbleParam", 1);
    w.scalar(p, "Omega0", 0);
    w.scalar(p, "OmegaLambda", 0);
    w.scalar(p, "OmegaBaryon", 0);
    w.scalar(p, "BoxSize", 0);
    w.scalar(p, "SofteningComovingClass0", softening);
    w.scalar(p, "SofteningMaxPhysClass0", softening);
    for (int t = 0; t < types; ++t) w.scalar_int(p, ("SofteningClassOfPartType" + std::to_string(t)).c_str(), 0);
  }
  for (int t = 0; t < types; ++t) {
    const std::vector<std::size_t>& list = members[static_cast<std::size_t>(t)];
    if (list.empty()) continue;
    Hdf5Handle group = w.group("PartType" + std::to_string(t));
    std::vector<float> position, velocity, mass;
    std::vector<std::uint64_t> ids;
    position.reserve(3 * list.size());
    velocity.reserve(3 * list.size());
    for (std::size_t i : list) {
      position.insert(position.end(), {b.x[i], b.y[i], b.z[i]});
      velocity.insert(velocity.end(), {b.vx[i], b.vy[i], b.vz[i]});
      mass.push_back(b.mass[i]);
      ids.push_back(have_ids ? s.meta.ids[i] : static_cast<std::uint64_t>(i + 1));
    }
    Hdf5Handle d = w.dataset(group.get(), "Coordinates", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, position, 3);
    scaling_attributes(w, d.get(), 1, 0, 0, units.length_cm);
    d = w.dataset(group.get(), "Velocities", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, velocity, 3);
    scaling_attributes(w, d.get(), 0, 0, 1, units.velocity_cm_per_s);
    d = w.dataset(group.get(), "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, mass, 1);
    scaling_attributes(w, d.get(), 0, 1, 0, units.mass_g);
    d = w.dataset(group.get(), "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids, 1);
    scaling_attributes(w, d.get(), 0, 0, 0, 1);
  }
}

}  // namespace

void write_hdf5_snapshot(const fs::path& file, const Snapshot& snapshot, float softening) {
  if (snapshot.bodies.size() == 0) throw Error("cannot write " + file.string() + ": there are no bodies to save");
  const QuietHdf5Errors quiet;
  remove_stale_temporaries(file);
  const fs::path stage = temporary_path_for(file, ".hdf5");
  try {
    Writer writer(file, stage);
    write_contents(writer, snapshot, softening);
    writer.close();
    std::error_code ec;
    fs::rename(stage, file, ec);
    if (ec) throw Error("cannot write " + file.string() + ": " + ec.message());
  } catch (...) {
    std::error_code ec;
    fs::remove(stage, ec);
    throw;
  }
}

}  // namespace nbl

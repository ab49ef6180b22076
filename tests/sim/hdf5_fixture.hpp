// Snapshot files for the tests, written with HDF5's C API directly: independent of the writer under test, and able to
// write what no writer should (a missing Header, counts that disagree, NaN, wrong ranks).
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbl::testing {

class Hdf5Fixture {
 public:
  explicit Hdf5Fixture(const std::filesystem::path& file)
      : file_(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {
    if (file_ < 0) throw std::runtime_error("cannot create " + file.string());
  }
  ~Hdf5Fixture() {
    for (auto& [path, id] : groups_) H5Gclose(id);
    H5Fclose(file_);
  }
  Hdf5Fixture(const Hdf5Fixture&) = delete;
  Hdf5Fixture& operator=(const Hdf5Fixture&) = delete;

  // The group at `path` ("/" is the file), created on first use.
  hid_t group(const std::string& path) {
    if (path == "/") return file_;
    auto it = groups_.find(path);
    if (it != groups_.end()) return it->second;
    const hid_t id = H5Gcreate2(file_, path.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (id < 0) throw std::runtime_error("cannot create group " + path);
    return groups_[path] = id;
  }

  // An attribute of a group or dataset, stored as `file_type` (HDF5 converts the doubles): an array, or a scalar when
  // `scalar` is set.
  void attribute(const std::string& object, const std::string& name, const std::vector<double>& values,
                 hid_t file_type = H5T_IEEE_F64LE, bool scalar = false) {
    const hid_t target = H5Oopen(file_, object.c_str(), H5P_DEFAULT);
    const hsize_t size = values.size();
    const hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &size, nullptr);
    const hid_t a = H5Acreate2(target, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t written = H5Awrite(a, H5T_NATIVE_DOUBLE, values.data());
    H5Aclose(a);
    H5Sclose(space);
    H5Oclose(target);
    if (written < 0) throw std::runtime_error("cannot write attribute " + object + "/" + name);
  }
  void scalar(const std::string& object, const std::string& name, double value, hid_t file_type = H5T_IEEE_F64LE) {
    attribute(object, name, {value}, file_type, true);
  }

  // A dataset of `dims` (rank = dims.size()), stored as `file_type`.
  void dataset(const std::string& path, const std::vector<double>& values, const std::vector<hsize_t>& dims,
               hid_t file_type = H5T_IEEE_F32LE) {
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t d = H5Dcreate2(file_, path.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t written = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
    if (written < 0) throw std::runtime_error("cannot write dataset " + path);
  }
  void ids(const std::string& path, const std::vector<std::uint64_t>& values, hid_t file_type = H5T_STD_U64LE) {
    const hsize_t size = values.size();
    const hid_t space = H5Screate_simple(1, &size, nullptr);
    const hid_t d = H5Dcreate2(file_, path.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t written = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
    if (written < 0) throw std::runtime_error("cannot write dataset " + path);
  }

 private:
  hid_t file_;
  std::map<std::string, hid_t> groups_;
};

// One particle type of a GADGET-style file: positions and velocities (3 per particle), masses (empty when the MassTable
// entry holds them), IDs.
struct FixtureType {
  int type = 1;
  std::vector<double> position, velocity, mass;
  std::vector<std::uint64_t> ids;
  double table_mass = 0;
  std::size_t count() const { return position.size() / 3; }
};

// The Header of a GADGET-2 file (counts as uint32, as GADGET-2 writes them) for `types` in this file and `totals` over
// all files (the same when empty).
inline void write_gadget_header(Hdf5Fixture& f, const std::vector<FixtureType>& types, double time, double redshift,
                                int files = 1, std::vector<double> totals = {}) {
  f.group("Header");
  std::vector<double> this_file(6, 0), mass_table(6, 0);
  for (const FixtureType& t : types) {
    this_file[static_cast<std::size_t>(t.type)] = static_cast<double>(t.count());
    mass_table[static_cast<std::size_t>(t.type)] = t.table_mass;
  }
  if (totals.empty()) totals = this_file;
  f.attribute("Header", "NumPart_ThisFile", this_file, H5T_STD_U32LE);
  f.attribute("Header", "NumPart_Total", totals, H5T_STD_U32LE);
  f.attribute("Header", "NumPart_Total_HighWord", std::vector<double>(6, 0), H5T_STD_U32LE);
  f.attribute("Header", "MassTable", mass_table);
  f.scalar("Header", "Time", time);
  f.scalar("Header", "Redshift", redshift);
  f.scalar("Header", "BoxSize", 0);
  f.scalar("Header", "NumFilesPerSnapshot", files, H5T_STD_I32LE);
}

// The PartType groups and their datasets.
inline void write_gadget_types(Hdf5Fixture& f, const std::vector<FixtureType>& types) {
  for (const FixtureType& t : types) {
    const std::string g = "PartType" + std::to_string(t.type);
    f.group(g);
    f.dataset(g + "/Coordinates", t.position, {t.count(), 3});
    f.dataset(g + "/Velocities", t.velocity, {t.count(), 3});
    if (!t.mass.empty()) f.dataset(g + "/Masses", t.mass, {t.count()});
    if (!t.ids.empty()) f.ids(g + "/ParticleIDs", t.ids, H5T_STD_U32LE);
  }
}

}  // namespace nbl::testing

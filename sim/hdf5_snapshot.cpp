#include "sim/hdf5_snapshot.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <numeric>
#include <optional>
#include <sstream>
#include <utility>

#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/hdf5_handle.hpp"

namespace nbl {

namespace fs = std::filesystem;

namespace {

std::string commas(std::uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string figure(double value, int digits = 4) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

// ----------------------------------------------------------------------------------------------------
// Reading one file: groups, attributes and datasets, each failure an InputError naming what it was.

class SnapshotFile {
 public:
  explicit SnapshotFile(const fs::path& path) : name_(path.string()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError("cannot open " + name_ + ": no such file");
    if (fs::is_directory(path, ec)) throw InputError("cannot read " + name_ + ": it is a directory, not a file");
    if (H5Fis_hdf5(name_.c_str()) <= 0)
      throw InputError(name_ +
                       ": not an HDF5 file (the lab reads .hdf5/.h5/.hdf names as HDF5 snapshots, others as Tipsy)");
    file_ = Hdf5Handle(H5Fopen(name_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) throw InputError("cannot open " + name_ + ": HDF5 could not open it (damaged or truncated?)");
  }

  const std::string& name() const { return name_; }
  hid_t id() const { return file_.get(); }

  [[noreturn]] void fail(const std::string& object, const std::string& why) const {
    throw InputError(name_ + ": " + object + ": " + why);
  }
  [[noreturn]] void fail(const std::string& why) const { throw InputError(name_ + ": " + why); }

  // The group `path` ("Header", "PartType1"), or nothing when the file has none.
  std::optional<Hdf5Handle> group(const std::string& path) const {
    if (H5Lexists(file_.get(), path.c_str(), H5P_DEFAULT) <= 0) return std::nullopt;
    Hdf5Handle object(H5Oopen(file_.get(), path.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid()) fail(path, "cannot be opened");
    if (H5Iget_type(object.get()) != H5I_GROUP) fail(path, "is not a group");
    return object;
  }

  // A numeric attribute of `object` (at `object_path`) as doubles; nothing when absent.
  std::optional<std::vector<double>> numbers(hid_t object, const std::string& object_path, const char* name) const {
    if (H5Aexists(object, name) <= 0) return std::nullopt;
    const std::string where = object_path + "/" + name;
    Hdf5Handle attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) fail(where, "cannot be read");
    Hdf5Handle type(H5Aget_type(attribute.get()), H5Tclose);
    const H5T_class_t type_class = H5Tget_class(type.get());
    if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) fail(where, "is not a number");
    Hdf5Handle space(H5Aget_space(attribute.get()), H5Sclose);
    const hssize_t points = H5Sget_simple_extent_npoints(space.get());
    if (points < 0) fail(where, "has no readable size");
    std::vector<double> values(static_cast<std::size_t>(points));
    if (points > 0 && H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()) < 0)
      fail(where, "cannot be read as numbers");
    for (double v : values)
      if (!std::isfinite(v)) fail(where, "is not a finite number");
    return values;
  }
  // The same, for an attribute that holds one number (a scalar, or an array of one as SWIFT writes).
  std::optional<double> number(hid_t object, const std::string& object_path, const char* name) const {
    const auto values = numbers(object, object_path, name);
    if (!values) return std::nullopt;
    if (values->size() != 1)
      fail(object_path + "/" + name, "holds " + std::to_string(values->size()) + " numbers; expected one");
    return values->front();
  }

  // Dataset `group_path`/`name`: `rows` rows of `columns` numbers (1: rank 1, (rows); 3: rank 2, (rows, 3)), as
  // doubles, every one finite. Nothing when absent.
  std::optional<std::vector<double>> rows(hid_t group, const std::string& group_path, const char* name,
                                          std::size_t count, int columns, const std::string& count_source) const {
    Hdf5Handle dataset = open_dataset(group, group_path, name);
    if (!dataset.valid()) return std::nullopt;
    const std::string where = group_path + "/" + name;
    check_shape(dataset.get(), where, count, columns, count_source);
    Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
    const H5T_class_t type_class = H5Tget_class(type.get());
    if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) fail(where, "does not hold numbers");
    std::vector<double> values(count * static_cast<std::size_t>(columns));
    if (count > 0 && H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
      fail(where, "cannot be read");
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (std::isfinite(values[i])) continue;
      std::string row = "row " + std::to_string(i / columns);
      if (columns > 1) row += ", column " + std::to_string(i % columns);
      fail(where, row + " is " + (std::isnan(values[i]) ? "NaN" : "infinite"));
    }
    return values;
  }

  // ParticleIDs: integers, one per particle. Nothing when absent.
  std::optional<std::vector<std::uint64_t>> ids(hid_t group, const std::string& group_path, std::size_t count,
                                                const std::string& count_source) const {
    Hdf5Handle dataset = open_dataset(group, group_path, "ParticleIDs");
    if (!dataset.valid()) return std::nullopt;
    const std::string where = group_path + "/ParticleIDs";
    check_shape(dataset.get(), where, count, 1, count_source);
    Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_INTEGER) fail(where, "does not hold integers");
    std::vector<std::uint64_t> values(count);
    if (count > 0 && H5Dread(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
      fail(where, "cannot be read");
    return values;
  }

  // The attributes of dataset `group_path`/`name` named in `names`, first found wins; nothing when the dataset or all
  // of them are absent.
  std::optional<double> dataset_number(hid_t group, const std::string& group_path, const char* name,
                                       std::initializer_list<const char*> names) const {
    Hdf5Handle dataset = open_dataset(group, group_path, name);
    if (!dataset.valid()) return std::nullopt;
    for (const char* attribute : names)
      if (auto v = number(dataset.get(), group_path + "/" + name, attribute)) return v;
    return std::nullopt;
  }

 private:
  Hdf5Handle open_dataset(hid_t group, const std::string& group_path, const char* name) const {
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) return {};
    const std::string where = group_path + "/" + name;
    Hdf5Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
    if (!object.valid()) fail(where, "cannot be opened");
    if (H5Iget_type(object.get()) != H5I_DATASET) fail(where, "is not a dataset");
    return object;
  }

  void check_shape(hid_t dataset, const std::string& where, std::size_t count, int columns,
                   const std::string& count_source) const {
    Hdf5Handle space(H5Dget_space(dataset), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    hsize_t dims[H5S_MAX_RANK] = {};
    if (rank < 0 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) fail(where, "has no readable shape");
    std::string shape = "(";
    for (int d = 0; d < rank; ++d) shape += (d ? ", " : "") + std::to_string(dims[d]);
    shape += ")";
    const std::string expected = columns == 1 ? "(N), one value per particle" : "(N, 3), one row per particle";
    if (rank != (columns == 1 ? 1 : 2) || (columns > 1 && dims[1] != static_cast<hsize_t>(columns)))
      fail(where, "has rank " + std::to_string(rank) + ", shape " + shape + "; expected " + expected);
    if (dims[0] != count)
      fail(where, "has " + commas(dims[0]) + " rows, but " + count_source + " says " + commas(count) + " particles");
  }

  std::string name_;
  Hdf5Handle file_;
};

// ----------------------------------------------------------------------------------------------------
// The Header of each file, and which files make the snapshot.

struct Header {
  std::vector<std::uint64_t> this_file, total;  // per type
  std::vector<double> mass_table;               // per type; 0: per-particle Masses
  double time = 0;
  std::optional<double> redshift,
      scale_factor;              // scale_factor: SWIFT's Header/Scale-factor
  std::vector<double> box_size;  // none, one (GADGET) or three (SWIFT) sides
  std::uint64_t files = 1;
};

std::vector<std::uint64_t> counts(const SnapshotFile& f, hid_t header, const char* name, std::size_t types) {
  const auto values = f.numbers(header, "Header", name);
  if (!values) f.fail("Header", "has no " + std::string(name) + " attribute");
  if (values->size() != types)
    f.fail("Header/" + std::string(name), "has " + std::to_string(values->size()) +
                                              " entries, but NumPart_ThisFile has " + std::to_string(types) +
                                              " (one per particle type)");
  std::vector<std::uint64_t> out;
  for (double v : *values) {
    if (v < 0 || v != std::floor(v) || v > 9.0e15)
      f.fail("Header/" + std::string(name), "holds " + figure(v) + ", not a particle count");
    out.push_back(static_cast<std::uint64_t>(v));
  }
  return out;
}

Header read_header(const SnapshotFile& f) {
  const auto header = f.group("Header");
  if (!header) f.fail("has no Header group: not a snapshot in the GADGET, SWIFT or AREPO layout");
  const hid_t h = header->get();
  Header out;
  const auto this_file = f.numbers(h, "Header", "NumPart_ThisFile");
  if (!this_file) f.fail("Header", "has no NumPart_ThisFile attribute (the particle count of each type in this file)");
  const std::size_t types = this_file->size();
  if (types == 0 || types > static_cast<std::size_t>(kMaxParticleTypes))
    f.fail("Header/NumPart_ThisFile", "has " + std::to_string(types) + " entries; expected 1 to " +
                                          std::to_string(kMaxParticleTypes) + " (one per particle type)");
  out.this_file = counts(f, h, "NumPart_ThisFile", types);
  out.total = counts(f, h, "NumPart_Total", types);
  // GADGET-2 keeps counts of 2^32 and more in a second 32-bit word.
  if (H5Aexists(h, "NumPart_Total_HighWord") > 0) {
    const auto high = counts(f, h, "NumPart_Total_HighWord", types);
    for (std::size_t t = 0; t < types; ++t) out.total[t] += high[t] << 32;
  }
  out.mass_table = f.numbers(h, "Header", "MassTable").value_or(std::vector<double>(types, 0.0));
  if (out.mass_table.size() != types)
    f.fail("Header/MassTable", "has " + std::to_string(out.mass_table.size()) + " entries, but NumPart_ThisFile has " +
                                   std::to_string(types));
  for (double m : out.mass_table)
    if (m < 0) f.fail("Header/MassTable", "holds a negative mass (" + figure(m) + ")");
  const auto time = f.number(h, "Header", "Time");
  if (!time) f.fail("Header", "has no Time attribute");
  out.time = *time;
  out.redshift = f.number(h, "Header", "Redshift");
  out.scale_factor = f.number(h, "Header", "Scale-factor");
  out.box_size = f.numbers(h, "Header", "BoxSize").value_or(std::vector<double>{});
  if (out.box_size.size() != 0 && out.box_size.size() != 1 && out.box_size.size() != 3)
    f.fail("Header/BoxSize", "holds " + std::to_string(out.box_size.size()) + " numbers; expected one side or three");
  if (const auto files = f.number(h, "Header", "NumFilesPerSnapshot")) {
    if (*files < 1 || *files != std::floor(*files) || *files > 1e6)
      f.fail("Header/NumFilesPerSnapshot", "is " + figure(*files) + "; expected a whole number of files, at least 1");
    out.files = static_cast<std::uint64_t>(*files);
  }
  return out;
}

// NAME.hdf5 -> {NAME, ".hdf5", -1}; NAME.3.hdf5 -> {NAME, ".hdf5", 3}.
struct SplitName {
  fs::path base;  // without the file number and the extension
  std::string extension;
  long number = -1;
};
SplitName split_name(const fs::path& file) {
  SplitName s{file.parent_path() / file.stem(), file.extension().string(), -1};
  const std::string stem = file.stem().string();
  const auto dot = stem.rfind('.');
  if (dot != std::string::npos && dot + 1 < stem.size() && stem.size() - dot - 1 <= 6 &&
      std::all_of(stem.begin() + static_cast<long>(dot) + 1, stem.end(),
                  [](unsigned char c) { return std::isdigit(c); })) {
    s.base = file.parent_path() / stem.substr(0, dot);
    s.number = std::stol(stem.substr(dot + 1));
  }
  return s;
}
fs::path numbered(const SplitName& s, std::uint64_t number) {
  return fs::path(s.base.string() + "." + std::to_string(number) + s.extension);
}

// The files of the snapshot `given` names, each opened, with its header.
struct OpenFile {
  SnapshotFile file;
  Header header;
};
std::vector<OpenFile> open_snapshot(const fs::path& given) {
  const SplitName name = split_name(given);
  std::error_code ec;
  fs::path first = given;
  if (!fs::exists(given, ec) && name.number < 0 && fs::exists(numbered(name, 0), ec)) first = numbered(name, 0);
  std::vector<OpenFile> files;
  {
    SnapshotFile f(first);
    Header h = read_header(f);
    files.push_back({std::move(f), std::move(h)});
  }
  const std::uint64_t count = files.front().header.files;
  if (count == 1) return files;

  const SplitName split = split_name(first);
  if (split.number < 0)
    files.front().file.fail("Header/NumFilesPerSnapshot",
                            "says the snapshot is split over " + std::to_string(count) +
                                " files, but this file's name has no file number: give the first, " +
                                numbered(split, 0).string());
  if (split.number >= static_cast<long>(count))
    files.front().file.fail("Header/NumFilesPerSnapshot", "says the snapshot has " + std::to_string(count) +
                                                              " files (0 to " + std::to_string(count - 1) +
                                                              "), but this is file " + std::to_string(split.number));
  files.clear();
  for (std::uint64_t i = 0; i < count; ++i) {
    const fs::path path = numbered(split, i);
    if (!fs::exists(path, ec))
      throw InputError(given.string() + ": the snapshot is split over " + std::to_string(count) +
                       " files (Header/NumFilesPerSnapshot), but " + path.string() + " is missing");
    SnapshotFile f(path);
    Header h = read_header(f);
    files.push_back({std::move(f), std::move(h)});
  }
  // Every file must describe the same snapshot (the per-file counts are added up by the caller).
  const Header& h0 = files.front().header;
  for (const OpenFile& o : files) {
    const Header& h = o.header;
    if (h.this_file.size() != h0.this_file.size())
      o.file.fail("Header/NumPart_ThisFile", "has " + std::to_string(h.this_file.size()) + " particle types, but " +
                                                 files.front().file.name() + " has " +
                                                 std::to_string(h0.this_file.size()));
    if (h.total != h0.total) o.file.fail("Header/NumPart_Total", "differs from " + files.front().file.name() + "'s");
    if (h.files != h0.files)
      o.file.fail("Header/NumFilesPerSnapshot", "differs from " + files.front().file.name() + "'s");
    if (h.mass_table != h0.mass_table)
      o.file.fail("Header/MassTable", "differs from " + files.front().file.name() + "'s");
  }
  return files;
}

// ----------------------------------------------------------------------------------------------------
// Units, cosmology and the conventions of the code that wrote the file.

struct Conventions {
  // The code units in cgs, where they came from, and the layout that suggests.
  double length_cm = kCmPerKpc, mass_g = 1e10 * kGramsPerSolarMass, velocity_cm_per_s = kCmPerSecondPerKmPerSecond;
  std::string units_source = "GADGET's defaults (the file has no unit attributes)";
  std::string layout = "GADGET-2";
  bool swift = false;  // SWIFT: no little-h factors, velocities already peculiar
  double h = 1;
  bool h_given = false;
  bool comoving = false;
  double a = 1;
  std::string comoving_source;
};

struct Scaling {
  double a_exponent = 0, h_exponent = 0;
};
// Defaults for datasets without their own scaling attributes.
Scaling default_scaling(const Conventions& c, const std::string& field) {
  if (c.swift) return field == "Coordinates" ? Scaling{1, 0} : Scaling{0, 0};
  if (field == "Coordinates") return {1, -1};
  if (field == "Velocities") return {0.5, 0};
  return {0, -1};  // Masses
}

Conventions read_conventions(const SnapshotFile& f, const Header& header) {
  Conventions c;
  const auto header_group = f.group("Header");
  const auto parameters = f.group("Parameters");
  const auto units = f.group("Units");
  const auto cosmology = f.group("Cosmology");

  // Three unit attributes from one place: all of them, or none there.
  auto take_units = [&](hid_t group, const std::string& path, const char* length, const char* mass, const char* third,
                        bool third_is_time) {
    const auto l = f.number(group, path, length), m = f.number(group, path, mass), v = f.number(group, path, third);
    if (!l && !m && !v) return false;
    for (auto [value, attribute] : {std::pair{l, length}, std::pair{m, mass}, std::pair{v, third}}) {
      if (!value) f.fail(path, "has some unit attributes but not " + std::string(attribute));
      if (!(*value > 0)) f.fail(path + "/" + attribute, "is " + figure(*value) + "; a unit must be positive");
    }
    c.length_cm = *l;
    c.mass_g = *m;
    c.velocity_cm_per_s = third_is_time ? *l / *v : *v;
    return true;
  };
  if (units && take_units(units->get(), "Units", "Unit length in cgs (U_L)", "Unit mass in cgs (U_M)",
                          "Unit time in cgs (U_t)", true)) {
    c.units_source = "Units (SWIFT's attributes)";
    c.layout = "SWIFT";
    c.swift = true;
  } else if (units && take_units(units->get(), "Units", "UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s",
                                 false)) {
    c.units_source = "Units";
  } else if (parameters && take_units(parameters->get(), "Parameters", "UnitLength_in_cm", "UnitMass_in_g",
                                      "UnitVelocity_in_cm_per_s", false)) {
    c.units_source = "Parameters";
    c.layout = "GADGET-4";
  } else if (take_units(header_group->get(), "Header", "UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s",
                        false)) {
    c.units_source = "Header";
    c.layout = "AREPO";
  }

  std::optional<double> h = f.number(header_group->get(), "Header", "HubbleParam");
  if (!h && parameters) h = f.number(parameters->get(), "Parameters", "HubbleParam");
  if (!h && cosmology) h = f.number(cosmology->get(), "Cosmology", "h");
  if (h && *h > 0) {
    c.h = *h;
    c.h_given = true;
  }

  std::optional<double> flag;
  if (parameters) flag = f.number(parameters->get(), "Parameters", "ComovingIntegrationOn");
  if (flag) {
    c.comoving = *flag != 0;
    c.comoving_source = "Parameters/ComovingIntegrationOn";
  } else if (cosmology && (flag = f.number(cosmology->get(), "Cosmology", "Cosmological run"))) {
    c.comoving = *flag != 0;
    c.comoving_source = "Cosmology/Cosmological run";
  } else if (header.redshift && *header.redshift > 0 && std::fabs(header.time * (1 + *header.redshift) - 1) < 1e-3) {
    c.comoving = true;
    c.comoving_source = "Header/Redshift, with Time = 1 / (1 + Redshift)";
  }
  if (c.comoving) {
    c.a = header.scale_factor.value_or(header.time);
    if (!(c.a > 0))
      f.fail(header.scale_factor ? "Header/Scale-factor" : "Header/Time",
             "is " + figure(c.a) + ", but a comoving run's scale factor must be positive");
  }
  return c;
}

// ----------------------------------------------------------------------------------------------------
// Physical values of every particle, type after type.

struct PhysicalBodies {
  std::vector<double> position_cm, velocity_cm_per_s,
      mass_g;  // positions and velocities: 3 per body
  std::vector<std::uint64_t> ids;
  bool all_ids = true;
  std::vector<ParticleTypeRange> types;
  std::vector<std::string> mass_sources;  // per type range: "MassTable" or "Masses"
  std::size_t size() const { return mass_g.size(); }
};

void append_type(PhysicalBodies& out, const OpenFile& o, const Conventions& c, int type) {
  const SnapshotFile& f = o.file;
  const std::size_t count = static_cast<std::size_t>(o.header.this_file[static_cast<std::size_t>(type)]);
  if (count == 0) return;
  const std::string path = "PartType" + std::to_string(type);
  const auto group = f.group(path);
  const std::string count_source = "Header/NumPart_ThisFile[" + std::to_string(type) + "]";
  if (!group) f.fail("has no " + path + " group, but " + count_source + " says " + commas(count) + " particles");
  const hid_t g = group->get();

  auto factor = [&](const char* field, double unit_cgs) {
    const Scaling d = default_scaling(c, field);
    const double a_exp = f.dataset_number(g, path, field, {"a_scaling", "a-scale exponent"}).value_or(d.a_exponent);
    const double h_exp = f.dataset_number(g, path, field, {"h_scaling", "h-scale exponent"}).value_or(d.h_exponent);
    return std::pow(c.a, a_exp) * std::pow(c.h, h_exp) * unit_cgs;
  };
  auto required = [&](const char* field, int columns) {
    auto values = f.rows(g, path, field, count, columns, count_source);
    if (!values) f.fail(path, "has no " + std::string(field) + " dataset");
    return std::move(*values);
  };
  const std::vector<double> position = required("Coordinates", 3);
  const std::vector<double> velocity = required("Velocities", 3);
  const double x_factor = factor("Coordinates", c.length_cm), v_factor = factor("Velocities", c.velocity_cm_per_s);
  for (double x : position) out.position_cm.push_back(x * x_factor);
  for (double v : velocity) out.velocity_cm_per_s.push_back(v * v_factor);

  const double table_mass = o.header.mass_table[static_cast<std::size_t>(type)];
  const double m_factor = factor("Masses", c.mass_g);
  if (table_mass > 0) {
    // GADGET's rule: a type with a MassTable entry has no Masses dataset; one written anyway is ignored.
    out.mass_g.insert(out.mass_g.end(), count, table_mass * m_factor);
  } else {
    const auto masses = f.rows(g, path, "Masses", count, 1, count_source);
    if (!masses)
      f.fail(path, "has no Masses dataset, and Header/MassTable[" + std::to_string(type) + "] is 0 (no common mass)");
    for (std::size_t i = 0; i < count; ++i) {
      if ((*masses)[i] < 0)
        f.fail(path + "/Masses", "row " + std::to_string(i) + " is a negative mass (" + figure((*masses)[i]) + ")");
      out.mass_g.push_back((*masses)[i] * m_factor);
    }
  }
  if (const auto ids = f.ids(g, path, count, count_source)) out.ids.insert(out.ids.end(), ids->begin(), ids->end());
  else out.all_ids = false;
  const std::string source = table_mass > 0 ? "MassTable" : "Masses";
  if (!out.types.empty() && out.types.back().type == type) {
    out.types.back().end = out.size();
    if (out.mass_sources.back() != source) out.mass_sources.back() = "MassTable and Masses";
  } else {
    out.types.push_back({type, out.size() - count, out.size()});
    out.mass_sources.push_back(source);
  }
}

// The mass-weighted median of one coordinate axis.
double weighted_median(const PhysicalBodies& b, int axis) {
  std::vector<std::size_t> order(b.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return b.position_cm[3 * i + axis] < b.position_cm[3 * j + axis]; });
  const double half = 0.5 * std::accumulate(b.mass_g.begin(), b.mass_g.end(), 0.0);
  double sum = 0;
  for (std::size_t i : order) {
    sum += b.mass_g[i];
    if (sum >= half) return b.position_cm[3 * i + axis];
  }
  return order.empty() ? 0 : b.position_cm[3 * order.back() + axis];
}

// The radius about the mass-weighted median position that holds half the mass (as virial_speed's).
double half_mass_radius(const PhysicalBodies& b) {
  const double centre[3] = {weighted_median(b, 0), weighted_median(b, 1), weighted_median(b, 2)};
  std::vector<std::pair<double, double>> radius_mass(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double dx = b.position_cm[3 * i] - centre[0], dy = b.position_cm[3 * i + 1] - centre[1],
                 dz = b.position_cm[3 * i + 2] - centre[2];
    radius_mass[i] = {std::sqrt(dx * dx + dy * dy + dz * dz), b.mass_g[i]};
  }
  std::sort(radius_mass.begin(), radius_mass.end());
  const double half = 0.5 * std::accumulate(b.mass_g.begin(), b.mass_g.end(), 0.0);
  double sum = 0;
  for (const auto& [r, m] : radius_mass) {
    sum += m;
    if (sum >= half) return r;
  }
  return radius_mass.empty() ? 0 : radius_mass.back().first;
}

// When every body lies in the box, moves each coordinate by whole box lengths to within half a box of the mass-weighted
// circular mean of its axis. Returns the line that says so ("" when not periodic).
std::string unwrap_periodic_box(PhysicalBodies& b, const std::vector<double>& sides_cm) {
  if (sides_cm.empty()) return "";  // no BoxSize: an isolated system
  for (double side : sides_cm)
    if (!(side > 0)) return "";
  const double tolerance = 1e-6;
  for (std::size_t i = 0; i < b.size(); ++i)
    for (int axis = 0; axis < 3; ++axis) {
      const double side = sides_cm[sides_cm.size() == 3 ? axis : 0];
      const double x = b.position_cm[3 * i + axis];
      if (x < -tolerance * side || x > side * (1 + tolerance)) return "";  // not a periodic box: a body outside it
    }
  double moved = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const double side = sides_cm[sides_cm.size() == 3 ? axis : 0];
    double sin_sum = 0, cos_sum = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
      const double angle = 2 * std::numbers::pi * b.position_cm[3 * i + axis] / side;
      sin_sum += b.mass_g[i] * std::sin(angle);
      cos_sum += b.mass_g[i] * std::cos(angle);
    }
    const double centre = side * std::atan2(sin_sum, cos_sum) / (2 * std::numbers::pi);
    for (std::size_t i = 0; i < b.size(); ++i) {
      double& x = b.position_cm[3 * i + axis];
      const double shift = side * std::round((x - centre) / side);
      if (shift != 0) moved += 1;
      x -= shift;
    }
  }
  std::string sides;
  for (std::size_t s = 0; s < sides_cm.size(); ++s)
    sides += (s ? " x " : "") + figure(sides_cm[s] / kCmPerKpc) + " kpc";
  return "periodic box (Header/BoxSize " + sides +
         ", every body inside): unwrapped around the mass-weighted circular mean (" +
         commas(static_cast<std::uint64_t>(moved)) +
         " coordinates moved by a box length) and simulated as an isolated system, without periodic images";
}

}  // namespace

Snapshot read_hdf5_snapshot(const fs::path& given) {
  const QuietHdf5Errors quiet;
  const std::vector<OpenFile> files = open_snapshot(given);
  const Header& header = files.front().header;
  const Conventions c = read_conventions(files.front().file, header);
  const std::string name = given.string();

  std::uint64_t total = 0;
  for (std::uint64_t n : header.total) total += n;
  if (total == 0) throw InputError(name + ": Header/NumPart_Total: the snapshot holds no particles");
  if (files.size() == 1) {
    const Header& h = files.front().header;
    for (std::size_t t = 0; t < h.total.size(); ++t)
      if (h.this_file[t] != h.total[t])
        files.front().file.fail("Header", "NumPart_ThisFile[" + std::to_string(t) + "] is " + commas(h.this_file[t]) +
                                              " but NumPart_Total[" + std::to_string(t) + "] is " + commas(h.total[t]) +
                                              ", and NumFilesPerSnapshot is 1");
  } else {
    for (std::size_t t = 0; t < header.total.size(); ++t) {
      std::uint64_t sum = 0;
      for (const OpenFile& o : files) sum += o.header.this_file[t];
      if (sum != header.total[t])
        throw InputError(name + ": the files' NumPart_ThisFile[" + std::to_string(t) + "] add up to " + commas(sum) +
                         ", but Header/NumPart_Total[" + std::to_string(t) + "] is " + commas(header.total[t]));
    }
  }

  PhysicalBodies physical;
  for (int type = 0; type < static_cast<int>(header.total.size()); ++type)
    for (const OpenFile& o : files) append_type(physical, o, c, type);

  std::vector<double> box_cm;
  const Scaling box_scaling = default_scaling(c, "Coordinates");
  for (double side : header.box_size)
    box_cm.push_back(side * std::pow(c.a, box_scaling.a_exponent) * std::pow(c.h, box_scaling.h_exponent) *
                     c.length_cm);
  const std::string periodic = unwrap_periodic_box(physical, box_cm);

  const double total_mass_g = std::accumulate(physical.mass_g.begin(), physical.mass_g.end(), 0.0);
  if (!(total_mass_g > 0)) throw InputError(name + ": every particle has zero mass: nothing for gravity to act on");

  // The lab's units: the file's when they have G = 1 already, else total mass and half-mass radius.
  const double file_gravity = kGravityCgs * c.mass_g / (c.length_cm * c.velocity_cm_per_s * c.velocity_cm_per_s);
  const bool file_units_are_lab_units = std::fabs(file_gravity - 1) < 1e-3;
  PhysicalUnits units;
  std::string scale_line;
  if (file_units_are_lab_units) {
    units = {c.length_cm, c.mass_g, c.velocity_cm_per_s};
    scale_line = "the file's units have G = 1: they are the lab's, nothing rescaled";
  } else {
    const double radius_cm = half_mass_radius(physical);
    if (!(radius_cm > 0))
      throw InputError(name +
                       ": half the mass sits at one point: the half-mass radius, the lab's unit of length, is 0");
    units = units_with_unit_gravity(radius_cm, total_mass_g);
    scale_line = "G = " + figure(file_gravity) +
                 " in the file's units: rescaled to G = 1 with the total mass and the half-mass radius";
  }

  Snapshot snapshot;
  const std::size_t n = physical.size();
  Bodies& b = snapshot.bodies;
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float values[7] = {static_cast<float>(physical.position_cm[3 * i] / units.length_cm),
                             static_cast<float>(physical.position_cm[3 * i + 1] / units.length_cm),
                             static_cast<float>(physical.position_cm[3 * i + 2] / units.length_cm),
                             static_cast<float>(physical.velocity_cm_per_s[3 * i] / units.velocity_cm_per_s),
                             static_cast<float>(physical.velocity_cm_per_s[3 * i + 1] / units.velocity_cm_per_s),
                             static_cast<float>(physical.velocity_cm_per_s[3 * i + 2] / units.velocity_cm_per_s),
                             static_cast<float>(physical.mass_g[i] / units.mass_g)};
    for (float v : values)
      if (!std::isfinite(v))
        throw InputError(name + ": body " + std::to_string(i) +
                         " does not fit the lab's single precision after the unit conversion (a position or velocity "
                         "about 1e38 times the system's size or speed)");
    b.x[i] = values[0], b.y[i] = values[1], b.z[i] = values[2];
    b.vx[i] = values[3], b.vy[i] = values[4], b.vz[i] = values[5];
    b.mass[i] = values[6];
  }
  check_snapshot_speeds(name, b);

  // The time: a comoving file's Time is a scale factor, not a time.
  if (!c.comoving) {
    const double time_h_exponent =
        default_scaling(c, "Coordinates").h_exponent - default_scaling(c, "Velocities").h_exponent;
    snapshot.time = header.time * std::pow(c.h, time_h_exponent) * (c.length_cm / c.velocity_cm_per_s) / units.time_s();
  }

  SnapshotMeta& meta = snapshot.meta;
  meta.units = units;
  meta.types = physical.types;
  if (physical.all_ids) meta.ids = std::move(physical.ids);

  std::string what = name + ": HDF5 snapshot, " + c.layout + " layout, " +
                     (files.size() > 1 ? std::to_string(files.size()) + " files, " : std::string()) + commas(n) +
                     " bodies:";
  for (std::size_t r = 0; r < meta.types.size(); ++r) {
    const ParticleTypeRange& t = meta.types[r];
    what += (r ? ", " : " ") + std::string(particle_type_name(t.type)) + " " + commas(t.end - t.begin) +
            " (mass from " + physical.mass_sources[r] + ")";
  }
  meta.description.push_back(what);
  std::string conversion = "units from " + c.units_source + ": length " + figure(c.length_cm) + " cm, mass " +
                           figure(c.mass_g) + " g, velocity " + figure(c.velocity_cm_per_s) + " cm/s";
  if (c.h_given && !c.swift && c.h != 1) conversion += "; little h = " + figure(c.h) + " (lengths and masses / h)";
  if (c.comoving)
    conversion += "; comoving (" + c.comoving_source + ") at a = " + figure(c.a) + ": positions x a, " +
                  (c.swift ? std::string("velocities peculiar as written") : std::string("velocities x sqrt(a)")) +
                  ", the lab's clock starts at 0";
  if (!physical.all_ids) conversion += "; no ParticleIDs for every type: bodies are numbered 1..N when saved";
  meta.description.push_back(conversion);
  if (!periodic.empty()) meta.description.push_back(periodic);
  meta.description.push_back(scale_line + ": 1 length = " + figure(units.length_cm / kCmPerKpc) +
                             " kpc, 1 mass = " + figure(units.mass_g / kGramsPerSolarMass) +
                             " Msun, 1 velocity = " + figure(units.velocity_cm_per_s / kCmPerSecondPerKmPerSecond) +
                             " km/s, 1 time = " + figure(units.time_s() / 3.15576e13) + " Myr");
  for (const ParticleTypeRange& t : meta.types)
    if (t.type == 0)
      meta.description.push_back("the gas (PartType0) moves as collisionless bodies: the lab has no gas pressure");
  return snapshot;
}

std::string hdf5_library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace nbl

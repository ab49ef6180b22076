// Tipsy binary snapshots, the format other N-body codes (ChaNGa, Gadget tools, pynbody) read.
// Bodies are stored as dark-matter particles. Writing uses the standard big-endian ("XDR") layout;
// reading accepts big- and little-endian files and checks everything before returning: a truncated
// file, a header whose counts disagree with the file size, any NaN/inf value, or a speed above 1e6
// times the scene's virial speed (sim/snapshot.hpp check_snapshot_speeds) is an InputError that says
// what is wrong, and nothing is returned. A gzip-compressed file (`.tipsy.gz`, as the shipped bookmarks
// are) is decompressed first. Most callers go through sim/snapshot.hpp, which picks the format by name.
#pragma once
#include <filesystem>

#include "sim/bodies.hpp"

namespace nbl {

struct TipsySnapshot {
  double time = 0;
  Bodies bodies;
};

TipsySnapshot read_tipsy(const std::filesystem::path& file);
// All-or-nothing: the file appears complete or not at all (file_util.hpp). `softening` goes into every
// particle's eps field, so codes that read it use the same force law.
void write_tipsy(const std::filesystem::path& file, const Bodies& bodies, double time = 0, float softening = 0);

}  // namespace nbl

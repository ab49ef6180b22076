// Bookmarks: the whole state of a run, to come back to: the bodies as a Tipsy snapshot
// (NAME.tipsy, with the simulation time; NAME.hdf5 when the name asks for it, sim/snapshot.hpp) and the
// settings beside it (NAME.json, the settings file's format, N included). The panel saves them into a folder of the user's (kUserBookmarkDir) and lists
// them after the shipped ones (assets/bookmarks: the default collision's key moments at 65,536
// bodies, so that a teacher jumps to the tails without waiting through the approach). From the command
// line a bookmark is just those two files: `nbodylab --settings B.json --load B.tipsy`, and the same
// for `render`.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "sim/settings.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

class Simulation;

inline constexpr const char* kUserBookmarkDir = "nbodylab-bookmarks";

struct Bookmark {
  std::string name;                // the file stem: "collision-tails"
  std::filesystem::path tipsy;     // the bodies: NAME.tipsy (NAME.tipsy.gz for the shipped ones), or NAME.hdf5
  std::filesystem::path settings;  // NAME.json
  bool shipped = false;            // from assets/bookmarks
};

// The shipped bookmarks, then those in `user_dir`, each sorted by name; a .tipsy or .hdf5 without its
// .json is left out. Folders that do not exist hold none.
std::vector<Bookmark> list_bookmarks(const std::filesystem::path& user_dir);

// Writes NAME.tipsy and NAME.json into `dir` (made if missing); a name ending in .hdf5 (or .h5) writes
// NAME.hdf5 instead of NAME.tipsy, in GADGET-4's layout. `name` must be a plain file name (letters,
// digits, - _ .); InputError otherwise. Throws Error when a file cannot be written. The paths returned
// are absolute: the panel's status line says where the files went.
Bookmark save_bookmark(const std::filesystem::path& dir, const std::string& name, const Settings& settings,
                       Simulation& simulation);

struct LoadedBookmark {
  Settings settings;
  Snapshot snapshot;
};
// Reads both files; `base` supplies what the JSON leaves out. Throws InputError naming a bad file.
LoadedBookmark read_bookmark(const Bookmark& bookmark, const Settings& base);

}  // namespace nbl

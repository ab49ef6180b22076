#include "app/core/bookmarks.hpp"

#include <algorithm>
#include <cctype>

#include "app/core/simulation.hpp"
#include "sim/error.hpp"
#include "sim/resources.hpp"
#include "sim/settings_io.hpp"

namespace nbl {

namespace fs = std::filesystem;

namespace {

std::vector<Bookmark> bookmarks_in(const fs::path& dir, bool shipped) {
  std::vector<Bookmark> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    // NAME.tipsy, NAME.tipsy.gz (the shipped ones, compressed) or NAME.hdf5
    std::string name = entry.path().filename().string();
    if (name.ends_with(".tipsy.gz")) name.resize(name.size() - 9);
    else if (name.ends_with(".tipsy")) name.resize(name.size() - 6);
    else if (name.ends_with(".hdf5")) name.resize(name.size() - 5);
    else continue;
    const fs::path json = dir / (name + ".json");
    if (name.empty() || !fs::is_regular_file(json, ec)) continue;
    found.push_back({name, entry.path(), json, shipped});
  }
  std::sort(found.begin(), found.end(), [](const Bookmark& a, const Bookmark& b) { return a.name < b.name; });
  return found;
}

}  // namespace

std::vector<Bookmark> list_bookmarks(const fs::path& user_dir) {
  std::vector<Bookmark> all;
  try {
    all = bookmarks_in(find_resource("assets/bookmarks"), true);
  } catch (const Error&) {  // an install without them: the user's own still list
  }
  const auto own = bookmarks_in(user_dir, false);
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

Bookmark save_bookmark(const fs::path& dir, const std::string& name, const Settings& settings, Simulation& simulation) {
  const bool plain = !name.empty() && name.size() <= 64 && name.front() != '.' &&
                     std::all_of(name.begin(), name.end(),
                                 [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.'; });
  if (!plain) throw InputError("a bookmark's name is a plain file name: letters, digits, - _ . (got \"" + name + "\")");
  const fs::path named(name);
  const bool hdf5 = is_hdf5_file_name(named);
  const std::string stem = hdf5 ? named.stem().string() : name;
  if (stem.empty()) throw InputError("a bookmark's name needs more than an extension (got \"" + name + "\")");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create the bookmark folder " + dir.string() + ": " + ec.message());
  const fs::path folder = fs::absolute(dir);
  Bookmark b{stem, folder / (stem + (hdf5 ? ".hdf5" : ".tipsy")), folder / (stem + ".json"), false};
  Settings s = settings;
  s.body_count = static_cast<std::int64_t>(simulation.body_count());  // restoring needs no tuning or default
  write_snapshot(b.tipsy, simulation.snapshot(), static_cast<float>(simulation.softening()));
  save_settings(b.settings, s);
  return b;
}

LoadedBookmark read_bookmark(const Bookmark& bookmark, const Settings& base) {
  LoadedBookmark loaded;
  loaded.settings = load_settings(bookmark.settings, base);
  loaded.snapshot = read_snapshot(bookmark.tipsy);
  return loaded;
}

}  // namespace nbl

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
    // NAME.tipsy, or NAME.tipsy.gz (the shipped ones, compressed)
    std::string name = entry.path().filename().string();
    if (name.ends_with(".gz")) name.resize(name.size() - 3);
    if (!name.ends_with(".tipsy")) continue;
    name.resize(name.size() - 6);
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
                     std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.'; });
  if (!plain) throw InputError("a bookmark's name is a plain file name: letters, digits, - _ . (got \"" + name + "\")");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create the bookmark folder " + dir.string() + ": " + ec.message());
  Bookmark b{name, dir / (name + ".tipsy"), dir / (name + ".json"), false};
  Settings s = settings;
  s.body_count = static_cast<std::int64_t>(simulation.body_count());  // restoring needs no tuning or default
  write_tipsy(b.tipsy, simulation.bodies(), simulation.time(), static_cast<float>(simulation.softening()));
  save_settings(b.settings, s);
  return b;
}

LoadedBookmark read_bookmark(const Bookmark& bookmark, const Settings& base) {
  LoadedBookmark loaded;
  loaded.settings = load_settings(bookmark.settings, base);
  loaded.snapshot = read_tipsy(bookmark.tipsy);
  return loaded;
}

}  // namespace nbl

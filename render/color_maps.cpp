#include "render/color_maps.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/resources.hpp"

namespace nbl {

namespace {

using nlohmann::json;

struct Stop {
  float at;
  std::array<float, 3> rgb;
};

ColorMap sample_stops(const std::string& name, std::vector<Stop> stops, bool discrete) {
  std::sort(stops.begin(), stops.end(), [](const Stop& a, const Stop& b) { return a.at < b.at; });
  ColorMap map{name, {}, discrete};
  map.texels.resize(kColorMapTexels);
  for (int i = 0; i < kColorMapTexels; ++i) {
    const float t = static_cast<float>(i) / (kColorMapTexels - 1);
    auto hi = std::find_if(stops.begin(), stops.end(), [t](const Stop& s) { return s.at >= t; });
    if (hi == stops.begin()) {
      map.texels[i] = hi->rgb;
      continue;
    }
    if (hi == stops.end()) {
      map.texels[i] = stops.back().rgb;
      continue;
    }
    const auto lo = hi - 1;
    if (discrete) {
      map.texels[i] = (hi->at <= t) ? hi->rgb : lo->rgb;
      continue;
    }
    const float f = (t - lo->at) / std::max(hi->at - lo->at, 1e-6f);
    for (int c = 0; c < 3; ++c) map.texels[i][c] = lo->rgb[c] + f * (hi->rgb[c] - lo->rgb[c]);
  }
  return map;
}

}  // namespace

ColorMapSet parse_color_maps(const std::string& text, const std::string& origin) {
  auto fail = [&](const std::string& what) -> Error { return Error(origin + ": " + what); };
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw fail(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("maps") || !j.contains("color_modes"))
    throw fail("expected an object with \"maps\" and \"color_modes\"");
  const json& maps = j["maps"];
  ColorMapSet set;
  for (const EnumName& color_mode : kColorModeNames) {
    const std::string mode(color_mode.name);
    if (!j["color_modes"].contains(mode)) throw fail("color_modes has no entry for \"" + mode + "\"");
    const json& entry = j["color_modes"][mode];
    std::vector<std::string> names;
    if (entry.is_string()) names.push_back(entry.get<std::string>());
    else if (entry.is_array() && !entry.empty() && entry.size() <= kMaxPalettes)
      for (const json& e : entry) names.push_back(e.is_string() ? e.get<std::string>() : std::string());
    if (names.empty() || std::find(names.begin(), names.end(), std::string()) != names.end())
      throw fail("color_modes." + mode + " must name a map, or list 1 to " + std::to_string(kMaxPalettes) +
                 " maps (one palette per group of bodies)");
    for (const std::string& name : names) {
      if (!maps.contains(name))
        throw fail("color_modes." + mode + " names \"" + name + "\", which maps does not define");
      const json& map = maps[name];
      if (!map.contains("stops") || !map["stops"].is_array() || map["stops"].size() < 2)
        throw fail("maps." + name + ".stops must list at least two [position, [r, g, b]] stops");
      std::vector<Stop> stops;
      for (const json& s : map["stops"]) {
        if (!s.is_array() || s.size() != 2 || !s[0].is_number() || !s[1].is_array() || s[1].size() != 3)
          throw fail("maps." + name + ": a stop must look like [0.5, [1.0, 0.8, 0.2]] (got " + s.dump() + ")");
        Stop stop{s[0].get<float>(), {}};
        for (int c = 0; c < 3; ++c) {
          if (!s[1][c].is_number()) throw fail("maps." + name + ": colour components must be numbers");
          stop.rgb[c] = s[1][c].get<float>();
        }
        stops.push_back(stop);
      }
      set.by_mode[static_cast<std::size_t>(color_mode.value)].push_back(
          sample_stops(name, std::move(stops), map.value("discrete", false)));
    }
  }
  return set;
}

ColorMapSet load_color_maps() {
  const auto path = find_resource("assets/colormaps.json");
  return parse_color_maps(read_text_file(path), path.string());
}

}  // namespace nbl

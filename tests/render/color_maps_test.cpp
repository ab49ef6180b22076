#include "render/color_maps.hpp"

#include <gtest/gtest.h>

#include "sim/error.hpp"

namespace nbl {
namespace {

TEST(ColorMaps, ShippedFileHasAMapForEveryColorMode) {
  const ColorMapSet maps = load_color_maps();
  for (const EnumName& mode : kColorModeNames) {
    const ColorMap& map = maps[static_cast<ColorMode>(mode.value)];
    EXPECT_FALSE(map.name.empty());
    ASSERT_EQ(map.texels.size(), static_cast<std::size_t>(kColorMapTexels));
    for (const auto& t : map.texels)
      for (float c : t) EXPECT_TRUE(c >= 0.0f && c <= 1.0f);
  }
  EXPECT_TRUE(maps[ColorMode::warp_id].discrete);
}

std::string maps_json(const std::string& stops, bool discrete = false) {
  std::string modes;
  for (const EnumName& mode : kColorModeNames) modes += std::string(modes.empty() ? "" : ",") + "\"" + std::string(mode.name) + "\":\"a\"";
  return "{\"color_modes\":{" + modes + "},\"maps\":{\"a\":{\"discrete\":" + (discrete ? "true" : "false") +
         ",\"stops\":" + stops + "}}}";
}

TEST(ColorMaps, InterpolatesBetweenStops) {
  const auto maps = parse_color_maps(maps_json("[[0,[0,0,0]],[1,[1,0.5,0]]]"), "test");
  const auto& texels = maps[ColorMode::speed].texels;
  EXPECT_FLOAT_EQ(texels.front()[0], 0.0f);
  EXPECT_FLOAT_EQ(texels.back()[0], 1.0f);
  EXPECT_NEAR(texels[128][0], 128.0f / 255.0f, 1e-5f);
  EXPECT_NEAR(texels[128][1], 64.0f / 255.0f, 1e-5f);
}

TEST(ColorMaps, DiscreteMapsStepInsteadOfBlending) {
  const auto maps = parse_color_maps(maps_json("[[0,[1,0,0]],[0.5,[0,1,0]]]", true), "test");
  const auto& texels = maps[ColorMode::speed].texels;
  EXPECT_FLOAT_EQ(texels[100][0], 1.0f);
  EXPECT_FLOAT_EQ(texels[200][1], 1.0f);
  EXPECT_FLOAT_EQ(texels[200][0], 0.0f);
}

TEST(ColorMaps, ErrorsNameTheFileAndTheProblem) {
  try {
    parse_color_maps("{\"maps\":{},\"color_modes\":{}}", "assets/x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("assets/x.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("speed"), std::string::npos);
  }
  EXPECT_THROW(parse_color_maps("not json", "f"), Error);
  EXPECT_THROW(parse_color_maps(maps_json("[[0,[1,0,0]]]"), "f"), Error);      // one stop
  EXPECT_THROW(parse_color_maps(maps_json("[[0,[1,0]],[1,[1,1,1]]]"), "f"), Error);  // two components
}

}  // namespace
}  // namespace nbl

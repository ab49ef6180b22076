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
  for (const EnumName& mode : kColorModeNames)
    modes += std::string(modes.empty() ? "" : ",") + "\"" + std::string(mode.name) + "\":\"a\"";
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

TEST(ColorMaps, GalaxyOfOriginHasAPaletteForEachGalaxyAndTheHalosAndDensityAPerceptualRamp) {
  const ColorMapSet maps = load_color_maps();
  const auto& origin = maps.palettes(ColorMode::origin);
  ASSERT_EQ(origin.size(), 3u) << "one palette per galaxy of the collision, the last for the dark halos";
  const auto& larger = origin[0].texels[128];
  const auto& smaller = origin[1].texels[128];
  const auto& dark = origin[2].texels[128];
  EXPECT_GT(larger[2], larger[0]) << "the larger galaxy is blue";
  EXPECT_GT(smaller[0], smaller[2]) << "the smaller one is orange";
  EXPECT_GT(dark[2], dark[1]) << "the halos are violet";
  EXPECT_LT(dark[0] + dark[1] + dark[2], 0.6f * (larger[0] + larger[1] + larger[2])) << "and dim beside the stars";
  // Density: luminance rises monotonically from dark to bright (a perceptual map, read as more = brighter).
  const auto& ramp = maps[ColorMode::density].texels;
  float previous = -1;
  for (std::size_t i = 0; i < ramp.size(); i += 16) {
    const float luma = 0.2126f * ramp[i][0] + 0.7152f * ramp[i][1] + 0.0722f * ramp[i][2];
    EXPECT_GT(luma, previous) << "texel " << i;
    previous = luma;
  }
}

TEST(ColorMaps, AModeMayListPalettesButNotTooManyOrNone) {
  std::string modes;
  for (const EnumName& mode : kColorModeNames)
    modes += std::string(modes.empty() ? "" : ",") + "\"" + std::string(mode.name) +
             "\":" + (mode.value == static_cast<int>(ColorMode::origin) ? "LIST" : "\"a\"");
  auto with = [&](const std::string& list) {
    std::string m = modes;
    m.replace(m.find("LIST"), 4, list);
    return "{\"color_modes\":{" + m + "},\"maps\":{\"a\":{\"stops\":[[0,[0,0,0]],[1,[1,1,1]]]}}}";
  };
  EXPECT_EQ(parse_color_maps(with("[\"a\",\"a\",\"a\"]"), "t").palettes(ColorMode::origin).size(), 3u);
  EXPECT_THROW(parse_color_maps(with("[]"), "t"), Error);
  EXPECT_THROW(parse_color_maps(with("[\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]"), "t"), Error);
  EXPECT_THROW(parse_color_maps(with("[\"a\",3]"), "t"), Error);
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
  EXPECT_THROW(parse_color_maps(maps_json("[[0,[1,0,0]]]"), "f"), Error);            // one stop
  EXPECT_THROW(parse_color_maps(maps_json("[[0,[1,0]],[1,[1,1,1]]]"), "f"), Error);  // two components
}

}  // namespace
}  // namespace nbl

// An automatic check that a frame holds detail (that it is a picture worth projecting, not fog), on the 8-bit
// image as it is shown, so the same measure judges a fresh render, a screenshot and an old PNG.
//
// The measure is local contrast: how far each pixel's luma differs from the mean of its neighbourhood,
// at three scales (boxes of 3, 7 and 15 pixels), as an RMS over the part of the frame that shows the
// scene. Stars, thin arms and the steps between a core and its surroundings are local differences; fog
// is the absence of them: a smooth glow whose every pixel equals its neighbours' mean. Saturation alone
// does not tell the two apart (a fog has few saturated pixels; a crisp picture needs none), and the
// share of the luma range in use does not either (a smooth blob runs through every level).
//
// "The part that shows the scene" is where the 31x31-pixel mean luma stands above the background (the
// frame's median luma, as most of a frame is sky) by kContentMargin: counting the whole frame would
// let a small galaxy in a large black frame pass or fail on its framing alone. A frame needs
// kMinContentShare of it to pass at all, so that a black frame with three stars does not.
#pragma once
#include <string>

#include "render/image.hpp"

namespace nbl {

struct PictureDetail {
  double local_contrast = 0;  // RMS of luma minus its local mean over the content, luma in [0, 1]
  double content_share = 0;   // share of the frame that shows the scene
  double background = 0;      // the frame's median luma, in [0, 1]
  // Local contrast at each scale (box 3, 7, 15), for the curious: fog loses the small ones first.
  double contrast_by_scale[3] = {0, 0, 0};
};

// Structure: fog and haze have as little contrast over 15 pixels as over 3 (a flat, noisy veil); a picture
// with arms, tails and cores that stand out from their surroundings has more at the larger scale. The
// contrast at box 15 must reach kMinStructureContrast. The earlier renderer (additive sprites at a fixed exposure) at 1M, t = 6 (the
// same frame as the new renders, H100, benchmarks/h100/2026-11-24/picture-1m-t6-old-renderer.png) measures 0.040
// there and fails; the new renderer's 10M frame at t = 6 0.057, its 1M frame 0.091, the old renderer at
// 65,536 bodies 0.051 (docs/screenshots/render-collision.png, not fog).
//
// Thresholds, stated in docs/window.md ("The image check"). The old renderer's 1M fog
// (benchmarks/h100/2026-11-23/picture-1m-old-renderer.png) measures 0.028; the same renderer at 65,536 bodies on Mesa
// (960x540, t = 6) 0.059, which is not fog; the new renderer 0.06-0.10 on the 65k collision (CI).
inline constexpr double kMinLocalContrast = 0.035;
inline constexpr double kMinStructureContrast = 0.048;
inline constexpr double kMinContentShare = 0.02;
inline constexpr double kContentMargin = 0.03;

PictureDetail picture_detail(const Image& image);
bool passes(const PictureDetail& detail);
// One line: "local contrast 0.061 (>= 0.035: pass), content 14.2% of the frame (>= 2%)".
std::string describe(const PictureDetail& detail);

}  // namespace nbl

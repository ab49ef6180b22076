#include "app/imgui_layer.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <filesystem>

#include "app/window.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

const char* kPanelSymbols = "θΔε±×·≥≤→…²³⁻¹µ–—";

// A proportional font reads better than ImGui's built-in bitmap font; DejaVu Sans ships with most
// desktops (Debian: fonts-dejavu-core). Without it the built-in font is used.
// Loads the panel's font at 15 px x scale and the caption's at `caption_px`; returns whether DejaVu
// was found (else ImGui's built-in font, ASCII only, at both sizes).
bool load_fonts(float scale, float caption_px, ImFont** caption) {
  ImGuiIO& io = ImGui::GetIO();
  // Latin plus the few symbols the panel writes (theta, plus-minus, arrows, multiplication sign).
  static ImVector<ImWchar> ranges;
  if (ranges.empty()) {
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
    builder.AddText(kPanelSymbols);
    builder.BuildRanges(&ranges);
  }
  for (const char* path : {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                           "/usr/share/fonts/TTF/DejaVuSans.ttf",
                           "/usr/share/fonts/dejavu/DejaVuSans.ttf"}) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && io.Fonts->AddFontFromFileTTF(path, 15.0f * scale, nullptr, ranges.Data)) {
      *caption = io.Fonts->AddFontFromFileTTF(path, caption_px, nullptr, ranges.Data);
      return true;
    }
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  io.Fonts->AddFontDefault(&config);
  ImFontConfig large;
  large.SizePixels = caption_px;
  *caption = io.Fonts->AddFontDefault(&large);
  return false;
}

// For projectors: pure black behind white text, saturated accents, visible frames and borders, nothing
// translucent (a washed-out projector loses low-contrast greys first).
void apply_high_contrast(ImGuiStyle& style) {
  ImGui::StyleColorsDark(&style);
  ImVec4* c = style.Colors;
  const ImVec4 white(1, 1, 1, 1), black(0, 0, 0, 1), yellow(1.0f, 0.85f, 0.0f, 1), cyan(0.0f, 0.85f, 1.0f, 1);
  c[ImGuiCol_Text] = white;
  c[ImGuiCol_TextDisabled] = ImVec4(0.75f, 0.75f, 0.75f, 1);
  c[ImGuiCol_WindowBg] = black;
  c[ImGuiCol_PopupBg] = black;
  c[ImGuiCol_Border] = white;
  c[ImGuiCol_FrameBg] = ImVec4(0.12f, 0.12f, 0.12f, 1);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.25f, 0.25f, 0.25f, 1);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.35f, 0.35f, 0.35f, 1);
  c[ImGuiCol_Header] = ImVec4(0.0f, 0.30f, 0.60f, 1);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.0f, 0.42f, 0.80f, 1);
  c[ImGuiCol_HeaderActive] = ImVec4(0.0f, 0.50f, 0.95f, 1);
  c[ImGuiCol_Button] = ImVec4(0.0f, 0.30f, 0.60f, 1);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.0f, 0.42f, 0.80f, 1);
  c[ImGuiCol_ButtonActive] = ImVec4(0.0f, 0.50f, 0.95f, 1);
  c[ImGuiCol_CheckMark] = yellow;
  c[ImGuiCol_SliderGrab] = yellow;
  c[ImGuiCol_SliderGrabActive] = white;
  c[ImGuiCol_PlotLines] = cyan;
  c[ImGuiCol_PlotHistogram] = yellow;
  c[ImGuiCol_Separator] = white;
  style.FrameBorderSize = 1.0f;
  style.WindowBorderSize = 1.0f;
}

void apply_style(float scale, PanelTheme theme) {
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();  // sizes from scratch: ScaleAllSizes below multiplies what is there
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowBorderSize = 0.0f;
  style.ItemSpacing = ImVec2(8, 5);
  style.FramePadding = ImVec2(6, 3);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.075f, 0.08f, 0.105f, 0.94f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.28f, 0.45f, 0.75f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.36f, 0.58f, 0.85f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.30f, 0.42f, 0.68f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(0.14f, 0.16f, 0.22f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.20f, 0.24f, 0.33f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.20f, 0.30f, 0.50f, 0.85f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.28f, 0.40f, 0.66f, 1.0f);
  c[ImGuiCol_CheckMark] = ImVec4(0.55f, 0.78f, 1.0f, 1.0f);
  c[ImGuiCol_SliderGrab] = ImVec4(0.45f, 0.65f, 1.0f, 1.0f);
  c[ImGuiCol_PlotLines] = ImVec4(0.55f, 0.78f, 1.0f, 1.0f);
  c[ImGuiCol_PlotHistogram] = ImVec4(0.95f, 0.65f, 0.25f, 1.0f);
  if (theme == PanelTheme::high_contrast) apply_high_contrast(style);
  style.ScaleAllSizes(scale);
}

}  // namespace

ImGuiLayer::ImGuiLayer(Window& window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; do not litter the working directory
  content_scale_ = window.content_scale();
  apply_style(content_scale_, theme_);
  unicode_font_ = load_fonts(content_scale_, std::max(30.0f, 36.0f * content_scale_), &caption_font_);
  if (!ImGui_ImplGlfw_InitForOpenGL(window.handle(), true) || !ImGui_ImplOpenGL3_Init("#version 450 core")) {
    ImGui::DestroyContext();
    throw Error("Dear ImGui could not start on this OpenGL context");
  }
}

void ImGuiLayer::set_look(float ui_scale, PanelTheme theme) {
  if (ui_scale == ui_scale_ && theme == theme_) return;
  ui_scale_ = ui_scale;
  theme_ = theme;
  rebuild_pending_ = true;
}

void ImGuiLayer::rebuild() {
  rebuild_pending_ = false;
  const float scale = content_scale_ * ui_scale_;
  apply_style(scale, theme_);
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  unicode_font_ = load_fonts(scale, std::max(30.0f, 36.0f * scale), &caption_font_);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::begin_frame() {
  if (rebuild_pending_) rebuild();  // between frames: no draw list refers to the old atlas
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void ImGuiLayer::render() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace nbl

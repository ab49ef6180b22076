#include "app/imgui_layer.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <filesystem>

#include "app/window.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

const char* kPanelSymbols = "θΔε±×·≥≤→…²³⁻¹µ–—";

// A proportional font reads better than ImGui's built-in bitmap font; DejaVu Sans ships with most
// desktops (Debian: fonts-dejavu-core). Without it the built-in font is used.
bool load_font(float scale) {
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
      return true;
    }
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  io.Fonts->AddFontDefault(&config);
  return false;
}

void apply_style(float scale) {
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
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
  style.ScaleAllSizes(scale);
}

}  // namespace

ImGuiLayer::ImGuiLayer(Window& window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; do not litter the working directory
  const float scale = window.content_scale();
  apply_style(scale);
  unicode_font_ = load_font(scale);
  if (!ImGui_ImplGlfw_InitForOpenGL(window.handle(), true) || !ImGui_ImplOpenGL3_Init("#version 450 core")) {
    ImGui::DestroyContext();
    throw Error("Dear ImGui could not start on this OpenGL context");
  }
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::begin_frame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void ImGuiLayer::render() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace nbl

#include "app/lab/imgui_layer.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>

#include "app/lab/surface.hpp"
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
  for (const char* path : {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
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

ImGuiLayer::ImGuiLayer(Surface& surface) : surface_(surface), glfw_(surface.glfw_window() != nullptr) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed; do not litter the working directory
  content_scale_ = surface.content_scale();
  apply_style(content_scale_, theme_);
  unicode_font_ = load_fonts(content_scale_, std::max(30.0f, 36.0f * content_scale_), &caption_font_);
  if (glfw_ && !ImGui_ImplGlfw_InitForOpenGL(surface.glfw_window(), true)) {
    ImGui::DestroyContext();
    throw Error("Dear ImGui could not start on this window");
  }
  if (!glfw_) {
    io.BackendPlatformName = "nbodylab offscreen";
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no mouse until a script moves one
  }
  if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
    if (glfw_) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    throw Error("Dear ImGui could not start on this OpenGL context");
  }
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  if (glfw_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
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

void ImGuiLayer::begin_frame() {
  if (rebuild_pending_) rebuild();  // between frames: no draw list refers to the old atlas
  ImGui_ImplOpenGL3_NewFrame();
  if (glfw_) ImGui_ImplGlfw_NewFrame();
  else feed_offscreen_io();
  apply_scripted_input();
  ImGui::NewFrame();
}

// What ImGui_ImplGlfw_NewFrame does for a window: the display's size and the time since the last frame.
void ImGuiLayer::feed_offscreen_io() {
  ImGuiIO& io = ImGui::GetIO();
  const Viewport size = surface_.framebuffer();
  const float scale = surface_.content_scale();
  io.DisplaySize = ImVec2(static_cast<float>(size.width) / scale, static_cast<float>(size.height) / scale);
  io.DisplayFramebufferScale = ImVec2(scale, scale);
  const auto now = std::chrono::steady_clock::now();
  const double dt = last_frame_ == std::chrono::steady_clock::time_point{}
                        ? 1.0 / 60.0
                        : std::chrono::duration<double>(now - last_frame_).count();
  io.DeltaTime = static_cast<float>(std::max(dt, 1e-6));  // ImGui asserts a positive step
  last_frame_ = now;
}

void ImGuiLayer::press_key(int glfw_key, bool ctrl) {
  ScriptedInputFrame down;
  down.key = glfw_key;
  down.ctrl = ctrl;
  scripted_.push_back(down);
  scripted_.push_back({});  // released: the next press of the same key is a new press
}

void ImGuiLayer::drag(int button, float x, float y, float dx, float dy, int frames) {
  frames = std::max(frames, 1);
  // The mouse first moves to the start without a button: pressed where the real cursor was last seen (in a
  // window), the jump would count as part of the drag.
  ScriptedInputFrame hover;
  hover.has_mouse = true;
  hover.x = x;
  hover.y = y;
  scripted_.push_back(hover);
  for (int i = 0; i <= frames; ++i) {  // pressed at the start, then one move per frame
    ScriptedInputFrame f;
    f.has_mouse = true;
    f.x = x + dx * static_cast<float>(i) / static_cast<float>(frames);
    f.y = y + dy * static_cast<float>(i) / static_cast<float>(frames);
    f.button = button;
    scripted_.push_back(f);
  }
  ScriptedInputFrame release;
  release.has_mouse = true;
  release.x = x + dx;
  release.y = y + dy;
  scripted_.push_back(release);
}

void ImGuiLayer::scroll(float x, float y, float steps) {
  ScriptedInputFrame f;
  f.has_mouse = true;
  f.x = x;
  f.y = y;
  f.wheel = steps;
  scripted_.push_back(f);
}

// After the platform's new frame (which, in a window, writes the real mouse and keys), so that the
// script's input is what this frame sees. What the previous scripted frame held is released first.
void ImGuiLayer::apply_scripted_input() {
  ImGuiIO& io = ImGui::GetIO();
  if (applied_.key >= 0) {
    io.KeysDown[applied_.key] = false;
    io.KeyCtrl = io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL];
  }
  if (!glfw_ && applied_.button >= 0) io.MouseDown[applied_.button] = false;
  if (!glfw_ && applied_.has_mouse && scripted_.empty()) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // the mouse leaves
  applied_ = {};
  if (scripted_.empty()) return;
  applied_ = scripted_.front();
  scripted_.pop_front();
  if (applied_.key >= 0) {
    io.KeysDown[applied_.key] = true;
    if (applied_.ctrl) io.KeyCtrl = true;
  }
  if (applied_.has_mouse) io.MousePos = ImVec2(applied_.x, applied_.y);
  if (applied_.button >= 0) io.MouseDown[applied_.button] = true;
  io.MouseWheel += applied_.wheel;
}

void ImGuiLayer::render(bool draw) {
  ImGui::Render();
  if (draw) ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool ImGuiLayer::had_input() const {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0 || io.MouseWheel != 0 || io.MouseWheelH != 0) return true;
  for (int b = 0; b < IM_ARRAYSIZE(io.MouseDown); ++b)
    if (io.MouseDown[b] || io.MouseReleased[b]) return true;
  for (int k = 0; k < IM_ARRAYSIZE(io.KeysDown); ++k)
    if (io.KeysDown[k] || io.KeysDownDurationPrev[k] >= 0) return true;  // down now, or released this frame
  return io.InputQueueCharacters.Size > 0 || io.KeyCtrl || io.KeyShift || io.KeyAlt || io.KeySuper;
}

}  // namespace nbl

// Dear ImGui bound to the window (GLFW + OpenGL 3 backends from libimgui-dev), for the object's life.
// Sets the lab's look: a dark, slightly translucent panel and a readable font, or for a projector
// (presenter mode) larger type and a high-contrast theme; and a large font for the presenter caption.
#pragma once
#include "sim/settings.hpp"

struct ImFont;

namespace nbl {

class Window;

class ImGuiLayer {
 public:
  explicit ImGuiLayer(Window& window);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  // The panel's type size (1 = 15 px at content scale 1) and theme. Takes effect from the next
  // begin_frame(); a change rebuilds the font atlas (sharp text at any size, not a stretched bitmap).
  void set_look(float ui_scale, PanelTheme theme);
  float ui_scale() const { return ui_scale_; }
  PanelTheme theme() const { return theme_; }
  // The presenter caption's font: about 2.4x the panel's, at least 30 px.
  ImFont* caption_font() const { return caption_font_; }

  void begin_frame();
  void render();  // draws what the frame built into the current framebuffer

  // True when the font has the few symbols the panel writes (θ, ±, ×, ·); ImGui's built-in fallback
  // font is ASCII only, and the panel spells them out then.
  bool unicode_font() const { return unicode_font_; }

 private:
  void rebuild();

  float content_scale_ = 1;
  float ui_scale_ = 1;
  PanelTheme theme_ = PanelTheme::dark;
  bool rebuild_pending_ = false;
  ImFont* caption_font_ = nullptr;
  bool unicode_font_ = false;
};

}  // namespace nbl

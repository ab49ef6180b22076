// Dear ImGui bound to the lab's surface, for the object's life. In a window, the GLFW and OpenGL 3
// backends from libimgui-dev do the work; offscreen, there is no GLFW window, so this feeds ImGui's IO
// itself (display size, time step) and the OpenGL 3 backend draws into the surface's framebuffer
// object. Either way, a script's input (keys, mouse drags, the wheel) goes through ImGui's IO exactly
// as a device's would, so it reaches the lab through the same code a user's does.
// Sets the lab's look: a dark, slightly translucent panel and a readable font, or for a projector
// (presenter mode) larger type and a high-contrast theme; and a large font for the presenter caption.
#pragma once
#include <chrono>
#include <deque>

#include "sim/settings.hpp"

struct ImFont;

namespace nbl {

class Surface;

// One frame of input from a script: what ImGui's IO holds during that frame.
struct ScriptedInputFrame {
  int key = -1;            // a GLFW key code held down during this frame (-1: none)
  bool ctrl = false;       // with Ctrl
  bool has_mouse = false;  // the mouse is at (x, y), in ImGui's display units
  float x = 0, y = 0;
  int button = -1;  // 0 left, 1 right, 2 middle held during this frame (-1: none)
  float wheel = 0;  // wheel steps this frame
};

class ImGuiLayer {
 public:
  explicit ImGuiLayer(Surface& surface);
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
  // Ends the frame; with `draw`, draws what it built into the current framebuffer (a frame that skips its
  // drawing still ends, so the next one starts from the widgets' new state).
  void render(bool draw = true);
  // Whether this frame brought input: the mouse moved, a button or key is down or went up, the wheel
  // turned, text was typed (after begin_frame).
  bool had_input() const;

  // True when the font has the few symbols the panel writes (θ, ±, ×, ·); ImGui's built-in fallback
  // font is ASCII only, and the panel spells them out then.
  bool unicode_font() const { return unicode_font_; }

  // Scripted input, played one frame per entry after what is queued already (a gesture finishes before
  // the next begins). A key press is down for one frame and up the next, as ImGui needs to see a press.
  void press_key(int glfw_key, bool ctrl);
  // A drag with `button` from (x, y) by (dx, dy), spread over `frames` frames (>= 1); with the move to
  // the start and the release it takes frames + 3.
  void drag(int button, float x, float y, float dx, float dy, int frames);
  void scroll(float x, float y, float steps);
  bool input_pending() const { return !scripted_.empty(); }

 private:
  void rebuild();
  void feed_offscreen_io();
  void apply_scripted_input();

  Surface& surface_;
  bool glfw_ = false;  // ImGui's GLFW backend runs (a window); otherwise feed_offscreen_io()
  bool unicode_font_ = false;
  float content_scale_ = 1;
  float ui_scale_ = 1;
  PanelTheme theme_ = PanelTheme::dark;
  bool rebuild_pending_ = false;
  ImFont* caption_font_ = nullptr;
  std::chrono::steady_clock::time_point last_frame_{};
  std::deque<ScriptedInputFrame> scripted_;
  ScriptedInputFrame applied_;  // what the last frame's scripted input set, to release it
};

}  // namespace nbl

// Dear ImGui bound to the window (GLFW + OpenGL 3 backends from libimgui-dev), for the object's life.
// Sets the lab's look: a dark, slightly translucent panel and a readable font.
#pragma once

namespace nbl {

class Window;

class ImGuiLayer {
 public:
  explicit ImGuiLayer(Window& window);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  void begin_frame();
  void render();  // draws what the frame built into the current framebuffer

  // True when the font has the few symbols the panel writes (θ, ±, ×, ·); ImGui's built-in fallback
  // font is ASCII only, and the panel spells them out then.
  bool unicode_font() const { return unicode_font_; }

 private:
  bool unicode_font_ = false;
};

}  // namespace nbl

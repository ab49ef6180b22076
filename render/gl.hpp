// The one place that includes the OpenGL API (GLAD, generated at build time: OpenGL 4.5 core).
// Everything in render/ and app/ that calls GL includes this, never <GL/gl.h>.
#pragma once
#include <glad/gl.h>

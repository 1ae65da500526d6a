// FreeType (Debian's libfreetype-dev), for drawing a terminal's text into video frames
// (`stories render`). Only StoriesRender imports it.
#include <ft2build.h>
#include FT_FREETYPE_H

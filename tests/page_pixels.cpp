// page_pixels SHOT.png PANELS.json: what a page looks like, checked on the
// pixels Chromium rendered (tests/report_pixels.sh). PANELS.json is what
// the page's DOM says of each drawn panel (g.panel: its plot area's box in
// page pixels, and data-colors, the colours of its series that have data):
//   [{"title": "...", "x": 56, "y": 120, "w": 312, "h": 204,
//     "colors": ["#0072B2", "#D55E00"]}, ...]
// For every panel, every one of its colours must be seen inside its plot
// area (at least 3 pixels within a small distance of the colour, the
// frame's pixels left out). A curve clipped away (a clip path that
// resolves to another figure's rectangle) or a series not drawn fails, with
// one line naming the panel and the colour. Exit 0 when every colour is
// seen, 1 otherwise, 2 on bad input.
#include <png.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json.h"

namespace {

struct Rgb {
  int r = 0, g = 0, b = 0;
};

Rgb parse_color(const std::string& text) {
  TAPIR_CHECK(text.size() == 7 && text[0] == '#', "a colour as #RRGGBB, got '", text, "'");
  const long v = std::strtol(text.c_str() + 1, nullptr, 16);
  return {int((v >> 16) & 255), int((v >> 8) & 255), int(v & 255)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: page_pixels SHOT.png PANELS.json\n");
    return 2;
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, argv[1])) {
    std::fprintf(stderr, "page_pixels: %s: %s\n", argv[1], image.message);
    return 2;
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    std::fprintf(stderr, "page_pixels: %s: %s\n", argv[1], image.message);
    return 2;
  }
  const int width = int(image.width), height = int(image.height);
  int failures = 0, panels = 0, colors = 0;
  try {
    const tapir::Json all = tapir::read_json_file(argv[2]);
    for (const tapir::Json& panel : all.as_array()) {
      ++panels;
      const std::string title = panel.at("title").as_string();
      // The plot area without its frame (2 pixels in from each edge).
      const int x0 = std::max(0, int(panel.at("x").as_double()) + 2);
      const int y0 = std::max(0, int(panel.at("y").as_double()) + 2);
      const int x1 =
          std::min(width, int(panel.at("x").as_double() + panel.at("w").as_double()) - 2);
      const int y1 =
          std::min(height, int(panel.at("y").as_double() + panel.at("h").as_double()) - 2);
      for (const tapir::Json& c : panel.at("colors").as_array()) {
        ++colors;
        const Rgb want = parse_color(c.as_string());
        int seen = 0;
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) {
            const unsigned char* p = &pixels[(size_t(y) * size_t(width) + size_t(x)) * 3];
            const int dr = p[0] - want.r, dg = p[1] - want.g, db = p[2] - want.b;
            seen += dr * dr + dg * dg + db * db <= 50 * 50;
          }
        if (seen < 3) {
          std::printf(
              "FAIL: panel '%s' (plot area at %d,%d, %dx%d px) shows no pixel of its "
              "series colour %s (%d seen)\n",
              title.c_str(), x0, y0, x1 - x0, y1 - y0, c.as_string().c_str(), seen);
          ++failures;
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "page_pixels: %s\n", e.what());
    return 2;
  }
  std::printf("page_pixels: %d panels, %d series colours, %d not seen\n", panels, colors, failures);
  return failures == 0 ? 0 : 1;
}

#pragma once
// A small writer of standalone SVG documents for the report's plots: shapes in user units,
// text escaped, an accessible root (role="img", <title> and <desc> referenced by
// aria-labelledby), fonts set inline so the file reads the same alone or inside the HTML.
#include <string>
#include <vector>

namespace strata::report {

std::string xml_escape(const std::string& text);

// A linear map of the domain [d0, d1] onto the range [r0, r1].
struct LinearScale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double value) const { return d1 == d0 ? r0 : r0 + (value - d0) / (d1 - d0) * (r1 - r0); }
};

// About `count` round tick values covering [low, high] (1, 2 or 5 times a power of ten apart).
std::vector<double> nice_ticks(double low, double high, int count);

// Colour-blind-safe colours: Okabe and Ito's palette for categories, viridis for a 0..1 scale.
const std::string& category_colour(std::size_t index);
std::string viridis(double fraction);
bool dark_fill(double fraction);  // white text reads better on viridis(fraction)

class SvgCanvas {
 public:
  SvgCanvas(double width, double height, const std::string& id, const std::string& title, const std::string& description);

  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& more = "");
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width = 1,
            const std::string& more = "");
  void circle(double cx, double cy, double r, const std::string& fill, const std::string& more = "");
  // anchor: start, middle or end; `more`: further attributes (font-weight, fill, ...).
  void text(double x, double y, const std::string& content, const std::string& anchor = "start", const std::string& more = "");
  // A group with a tooltip (<title>) for the shapes drawn until end_group().
  void begin_group(const std::string& tooltip);
  void end_group();

  std::string finish();

 private:
  std::string body_;
  std::string head_;
};

}  // namespace strata::report

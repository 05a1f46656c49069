#include "svg_canvas.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "strata/report/report_parts.hpp"

namespace strata::report {
namespace {

// Coordinates with two decimals at most: exact enough on screen and in print, and short.
std::string coordinate(double value) { return decimal(value, 2); }

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double low, double high, int count) {
  if (!(high > low)) return {low};
  const double raw_step = (high - low) / std::max(count, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw_step)));
  double step = power;
  for (const double multiple : {1.0, 2.0, 5.0, 10.0}) {
    step = multiple * power;
    if (step >= raw_step) break;
  }
  std::vector<double> ticks;
  for (double tick = std::ceil(low / step - 1e-9) * step; tick <= high + step * 1e-9; tick += step)
    ticks.push_back(std::abs(tick) < step * 1e-9 ? 0.0 : tick);
  return ticks;
}

const std::string& category_colour(std::size_t index) {
  // Okabe & Ito (2008), without yellow (too light on white) and black (kept for text).
  static const std::array<std::string, 6> palette{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"};
  return palette[index % palette.size()];
}

std::string viridis(double fraction) {
  // Five stops of matplotlib's viridis, interpolated linearly.
  static const std::array<std::array<double, 3>, 5> stops{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  const double position = std::clamp(fraction, 0.0, 1.0) * (stops.size() - 1);
  const auto below = static_cast<std::size_t>(std::min(std::floor(position), static_cast<double>(stops.size() - 2)));
  const double t = position - static_cast<double>(below);
  char colour[8];
  int channel[3];
  for (int i = 0; i < 3; ++i) channel[i] = static_cast<int>(std::lround(stops[below][i] + t * (stops[below + 1][i] - stops[below][i])));
  std::snprintf(colour, sizeof colour, "#%02x%02x%02x", channel[0], channel[1], channel[2]);
  return colour;
}

bool dark_fill(double fraction) { return fraction < 0.55; }

SvgCanvas::SvgCanvas(double width, double height, const std::string& id, const std::string& title, const std::string& description) {
  head_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + xml_escape(id) + "\" width=\"" + coordinate(width) + "\" height=\"" +
          coordinate(height) + "\" viewBox=\"0 0 " + coordinate(width) + " " + coordinate(height) +
          "\" role=\"img\" aria-labelledby=\"" + xml_escape(id) + "-title " + xml_escape(id) +
          "-desc\" font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" font-size=\"12\" fill=\"#222\">\n"
          "<title id=\"" + xml_escape(id) + "-title\">" + xml_escape(title) + "</title>\n<desc id=\"" + xml_escape(id) +
          "-desc\">" + xml_escape(description) + "</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
}

void SvgCanvas::rect(double x, double y, double w, double h, const std::string& fill, const std::string& more) {
  body_ += "<rect x=\"" + coordinate(x) + "\" y=\"" + coordinate(y) + "\" width=\"" + coordinate(std::max(w, 0.0)) +
           "\" height=\"" + coordinate(std::max(h, 0.0)) + "\" fill=\"" + fill + "\"" + (more.empty() ? "" : " " + more) + "/>\n";
}

void SvgCanvas::line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width,
                     const std::string& more) {
  body_ += "<line x1=\"" + coordinate(x1) + "\" y1=\"" + coordinate(y1) + "\" x2=\"" + coordinate(x2) + "\" y2=\"" +
           coordinate(y2) + "\" stroke=\"" + stroke + "\" stroke-width=\"" + coordinate(stroke_width) + "\"" +
           (more.empty() ? "" : " " + more) + "/>\n";
}

void SvgCanvas::circle(double cx, double cy, double r, const std::string& fill, const std::string& more) {
  body_ += "<circle cx=\"" + coordinate(cx) + "\" cy=\"" + coordinate(cy) + "\" r=\"" + coordinate(r) + "\" fill=\"" + fill +
           "\"" + (more.empty() ? "" : " " + more) + "/>\n";
}

void SvgCanvas::text(double x, double y, const std::string& content, const std::string& anchor, const std::string& more) {
  body_ += "<text x=\"" + coordinate(x) + "\" y=\"" + coordinate(y) + "\" text-anchor=\"" + anchor + "\"" +
           (more.empty() ? "" : " " + more) + ">" + xml_escape(content) + "</text>\n";
}

void SvgCanvas::begin_group(const std::string& tooltip) { body_ += "<g><title>" + xml_escape(tooltip) + "</title>\n"; }

void SvgCanvas::end_group() { body_ += "</g>\n"; }

std::string SvgCanvas::finish() { return head_ + body_ + "</svg>\n"; }

}  // namespace strata::report

#include "reports/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "sim/assert.hpp"
#include "sim/int128.hpp"

namespace hasim {
namespace {

// Coordinates are integers in tenths of a pixel: exact arithmetic, printed as "123.4".
using Tenths = std::int64_t;

constexpr int kFont = 12;
constexpr int kSmallFont = 10;
constexpr int kTitleFont = 14;
constexpr int kMinPlotHeight = 120;
constexpr std::int64_t kNsPerSecond = 1'000'000'000;
constexpr std::int64_t kPpm = 1'000'000;  // probabilities on the bar axis, in parts per million
const char* const kGrid = "#e3e3e3";
const char* const kInk = "#333";
const char* const kHalo = R"(stroke="#fff" stroke-width="3" paint-order="stroke")";

std::string px(Tenths value) {
  const bool negative = value < 0;
  const std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  std::string out = negative ? "-" : "";
  out += std::to_string(magnitude / 10);
  if (magnitude % 10 != 0) {
    out += '.';
    out += static_cast<char>('0' + magnitude % 10);
  }
  return out;
}

constexpr Tenths tenths(std::int64_t pixels) { return pixels * 10; }

// Linear map of v in [lo, hi] onto [from, to], in 128 bits so nanosecond ranges cannot
// overflow; truncation toward zero is deterministic.
Tenths scale(Int128 v, Int128 lo, Int128 hi, Tenths from, Tenths to) {
  HASIM_ASSERT(lo < hi);
  return from + static_cast<Tenths>((v - lo) * (to - from) / (hi - lo));
}

// Code points, a good enough stand-in for glyphs to size labels.
std::int64_t code_points(std::string_view text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// Estimated rendered width in pixels: sans-serif glyphs average about 0.6 em.
std::int64_t text_width(std::string_view text, int font_size) {
  return (code_points(text) * font_size * 6 + 9) / 10;
}

// At most `limit` code points, ending in an ellipsis when shortened.
std::string shorten(std::string_view text, std::int64_t limit) {
  if (code_points(text) <= limit) return std::string(text);
  std::string out;
  std::int64_t kept = 0;
  for (const char c : text) {
    const bool starts_code_point = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts_code_point && kept++ == limit - 1) break;
    out += c;
  }
  return out + "…";
}

// The smallest of 1, 2, 5, 10, 20, 50, ... that is >= raw.
std::uint64_t nice_step(std::uint64_t raw) {
  HASIM_ASSERT(raw <= 5'000'000'000'000'000'000ULL);
  std::uint64_t power = 1;
  for (int exponent = 0; exponent < 19; ++exponent) {  // 5e18 is reached by exponent 18
    for (const std::uint64_t mantissa : {1, 2, 5}) {
      if (mantissa * power >= raw) return mantissa * power;
    }
    power *= 10;
  }
  HASIM_ASSERT(false);
  return 0;
}

Int128 floor_div(Int128 a, Int128 b) { return a / b - ((a % b != 0 && a < 0) ? 1 : 0); }
Int128 ceil_div(Int128 a, Int128 b) { return a / b + ((a % b != 0 && a > 0) ? 1 : 0); }

// An axis over [lo, hi] rounded out to multiples of a round step giving about five ticks.
struct Axis {
  std::int64_t lo;
  std::int64_t hi;
  std::int64_t step;
  std::int64_t ticks() const { return (hi - lo) / step + 1; }
  std::int64_t tick(std::int64_t i) const { return lo + i * step; }
};

Axis nice_axis(std::int64_t lo, std::int64_t hi) {
  HASIM_ASSERT(lo < hi);
  const Int128 range = static_cast<Int128>(hi) - lo;
  const auto step =
      static_cast<std::int64_t>(nice_step(static_cast<std::uint64_t>((range + 4) / 5)));
  const Int128 axis_lo = floor_div(lo, step) * step;
  const Int128 axis_hi = ceil_div(hi, step) * step;
  HASIM_ASSERT(axis_lo >= std::numeric_limits<std::int64_t>::min());
  HASIM_ASSERT(axis_hi <= std::numeric_limits<std::int64_t>::max());
  return {static_cast<std::int64_t>(axis_lo), static_cast<std::int64_t>(axis_hi), step};
}

// value / scale as a decimal without trailing zeros: decimal(2'500, 1'000) == "2.5".
std::string decimal(std::int64_t value, std::int64_t scale) {
  const bool negative = value < 0;
  const UInt128 magnitude =
      negative ? static_cast<UInt128>(-static_cast<Int128>(value)) : static_cast<UInt128>(value);
  const auto unit = static_cast<UInt128>(scale);
  std::string out = negative ? "-" : "";
  out += std::to_string(static_cast<std::uint64_t>(magnitude / unit));
  UInt128 rest = magnitude % unit;
  if (rest == 0) return out;
  std::string digits;
  for (UInt128 place = unit / 10; place > 0; place /= 10) {
    digits += static_cast<char>('0' + static_cast<int>(rest / place));
    rest %= place;
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

// Element writers. Attribute strings passed in are fixed markup; text is escaped here.
class Svg {
 public:
  Svg(int width, int height, const std::string& title) : width_(width) {
    out_ += "<svg width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
            "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
            "\" role=\"img\" font-family=\"sans-serif\" font-size=\"" + std::to_string(kFont) +
            "\"";
    if (!title.empty()) out_ += " aria-label=\"" + xml_escape(title) + "\"";
    out_ += ">\n";
    if (!title.empty()) out_ += "<title>" + xml_escape(title) + "</title>\n";
    out_ += "<rect width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
            "\" fill=\"#fff\"/>\n";
    if (!title.empty()) {
      text(tenths(width) / 2, tenths(20), title,
           "text-anchor=\"middle\" font-weight=\"bold\" font-size=\"" + std::to_string(kTitleFont) +
               "\"");
    }
  }

  void text(Tenths x, Tenths y, std::string_view content, std::string_view attributes = {}) {
    out_ += "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"";
    if (!attributes.empty()) out_ += " " + std::string(attributes);
    out_ += ">" + xml_escape(content) + "</text>\n";
  }
  // A label centred under an x tick, nudged inwards where it would run off the image.
  void x_tick_label(Tenths x, Tenths y, std::string_view content) {
    const Tenths half = tenths(text_width(content, kFont)) / 2;
    const Tenths centre = std::clamp(x, half + tenths(2), tenths(width_) - half - tenths(2));
    text(centre, y, content, "text-anchor=\"middle\"");
  }
  // Text rotated 90 degrees counter-clockwise about its anchor (a y axis title).
  void vertical_text(Tenths x, Tenths y, std::string_view content) {
    out_ += "<text transform=\"translate(" + px(x) + " " + px(y) +
            ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(content) + "</text>\n";
  }
  void line(Tenths x1, Tenths y1, Tenths x2, Tenths y2, std::string_view colour,
            std::string_view attributes = {}) {
    out_ += "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" +
            px(y2) + "\" stroke=\"" + xml_escape(colour) + "\"";
    if (!attributes.empty()) out_ += " " + std::string(attributes);
    out_ += "/>\n";
  }
  void rect(Tenths x, Tenths y, Tenths w, Tenths h, std::string_view colour,
            std::string_view tooltip = {}) {
    out_ += "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" +
            px(h) + "\" fill=\"" + xml_escape(colour) + "\"";
    if (tooltip.empty()) {
      out_ += "/>\n";
    } else {
      out_ += "><title>" + xml_escape(tooltip) + "</title></rect>\n";
    }
  }
  void raw(std::string_view markup) { out_ += markup; }
  std::string finish() && { return std::move(out_) + "</svg>"; }

 private:
  std::string out_;
  int width_;
};

struct LegendEntry {
  std::string name;
  std::string colour;
};

constexpr int kLegendRow = 18;
constexpr int kLegendNameLimit = 48;

// Entries left to right, wrapping into rows no wider than `width`: (row, x offset) each.
std::vector<std::pair<int, std::int64_t>> legend_layout(const std::vector<LegendEntry>& entries,
                                                        std::int64_t width) {
  std::vector<std::pair<int, std::int64_t>> positions;
  int row = 0;
  std::int64_t x = 0;
  for (const LegendEntry& entry : entries) {
    const std::int64_t w = 24 + text_width(shorten(entry.name, kLegendNameLimit), kFont) + 16;
    if (x > 0 && x + w > width) {
      ++row;
      x = 0;
    }
    positions.emplace_back(row, x);
    x += w;
  }
  return positions;
}

int legend_height(const std::vector<std::pair<int, std::int64_t>>& layout) {
  return layout.empty() ? 0 : (layout.back().first + 1) * kLegendRow;
}

// A line swatch for curves, a filled square for bars.
void draw_legend(Svg& svg, const std::vector<LegendEntry>& entries,
                 const std::vector<std::pair<int, std::int64_t>>& layout, std::int64_t left,
                 std::int64_t top, bool line_swatch) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::int64_t x = left + layout[i].second;
    const std::int64_t y = top + layout[i].first * kLegendRow;
    if (line_swatch) {
      svg.line(tenths(x), tenths(y + 9), tenths(x + 18), tenths(y + 9), entries[i].colour,
               "stroke-width=\"2.5\"");
    } else {
      svg.rect(tenths(x + 3), tenths(y + 3), tenths(12), tenths(12), entries[i].colour);
    }
    svg.text(tenths(x + 24), tenths(y + 13), shorten(entries[i].name, kLegendNameLimit));
  }
}

// The plot area of a chart with axes, in pixels.
struct Frame {
  std::int64_t left, right, top, bottom;  // bottom is the x axis line
  Tenths x0() const { return tenths(left); }
  Tenths x1() const { return tenths(right); }
  Tenths y0() const { return tenths(bottom); }
  Tenths y1() const { return tenths(top); }
};

constexpr int kLeftMargin = 64;
constexpr int kRightMargin = 16;

int title_height(const PlotOptions& options) { return options.title.empty() ? 8 : 32; }

void draw_axes(Svg& svg, const Frame& frame) {
  svg.line(frame.x0(), frame.y0(), frame.x1(), frame.y0(), kInk);
  svg.line(frame.x0(), frame.y0(), frame.x0(), frame.y1(), kInk);
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to write these characters
        } else {
          out += c;
        }
    }
  }
  return out;
}

const std::string& palette_colour(std::size_t index) {
  // Okabe & Ito (2008), "Color Universal Design"; yellow last, it is faint on white.
  static const std::array<std::string, 8> kPalette{"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return kPalette[index % kPalette.size()];
}

std::string svg_document(std::string_view svg) {
  HASIM_ASSERT(svg.substr(0, 4) == "<svg");
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"" +
         std::string(svg.substr(4)) + "\n";
}

std::string svg_cdf_plot(const std::vector<CdfSeries>& series, const PlotOptions& options) {
  HASIM_ASSERT(options.width >= 200 && options.height >= 100);
  std::vector<LegendEntry> legend;
  bool any = false;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const CdfSeries& s = series[i];
    HASIM_ASSERT(std::is_sorted(s.sorted.begin(), s.sorted.end()));
    legend.push_back({s.sorted.empty() ? s.name + " (no samples)" : s.name,
                      s.colour.empty() ? palette_colour(i) : s.colour});
    if (s.sorted.empty()) continue;
    lo = any ? std::min(lo, s.sorted.front().ns) : s.sorted.front().ns;
    hi = any ? std::max(hi, s.sorted.back().ns) : s.sorted.back().ns;
    any = true;
  }
  if (!any) hi = kNsPerSecond;
  if (options.x_from_zero) {
    lo = std::min<std::int64_t>(lo, 0);
    hi = std::max<std::int64_t>(hi, 0);
  }
  if (lo == hi) hi = lo + (lo == 0 ? kNsPerSecond : std::max<std::int64_t>(1, lo / 10));
  const Axis axis = nice_axis(lo, hi);

  int height = options.height;
  const auto layout = legend_layout(legend, options.width - kLeftMargin - kRightMargin);
  const int top = title_height(options) + legend_height(layout) + 10;
  const int bottom_margin = 48;
  height = std::max(height, top + kMinPlotHeight + bottom_margin);
  const Frame frame{kLeftMargin, options.width - kRightMargin, top, height - bottom_margin};

  Svg svg(options.width, height, options.title);
  for (std::int64_t i = 0; i < axis.ticks(); ++i) {
    const Tenths x = scale(axis.tick(i), axis.lo, axis.hi, frame.x0(), frame.x1());
    svg.line(x, frame.y1(), x, frame.y0(), kGrid);
    svg.x_tick_label(x, frame.y0() + tenths(16), decimal(axis.tick(i), kNsPerSecond));
  }
  static const std::array<const char*, 5> kFractions{"0", "0.25", "0.5", "0.75", "1"};
  for (std::int64_t q = 0; q <= 4; ++q) {
    const Tenths y = scale(q, 0, 4, frame.y0(), frame.y1());
    svg.line(frame.x0(), y, frame.x1(), y, kGrid);
    svg.text(frame.x0() - tenths(6), y + tenths(4), kFractions[static_cast<std::size_t>(q)],
             "text-anchor=\"end\"");
  }
  draw_axes(svg, frame);
  svg.text((frame.x0() + frame.x1()) / 2, tenths(height - 10),
           options.x_label.empty() ? "seconds" : options.x_label, "text-anchor=\"middle\"");
  svg.vertical_text(tenths(16), (frame.y0() + frame.y1()) / 2,
                    options.y_label.empty() ? "fraction of trials ≤ x" : options.y_label);
  draw_legend(svg, legend, layout, kLeftMargin, title_height(options), true);

  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::vector<Duration>& samples = series[i].sorted;
    if (samples.empty()) continue;
    // A right-continuous step function: at each distinct value the curve rises to the
    // fraction of samples <= that value. Points landing on the same x (a tenth of a pixel)
    // merge into one step, so the path stays small for any number of trials.
    const auto n = static_cast<Int128>(samples.size());
    std::string path = "M" + px(frame.x0()) + " " + px(frame.y0());
    Tenths x_now = frame.x0();
    Tenths y_now = frame.y0();
    Tenths y_pending = frame.y0();
    for (std::size_t k = 0; k < samples.size(); ++k) {
      if (k + 1 < samples.size() && samples[k + 1] == samples[k]) continue;
      const Tenths x = scale(samples[k].ns, axis.lo, axis.hi, frame.x0(), frame.x1());
      if (x != x_now) {
        if (y_pending != y_now) path += "V" + px(y_now = y_pending);
        path += "H" + px(x_now = x);
      }
      y_pending = scale(static_cast<Int128>(k + 1), 0, n, frame.y0(), frame.y1());
    }
    if (y_pending != y_now) path += "V" + px(y_pending);
    if (x_now != frame.x1()) path += "H" + px(frame.x1());
    svg.raw("<path d=\"" + path + "\" fill=\"none\" stroke=\"" + xml_escape(legend[i].colour) +
            "\" stroke-width=\"2\"><title>" +
            xml_escape(series[i].name + ": " + std::to_string(samples.size()) + " samples") +
            "</title></path>\n");
  }
  return std::move(svg).finish();
}

std::string svg_bar_chart(const std::vector<Bar>& bars, const PlotOptions& options) {
  HASIM_ASSERT(options.width >= 200 && options.height >= 100);
  // Clusters (labels) and groups in order of first appearance; indexes looked up by name.
  std::vector<std::string> labels;
  std::vector<std::string> groups;
  std::map<std::string, std::size_t> label_index;
  std::map<std::string, std::size_t> group_index;
  std::set<std::pair<std::string, std::string>> seen;
  std::int64_t max_ppm = 0;
  const auto ppm = [](double p) { return static_cast<std::int64_t>(std::llround(p * kPpm)); };
  for (const Bar& bar : bars) {
    HASIM_ASSERT(bar.value >= 0 && bar.value <= 1);
    HASIM_ASSERT(bar.interval.low >= 0 && bar.interval.low <= bar.interval.high &&
                 bar.interval.high <= 1);
    HASIM_ASSERT(seen.emplace(bar.label, bar.group).second);  // one bar per (label, group)
    if (label_index.emplace(bar.label, labels.size()).second) labels.push_back(bar.label);
    if (group_index.emplace(bar.group, groups.size()).second) groups.push_back(bar.group);
    max_ppm = std::max({max_ppm, ppm(bar.value), ppm(bar.interval.high)});
  }
  // A round upper bound just above the largest bar or whisker, at most 100%.
  if (max_ppm == 0) max_ppm = kPpm;
  const auto step =
      static_cast<std::int64_t>(nice_step(static_cast<std::uint64_t>((max_ppm + 4) / 5)));
  const std::int64_t top_ppm = std::min(kPpm, (max_ppm + step - 1) / step * step);

  std::vector<LegendEntry> legend;
  if (groups.size() > 1 || (groups.size() == 1 && !groups[0].empty())) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      legend.push_back({groups[g], palette_colour(g)});
    }
  }
  const auto layout = legend_layout(legend, options.width - kLeftMargin - kRightMargin);
  const int top = title_height(options) + legend_height(layout) + 10;
  const std::int64_t plot_width = options.width - kLeftMargin - kRightMargin;
  const Tenths cluster_width =
      labels.empty() ? tenths(plot_width) : tenths(plot_width) / static_cast<Tenths>(labels.size());
  // Labels too wide for their cluster are drawn slanted, shortened to a bounded length.
  constexpr std::int64_t kSlantedLimit = 28;
  bool slanted = false;
  std::int64_t widest = 0;
  for (const std::string& label : labels) {
    slanted = slanted || tenths(text_width(label, kFont)) > cluster_width - tenths(4);
    widest = std::max(widest, text_width(shorten(label, kSlantedLimit), kFont));
  }
  const int bottom_margin = slanted ? static_cast<int>(24 + widest * 7 / 10 + 8) : 48;
  const int height = std::max(options.height, top + kMinPlotHeight + bottom_margin);
  const Frame frame{kLeftMargin, options.width - kRightMargin, top, height - bottom_margin};
  const auto y_of = [&](double p) { return scale(ppm(p), 0, top_ppm, frame.y0(), frame.y1()); };

  Svg svg(options.width, height, options.title);
  for (std::int64_t tick = 0; tick <= top_ppm; tick += step) {
    const Tenths y = scale(tick, 0, top_ppm, frame.y0(), frame.y1());
    svg.line(frame.x0(), y, frame.x1(), y, kGrid);
    svg.text(frame.x0() - tenths(6), y + tenths(4), decimal(tick, kPpm / 100) + "%",
             "text-anchor=\"end\"");
  }
  draw_axes(svg, frame);
  svg.vertical_text(tenths(16), (frame.y0() + frame.y1()) / 2,
                    options.y_label.empty() ? "probability" : options.y_label);
  if (!options.x_label.empty()) {
    svg.text((frame.x0() + frame.x1()) / 2, tenths(height - 8), options.x_label,
             "text-anchor=\"middle\"");
  }
  draw_legend(svg, legend, layout, kLeftMargin, title_height(options), false);
  if (bars.empty()) {
    svg.text((frame.x0() + frame.x1()) / 2, (frame.y0() + frame.y1()) / 2, "no data",
             "text-anchor=\"middle\" fill=\"#777\"");
  }

  // Within a cluster: 10% padding each side, one equal slot per group (a group missing
  // from a cluster leaves its slot empty, so a colour sits at the same offset everywhere).
  const Tenths slot =
      cluster_width * 8 / 10 / static_cast<Tenths>(std::max<std::size_t>(1, groups.size()));
  const Tenths gap = std::min<Tenths>(slot / 10, tenths(2));
  for (const Bar& bar : bars) {
    const auto c = static_cast<Tenths>(label_index.at(bar.label));
    const std::size_t g = group_index.at(bar.group);
    const Tenths x =
        frame.x0() + c * cluster_width + cluster_width / 10 + static_cast<Tenths>(g) * slot;
    const Tenths y = y_of(bar.value);
    std::string tooltip = bar.label;
    if (!bar.group.empty()) tooltip += " · " + bar.group;
    tooltip += ": " + format_probability(bar.value) + " " + format_interval(bar.interval);
    svg.rect(x + gap / 2, y, slot - gap, frame.y0() - y, palette_colour(g), tooltip);
    const Tenths centre = x + slot / 2;
    const Tenths cap = std::min<Tenths>(slot / 4, tenths(6));
    const Tenths low = y_of(bar.interval.low);
    const Tenths high = y_of(bar.interval.high);
    svg.line(centre, low, centre, high, "#111", "stroke-width=\"1.5\"");
    svg.line(centre - cap, low, centre + cap, low, "#111", "stroke-width=\"1.5\"");
    svg.line(centre - cap, high, centre + cap, high, "#111", "stroke-width=\"1.5\"");
  }
  for (std::size_t c = 0; c < labels.size(); ++c) {
    const Tenths x = frame.x0() + static_cast<Tenths>(c) * cluster_width + cluster_width / 2;
    const Tenths y = frame.y0() + tenths(slanted ? 14 : 16);
    if (slanted) {
      svg.raw("<text x=\"" + px(x) + "\" y=\"" + px(y) +
              "\" text-anchor=\"end\" transform=\"rotate(-45 " + px(x) + " " + px(y) + ")\">" +
              xml_escape(shorten(labels[c], kSlantedLimit)) + "<title>" + xml_escape(labels[c]) +
              "</title></text>\n");
    } else {
      svg.text(x, y, labels[c], "text-anchor=\"middle\"");
    }
  }
  return std::move(svg).finish();
}

std::string svg_timeline(const std::vector<TimelineLane>& lanes, TrueTime start, TrueTime end,
                         const PlotOptions& options) {
  HASIM_ASSERT(options.width >= 200);
  HASIM_ASSERT(start < end);
  constexpr int kLaneHeight = 34;
  constexpr int kBottomMargin = 44;
  // Lane labels get up to 220 px; longer ones are shortened (the full text is a tooltip).
  std::int64_t label_width = 0;
  for (const TimelineLane& lane : lanes) {
    label_width = std::max(label_width, text_width(lane.label, kFont));
  }
  const std::int64_t left = std::clamp<std::int64_t>(label_width + 16, 60, 220);
  const std::int64_t label_limit = (left - 16) * 10 / (kFont * 6);
  const int top = title_height(options) + 8;
  const int height = top + static_cast<int>(lanes.size()) * kLaneHeight + kBottomMargin;
  const Frame frame{left, options.width - kRightMargin, top,
                    top + static_cast<std::int64_t>(lanes.size()) * kLaneHeight};
  const auto x_of = [&](TrueTime t) {
    return scale(t.ns, start.ns, end.ns, frame.x0(), frame.x1());
  };
  const auto since_start = [](TrueTime t) { return format_duration(Duration{t.ns}); };

  Svg svg(options.width, height, options.title);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    if (i % 2 == 1) {
      svg.rect(frame.x0(), tenths(top + static_cast<std::int64_t>(i) * kLaneHeight),
               frame.x1() - frame.x0(), tenths(kLaneHeight), "#f5f5f5");
    }
  }
  // Ticks at round multiples of the step inside [start, end]; the range itself is exact.
  const auto step = static_cast<std::int64_t>(
      nice_step(static_cast<std::uint64_t>((static_cast<Int128>(end.ns) - start.ns + 4) / 5)));
  for (Int128 t = ceil_div(start.ns, step) * step; t <= end.ns; t += step) {
    const Tenths x = scale(t, start.ns, end.ns, frame.x0(), frame.x1());
    svg.line(x, frame.y1(), x, frame.y0(), kGrid);
    svg.x_tick_label(x, frame.y0() + tenths(16),
                     since_start(TrueTime{static_cast<std::int64_t>(t)}));
  }
  svg.line(frame.x0(), frame.y0(), frame.x1(), frame.y0(), kInk);
  svg.text((frame.x0() + frame.x1()) / 2, tenths(height - 8),
           options.x_label.empty() ? "simulated time" : options.x_label, "text-anchor=\"middle\"");

  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const TimelineLane& lane = lanes[i];
    const std::int64_t lane_top = top + static_cast<std::int64_t>(i) * kLaneHeight;
    svg.raw("<text x=\"" + px(tenths(left - 8)) + "\" y=\"" + px(tenths(lane_top + 22)) +
            "\" text-anchor=\"end\">" + xml_escape(shorten(lane.label, label_limit)) + "<title>" +
            xml_escape(lane.label) + "</title></text>\n");
    for (const TimelineSegment& segment : lane.segments) {
      const TrueTime from = std::max(segment.begin, start);
      const TrueTime to = std::min(segment.end, end);
      if (from >= to) continue;  // entirely outside the chart (or empty)
      const Tenths x = x_of(from);
      const Tenths width = std::max<Tenths>(x_of(to) - x, 2);  // a blip stays visible
      const std::string tooltip = segment.label + " (" + since_start(segment.begin) + " to " +
                                  since_start(segment.end) + ")";
      svg.rect(x, tenths(lane_top + 12), width, tenths(18),
               segment.colour.empty() ? "#999" : segment.colour, tooltip);
      if (tenths(text_width(segment.label, 11) + 6) <= width) {
        svg.text(x + tenths(3), tenths(lane_top + 25), segment.label,
                 std::string("font-size=\"11\" ") + kHalo);
      }
    }
    for (const TimelineMarker& marker : lane.markers) {
      if (marker.at < start || marker.at > end) continue;
      const Tenths x = x_of(marker.at);
      const std::string colour = marker.colour.empty() ? "#000" : marker.colour;
      svg.raw("<g><title>" + xml_escape(marker.label + " at " + since_start(marker.at)) +
              "</title>\n");
      svg.line(x, tenths(lane_top + 2), x, tenths(lane_top + kLaneHeight - 2), colour,
               "stroke-width=\"1.5\"");
      svg.raw("<path d=\"M" + px(x - tenths(4)) + " " + px(tenths(lane_top + 1)) + "H" +
              px(x + tenths(4)) + "L" + px(x) + " " + px(tenths(lane_top + 7)) + "Z\" fill=\"" +
              xml_escape(colour) + "\"/>\n");
      svg.text(x + tenths(6), tenths(lane_top + 10), marker.label,
               "font-size=\"" + std::to_string(kSmallFont) + "\" " + kHalo);
      svg.raw("</g>\n");
    }
  }
  return std::move(svg).finish();
}

}  // namespace hasim

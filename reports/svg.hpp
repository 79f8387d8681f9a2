#pragma once
// Charts for reports as inline SVG: CDFs of durations, bar charts of probabilities with
// their confidence intervals, and timelines of who led when. The output is plain SVG markup
// with no scripts, no external fonts, stylesheets or links (tooltips are SVG <title>
// elements), so an HTML report embedding it is one file that opens offline. Output is a
// pure function of the input: coordinates are computed in integer tenths of a pixel and
// numbers are formatted without the C locale, so the same data gives the same bytes.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "reports/stats.hpp"
#include "sim/time.hpp"

namespace hasim {

struct PlotOptions {
  int width = 720;      // pixels
  int height = 360;     // pixels; grows if the legend or the labels need room (timelines: unused)
  std::string title;    // drawn on top and used as the chart's accessible name
  std::string x_label;  // axis titles; empty means the chart's default
  std::string y_label;
  // CDF plots: start the x axis at 0 rather than just below the smallest sample. Durations
  // are non-negative, and an axis from 0 keeps "how long" honest when comparing curves.
  bool x_from_zero = true;
};

// One curve of a CDF plot. An empty colour takes the next palette colour.
struct CdfSeries {
  std::string name;
  std::string colour;
  std::vector<Duration> sorted;  // ascending samples
};

// Empirical CDFs as step lines: x in seconds with about five round ticks, y from 0 to 1
// with ticks at 0, 0.25, 0.5, 0.75 and 1, a legend and axis titles.
std::string svg_cdf_plot(const std::vector<CdfSeries>& series, const PlotOptions& options = {});

// One probability: bars with the same label stand side by side, one per group, coloured by
// group (palette order of first appearance) and named in the legend. `interval` (usually
// wilson_interval) is drawn as an error whisker. 0 <= value <= 1; (label, group) unique.
struct Bar {
  std::string label;
  std::string group;
  double value = 0;
  Interval interval;
};

// Grouped bars on a probability axis from 0 up to a round bound above every interval (so
// rare events stay visible), labelled in percent.
std::string svg_bar_chart(const std::vector<Bar>& bars, const PlotOptions& options = {});

// A span of time in a lane, e.g. "n2/kcm leads at v1.31". Clipped to the chart's range.
struct TimelineSegment {
  TrueTime begin;
  TrueTime end;
  std::string label;
  std::string colour;  // empty: grey
};

// An instant in a lane, e.g. a fault ("crash n1") or an upgrade step.
struct TimelineMarker {
  TrueTime at;
  std::string label;
  std::string colour;  // empty: black
};

struct TimelineLane {
  std::string label;
  std::vector<TimelineSegment> segments;
  std::vector<TimelineMarker> markers;
};

// Horizontal swimlanes over [start, end) of simulated time, one per lane, with segments as
// bars (labelled where they fit, always in the tooltip) and markers as ticks with labels.
// The height follows from the number of lanes; options.height is not used. start < end.
std::string svg_timeline(const std::vector<TimelineLane>& lanes, TrueTime start, TrueTime end,
                         const PlotOptions& options = {});

// Escapes text for XML character data and attribute values (& < > " '). Control
// characters that XML 1.0 forbids become U+FFFD, so any label yields well-formed markup.
std::string xml_escape(std::string_view text);

// The Okabe-Ito colour-blind-safe palette, reordered so the first colours contrast most on
// white; the index wraps around.
const std::string& palette_colour(std::size_t index);

// Chart markup from the functions above as a standalone .svg file (adds the XML
// declaration and the SVG namespace, which inline SVG in HTML5 does not need).
std::string svg_document(std::string_view svg);

}  // namespace hasim

// MetricsLegend: the colour scale of the graph's metrics overlay and the
// small legend drawn over the graph's corner. A metric's values are mapped
// to "attention" in [0, 1] (0 green: fast, near the copy bandwidth, few
// registers, no spills, the heuristic as good as tuned; 1 red: the
// opposite) and coloured along a light green-to-red ramp that keeps black
// labels readable; segments without the metric are grey.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include "app/gui/segment_metrics.h"

namespace fuserlab::gui {

//! How one metric's values map to attention, over the segments shown.
class MetricScale {
 public:
  MetricScale() = default;
  MetricScale(Metric metric, const SegmentMetricsMap& metrics);

  Metric metric() const { return metric_; }
  //! Whether any segment has the metric.
  bool empty() const { return !any_; }
  //! 0 (good) to 1 (look here) for `value`.
  double attention(double value) const;
  //! The fill of a segment with `value` (grey when there is none).
  QColor colour(std::optional<double> value) const;
  //! The values at the green and red ends, as the legend writes them.
  QString lowText() const;
  QString highText() const;

 private:
  QString format(double value) const;

  Metric metric_ = Metric::KernelTime;
  bool any_ = false;
  double low_ = 0;
  double high_ = 0;
};

//! The fill for attention `t` in [0, 1].
QColor attentionColour(double t);
//! The fill of a segment the overlay has no figure for.
QColor unmeasuredColour();

class MetricsLegend : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsLegend(QWidget* parent = nullptr);

  //! Shows `scale` (titled with its metric and where the figures came from).
  void setScale(const MetricScale& scale, const QString& origin);
  //! The legend's words: "kernel time (bench.json): green 3.1 us ... red 40 us".
  QString text() const { return text_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  MetricScale scale_;
  QString title_;
  QString text_;
};

}  // namespace fuserlab::gui

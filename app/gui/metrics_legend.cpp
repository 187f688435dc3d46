#include "app/gui/metrics_legend.h"

#include <QLinearGradient>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace fuserlab::gui {

MetricScale::MetricScale(Metric metric, const SegmentMetricsMap& metrics) : metric_(metric) {
  for (const auto& [segment, m] : metrics) {
    const std::optional<double> value = m.value(metric);
    if (!value) continue;
    low_ = any_ ? std::min(low_, *value) : *value;
    high_ = any_ ? std::max(high_, *value) : *value;
    any_ = true;
  }
}

double MetricScale::attention(double value) const {
  switch (metric_) {
    case Metric::KernelTime:
      // Relative: the slowest kernel shown is the one to look at.
      return high_ > low_ ? (value - low_) / (high_ - low_) : 0.5;
    case Metric::CopyBandwidth:
      // Absolute: 100% of the copy bandwidth is as good as it gets.
      return 1 - std::clamp(value / 100.0, 0.0, 1.0);
    case Metric::Registers:
      // 32 registers or fewer never limit occupancy; 255 is the most.
      return std::clamp((value - 32) / (255.0 - 32), 0.0, 1.0);
    case Metric::Spills: return value <= 0 ? 0 : std::clamp(0.5 + std::log2(value) / 16, 0.5, 1.0);
    case Metric::TunedSpeedup:
      // The heuristic leaves this much on the table: 2x and more is red.
      return std::clamp(value - 1, 0.0, 1.0);
  }
  return 0;
}

QColor MetricScale::colour(std::optional<double> value) const {
  return value ? attentionColour(attention(*value)) : unmeasuredColour();
}

QString MetricScale::format(double value) const {
  switch (metric_) {
    case Metric::KernelTime: return QString::fromStdString(microsecondsText(value));
    case Metric::CopyBandwidth: return QString("%1%").arg(value, 0, 'f', 0);
    case Metric::Registers: return QString("%1 regs").arg(value, 0, 'f', 0);
    case Metric::Spills: return QString("%1 B").arg(value, 0, 'f', 0);
    case Metric::TunedSpeedup: return QString("%1x").arg(value, 0, 'f', 2);
  }
  return {};
}

QString MetricScale::lowText() const {
  switch (metric_) {
    case Metric::KernelTime: return format(low_);
    case Metric::CopyBandwidth: return "100%";
    case Metric::Registers: return "32 regs";
    case Metric::Spills: return "no spills";
    case Metric::TunedSpeedup: return "1.00x";
  }
  return {};
}

QString MetricScale::highText() const {
  switch (metric_) {
    case Metric::KernelTime: return format(high_);
    case Metric::CopyBandwidth: return "0%";
    case Metric::Registers: return "255 regs";
    case Metric::Spills: return "spills";
    case Metric::TunedSpeedup: return "2.00x";
  }
  return {};
}

QColor attentionColour(double t) {
  // Hue 120 (green) to 0 (red), light enough for black text.
  return QColor::fromHsv(static_cast<int>(std::lround(120 * (1 - std::clamp(t, 0.0, 1.0)))), 110,
                         245);
}

QColor unmeasuredColour() { return QColor(225, 225, 225); }

MetricsLegend::MetricsLegend(QWidget* parent) : QWidget(parent) {
  setObjectName("metricsLegend");
  setAttribute(Qt::WA_TransparentForMouseEvents);
}

void MetricsLegend::setScale(const MetricScale& scale, const QString& origin) {
  scale_ = scale;
  title_ = QString::fromStdString(metricName(scale.metric())) +
           (origin.isEmpty() ? QString() : " (" + origin + ")");
  text_ = scale.empty() ? title_ + ": no segment has it"
                        : title_ + ": green " + scale.lowText() + " ... red " + scale.highText() +
                              "; grey: not measured";
  setToolTip(text_);
  resize(sizeHint());
  update();
}

QSize MetricsLegend::sizeHint() const {
  const QFontMetrics metrics(font());
  const int width = std::max(metrics.horizontalAdvance(title_), 150) + 12;
  return {width, metrics.lineSpacing() * 2 + 22};
}

void MetricsLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QRect area = rect().adjusted(0, 0, -1, -1);
  painter.setPen(QColor(150, 150, 150));
  painter.setBrush(QColor(255, 255, 255, 225));
  painter.drawRect(area);
  const QFontMetrics metrics(font());
  painter.setPen(Qt::black);
  painter.drawText(6, 3 + metrics.ascent(), title_);
  const QRect ramp(6, 6 + metrics.lineSpacing(), width() - 12, 10);
  if (scale_.empty()) {
    painter.fillRect(ramp, unmeasuredColour());
  } else {
    QLinearGradient gradient(ramp.topLeft(), ramp.topRight());
    for (double t : {0.0, 0.5, 1.0}) gradient.setColorAt(t, attentionColour(t));
    painter.fillRect(ramp, gradient);
  }
  const int baseline = ramp.bottom() + 2 + metrics.ascent();
  painter.drawText(6, baseline, scale_.lowText());
  const QString high = scale_.highText();
  painter.drawText(width() - 6 - metrics.horizontalAdvance(high), baseline, high);
}

}  // namespace fuserlab::gui

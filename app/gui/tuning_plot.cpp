#include "app/gui/tuning_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

namespace fuserlab::gui {
namespace {

QScatterSeries* makeSeries(const QString& name, const QColor& color, double size) {
  auto* series = new QScatterSeries;
  series->setName(name);
  series->setColor(color);
  series->setBorderColor(color.darker(140));
  series->setMarkerSize(size);
  return series;
}

}  // namespace

TuningPlot::TuningPlot(QWidget* parent)
    : QWidget(parent),
      xAxis_(new QComboBox(this)),
      view_(new QChartView(this)),
      chart_(new QChart),
      measured_(makeSeries("variants", QColor(70, 110, 200), 8)),
      default_(makeSeries("default (heuristic)", QColor(120, 120, 120), 10)),
      winner_(makeSeries("winner", QColor(220, 40, 40), 15)),
      axisX_(new QValueAxis),
      axisY_(new QValueAxis) {
  xAxis_->setObjectName("plotXAxis");
  view_->setObjectName("tuningPlot");
  chart_->addSeries(measured_);
  chart_->addSeries(default_);
  chart_->addSeries(winner_);
  axisX_->setTitleText("variant");
  axisX_->setLabelFormat("%d");
  axisY_->setTitleText("median time (us)");
  chart_->addAxis(axisX_, Qt::AlignBottom);
  chart_->addAxis(axisY_, Qt::AlignLeft);
  for (QScatterSeries* s : {measured_, default_, winner_}) {
    s->attachAxis(axisX_);
    s->attachAxis(axisY_);
  }
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  view_->setChart(chart_);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(180);

  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel("x axis:", this));
  row->addWidget(xAxis_);
  row->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(row);
  layout->addWidget(view_, 1);
  xAxis_->addItem("variant");
  connect(xAxis_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  redraw();  // the empty plot's axes, with whole-number ticks
}

void TuningPlot::reset(const SpaceTable& table) {
  knobs_ = table.knobs;
  values_.clear();
  mediansUs_.clear();
  defaults_.clear();
  winnerId_.reset();
  for (const auto& row : table.rows) {
    values_[row.id] = row.values;
    if (row.isDefault) defaults_.insert(row.id);
  }
  const QString previous = xAxis_->currentText();
  const QSignalBlocker blocker(xAxis_);
  xAxis_->clear();
  xAxis_->addItem("variant");
  for (const auto& knob : knobs_) xAxis_->addItem(QString::fromStdString(knob));
  const int keep = xAxis_->findText(previous);
  xAxis_->setCurrentIndex(keep >= 0 ? keep : 0);
  redraw();
}

void TuningPlot::addPoint(size_t id, double medianNs) {
  mediansUs_[id] = medianNs / 1000.0;
  redraw();
}

void TuningPlot::setWinner(std::optional<size_t> id) {
  winnerId_ = id;
  redraw();
}

void TuningPlot::setXAxis(const QString& name) {
  const int index = xAxis_->findText(name);
  if (index >= 0) xAxis_->setCurrentIndex(index);
}

int TuningPlot::pointCount() const {
  return static_cast<int>(measured_->count() + default_->count() + winner_->count());
}

void TuningPlot::redraw() {
  const QString axis = xAxis_->currentText();
  int knob = -1;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (QString::fromStdString(knobs_[k]) == axis) knob = static_cast<int>(k);
  }
  QList<QPointF> normal, defaults, winner;
  double xMin = 0, xMax = 1, yMax = 0;
  bool first = true;
  for (const auto& [id, us] : mediansUs_) {
    double x = static_cast<double>(id);
    if (knob >= 0) {
      const auto it = values_.find(id);
      if (it != values_.end() && knob < static_cast<int>(it->second.size())) {
        x = static_cast<double>(it->second[static_cast<size_t>(knob)]);
      }
    }
    const QPointF p(x, us);
    if (winnerId_ && *winnerId_ == id) {
      winner << p;
    } else if (defaults_.count(id)) {
      defaults << p;
    } else {
      normal << p;
    }
    xMin = first ? x : std::min(xMin, x);
    xMax = first ? x : std::max(xMax, x);
    yMax = std::max(yMax, us);
    first = false;
  }
  measured_->replace(normal);
  default_->replace(defaults);
  winner_->replace(winner);
  axisX_->setTitleText(axis.isEmpty() ? "variant" : axis);
  const double pad = std::max(0.5, (xMax - xMin) * 0.05);
  axisX_->setRange(xMin - pad, xMax + pad);
  // Whole-number ticks (variant numbers, knob values): a fixed count of
  // ticks over a short range printed as integers read "0 0 0 1 1".
  const double span = std::max(1.0, xMax - xMin);
  double step = 1;  // 1, 2, 5, 10, 20, 50, ...
  for (int k = 0; span / step > 8; ++k) step = (k % 3 == 1 ? 2.5 : 2.0) * step;
  axisX_->setTickType(QValueAxis::TicksDynamic);
  axisX_->setTickAnchor(std::floor(xMin));
  axisX_->setTickInterval(step);
  axisY_->setRange(0, yMax > 0 ? yMax * 1.1 : 1);
}

}  // namespace fuserlab::gui

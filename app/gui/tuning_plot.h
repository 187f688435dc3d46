// TuningPlot: the live scatter plot of a sweep (Qt Charts): every measured
// variant's median time (us) against its index or one knob's value (a combo
// picks which), the default and the winner drawn apart.
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/gui/tune_job.h"

class QChart;
class QChartView;
class QComboBox;
class QScatterSeries;
class QValueAxis;

namespace fuserlab::gui {

class TuningPlot : public QWidget {
  Q_OBJECT
 public:
  explicit TuningPlot(QWidget* parent = nullptr);

  //! Starts a new plot for `table`'s variants (none measured yet).
  void reset(const SpaceTable& table);
  //! Adds (or updates) variant `id`'s median.
  void addPoint(size_t id, double medianNs);
  void setWinner(std::optional<size_t> id);

  //! The x axis: "variant" or a knob name.
  void setXAxis(const QString& name);
  QComboBox* xAxisBox() const { return xAxis_; }
  QValueAxis* xScale() const { return axisX_; }
  //! Points plotted in every series together.
  int pointCount() const;
  QScatterSeries* winnerSeries() const { return winner_; }
  QChartView* view() const { return view_; }

 private:
  void redraw();

  QComboBox* xAxis_;
  QChartView* view_;
  QChart* chart_;
  QScatterSeries* measured_;
  QScatterSeries* default_;
  QScatterSeries* winner_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  std::vector<std::string> knobs_;
  std::map<size_t, std::vector<int64_t>> values_;  //!< knob values per variant
  std::map<size_t, double> mediansUs_;
  std::set<size_t> defaults_;
  std::optional<size_t> winnerId_;
};

}  // namespace fuserlab::gui

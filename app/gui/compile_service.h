// CompileService: runs CompileJobs off the GUI thread (QtConcurrent) and
// hands each finished snapshot over by signal. Only the newest request's
// result is delivered: a result that arrives after a later request was made
// is stale and dropped, so flipping switches quickly never shows an old
// state last.
#pragma once

#include <QObject>
#include <memory>

#include "app/gui/compile_job.h"

namespace fuserlab::gui {

using SnapshotPtr = std::shared_ptr<const CompileSnapshot>;

class CompileService : public QObject {
  Q_OBJECT
 public:
  explicit CompileService(QObject* parent = nullptr);

  //! Starts compiling `request`; supersedes any request still running.
  void request(CompileRequest request);
  bool busy() const { return running_ > 0; }
  //! The latest delivered snapshot (null before the first).
  SnapshotPtr latest() const { return latest_; }

 signals:
  void started();
  void finished(fuserlab::gui::SnapshotPtr snapshot);

 private:
  quint64 generation_ = 0;
  int running_ = 0;
  SnapshotPtr latest_;
};

}  // namespace fuserlab::gui

Q_DECLARE_METATYPE(fuserlab::gui::SnapshotPtr)

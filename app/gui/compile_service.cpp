#include "app/gui/compile_service.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "app/gui/background_jobs.h"

namespace fuserlab::gui {

CompileService::CompileService(QObject* parent) : QObject(parent) {
  qRegisterMetaType<SnapshotPtr>();
}

void CompileService::request(CompileRequest request) {
  const quint64 generation = ++generation_;
  ++running_;
  auto* watcher = new QFutureWatcher<SnapshotPtr>(this);
  connect(watcher, &QFutureWatcher<SnapshotPtr>::finished, this, [this, watcher, generation] {
    --running_;
    SnapshotPtr snapshot = watcher->result();
    watcher->deleteLater();
    if (generation != generation_) return;  // stale: a newer one runs
    latest_ = snapshot;
    emit finished(snapshot);
  });
  watcher->setFuture(QtConcurrent::run(backgroundJobs(), [request = std::move(request)] {
    return SnapshotPtr(std::make_shared<CompileSnapshot>(runCompileJob(request)));
  }));
  emit started();
}

}  // namespace fuserlab::gui

#include "app/gui/background_jobs.h"

#include <QThread>
#include <algorithm>

namespace fuserlab::gui {

QThreadPool* backgroundJobs() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool();
    p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
    return p;
  }();
  return pool;
}

}  // namespace fuserlab::gui
